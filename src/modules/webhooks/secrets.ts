import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * Endpoint secrets (docs/webhooks.md "Storing the secret"). Signing needs the secret itself, so
 * it is stored encrypted with AES-256-GCM under a key derived from the token pepper, with the
 * endpoint's key as additional authenticated data: a ciphertext only decrypts for its endpoint.
 */

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_INFO = "assay webhook secret v1";

/** Shortest and longest secret a caller may choose (the contract asks for at least 16). */
export const SECRET_MIN_LENGTH = 16;
export const SECRET_MAX_LENGTH = 256;

/** A new secret: `whsec_` and 32 base64url characters (192 random bits). */
export function generateSecret(): string {
  return `whsec_${randomBytes(24).toString("base64url")}`;
}

/** Why `secret` cannot be used, or undefined when it can. */
export function secretProblem(secret: string): string | undefined {
  if (secret.length < SECRET_MIN_LENGTH || secret.length > SECRET_MAX_LENGTH) {
    return `must be ${SECRET_MIN_LENGTH} to ${SECRET_MAX_LENGTH} characters long`;
  }
  if (!/^[\x21-\x7e]+$/.test(secret)) return "must be printable ASCII characters without spaces";
  return undefined;
}

/** The last four characters, shown as `secretPreview`. */
export function secretLastFour(secret: string): string {
  return secret.slice(-4);
}

function keyFromPepper(pepper: string): Buffer {
  return Buffer.from(hkdfSync("sha256", pepper, Buffer.alloc(0), KEY_INFO, 32));
}

/** Encrypts `secret` for the endpoint with key `endpointKey`: nonce ‖ tag ‖ ciphertext. */
export function encryptSecret(secret: string, endpointKey: string, pepper: string): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyFromPepper(pepper), nonce);
  cipher.setAAD(Buffer.from(endpointKey, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return Buffer.concat([nonce, cipher.getAuthTag(), ciphertext]);
}

/** Raised when a stored secret cannot be decrypted (another pepper, or a damaged value). */
export class SecretUnreadableError extends Error {
  override name = "SecretUnreadableError";
}

/** Decrypts what {@link encryptSecret} made for `endpointKey`. */
export function decryptSecret(stored: Buffer, endpointKey: string, pepper: string): string {
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyFromPepper(pepper), stored.subarray(0, NONCE_BYTES));
    decipher.setAAD(Buffer.from(endpointKey, "utf8"));
    decipher.setAuthTag(stored.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
    return Buffer.concat([
      decipher.update(stored.subarray(NONCE_BYTES + TAG_BYTES)),
      decipher.final(),
    ]).toString("utf8");
  } catch {
    throw new SecretUnreadableError(
      "The endpoint's secret cannot be decrypted (was ASSAY_TOKEN_PEPPER changed?); rotate the secret.",
    );
  }
}
