import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  generatePat,
  hashPat,
  identityCacheKey,
  isWellFormedPat,
  PAT_LENGTH,
  PAT_PREFIX,
  patHashesEqual,
  redactPat,
} from "./pat.ts";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_START = PAT_PREFIX.length;
const RANDOM_END = PAT_LENGTH - 6;

// Checksums computed independently with Node 20.20's zlib.crc32. They pin the format: a change to
// the checksum would make every token already handed out look mistyped.
const KNOWN_TOKENS = [
  "assay_pat_000000000000000000000000000000004GXnEQ",
  "assay_pat_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123452pTDXT",
];
const KNOWN_TOKEN = KNOWN_TOKENS[0]!;

function replaceAt(text: string, index: number, replacement: string): string {
  return text.slice(0, index) + replacement + text.slice(index + 1);
}

describe("generatePat", () => {
  test("generated tokens are well-formed and distinct over 1,000 draws", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const { token } = generatePat();
      assert.equal(token.length, PAT_LENGTH);
      assert.ok(token.startsWith(PAT_PREFIX));
      assert.ok(isWellFormedPat(token), token);
      seen.add(token);
    }
    assert.equal(seen.size, 1000);
  });

  test("everything after the prefix is base62 only", () => {
    for (let i = 0; i < 200; i++) {
      assert.match(generatePat().token.slice(PAT_PREFIX.length), /^[0-9A-Za-z]{38}$/);
    }
  });

  test("lastFour is the last four characters of the token", () => {
    const { token, lastFour } = generatePat();
    assert.equal(lastFour, token.slice(-4));
  });

  test("each base62 character appears within 15% of its expected share over 100,000 random characters", () => {
    // 3,125 tokens x 32 random characters = 100,000. The expected count is ~1,613 with a standard
    // deviation of ~40, so ±15% is ~6 sigma: noise never trips it, but `byte % 62` (which makes
    // '0'..'7' ~21% too common) always does.
    const counts = new Map<string, number>();
    for (let i = 0; i < 3125; i++) {
      for (const char of generatePat().token.slice(RANDOM_START, RANDOM_END)) {
        counts.set(char, (counts.get(char) ?? 0) + 1);
      }
    }
    const expected = 100_000 / 62;
    assert.equal(counts.size, 62);
    for (const char of BASE62) {
      const count = counts.get(char) ?? 0;
      assert.ok(
        Math.abs(count - expected) <= expected * 0.15,
        `${char} appeared ${count} times, expected about ${Math.round(expected)}`,
      );
    }
  });
});

describe("isWellFormedPat", () => {
  test("tokens minted with the pinned checksum format stay well-formed", () => {
    for (const token of KNOWN_TOKENS) assert.ok(isWellFormedPat(token), token);
  });

  test("substituting any single character with a different base62 character makes a token ill-formed", () => {
    const tokens = [KNOWN_TOKEN, ...Array.from({ length: 5 }, () => generatePat().token)];
    for (const token of tokens) {
      for (let i = 0; i < token.length; i++) {
        for (const replacement of BASE62) {
          if (replacement === token[i]) continue;
          const typo = replaceAt(token, i, replacement);
          assert.equal(isWellFormedPat(typo), false, `${typo} (position ${i}) was accepted`);
        }
      }
    }
  });

  test("swapping two adjacent different characters makes a token ill-formed", () => {
    const token = generatePat().token;
    for (let i = RANDOM_START; i < PAT_LENGTH - 1; i++) {
      if (token[i] === token[i + 1]) continue;
      const swapped = token.slice(0, i) + token[i + 1] + token[i] + token.slice(i + 2);
      assert.equal(isWellFormedPat(swapped), false, `swap at ${i} was accepted`);
    }
  });

  test("a wrong prefix is rejected even with a matching length", () => {
    const rest = KNOWN_TOKEN.slice(PAT_PREFIX.length);
    assert.equal(isWellFormedPat(`ASSAY_PAT_${rest}`), false);
    assert.equal(isWellFormedPat(`assay_key_${rest}`), false);
    assert.equal(isWellFormedPat(`ghp_xxxxxx${rest}`), false);
  });

  test("a wrong length is rejected", () => {
    assert.equal(isWellFormedPat(KNOWN_TOKEN.slice(0, -1)), false);
    assert.equal(isWellFormedPat(`${KNOWN_TOKEN}0`), false);
    assert.equal(isWellFormedPat(`0${KNOWN_TOKEN}`), false);
    assert.equal(isWellFormedPat(PAT_PREFIX), false);
    assert.equal(isWellFormedPat(` ${KNOWN_TOKEN}`.slice(0, PAT_LENGTH)), false);
  });

  test("non-ASCII characters are rejected", () => {
    const at = RANDOM_START + 3;
    assert.equal(isWellFormedPat(replaceAt(KNOWN_TOKEN, at, "é")), false);
    // Fullwidth digit zero: a look-alike that a Unicode-aware class would accept.
    assert.equal(isWellFormedPat(replaceAt(KNOWN_TOKEN, at, "\uff10")), false);
    // An astral emoji is two UTF-16 units; drop another character so the length still matches.
    const emoji = `${KNOWN_TOKEN.slice(0, at)}😀${KNOWN_TOKEN.slice(at + 2)}`;
    assert.equal(emoji.length, PAT_LENGTH);
    assert.equal(isWellFormedPat(emoji), false);
    assert.equal(isWellFormedPat(replaceAt(KNOWN_TOKEN, at, "\u0000")), false);
  });

  test("empty, huge and non-string inputs answer false without throwing", () => {
    assert.equal(isWellFormedPat(""), false);
    assert.equal(isWellFormedPat(KNOWN_TOKEN.repeat(100_000)), false);
    assert.equal(isWellFormedPat("\ud800".repeat(PAT_LENGTH)), false);
    for (const value of [undefined, null, 42, {}, ["assay_pat_"]]) {
      assert.equal(isWellFormedPat(value as unknown as string), false);
    }
  });
});

