import assert from "node:assert/strict";
import { test } from "node:test";
import {
  decryptSecret,
  encryptSecret,
  generateSecret,
  SecretUnreadableError,
  secretLastFour,
  secretProblem,
} from "./secrets.ts";

const PEPPER = "unit-test-pepper-0123456789";

test("generated secrets are whsec_ and 32 base64url characters, different every time", () => {
  const a = generateSecret();
  assert.match(a, /^whsec_[A-Za-z0-9_-]{32}$/);
  assert.notEqual(a, generateSecret());
  assert.equal(secretProblem(a), undefined);
});

test("secrets of 16 to 256 printable characters without spaces are accepted", () => {
  assert.equal(secretProblem("x".repeat(16)), undefined);
  assert.equal(secretProblem("x".repeat(256)), undefined);
  assert.match(secretProblem("x".repeat(15)) ?? "", /16 to 256/);
  assert.match(secretProblem("x".repeat(257)) ?? "", /16 to 256/);
  assert.match(secretProblem("sixteen chars ok") ?? "", /printable/);
  assert.match(secretProblem("tab\tseparated-secret") ?? "", /printable/);
  assert.match(secretProblem("ünïcödé-secret-123") ?? "", /printable/);
  assert.equal(secretLastFour("abcdefgh12345678"), "5678");
});

test("a secret decrypts only for its endpoint and under the pepper it was encrypted with", () => {
  const stored = encryptSecret("my-secret-0123456789", "endpointa1", PEPPER);
  assert.ok(!stored.includes(Buffer.from("my-secret-0123456789")));
  assert.equal(decryptSecret(stored, "endpointa1", PEPPER), "my-secret-0123456789");
  assert.notDeepEqual(
    encryptSecret("my-secret-0123456789", "endpointa1", PEPPER),
    stored,
    "a fresh nonce each time",
  );
  assert.throws(() => decryptSecret(stored, "endpointb2", PEPPER), SecretUnreadableError);
  assert.throws(() => decryptSecret(stored, "endpointa1", `${PEPPER}-rotated`), /ASSAY_TOKEN_PEPPER/);
  const tampered = Buffer.from(stored);
  tampered[tampered.length - 1]! ^= 1;
  assert.throws(() => decryptSecret(tampered, "endpointa1", PEPPER), SecretUnreadableError);
});
