import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, test } from "node:test";
import { looksLikeJwt, type SessionClaims, signSessionJwt, verifySessionJwt } from "./session-jwt.ts";

const SECRET = "a-session-secret-of-at-least-32-characters";
const NOW = 1_800_000_000;
const CLAIMS: SessionClaims = {
  sub: "VXNlcjphYmM=",
  email: "ada@example.test",
  sid: "s3ss10n",
  iat: NOW,
  exp: NOW + 900,
  jti: "9b2f4c1e-0000-4000-8000-000000000000",
};

function part(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/** A token with any header and payload, signed correctly with `secret`. */
function signedWith(header: unknown, payload: unknown, secret = SECRET): string {
  const input = `${part(header)}.${part(payload)}`;
  return `${input}.${createHmac("sha256", secret).update(input).digest("base64url")}`;
}

describe("signSessionJwt and verifySessionJwt", () => {
  test("a signed token verifies to its claims until its exp", () => {
    const token = signSessionJwt(CLAIMS, SECRET);
    assert.deepEqual(verifySessionJwt(token, SECRET, NOW), CLAIMS);
    assert.deepEqual(verifySessionJwt(token, SECRET, NOW + 899), CLAIMS);
    assert.equal(verifySessionJwt(token, SECRET, NOW + 900), "expired");
  });

  test("the header is HS256 JWT and the signature is HMAC-SHA256 of header.payload (RFC 7515)", () => {
    const token = signSessionJwt(CLAIMS, SECRET);
    const [header, payload, signature] = token.split(".");
    assert.deepEqual(JSON.parse(Buffer.from(header ?? "", "base64url").toString()), {
      alg: "HS256",
      typ: "JWT",
    });
    assert.deepEqual(JSON.parse(Buffer.from(payload ?? "", "base64url").toString()), CLAIMS);
    assert.equal(signature, createHmac("sha256", SECRET).update(`${header}.${payload}`).digest("base64url"));
  });

  test("another key, a changed payload or a changed signature is a bad signature", () => {
    const token = signSessionJwt(CLAIMS, SECRET);
    assert.equal(verifySessionJwt(token, `${SECRET}!`, NOW), "bad-signature");
    const [header, , signature] = token.split(".");
    const tampered = `${header}.${part({ ...CLAIMS, email: "eve@example.test" })}.${signature}`;
    assert.equal(verifySessionJwt(tampered, SECRET, NOW), "bad-signature");
    const last = signature?.at(-1) === "A" ? "B" : "A";
    assert.equal(verifySessionJwt(token.slice(0, -1) + last, SECRET, NOW), "bad-signature");
    assert.equal(verifySessionJwt(`${token.split(".").slice(0, 2).join(".")}.`, SECRET, NOW), "malformed");
  });

  test("an expired token with a bad signature reads as a bad signature, not as expired", () => {
    const token = signSessionJwt({ ...CLAIMS, exp: NOW - 1 }, "another-secret-of-at-least-32-characters");
    assert.equal(verifySessionJwt(token, SECRET, NOW), "bad-signature");
  });

  test("only the HS256 header is accepted, however the rest is signed", () => {
    for (const header of [
      { alg: "none" },
      { alg: "HS512", typ: "JWT" },
      { alg: "hs256" },
      { typ: "JWT" },
      { alg: "HS256", typ: "JWE" },
      { alg: "HS256", kid: "x" },
    ]) {
      assert.equal(
        verifySessionJwt(signedWith(header, CLAIMS), SECRET, NOW),
        "malformed",
        JSON.stringify(header),
      );
    }
    assert.deepEqual(verifySessionJwt(signedWith({ alg: "HS256" }, CLAIMS), SECRET, NOW), CLAIMS);
  });

  test("claims missing or of the wrong type are refused even when correctly signed", () => {
    const { email: _email, ...withoutEmail } = CLAIMS;
    for (const payload of [
      withoutEmail,
      { ...CLAIMS, exp: String(CLAIMS.exp) },
      { ...CLAIMS, iat: 1.5 },
      [],
      "text",
      null,
    ]) {
      assert.equal(
        verifySessionJwt(signedWith({ alg: "HS256", typ: "JWT" }, payload), SECRET, NOW),
        "malformed",
      );
    }
  });

  test("anything that is not a compact JWT is malformed, without throwing", () => {
    for (const value of [
      "",
      "a.b",
      "a.b.c.d",
      "a..c",
      "a.b.c=",
      "é.b.c",
      "x".repeat(5000),
      undefined,
      null,
      42,
      {},
    ]) {
      assert.equal(verifySessionJwt(value, SECRET, NOW), "malformed", String(value));
    }
  });

  test("an empty secret is refused when signing", () => {
    assert.throws(() => signSessionJwt(CLAIMS, ""), TypeError);
  });
});

describe("looksLikeJwt", () => {
  test("three base64url parts look like a JWT; a personal access token does not", () => {
    assert.equal(looksLikeJwt(signSessionJwt(CLAIMS, SECRET)), true);
    assert.equal(looksLikeJwt("assay_pat_000000000000000000000000000000004GXnEQ"), false);
    assert.equal(looksLikeJwt("a.b"), false);
    assert.equal(looksLikeJwt("a.b.c.d"), false);
  });
});