describe("hashPat", () => {
  test("the hash is 32 bytes and deterministic for one pepper", () => {
    const { token } = generatePat();
    const first = hashPat(token, "pepper-one");
    assert.equal(first.length, 32);
    assert.deepEqual(hashPat(token, "pepper-one"), first);
  });

  test("the hash is HMAC-SHA256 of the token keyed with the pepper", () => {
    // Pinned so stored hashes keep matching after a refactor.
    assert.equal(
      hashPat(KNOWN_TOKEN, "pepper-one").toString("hex"),
      "05caeb2200fce2dedd23925bb10184ef483e726163182bcdfb83479dc2ca6419",
    );
  });

  test("the same token hashes differently under different peppers", () => {
    const { token } = generatePat();
    assert.notDeepEqual(hashPat(token, "pepper-one"), hashPat(token, "pepper-two"));
  });

  test("different tokens hash differently under one pepper", () => {
    assert.notDeepEqual(hashPat(generatePat().token, "p"), hashPat(generatePat().token, "p"));
  });

  test("an empty pepper is refused", () => {
    assert.throws(() => hashPat(KNOWN_TOKEN, ""), TypeError);
  });
});

describe("patHashesEqual", () => {
  test("equal hashes compare equal and a one-bit difference does not", () => {
    const hash = hashPat(KNOWN_TOKEN, "pepper-one");
    assert.equal(patHashesEqual(hash, Buffer.from(hash)), true);
    const flipped = Buffer.from(hash);
    flipped[31] = flipped[31]! ^ 1;
    assert.equal(patHashesEqual(hash, flipped), false);
  });

  test("hashes of different lengths compare unequal instead of throwing", () => {
    const hash = hashPat(KNOWN_TOKEN, "pepper-one");
    assert.equal(patHashesEqual(hash, hash.subarray(0, 31)), false);
    assert.equal(patHashesEqual(Buffer.alloc(0), hash), false);
    assert.equal(patHashesEqual(Buffer.alloc(0), Buffer.alloc(0)), true);
  });
});

describe("redactPat", () => {
  test("a token is shown as its prefix and last four characters", () => {
    assert.equal(redactPat(KNOWN_TOKEN), "assay_pat_…XnEQ");
    const { token, lastFour } = generatePat();
    assert.equal(redactPat(token), `${PAT_PREFIX}…${lastFour}`);
    assert.ok(!redactPat(token).includes(token.slice(RANDOM_START, RANDOM_END)));
  });

  test("input shorter than a token shows no tail", () => {
    assert.equal(redactPat("abcd"), `${PAT_PREFIX}…`);
    assert.equal(redactPat(""), `${PAT_PREFIX}…`);
  });
});

describe("identityCacheKey", () => {
  test("is the SHA-256 digest of the token, so it names one token and holds none", () => {
    // The digest of "abc" from FIPS 180-2's examples, in base64.
    assert.equal(identityCacheKey("abc"), "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
    const { token } = generatePat();
    const key = identityCacheKey(token);
    // Change the last character to one it is not (a token may end in any base62 character).
    const other = token.endsWith("x") ? "y" : "x";
    assert.notEqual(key, identityCacheKey(`${token.slice(0, -1)}${other}`));
    assert.ok(!key.includes(token.slice(PAT_PREFIX.length, PAT_PREFIX.length + 8)));
  });
});
