import type { PersonalAccessTokenRow, UserRow } from "../../db/types.ts";

/**
 * Personal access tokens seen in the last second, so a client sending many requests costs one
 * token lookup a second instead of one per request (docs/decisions.md, "An identity cache of one
 * second").
 *
 * The bound is the point: an entry is served for at most `ttlMs` (at most 1000) after the lookup
 * that produced it *started*, so whatever changes the token or its user in the database — revoked
 * by another instance, by `assay token revoke` in another process or by hand in SQL, expired, the
 * user deleted — is seen by every instance within that time, with no message that could be lost.
 * Revocations through this process's own API take effect at once besides: the mutation calls
 * {@link forgetRevokedToken} after its transaction commits, which empties the entry in every cache
 * of the process, and a lookup that started before that is not cached at all.
 *
 * Only live tokens are cached (never unknown or revoked ones, so guessing costs the guesser a lookup
 * and cannot fill memory). Expiry is checked on every request against the cached `expires_at`, so it
 * is exact. What the cached identity holds: the token row and its user's row. Permissions are not
 * in it: memberships and roles are read by each request's own statements, as before.
 */

/** One cached token and its user, as read by one lookup. */
export interface CachedIdentity {
  token: PersonalAccessTokenRow;
  user: UserRow;
}

interface Entry {
  identity: CachedIdentity;
  /** When the lookup that read it started (performance.now()): the entry is at least this old. */
  readAt: number;
}

/** The upper bound of `ttlMs`: the promise made to whoever revokes a token. */
export const MAX_IDENTITY_CACHE_MS = 1000;

/** More entries than this evicts the oldest: a second of distinct live tokens is never this many. */
const MAX_ENTRIES = 10_000;

/** Every cache of this process, for {@link forgetRevokedToken}; weak, so a stopped app is collected. */
const caches = new Set<WeakRef<IdentityCache>>();

/**
 * Drops token `tokenId` from every identity cache of this process, and keeps lookups that started
 * before this call from caching it. Called after the transaction that revoked it committed.
 */
export function forgetRevokedToken(tokenId: string): void {
  for (const ref of caches) {
    const cache = ref.deref();
    if (cache) cache.forget(tokenId);
    else caches.delete(ref);
  }
}

/**
 * Live personal access tokens, each for at most `ttlMs`, under a key their caller derives from the
 * token (never the token itself, so a heap dump of the process holds no usable token).
 */
export class IdentityCache {
  private readonly entries = new Map<string, Entry>();
  private readonly hashOfToken = new Map<string, string>();
  /** Lookups under way by hash, so a burst of requests with one token makes one lookup. */
  private readonly pending = new Map<string, Promise<CachedIdentity | undefined>>();
  /** Bumped by every {@link forget}; a lookup that saw another value when it started is not kept. */
  private generation = 0;

  /** `ttlMs` from 0 (nothing is cached) to {@link MAX_IDENTITY_CACHE_MS}. */
  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(ttlMs >= 0 && ttlMs <= MAX_IDENTITY_CACHE_MS)) {
      throw new Error(`identity cache lifetime must be 0 to ${MAX_IDENTITY_CACHE_MS} ms, got ${ttlMs}`);
    }
    if (ttlMs > 0) caches.add(new WeakRef(this));
  }

  /**
   * The identity under `hash` while its entry is younger than `ttlMs`; undefined otherwise (then
   * {@link get} looks it up). What a request with a recently checked token costs: one map lookup.
   */
  peek(hash: string): CachedIdentity | undefined {
    const entry = this.entries.get(hash);
    return entry && this.now() - entry.readAt < this.ttlMs ? entry.identity : undefined;
  }

  /**
   * The identity under `hash`: from the cache while its entry is younger than `ttlMs`, otherwise
   * from `lookUp` (shared by the requests that ask meanwhile). `lookUp`'s answer is kept only for a
   * live token (`isLive`) and only if no token was forgotten while it ran.
   */
  async get(
    hash: string,
    lookUp: () => Promise<CachedIdentity | undefined>,
    isLive: (identity: CachedIdentity) => boolean,
  ): Promise<CachedIdentity | undefined> {
    if (this.ttlMs === 0) return lookUp();
    const entry = this.entries.get(hash);
    const now = this.now();
    if (entry) {
      if (now - entry.readAt < this.ttlMs) return entry.identity;
      this.drop(hash, entry);
    }
    const under = this.pending.get(hash);
    if (under) return under;
    const generation = this.generation;
    const looking: Promise<CachedIdentity | undefined> = lookUp().finally(() => {
      if (this.pending.get(hash) === looking) this.pending.delete(hash);
    });
    this.pending.set(hash, looking);
    const identity = await looking;
    if (identity && isLive(identity) && generation === this.generation) this.put(hash, identity, now);
    return identity;
  }

  /** Drops token `tokenId`'s entry, and keeps lookups already under way from being cached. */
  forget(tokenId: string): void {
    this.generation += 1;
    const hash = this.hashOfToken.get(tokenId);
    const entry = hash === undefined ? undefined : this.entries.get(hash);
    if (hash !== undefined && entry) this.drop(hash, entry);
    // A lookup under way may have read the row before the revocation committed: whoever asks next
    // must look again rather than share it.
    this.pending.clear();
  }

  /** How many tokens are cached (expired entries included until they are next asked for). */
  get size(): number {
    return this.entries.size;
  }

  private put(hash: string, identity: CachedIdentity, readAt: number): void {
    if (this.entries.size >= MAX_ENTRIES) {
      const [oldest] = this.entries;
      if (oldest) this.drop(oldest[0], oldest[1]);
    }
    this.entries.set(hash, { identity, readAt });
    this.hashOfToken.set(identity.token.id, hash);
  }

  private drop(hash: string, entry: Entry): void {
    this.entries.delete(hash);
    if (this.hashOfToken.get(entry.identity.token.id) === hash)
      this.hashOfToken.delete(entry.identity.token.id);
  }
}
