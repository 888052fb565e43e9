import type { Kysely } from "kysely";
import type { Database, PersonalAccessTokenRow } from "../../db/types.ts";
import { badUserInput, unauthenticated } from "../../graphql/errors.ts";
import { createToken, isRefreshable, MAX_TOKEN_DAYS } from "./token-service.ts";
import {
  lockTokenById,
  lockTokenOfUserByKey,
  revokeTokenById,
  revokeUnrevokedTokenById,
} from "./token-store.ts";

/**
 * Personal access tokens managed through the API: a user creates, lists and revokes their own, and
 * a client trades its token for a fresh one (`refreshPat`). Every function runs inside the
 * mutation's transaction and locks the token row it changes.
 */

/** Lifetime of a token created through the API when the caller does not choose one, in days. */
export const DEFAULT_TOKEN_DAYS = 90;

const DAY_MS = 86_400_000;

/** A newly minted token: its plaintext (shown once) and its row. */
export interface IssuedToken {
  token: string;
  row: PersonalAccessTokenRow;
}

/** A token name as given, trimmed; BAD_USER_INPUT naming `field` unless it is 1 to 100 characters. */
export function validTokenName(name: string, field: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 100) {
    throw badUserInput(`${field} must be 1 to 100 characters long.`, field);
  }
  return trimmed;
}

/**
 * `createPersonalAccessToken`: a token for `userId` named `name`, expiring after `expiresInDays`
 * (1 to {@link MAX_TOKEN_DAYS}; {@link DEFAULT_TOKEN_DAYS} when not given). A token that never
 * expires can only be made with the admin CLI.
 */
export function createOwnToken(
  tx: Kysely<Database>,
  pepper: string,
  input: { userId: string; name: string; expiresInDays: number | null | undefined },
): Promise<IssuedToken> {
  const name = validTokenName(input.name, "name");
  const days = input.expiresInDays ?? DEFAULT_TOKEN_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_TOKEN_DAYS) {
    throw badUserInput(`expiresInDays must be a whole number from 1 to ${MAX_TOKEN_DAYS}.`, "expiresInDays");
  }
  return createToken(tx, pepper, { userId: input.userId, name, expiresInDays: days });
}

/**
 * Revokes `userId`'s token with `key`; undefined when the user has no such token (another user's
 * token included, so the caller answers both like a missing id). Revoking a revoked token changes
 * nothing and answers it as it is.
 */
export async function revokeOwnToken(
  tx: Kysely<Database>,
  userId: string,
  key: string,
  now = new Date(),
): Promise<PersonalAccessTokenRow | undefined> {
  const row = await lockTokenOfUserByKey(tx, userId, key);
  if (!row) return undefined;
  return row.revoked_at ? row : revokeTokenById(tx, row.id, now);
}

/** `revokePat`: revokes the token `tokenId` the request is authenticated with; false when it already was. */
export function revokeCallingToken(
  tx: Kysely<Database>,
  tokenId: string,
  now = new Date(),
): Promise<boolean> {
  return revokeUnrevokedTokenById(tx, tokenId, now);
}

/**
 * `refreshPat`: a new token for the owner of token `tokenId`, with its name and a full lifetime of
 * the same length (a token that never expires gives one that never expires), and the old token
 * revoked, all in `tx`. The old row is locked, so of two concurrent refreshes with one token only
 * the first succeeds; the second, like a token revoked or past its grace period meanwhile, is
 * UNAUTHENTICATED.
 */
export async function refreshPersonalAccessToken(
  tx: Kysely<Database>,
  pepper: string,
  tokenId: string,
  now = new Date(),
): Promise<IssuedToken> {
  const old = await lockTokenById(tx, tokenId);
  if (!old || !isRefreshable(old, now)) throw unauthenticated();
  const issued = await createToken(tx, pepper, {
    userId: old.user_id,
    name: old.name,
    expiresInDays: lifetimeInDays(old),
    now,
  });
  await revokeTokenById(tx, old.id, now);
  return issued;
}

/** A token's whole lifetime in days, rounded and kept within what createToken accepts. */
function lifetimeInDays(row: PersonalAccessTokenRow): number | null {
  if (row.expires_at === null) return null;
  const days = Math.round((row.expires_at.getTime() - row.created_at.getTime()) / DAY_MS);
  return Math.min(MAX_TOKEN_DAYS, Math.max(1, days));
}
