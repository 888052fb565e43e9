import { randomBytes } from "node:crypto";

/**
 * The two codes of a device login (RFC 8628 §3.2): the device code, a secret the client polls
 * with, and the user code, a short code a person reads off one screen and types or pastes into
 * another. Pure functions; the store keeps only keyed hashes of both.
 */

/** Every device code starts with this, so secret scanners and people can recognise one. */
export const DEVICE_CODE_PREFIX = "assay_dc_";

// 32 random bytes, base64url without padding: 43 characters, 256 bits.
const DEVICE_CODE_PATTERN = /^assay_dc_[A-Za-z0-9_-]{43}$/;

/**
 * Upper-case consonants, the alphabet RFC 8628 §6.1 suggests: no vowels, so no words, and no
 * digits, so no 0/O or 1/I mix-ups. 20 symbols over 8 characters is about 34.6 bits, plenty for a
 * code that lives 15 minutes and can only be tried by signed-in users under the per-user limit.
 */
export const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";

/** Characters in a user code, not counting the separator. */
export const USER_CODE_LENGTH = 8;

// 20 * 12 = 240: bytes 240..255 are redrawn so each symbol keeps exactly 12 byte values.
const REJECT_AT = 240;

/** A new device code: the prefix and 256 random bits. */
export function generateDeviceCode(): string {
  return DEVICE_CODE_PREFIX + randomBytes(32).toString("base64url");
}

/** True when `code` has the exact shape of a device code we mint. Never throws. */
export function isWellFormedDeviceCode(code: unknown): code is string {
  return typeof code === "string" && DEVICE_CODE_PATTERN.test(code);
}

/** A new user code in its normalised form (8 letters, no separator); show it with {@link formatUserCode}. */
export function generateUserCode(): string {
  let out = "";
  while (out.length < USER_CODE_LENGTH) {
    for (const byte of randomBytes(USER_CODE_LENGTH + 4)) {
      if (byte >= REJECT_AT) continue;
      out += USER_CODE_ALPHABET.charAt(byte % USER_CODE_ALPHABET.length);
      if (out.length === USER_CODE_LENGTH) break;
    }
  }
  return out;
}

/** The way people see a user code: two groups of four, `BCDF-GHJK`. */
export function formatUserCode(normalised: string): string {
  return `${normalised.slice(0, 4)}-${normalised.slice(4)}`;
}

/**
 * A user code as typed by a person, normalised for lookup: case, spaces and hyphens do not
 * matter (`bcdf ghjk`, `BCDF-GHJK` and `bcdfghjk` are one code). Null when what is left is not 8
 * characters of the alphabet, so a typo never reaches the database.
 */
export function normaliseUserCode(input: unknown): string | null {
  if (typeof input !== "string" || input.length > 64) return null;
  const compact = input.toUpperCase().replace(/[\s-]/g, "");
  if (compact.length !== USER_CODE_LENGTH) return null;
  for (const char of compact) if (!USER_CODE_ALPHABET.includes(char)) return null;
  return compact;
}
