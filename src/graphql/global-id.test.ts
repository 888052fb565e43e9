import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeGlobalId, encodeGlobalId, newRowKey } from "./global-id.ts";

test("a global id is base64 of Type:key, as the contract's ids are", () => {
  const id = encodeGlobalId("AnalysisRun", "xzdgvb");
  assert.equal(id, "QW5hbHlzaXNSdW46eHpkZ3Zi");
  assert.deepEqual(decodeGlobalId(id), { typeName: "AnalysisRun", key: "xzdgvb" });
});

test("row keys are 10 lowercase alphanumerics and do not repeat", () => {
  const keys = new Set(Array.from({ length: 5000 }, newRowKey));
  assert.equal(keys.size, 5000);
  for (const key of keys) assert.match(key, /^[a-z0-9]{10}$/);
});

test("malformed ids decode to undefined instead of throwing", () => {
  for (const bad of [
    "",
    "not base64!",
    "Zm9v",
    encodeGlobalId("user", "abc123"),
    encodeGlobalId("User", "1"),
    "=".repeat(4),
    "a".repeat(200),
  ]) {
    assert.equal(decodeGlobalId(bad), undefined, bad);
  }
});

test("a key with characters outside the alphabet is refused", () => {
  assert.equal(decodeGlobalId(Buffer.from("User:abc'; drop").toString("base64")), undefined);
  assert.equal(decodeGlobalId(Buffer.from("User:ABCDEF").toString("base64")), undefined);
});
