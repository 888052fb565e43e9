import { randomBytes, randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import type { CredentialRefusal, Viewer } from "../../graphql/context.ts";
import { decodeGlobalId, encodeGlobalId, newRowKey } from "../../graphql/global-id.ts";
import { hashPat } from "./pat.ts";
import { type JwtRefusal, type SessionClaims, signSessionJwt, verifySessionJwt } from "./session-jwt.ts";
import {
  findLiveSessionUser,
  insertRefreshToken,
  insertSession,
  lockRefreshToken,
  markRefreshTokenRotated,
  revokeSession,
} from "./session-store.ts";

/**
 * Session tokens, the contract's `verifyToken` / `refreshToken` / `revokeToken` (graphql-jwt's
 * model): a short-lived access token (an HS256 JWT, {@link ACCESS_TOKEN_SECONDS}) and a refresh
 * token (random, stored only as its keyed hash, {@link REFRESH_TOKEN_DAYS} days). Each refresh
 * rotates the refresh token: the used one never works again, and presenting it again revokes the
 * whole session, since then two parties hold tokens of it and one of them stole it. Access tokens
 * name their session (`sid`), so revoking a session ends its access tokens at once too.
 */

/** Lifetime of an access token, in seconds. */
export const ACCESS_TOKEN_SECONDS = 900;

/** Lifetime of a refresh token, in days; each refresh starts a new one. */
export const REFRESH_TOKEN_DAYS = 7;

/** Every refresh token starts with this. */
export const REFRESH_TOKEN_PREFIX = "assay_rt_";

const REFRESH_TOKEN_PATTERN = /^assay_rt_[A-Za-z0-9_-]{43}$/;

/** A new pair, in the shape of the contract's `Refresh`. */
export interface SessionTokens {
  token: string;
  payload: SessionClaims;
  refreshToken: string;
  /** When the refresh token expires, in Unix seconds (graphql-jwt's `refresh_expires_in`). */
  refreshExpiresIn: number;
}

/** Whose session: what the access token's claims are made of. */
export interface SessionUser {
  id: string;
  key: string;
  email: string;
}

/** Signing and hashing keys and the clock. */
export interface SessionKeys {
  pepper: string;
  secret: string;
  now?: Date;
}

/** Starts a session for `user` (`createSessionToken`): its first access and refresh tokens. */
export async function startSession(
  tx: Kysely<Database>,
  user: SessionUser,
  keys: SessionKeys,
): Promise<SessionTokens> {
  const session = await insertSession(tx, { key: newRowKey(), userId: user.id });
  return issuePair(tx, session, user, keys);
}

/** Why a refresh token was refused; "reused" has revoked its session in the transaction. */
export type RefreshRefusal = "invalid" | "expired" | "reused";

/**
 * `refreshToken`: a new pair for a live refresh token, which is spent. A spent token presented
 * again revokes its session (in `tx`: commit before raising the refusal).
 */
export async function refreshSession(
  tx: Kysely<Database>,
  refreshToken: string | null | undefined,
  keys: SessionKeys,
): Promise<SessionTokens | RefreshRefusal> {
  const now = keys.now ?? new Date();
  if (!isWellFormedRefreshToken(refreshToken)) return "invalid";
  const found = await lockRefreshToken(tx, hashPat(refreshToken, keys.pepper));
  if (!found || found.session.revoked_at) return "invalid";
  if (found.token.rotated_at) {
    await revokeSession(tx, found.session.id, { at: now, reason: "REUSED" });
    return "reused";
  }
  if (found.token.expires_at.getTime() <= now.getTime()) return "expired";
  await markRefreshTokenRotated(tx, found.token.id, now);
  return issuePair(tx, found.session, found.user, { ...keys, now });
}

/**
 * `revokeToken`: ends the session of `refreshToken` (any token of it, spent or expired) and
 * answers when, in Unix seconds; a session already ended answers its first revocation time.
 */
export async function revokeSessionByRefreshToken(
  tx: Kysely<Database>,
  refreshToken: string | null | undefined,
  keys: Omit<SessionKeys, "secret">,
): Promise<number | "invalid"> {
  if (!isWellFormedRefreshToken(refreshToken)) return "invalid";
  const found = await lockRefreshToken(tx, hashPat(refreshToken, keys.pepper));
  if (!found) return "invalid";
  const revokedAt =
    found.session.revoked_at ??
    (await revokeSession(tx, found.session.id, { at: keys.now ?? new Date(), reason: "REVOKED" })).revoked_at;
  return Math.floor((revokedAt ?? new Date()).getTime() / 1000);
}

/**
 * The claims of a valid access token: signed with our secret, unexpired, of a session that is not
 * revoked and of a user who still exists. Checked in this order; the signature needs no database.
 */
export async function verifyAccessToken(
  db: Kysely<Database>,
  secret: string,
  token: unknown,
  now = new Date(),
): Promise<{ claims: SessionClaims; userId: string } | JwtRefusal | "revoked"> {
  const claims = verifySessionJwt(token, secret, Math.floor(now.getTime() / 1000));
  if (typeof claims === "string") return claims;
  const subject = decodeGlobalId(claims.sub);
  if (subject?.typeName !== "User") return "malformed";
  const userId = await findLiveSessionUser(db, claims.sid, subject.key);
  return userId === undefined ? "revoked" : { claims, userId };
}

/** Accepts access tokens as `Authorization: Bearer` credentials, refusing like `TokenAuthenticator`. */
export class SessionAuthenticator {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly secret: string,
  ) {}

  /** The identity behind access token `token` (with no personal access token), or why it is refused. */
  async authenticate(token: string, now = new Date()): Promise<Viewer | CredentialRefusal> {
    const verified = await verifyAccessToken(this.db, this.secret, token, now);
    if (verified === "bad-signature") return "unknown";
    // Only a token with our signature reaches the expiry check, so this tells its holder nothing new.
    if (verified === "expired") return "signature-expired";
    if (typeof verified === "string") return verified;
    return { userId: verified.userId, tokenId: null };
  }
}

function isWellFormedRefreshToken(token: unknown): token is string {
  return typeof token === "string" && REFRESH_TOKEN_PATTERN.test(token);
}

async function issuePair(
  tx: Kysely<Database>,
  session: { id: string; key: string },
  user: SessionUser,
  keys: SessionKeys,
): Promise<SessionTokens> {
  const now = keys.now ?? new Date();
  const refreshToken = REFRESH_TOKEN_PREFIX + randomBytes(32).toString("base64url");
  const expiresAt = new Date(now.getTime() + REFRESH_TOKEN_DAYS * 86_400_000);
  await insertRefreshToken(tx, {
    sessionId: session.id,
    tokenHash: hashPat(refreshToken, keys.pepper),
    expiresAt,
  });
  const iat = Math.floor(now.getTime() / 1000);
  const payload: SessionClaims = {
    sub: encodeGlobalId("User", user.key),
    email: user.email,
    sid: session.key,
    iat,
    exp: iat + ACCESS_TOKEN_SECONDS,
    jti: randomUUID(),
  };
  return {
    token: signSessionJwt(payload, keys.secret),
    payload,
    refreshToken,
    refreshExpiresIn: Math.floor(expiresAt.getTime() / 1000),
  };
}
