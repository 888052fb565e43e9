import type { Kysely } from "kysely";
import type { Database, PersonalAccessTokenRow } from "../../db/types.ts";
import { newRowKey } from "../../graphql/global-id.ts";
import { generatePat, hashPat, isWellFormedPat, patHashesEqual } from "./pat.ts";
import { findTokenByHash, insertToken, touchToken } from "./token-store.ts";

/** Longest lifetime a token may be given, in days. */
export const MAX_TOKEN_DAYS = 3650;

/** Who a valid token belongs to. */
export interface TokenIdentity {
  userId: string;
  tokenId: string;
}

/** Why a token was refused; never shown to the caller, who gets one answer for all of them. */
export type TokenRefusal = "missing" | "malformed" | "unknown" | "expired" | "revoked";

/**
 * Checks personal access tokens. The checksum rejects mistyped and made-up tokens without a
 * database round trip; the keyed hash is the lookup key, and the stored hash is compared again in
 * constant time. Last use is recorded at most once a minute per token.
 */
export class TokenAuthenticator {
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly pepper: string,
    private readonly onTouchError: (error: unknown) => void = () => {},
  ) {}

  /** The identity behind `token`, or the reason it is refused. */
  async authenticate(token: string | null, now = new Date()): Promise<TokenIdentity | TokenRefusal> {
    if (token === null) return "missing";
    if (!isWellFormedPat(token)) return "malformed";
    const hash = hashPat(token, this.pepper);
    const row = await findTokenByHash(this.db, hash);
    if (!row || !patHashesEqual(row.token_hash, hash)) return "unknown";
    if (row.revoked_at) return "revoked";
    if (row.expires_at && row.expires_at.getTime() <= now.getTime()) return "expired";
    this.recordUse(row, now.getTime());
    return { userId: row.user_id, tokenId: row.id };
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
