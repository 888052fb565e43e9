import crypto, { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Personal access tokens: minting, shape checks, hashing and header parsing. Pure functions; the
 * store keeps only {@link hashPat} of a token plus its last four characters (as Outline does for
 * API keys), so a database leak does not leak usable tokens.
 *
 * Shape: `assay_pat_` + 32 random base62 characters + a 6-character base62 CRC32 of everything
 * before it. The prefix lets secret scanners and humans recognise a token; the checksum lets us
 * reject a mistyped or truncated token (and lets scanners cut false positives) without touching
 * the database.
 */

/** Every token starts with this, so it can be recognised in logs, configs and leaked pastes. */
export const PAT_PREFIX = "assay_pat_";

const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;

/** Exact length of every well-formed token (prefix + random part + checksum). */
export const PAT_LENGTH = PAT_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// 62 * 4 = 248: bytes 248..255 are redrawn, so each of the 62 symbols keeps exactly 4 of the 248
// accepted byte values. Plain `byte % 62` would make '0'..'7' about 25% likelier than the rest.
const REJECT_AT = 248;

// ASCII alphanumerics only: this also rejects non-ASCII look-alikes, and makes the latin1 encoding
// in checksumOf lossless.
const BODY_PATTERN = /^[0-9A-Za-z]+$/;

/**
 * Mints a new token. `lastFour` is what the store keeps next to the hash so a user can tell their
 * tokens apart; it comes from the checksum, which is derived from (not part of) the random secret.
 */
export function generatePat(): { token: string; lastFour: string } {
  const body = PAT_PREFIX + randomBase62(RANDOM_LENGTH);
  const token = body + checksumOf(body);
  return { token, lastFour: token.slice(-4) };
}

/**
 * True when `token` has the exact shape of a token we mint and its checksum matches. Never throws,
 * whatever it is given, because it runs on untrusted header values before anything else.
 */
export function isWellFormedPat(token: string): boolean {
  // The type says string, but this guards the front door: callers may pass anything at runtime.
  if (typeof token !== "string" || token.length !== PAT_LENGTH) return false;
  if (!token.startsWith(PAT_PREFIX)) return false;
  const rest = token.slice(PAT_PREFIX.length);
  if (!BODY_PATTERN.test(rest)) return false;
  const body = token.slice(0, PAT_LENGTH - CHECKSUM_LENGTH);
  return checksumOf(body) === token.slice(PAT_LENGTH - CHECKSUM_LENGTH);
}

/**
 * The 32-byte value stored for a token and used as its unique lookup key: HMAC-SHA256 keyed with
 * the server pepper (`ASSAY_TOKEN_PEPPER`). Keying means a leaked table cannot be checked against
 * guessed tokens without the pepper too. Tokens carry ~190 bits of randomness, so a slow password
 * hash would add cost and no safety. Throws on an empty pepper: that is a deployment bug, and
 * hashes written with it would all have to be thrown away once it is fixed.
 */
export function hashPat(token: string, pepper: string): Buffer {
  if (pepper.length === 0) throw new TypeError("hashPat: the token pepper must not be empty");
  return createHmac("sha256", pepper).update(token, "utf8").digest();
}

// `crypto.hash` exists from Node 20.12; `engines` allows 20.11.
const oneShotSha256 = (crypto as { hash?: (algorithm: string, data: string, encoding: "base64") => string })
  .hash;

/**
 * The key a checked token is remembered under in this process's identity cache: a SHA-256 digest
 * of it. Unkeyed, since it never leaves the process and the token itself carries ~190 random bits;
 * what matters is that it costs a tenth of {@link hashPat} (one call into OpenSSL instead of an
 * HMAC object per request) and that the cache holds no usable token.
 */
export function identityCacheKey(token: string): string {
  return oneShotSha256
    ? oneShotSha256("sha256", token, "base64")
    : createHash("sha256").update(token).digest("base64");
}

/**
 * Compares two token hashes in constant time. Different lengths answer false rather than throwing
 * (as `timingSafeEqual` would); the length of a hash is not a secret.
 */
export function patHashesEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A token safe to print: the prefix, an ellipsis and the last four characters, e.g.
 * `assay_pat_…a1B2`. Input shorter than a real token shows no tail, since four characters could
 * then be most of a secret.
 */
export function redactPat(token: string): string {
  const tail = token.length >= PAT_LENGTH ? token.slice(-4) : "";
  return `${PAT_PREFIX}…${tail}`;
}

function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    // Draw a little extra so one call usually suffices despite the ~3% rejected bytes.
    for (const byte of randomBytes(length - out.length + 8)) {
      if (byte >= REJECT_AT) continue;
      out += BASE62.charAt(byte % 62);
      if (out.length === length) break;
    }
  }
  return out;
}

function checksumOf(body: string): string {
  let value = crc32(Buffer.from(body, "latin1"));
  let out = "";
  // 62^6 > 2^32, so six digits always hold a CRC32; the '0' digit doubles as left padding.
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62.charAt(value % 62) + out;
    value = Math.floor(value / 62);
  }
  return out;
}

// Our own CRC32 rather than zlib.crc32: that only exists from Node 20.15 and `engines` allows 20.11.
// CRC-32/ISO-HDLC (reflected, polynomial 0xEDB88320), the one zlib and PNG use. It detects every
// burst error up to 32 bits, so any single-character substitution in the body changes it.
const CRC_TABLE = buildCrcTable();

function buildCrcTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
