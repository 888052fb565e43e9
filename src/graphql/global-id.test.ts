import assert from "node:assert/strict";
import { test } from "node:test";
import {
  decodeGlobalId,
  encodeGlobalId,
  newOrderedRowKey,
  newRowKey,
  OrderedKeySource,
} from "./global-id.ts";

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

test("ordered keys ascend in the order they are made, within a millisecond and across them", () => {
  let now = Date.UTC(2026, 10, 30);
  const source = new OrderedKeySource("ab12", () => now);
  const keys: string[] = [];
  for (let i = 0; i < 3000; i += 1) {
    keys.push(source.next());
    if (i % 1000 === 999) now += 1;
  }
  assert.deepEqual([...keys].sort(), keys);
  assert.equal(new Set(keys).size, keys.length);
  for (const key of keys) {
    assert.match(key, /^[a-z0-9]{9}ab12[a-z0-9]{4}$/);
    assert.deepEqual(decodeGlobalId(encodeGlobalId("Occurrence", key)), { typeName: "Occurrence", key });
  }
  // the counter goes on across milliseconds: a clock set back does not repeat a key
  now -= 3;
  assert.ok(!keys.includes(source.next()));
});

test("two sources made in the same millisecond give different keys; a tag must be 4 key characters", () => {
  const clock = () => 1_764_460_800_000;
  const one = new OrderedKeySource("aaaa", clock);
  const two = new OrderedKeySource("aaab", clock);
  const keys = Array.from({ length: 100 }, (_, i) => (i % 2 ? one : two).next());
  assert.equal(new Set(keys).size, 100);
  assert.throws(() => new OrderedKeySource("AB12"), /tag is 4 characters/);
  assert.throws(() => new OrderedKeySource("abc"), /tag is 4 characters/);
});

test("this process's ordered keys ascend with the clock and are 17 key characters", () => {
  const keys = Array.from({ length: 5000 }, newOrderedRowKey);
  assert.deepEqual([...keys].sort(), keys);
  assert.equal(new Set(keys).size, 5000);
  for (const key of keys) assert.match(key, /^[a-z0-9]{17}$/);
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
