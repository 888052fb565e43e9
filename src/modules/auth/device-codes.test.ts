import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  formatUserCode,
  generateDeviceCode,
  generateUserCode,
  isWellFormedDeviceCode,
  normaliseUserCode,
  USER_CODE_ALPHABET,
  USER_CODE_LENGTH,
} from "./device-codes.ts";

describe("device codes", () => {
  test("device codes are well-formed and distinct over 1,000 draws", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const code = generateDeviceCode();
      assert.ok(isWellFormedDeviceCode(code), code);
      seen.add(code);
    }
    assert.equal(seen.size, 1000);
  });

  test("anything else is not a device code, without throwing", () => {
    const code = generateDeviceCode();
    for (const value of [
      code.slice(0, -1),
      `${code}A`,
      code.replace("assay_dc_", "assay_pt_"),
      `${code.slice(0, -1)}=`,
      "",
      null,
      42,
    ]) {
      assert.equal(isWellFormedDeviceCode(value), false, String(value));
    }
  });
});

describe("user codes", () => {
  test("user codes are eight letters of the alphabet, shown as two groups of four", () => {
    for (let i = 0; i < 500; i++) {
      const code = generateUserCode();
      assert.match(code, /^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
      assert.match(formatUserCode(code), /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
      assert.equal(normaliseUserCode(formatUserCode(code)), code);
    }
  });

  test("each letter appears within 3% of its share over 400,000 letters", () => {
    // 50,000 codes x 8 letters: 20,000 expected per letter, sigma ~138, so 3% (600) is over 4
    // sigma. Plain `byte % 20` would give the last four letters only 12 of 256 byte values against
    // 13 for the rest, putting them ~6% under their share: this catches it.
    const counts = new Map<string, number>();
    for (let i = 0; i < 50_000; i++) {
      for (const char of generateUserCode()) counts.set(char, (counts.get(char) ?? 0) + 1);
    }
    assert.equal(counts.size, USER_CODE_ALPHABET.length);
    for (const [char, count] of counts) assert.ok(Math.abs(count - 20_000) < 600, `${char}: ${count}`);
  });

  test("case, spaces and hyphens do not matter when a person types a code", () => {
    for (const typed of ["BCDF-GHJK", "bcdf-ghjk", "bcdfghjk", " BCDF GHJK ", "bc-df-gh-jk"]) {
      assert.equal(normaliseUserCode(typed), "BCDFGHJK", typed);
    }
  });

  test("wrong lengths, vowels, digits and other characters are refused", () => {
    for (const typed of [
      "BCDF-GHJ",
      "BCDF-GHJKL",
      "ABCD-EFGH",
      "BCDF-GHJ0",
      "BCDF_GHJK",
      "",
      "x".repeat(100),
      null,
      7,
    ]) {
      assert.equal(normaliseUserCode(typed), null, String(typed));
    }
    assert.equal(USER_CODE_LENGTH, 8);
  });
});
