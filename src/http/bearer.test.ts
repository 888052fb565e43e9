import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseBearer } from "./bearer.ts";

describe("parseBearer", () => {
  test("a Bearer credential is extracted whatever the case of the scheme", () => {
    assert.equal(parseBearer("Bearer x"), "x");
    assert.equal(parseBearer("bearer x"), "x");
    assert.equal(parseBearer("BEARER x"), "x");
    assert.equal(parseBearer("Bearer assay_pat_0A1b2C3d"), "assay_pat_0A1b2C3d");
  });

  test("surrounding whitespace and several separating spaces are accepted, as RFC 6750's 1*SP allows", () => {
    assert.equal(parseBearer("Bearer  x "), "x");
    assert.equal(parseBearer("  Bearer x\t"), "x");
  });

  test("other schemes are refused", () => {
    assert.equal(parseBearer("Token x"), null);
    assert.equal(parseBearer("Basic dXNlcjpwYXNz"), null);
    assert.equal(parseBearer("Bearerx"), null);
    assert.equal(parseBearer("x"), null);
  });

  test("a scheme without exactly one credential is refused", () => {
    assert.equal(parseBearer("Bearer"), null);
    assert.equal(parseBearer("Bearer "), null);
    assert.equal(parseBearer("Bearer a b"), null);
    assert.equal(parseBearer("Bearer a, Basic b"), null);
    assert.equal(parseBearer("Bearer\tx"), null);
  });

  test("a missing or empty header is refused", () => {
    assert.equal(parseBearer(undefined), null);
    assert.equal(parseBearer(""), null);
    assert.equal(parseBearer("   "), null);
  });

  test("characters outside RFC 6750's b64token are refused", () => {
    assert.equal(parseBearer("Bearer tök"), null);
    assert.equal(parseBearer("Bearer a\u0000b"), null);
    assert.equal(parseBearer("Bearer =abc"), null);
    assert.equal(parseBearer("Bearer abc=="), "abc==");
  });
});
