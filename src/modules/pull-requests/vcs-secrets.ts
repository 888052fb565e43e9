import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { decryptSecret, encryptSecret, secretLastFour, secretProblem } from "../webhooks/secrets.ts";

/**
 * Repositories' incoming webhook secrets (docs/vcs-events.md "The secret"). Checking GitHub's
 * HMAC needs the secret itself, so it is stored encrypted like outgoing webhook endpoints'
 * secrets (AES-256-GCM under a key derived from ASSAY_TOKEN_PEPPER), bound to its repository:
 * the repository's key, prefixed so it can never stand for an endpoint's, is the additional
 * authenticated data. Comparisons are constant-time.
 */

export { secretLastFour, secretProblem };

/** A new secret: `vcs_` and 32 base64url characters (192 random bits). */
export function generateVcsSecret(): string {
  return `vcs_${randomBytes(24).toString("base64url")}`;
}

function boundTo(repositoryKey: string): string {
  return `vcs-webhook:${repositoryKey}`;
}

/** Encrypts the secret of repository `repositoryKey`. */
export function encryptVcsSecret(secret: string, repositoryKey: string, pepper: string): Buffer {
  return encryptSecret(secret, boundTo(repositoryKey), pepper);
}

/** Decrypts what {@link encryptVcsSecret} made; undefined when it cannot (another pepper). */
export function decryptVcsSecret(stored: Buffer, repositoryKey: string, pepper: string): string | undefined {
  try {
    return decryptSecret(stored, boundTo(repositoryKey), pepper);
  } catch {
    return undefined;
  }
}

const SIGNATURE = /^sha256=([0-9a-f]{64})$/;

/** True when `header` is a well-formed `X-Hub-Signature-256` value. */
export function isGithubSignature(header: string | undefined): header is string {
  return header !== undefined && SIGNATURE.test(header);
}

/**
 * True when `header` (`sha256=<hex>`) is the HMAC-SHA256 of `body` keyed with `secret`, as GitHub
 * signs deliveries. Compared in constant time.
 */
export function verifyGithubSignature(body: Buffer, header: string, secret: string): boolean {
  const match = SIGNATURE.exec(header);
  if (!match) return false;
  const expected = createHmac("sha256", secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(match[1] as string, "hex"));
}

/**
 * True when `token` (GitLab's `X-Gitlab-Token`) equals `secret`. Both are hashed first so the
 * comparison takes the same time whatever their lengths.
 */
export function verifyGitlabToken(token: string, secret: string): boolean {
  const digest = (value: string) => createHmac("sha256", "assay gitlab token").update(value, "utf8").digest();
  return timingSafeEqual(digest(token), digest(secret));
}
