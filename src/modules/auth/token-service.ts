import type { Kysely } from "kysely";
import type { Database, PersonalAccessTokenRow, UserRow } from "../../db/types.ts";
import type { CredentialRefusal } from "../../graphql/context.ts";
import { newRowKey } from "../../graphql/global-id.ts";
import { type CachedIdentity, IdentityCache, MAX_IDENTITY_CACHE_MS } from "./identity-cache.ts";
import { generatePat, hashPat, identityCacheKey, isWellFormedPat, patHashesEqual } from "./pat.ts";
import { findTokenAndUserByHash, findTokenByHash, insertToken, touchToken } from "./token-store.ts";

/** Longest lifetime a token may be given, in days. */
export const MAX_TOKEN_DAYS = 3650;

/** How long after its expiry a token may still be traded in with `refreshPat`, in days. */
export const REFRESH_GRACE_DAYS = 7;

const DAY_MS = 86_400_000;

/** True when `row` is not revoked and has not expired, or expired less than the grace period ago. */
export function isRefreshable(row: PersonalAccessTokenRow, now: Date): boolean {
  if (row.revoked_at) return false;
  return row.expires_at === null || row.expires_at.getTime() + REFRESH_GRACE_DAYS * DAY_MS > now.getTime();
}

/** Who a valid token belongs to; `user` is their row as the check read it. */
export interface TokenIdentity {
  userId: string;
  tokenId: string;
  user?: UserRow;
}

/**
 * Checks personal access tokens. The checksum rejects mistyped and made-up tokens without a
 * database round trip; the keyed hash is the lookup key, and the stored hash is compared again in
 * constant time. A live token is then remembered for at most a second ({@link IdentityCache}), so
 * a busy client costs one lookup a second. Last use is recorded at most once a minute per token.
 */
export class TokenAuthenticator {
  private readonly lastTouched = new Map<string, number>();
  private readonly cache: IdentityCache;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly pepper: string,
    private readonly onTouchError: (error: unknown) => void = () => {},
    cacheMs: number = MAX_IDENTITY_CACHE_MS,
  ) {
    this.cache = new IdentityCache(cacheMs);
  }

  /** The identity behind `token`, or the reason it is refused. */
  async authenticate(token: string | null, now = new Date()): Promise<TokenIdentity | CredentialRefusal> {
    if (token === null) return "missing";
    const key = identityCacheKey(token);
    // A token checked in the last second: its entry was made by the full check below, for this
    // very token (the key is a digest of it), so neither the shape nor the keyed hash is redone.
    const found = this.cache.peek(key) ?? (await this.check(token, key));
    if (typeof found === "string") return found;
    const row = found.token;
    if (row.revoked_at) return "revoked";
    if (row.expires_at && row.expires_at.getTime() <= now.getTime()) return "expired";
    this.recordUse(row, now.getTime());
    return { userId: row.user_id, tokenId: row.id, user: found.user };
  }

  /**
   * {@link authenticate} for `refreshPat` alone: also accepts a token that expired less than
   * {@link REFRESH_GRACE_DAYS} days ago, so a client that was away when its token ran out can still
   * trade it for a new one. Never a revoked token.
   */
  async authenticateForRefresh(
    token: string | null,
    now = new Date(),
  ): Promise<TokenIdentity | CredentialRefusal> {
    const row = await this.lookUp(token);
    if (typeof row === "string") return row;
    if (!isRefreshable(row, now)) return "expired";
    return { userId: row.user_id, tokenId: row.id };
  }

  /** The full check of a token not seen in the last second: its shape, then its keyed hash. */
  private async check(token: string, key: string): Promise<CachedIdentity | CredentialRefusal> {
    if (!isWellFormedPat(token)) return "malformed";
    const hash = hashPat(token, this.pepper);
    const found = await this.cache.get(
      key,
      () => findTokenAndUserByHash(this.db, hash),
      (identity) => identity.token.revoked_at === null,
    );
    return found && patHashesEqual(found.token.token_hash, hash) ? found : "unknown";
  }

  private async lookUp(token: string | null): Promise<PersonalAccessTokenRow | CredentialRefusal> {
    if (token === null) return "missing";
    if (!isWellFormedPat(token)) return "malformed";
    const hash = hashPat(token, this.pepper);
    const row = await findTokenByHash(this.db, hash);
    if (!row || !patHashesEqual(row.token_hash, hash)) return "unknown";
    if (row.revoked_at) return "revoked";
    return row;
  }

  private recordUse(row: PersonalAccessTokenRow, nowMs: number): void {
    const last = Math.max(this.lastTouched.get(row.id) ?? 0, row.last_used_at?.getTime() ?? 0);
    if (nowMs - last < 60_000) return;
    this.lastTouched.set(row.id, nowMs);
    if (this.lastTouched.size > 100_000) this.lastTouched.clear();
    touchToken(this.db, row.id).catch(this.onTouchError);
  }
}

/** Creates a token for `userId`; the plaintext is in the result and nowhere else, ever. */
export async function createToken(
  db: Kysely<Database>,
  pepper: string,
  options: { userId: string; name: string; expiresInDays: number | null; now?: Date },
): Promise<{ token: string; row: PersonalAccessTokenRow }> {
  const name = options.name.trim();
  if (name.length === 0 || name.length > 100) throw new Error("Token name must be 1 to 100 characters long.");
  const days = options.expiresInDays;
  if (days !== null && (!Number.isInteger(days) || days < 1 || days > MAX_TOKEN_DAYS)) {
    throw new Error(`Token expiry must be a whole number of days from 1 to ${MAX_TOKEN_DAYS}.`);
  }
  const { token, lastFour } = generatePat();
  const now = options.now ?? new Date();
  const row = await insertToken(db, {
    key: newRowKey(),
    userId: options.userId,
    name,
    tokenHash: hashPat(token, pepper),
    lastFour,
    expiresAt: days === null ? null : new Date(now.getTime() + days * 86_400_000),
  });
  return { token, row };
}
