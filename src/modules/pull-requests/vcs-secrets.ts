import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { decryptSecret, encryptSecret, secretLastFour, secretProblem } from "../webhooks/secrets.ts";

/**
 * Repositories' and accounts' incoming webhook secrets (docs/vcs-events.md "The secret").
 * Checking an HMAC needs the secret itself, so it is stored encrypted like outgoing webhook
 * endpoints' secrets (AES-256-GCM under a key derived from ASSAY_TOKEN_PEPPER), bound to its
 * owner: the repository's or the account's key, prefixed so that neither can stand for the other
 * nor for an endpoint's, is the additional authenticated data. Comparisons are constant-time.
 */

export { secretLastFour, secretProblem };

/** A new secret: `vcs_` and 32 base64url characters (192 random bits). */
export function generateVcsSecret(): string {
  return `vcs_${randomBytes(24).toString("base64url")}`;
}

/** Whose secret: a repository's own, or its account's (covering the account's repositories). */
export interface VcsSecretOwner {
  kind: "repository" | "account";
  /** The repository's or the account's key. */
  key: string;
}

function boundTo(owner: VcsSecretOwner): string {
  // Repositories keep the binding they had before accounts had secrets.
  return owner.kind === "repository" ? `vcs-webhook:${owner.key}` : `vcs-webhook-account:${owner.key}`;
}

/** Encrypts the secret of `owner`. */
export function encryptVcsSecret(secret: string, owner: VcsSecretOwner, pepper: string): Buffer {
  return encryptSecret(secret, boundTo(owner), pepper);
}

/** Decrypts what {@link encryptVcsSecret} made; undefined when it cannot (another pepper, another owner). */
export function decryptVcsSecret(stored: Buffer, owner: VcsSecretOwner, pepper: string): string | undefined {
  try {
    return decryptSecret(stored, boundTo(owner), pepper);
  } catch {
    return undefined;
  }
}

const SIGNATURE = /^sha256=([0-9a-f]{64})$/;

/** True when `header` is a well-formed `sha256=<hex>` value (GitHub's `X-Hub-Signature-256`, Bitbucket's `X-Hub-Signature`). */
export function isGithubSignature(header: string | undefined): header is string {
  return header !== undefined && SIGNATURE.test(header);
}

/**
 * True when `header` (`sha256=<hex>`) is the HMAC-SHA256 of `body` keyed with `secret`, as GitHub
 * and Bitbucket Cloud sign deliveries. Compared in constant time.
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
