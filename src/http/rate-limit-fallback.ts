/**
 * What one process decides on its own about users' hourly budgets, when no shared count answers:
 * Redis is down, reconnecting, slow for one request, or not configured. Pure bookkeeping on a clock,
 * so the arithmetic is tested without a Redis.
 *
 * The rule that keeps the global budget while instances cannot talk: each of `instances` processes
 * allows at most its share of what was left when the shared count was last seen,
 * `ceil((perHour - lastSharedCount) / instances)`. The last shared count is the one Redis gave this
 * process for that user, so an outage never hands out a fresh budget. Every request allowed here is
 * remembered as unsynced until Redis has been told (see `RateLimiter`'s reconciliation), unless its
 * window closes first: spending in a window that has ended no longer counts anywhere.
 */

/** One user's window as this process knows it. */
interface LocalWindow {
  /** Requests Redis had counted in this window when it last answered for the user; 0 when never. */
  sharedUsed: number;
  /** When the window closes, on this process's clock (epoch milliseconds). */
  endsAtMs: number;
  /** Requests this process allowed on its own since Redis last answered: they use up its share. */
  localUsed: number;
  /** Requests this process allowed on its own that Redis has not been told about yet. */
  unsynced: number;
}

/** The outcome of one request decided by {@link LocalWindows.decide}. */
export interface LocalDecision {
  allowed: boolean;
  /** Requests this process will still allow the user in this window. */
  remaining: number;
  /** When the window closes (epoch milliseconds). */
  endsAtMs: number;
}

/** What this process knows of one user's open window, to be brought into Redis. */
export interface OpenWindow {
  key: string;
  /** The count Redis last gave this process for the window: the least the shared count can be. */
  sharedUsed: number;
  /** Requests allowed here alone that Redis has not been told about yet. */
  unsynced: number;
  /** Milliseconds until the window closes, from now. */
  msLeft: number;
}

/** Per-user windows decided by this process alone, and what it owes the shared count. */
export class LocalWindows {
  readonly #perHour: number;
  readonly #instances: number;
  readonly #windowMs: number;
  readonly #clock: () => number;
  readonly #windows = new Map<string, LocalWindow>();

  constructor(perHour: number, instances: number, windowMs: number, clock: () => number) {
    if (!Number.isInteger(instances) || instances < 1) {
      throw new RangeError(`instances must be an integer of at least 1, got ${instances}`);
    }
    this.#perHour = perHour;
    this.#instances = instances;
    this.#windowMs = windowMs;
    this.#clock = clock;
  }

  /** Remembers what Redis answered for `key`: its count in the window and the time left in it. */
  recordShared(key: string, sharedUsed: number, msLeft: number): void {
    const window = this.#windows.get(key);
    // Requests Redis has not been told about are still spent, so they keep using up the share.
    const unsynced = window && window.endsAtMs > this.#clock() ? window.unsynced : 0;
    this.#windows.set(key, {
      sharedUsed,
      endsAtMs: this.#clock() + Math.max(msLeft, 0),
      localUsed: unsynced,
      unsynced,
    });
  }

  /** Decides one request of `key` from this process's share, and counts it when allowed. */
  decide(key: string): LocalDecision {
    const window = this.#openWindow(key);
    const share = this.shareOf(window.sharedUsed);
    const allowed = window.localUsed < share;
    if (allowed) {
      window.localUsed += 1;
      window.unsynced += 1;
    }
    return { allowed, remaining: Math.max(share - window.localUsed, 0), endsAtMs: window.endsAtMs };
  }

  /** What one process may allow on its own when Redis had counted `sharedUsed` in the window. */
  shareOf(sharedUsed: number): number {
    return Math.ceil(Math.max(this.#perHour - sharedUsed, 0) / this.#instances);
  }

  /**
   * The windows still open, all of them or only those with spending Redis has not been told about.
   * Windows that have closed meanwhile are dropped here, with their spending: it belonged to a
   * budget that is full again anyway.
   */
  openWindows(which: "all" | "unsynced"): OpenWindow[] {
    const now = this.#clock();
    const open: OpenWindow[] = [];
    for (const [key, window] of this.#windows) {
      if (window.endsAtMs <= now) {
        this.#windows.delete(key);
        continue;
      }
      if (which === "unsynced" && window.unsynced === 0) continue;
      const { sharedUsed, unsynced } = window;
      open.push({ key, sharedUsed, unsynced, msLeft: window.endsAtMs - now });
    }
    return open;
  }

  /** Notes that Redis now includes `requests` of `key`'s unsynced spending. */
  markSynced(key: string, requests: number): void {
    const window = this.#windows.get(key);
    if (window) window.unsynced = Math.max(window.unsynced - requests, 0);
  }

  /** Forgets windows that have closed, which bounds memory by the users of the last hour. */
  sweep(): void {
    const now = this.#clock();
    for (const [key, window] of this.#windows) {
      if (window.endsAtMs <= now) this.#windows.delete(key);
    }
  }

  #openWindow(key: string): LocalWindow {
    const now = this.#clock();
    const known = this.#windows.get(key);
    if (known && known.endsAtMs > now) return known;
    // No window, or it closed: the user starts a fresh one, opened by this request.
    const fresh = { sharedUsed: 0, endsAtMs: now + this.#windowMs, localUsed: 0, unsynced: 0 };
    this.#windows.set(key, fresh);
    return fresh;
  }
}
