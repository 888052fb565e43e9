import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import type { RefreshTokenRow, SessionRevokedReason, SessionRow } from "../../db/types-auth-flows.ts";

/** SQL of sessions (refresh-token families) and their refresh tokens. Tokens arrive hashed. */

/** Starts a session for `userId`. */
export function insertSession(
  db: Kysely<Database>,
  session: { key: string; userId: string },
): Promise<SessionRow> {
  return db
    .insertInto("sessions")
    .values({ key: session.key, user_id: session.userId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Adds a refresh token to session `sessionId`. */
export function insertRefreshToken(
  db: Kysely<Database>,
  token: { sessionId: string; tokenHash: Buffer; expiresAt: Date },
): Promise<RefreshTokenRow> {
  return db
    .insertInto("refresh_tokens")
    .values({ session_id: token.sessionId, token_hash: token.tokenHash, expires_at: token.expiresAt })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A refresh token, its session and the session's user (the claims of a new access token). */
export interface RefreshTokenContext {
  token: RefreshTokenRow;
  session: SessionRow;
  user: { id: string; key: string; email: string };
}

/**
 * The refresh token hashing to `hash` with its session and user, the token and session rows
 * locked for update (so concurrent refreshes and revocations of one session apply one at a time).
 */
export async function lockRefreshToken(
  db: Kysely<Database>,
  hash: Buffer,
): Promise<RefreshTokenContext | undefined> {
  const row = await db
    .selectFrom("refresh_tokens as t")
    .innerJoin("sessions as s", "s.id", "t.session_id")
    .innerJoin("users as u", "u.id", "s.user_id")
    .select([
      "t.id as t_id",
      "t.session_id as t_session_id",
      "t.token_hash as t_token_hash",
      "t.created_at as t_created_at",
      "t.expires_at as t_expires_at",
      "t.rotated_at as t_rotated_at",
      "s.id as s_id",
      "s.key as s_key",
      "s.user_id as s_user_id",
      "s.created_at as s_created_at",
      "s.revoked_at as s_revoked_at",
      "s.revoked_reason as s_revoked_reason",
      "u.key as u_key",
      "u.email as u_email",
    ])
    .where("t.token_hash", "=", hash)
    .forUpdate(["t", "s"])
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    token: {
      id: row.t_id,
      session_id: row.t_session_id,
      token_hash: row.t_token_hash,
      created_at: row.t_created_at,
      expires_at: row.t_expires_at,
      rotated_at: row.t_rotated_at,
    },
    session: {
      id: row.s_id,
      key: row.s_key,
      user_id: row.s_user_id,
      created_at: row.s_created_at,
      revoked_at: row.s_revoked_at,
      revoked_reason: row.s_revoked_reason,
    },
    user: { id: row.s_user_id, key: row.u_key, email: row.u_email },
  };
}

/** Marks refresh token `id` used: it was exchanged for a new one and must never work again. */
export async function markRefreshTokenRotated(db: Kysely<Database>, id: string, at: Date): Promise<void> {
  await db.updateTable("refresh_tokens").set({ rotated_at: at }).where("id", "=", id).execute();
}

/** Ends session `id`, with every refresh and access token of it; the row after. */
export function revokeSession(
  db: Kysely<Database>,
  id: string,
  revocation: { at: Date; reason: SessionRevokedReason },
): Promise<SessionRow> {
  return db
    .updateTable("sessions")
    .set({ revoked_at: revocation.at, revoked_reason: revocation.reason })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The internal id of the user with key `userKey`, when session `sessionKey` is theirs and not
 * revoked: the one statement behind accepting an access token.
 */
export async function findLiveSessionUser(
  db: Kysely<Database>,
  sessionKey: string,
  userKey: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom("sessions as s")
    .innerJoin("users as u", "u.id", "s.user_id")
    .select("u.id")
    .where("s.key", "=", sessionKey)
    .where("u.key", "=", userKey)
    .where("s.revoked_at", "is", null)
    .executeTakeFirst();
  return row?.id;
}
