import { type Kysely, sql } from "kysely";
import type { Database, PersonalAccessTokenRow, UserRow } from "../../db/types.ts";
import type { ConnectionSource } from "../../graphql/pagination.ts";

/** The token row stored under `tokenHash`, if any. */
export function findTokenByHash(
  db: Kysely<Database>,
  tokenHash: Buffer,
): Promise<PersonalAccessTokenRow | undefined> {
  return db
    .selectFrom("personal_access_tokens")
    .selectAll()
    .where("token_hash", "=", tokenHash)
    .executeTakeFirst();
}

/**
 * The token row stored under `tokenHash` and its user's row, in one statement: what a request's
 * credential check needs, so that a request the identity cache answers needs no other.
 */
export async function findTokenAndUserByHash(
  db: Kysely<Database>,
  tokenHash: Buffer,
): Promise<{ token: PersonalAccessTokenRow; user: UserRow } | undefined> {
  const row = await db
    .selectFrom("personal_access_tokens as t")
    .innerJoin("users as u", "u.id", "t.user_id")
    .selectAll("t")
    .select([
      "u.key as user_key",
      "u.email as user_email",
      "u.first_name as user_first_name",
      "u.last_name as user_last_name",
      "u.analytics_id as user_analytics_id",
      "u.is_beta_tester as user_is_beta_tester",
      "u.ide_subscription_plan as user_ide_subscription_plan",
      "u.created_at as user_created_at",
      "u.updated_at as user_updated_at",
    ])
    .where("t.token_hash", "=", tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const {
    user_key,
    user_email,
    user_first_name,
    user_last_name,
    user_analytics_id,
    user_is_beta_tester,
    user_ide_subscription_plan,
    user_created_at,
    user_updated_at,
    ...token
  } = row;
  // Spelled out field by field: a column added to users fails to compile here until it is read.
  const user: UserRow = {
    id: token.user_id,
    key: user_key,
    email: user_email,
    first_name: user_first_name,
    last_name: user_last_name,
    analytics_id: user_analytics_id,
    is_beta_tester: user_is_beta_tester,
    ide_subscription_plan: user_ide_subscription_plan,
    created_at: user_created_at,
    updated_at: user_updated_at,
  };
  return { token, user };
}

/** Stores a new token's hash and metadata. */
export function insertToken(
  db: Kysely<Database>,
  token: {
    key: string;
    userId: string;
    name: string;
    tokenHash: Buffer;
    lastFour: string;
    expiresAt: Date | null;
  },
): Promise<PersonalAccessTokenRow> {
  return db
    .insertInto("personal_access_tokens")
    .values({
      key: token.key,
      user_id: token.userId,
      name: token.name,
      token_hash: token.tokenHash,
      last_four: token.lastFour,
      expires_at: token.expiresAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Records a use of the token, at most once a minute: the condition makes concurrent requests on
 * any number of instances write at most one row version per minute.
 */
export async function touchToken(db: Kysely<Database>, tokenId: string): Promise<void> {
  await db
    .updateTable("personal_access_tokens")
    .set({ last_used_at: sql`now()` })
    .where("id", "=", tokenId)
    .where((eb) =>
      eb.or([
        eb("last_used_at", "is", null),
        eb("last_used_at", "<", sql<Date>`now() - interval '1 minute'`),
      ]),
    )
    .execute();
}

/** A user's tokens, newest first. */
export function listTokensOfUser(db: Kysely<Database>, userId: string): Promise<PersonalAccessTokenRow[]> {
  return db
    .selectFrom("personal_access_tokens")
    .selectAll()
    .where("user_id", "=", userId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
}

/** Revokes a token by its key; false when there is no such unrevoked token. */
export async function revokeTokenByKey(db: Kysely<Database>, key: string): Promise<boolean> {
  const result = await db
    .updateTable("personal_access_tokens")
    .set({ revoked_at: sql`now()` })
    .where("key", "=", key)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Revokes the token with internal id `id` at `at`; false when there is no such unrevoked token. */
export async function revokeUnrevokedTokenById(db: Kysely<Database>, id: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable("personal_access_tokens")
    .set({ revoked_at: at })
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** A token row by its key (the id the admin CLI shows), whatever its state. */
export function findTokenByKey(
  db: Kysely<Database>,
  key: string,
): Promise<PersonalAccessTokenRow | undefined> {
  return db.selectFrom("personal_access_tokens").selectAll().where("key", "=", key).executeTakeFirst();
}

/** The token with internal id `id`, locked for update (the mutation's transaction holds it). */
export function lockTokenById(db: Kysely<Database>, id: string): Promise<PersonalAccessTokenRow | undefined> {
  return db
    .selectFrom("personal_access_tokens")
    .selectAll()
    .where("id", "=", id)
    .forUpdate()
    .executeTakeFirst();
}

/** `userId`'s token with this key, locked for update; undefined for anyone else's or no such key. */
export function lockTokenOfUserByKey(
  db: Kysely<Database>,
  userId: string,
  key: string,
): Promise<PersonalAccessTokenRow | undefined> {
  return db
    .selectFrom("personal_access_tokens")
    .selectAll()
    .where("key", "=", key)
    .where("user_id", "=", userId)
    .forUpdate()
    .executeTakeFirst();
}

/** Marks the token with internal id `id` revoked at `at`, unless it already is; the row after. */
export function revokeTokenById(
  db: Kysely<Database>,
  id: string,
  at: Date,
): Promise<PersonalAccessTokenRow | undefined> {
  return db
    .updateTable("personal_access_tokens")
    .set({ revoked_at: sql<Date>`coalesce(revoked_at, ${at})` })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

/** `userId`'s tokens with these keys (nobody else's, whatever the keys). */
export function findTokensOfUserByKeys(
  db: Kysely<Database>,
  userId: string,
  keys: readonly string[],
): Promise<PersonalAccessTokenRow[]> {
  return db
    .selectFrom("personal_access_tokens")
    .selectAll()
    .where("user_id", "=", userId)
    .where("key", "in", keys)
    .execute();
}

/** A user's tokens, newest first, revoked and expired ones included. Parent: the user id. */
export const tokensOfUser: ConnectionSource = {
  name: "tokensOfUser",
  from: sql`personal_access_tokens`,
  parentColumn: "user_id",
  order: [
    { column: "created_at", kind: "timestamptz" },
    { column: "key", kind: "text" },
  ],
  direction: "desc",
};
