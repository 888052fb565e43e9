import type { Redis } from "ioredis";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { type LocalDecision, LocalWindows, type OpenWindow } from "./rate-limit-fallback.ts";
import { type RedisConnection, withinDeadline } from "./redis-connection.ts";

/** One user's request decided, with the numbers of the rate-limit headers. */
export interface UserDecision {
  allowed: boolean;
  remaining: number;
  used: number;
  /** Milliseconds until the window closes. */
  msLeft: number;
}

/** What {@link UserBudgets} reports to its owner. */
export interface UserBudgetEvents {
  /** A request was decided by this process alone although Redis is configured. */
  decidedLocally(): void;
  /** Spending decided alone was added to Redis's counts. */
  reconciled(requests: number): void;
}

/** Options of {@link UserBudgets}. */
export interface UserBudgetOptions {
  perHour: number;
  instances: number;
  windowSeconds: number;
  keyPrefix: string;
  redis: RedisConnection | null;
  /** A Redis that does not answer within this long is treated as down for that request. */
  deadlineMs: number;
  clock: () => number;
  events: UserBudgetEvents;
}

/**
 * Brings one user's window in Redis up to date with what this instance knows, in one atomic step:
 *
 * 1. The count is never below the count Redis last gave this instance (ARGV[3]). A window Redis no
 *    longer has (it restarted without persistence) is rebuilt from it, to close when this
 *    instance's window closes, never a full hour later; a second key (KEYS[2]) records that
 *    baseline, so an instance that saw a higher count adds only the difference instead of counting
 *    the requests both saw twice.
 * 2. The requests allowed here alone during the outage (ARGV[1]) are added.
 *
 * A window Redis kept keeps its expiry. Returns the new count and the milliseconds left.
 */
const RECONCILE_LUA = `
local spent = tonumber(ARGV[1])
local msLeft = tonumber(ARGV[2])
local known = tonumber(ARGV[3])
local current = tonumber(redis.call('GET', KEYS[1]))
local base = tonumber(redis.call('GET', KEYS[2]))
if not current then
  redis.call('SET', KEYS[1], known, 'PX', msLeft)
  redis.call('SET', KEYS[2], known, 'PX', msLeft)
elseif base then
  if known > base then
    redis.call('INCRBY', KEYS[1], known - base)
    local ttl = redis.call('PTTL', KEYS[1])
    if ttl > 0 then redis.call('SET', KEYS[2], known, 'PX', ttl) end
  end
elseif current < known then
  redis.call('INCRBY', KEYS[1], known - current)
end
local count = redis.call('INCRBY', KEYS[1], spent)
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], msLeft)
  ttl = msLeft
end
return {count, ttl}
`;

interface ReconcileCommand {
  assayReconcile(
    key: string,
    baseKey: string,
    requests: string,
    msLeft: string,
    known: string,
  ): Promise<unknown>;
}

/** How long to wait before trying a failed reconciliation again while Redis stays connected. */
const RECONCILE_RETRY_MS = 500;
/** Users reconciled at once; keeps a long outage's backlog from flooding the connection. */
const RECONCILE_BATCH = 200;
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Per-user fixed windows: one exact count in Redis shared by every instance, and this process's
 * share (see {@link LocalWindows}) whenever Redis cannot decide. When Redis comes back after an
 * outage, what was allowed here meanwhile is added to the shared counts before Redis decides again,
 * so no user gets a fresh budget out of an outage.
 */
export class UserBudgets {
  readonly #perHour: number;
  readonly #shared: RateLimiterRedis | null;
  readonly #redis: RedisConnection | null;
  readonly #local: LocalWindows;
  readonly #deadlineMs: number;
  readonly #clock: () => number;
  readonly #events: UserBudgetEvents;
  readonly #sweeper: NodeJS.Timeout;
  readonly #baseKeyPrefix: string;
  /** True once Redis is connected and knows everything this process allowed alone. */
  #sharedOpen = false;
  /** The requests of this turn waiting to be counted in Redis, by user. */
  #waiting = new Map<string, Array<(decision: UserDecision) => void>>();
  #reconciling: Promise<void> | null = null;
  #retry: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(options: UserBudgetOptions) {
    const { redis } = options;
    this.#perHour = options.perHour;
    this.#redis = redis;
    this.#deadlineMs = options.deadlineMs;
    this.#clock = options.clock;
    this.#events = options.events;
    this.#local = new LocalWindows(
      options.perHour,
      options.instances,
      options.windowSeconds * 1000,
      options.clock,
    );
    this.#baseKeyPrefix = `${options.keyPrefix}-restored`;
    this.#shared =
      redis &&
      new RateLimiterRedis({
        storeClient: redis.client,
        points: options.perHour,
        duration: options.windowSeconds,
        keyPrefix: options.keyPrefix,
        // Skip Redis entirely while it is reconnecting, rather than failing each command on its own.
        rejectIfRedisNotReady: true,
      });
    if (redis) {
      redis.client.defineCommand("assayReconcile", { numberOfKeys: 2, lua: RECONCILE_LUA });
      redis.client.on("ready", () => this.#reconcile());
      redis.client.on("close", () => {
        this.#sharedOpen = false;
      });
    }
    this.#sweeper = setInterval(() => this.#local.sweep(), SWEEP_INTERVAL_MS);
    this.#sweeper.unref();
  }

  /** Whether Redis decides right now (connected, and told of every request allowed here alone). */
  get sharedOpen(): boolean {
    return this.#sharedOpen && (this.#redis?.isReady ?? false);
  }

  /**
   * Counts one request of `userKey`, in Redis when it can decide and from this process's share
   * otherwise. The requests of one turn of the event loop are counted together: each user's are
   * one command that adds their number to the count, sent from a `setImmediate`, and each request
   * is decided by its place in that sum, exactly as if they had been counted one after another.
   */
  consume(userKey: string): Promise<UserDecision> {
    if (!this.#shared || !this.sharedOpen) return Promise.resolve(this.#decideLocally(userKey));
    return new Promise((resolve) => {
      const waiting = this.#waiting.get(userKey);
      if (waiting) waiting.push(resolve);
      else this.#waiting.set(userKey, [resolve]);
      if (this.#waiting.size === 1 && !waiting) setImmediate(() => this.#spendWaiting());
    });
  }

  /** Sends each user's requests of the turn that just ended as one command. */
  #spendWaiting(): void {
    const waiting = this.#waiting;
    this.#waiting = new Map();
    for (const [userKey, requests] of waiting) void this.#spend(userKey, requests);
  }

  async #spend(userKey: string, requests: Array<(decision: UserDecision) => void>): Promise<void> {
    const shared = this.#shared;
    if (!shared || !this.sharedOpen) {
      for (const resolve of requests) resolve(this.#decideLocally(userKey));
      return;
    }
    // The deadline starts when the command is sent, so a turn kept busy by other work before the
    // `setImmediate` is not taken for a slow Redis.
    const sent = spendPoints(shared, userKey, requests.length);
    const spent = await withinDeadline(sent, this.#deadlineMs);
    if (spent) {
      this.#local.recordShared(userKey, spent.consumedPoints, spent.msBeforeNext);
      const first = spent.consumedPoints - requests.length + 1;
      requests.forEach((resolve, index) => {
        resolve(sharedDecision(first + index, spent.msBeforeNext, this.#perHour));
      });
      return;
    }
    let allowedAlone = 0;
    for (const resolve of requests) {
      const decision = this.#decideLocally(userKey);
      if (decision.allowed) allowedAlone += 1;
      resolve(decision);
    }
    // Redis may still count the requests it missed the deadline for; only a failure leaves them to us.
    sent.then(
      () => {
        if (allowedAlone > 0) this.#local.markSynced(userKey, allowedAlone);
      },
      () => this.#scheduleReconcile(),
    );
  }

  /** Stops the background sweep and any pending retry. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#sweeper);
    if (this.#retry) clearTimeout(this.#retry);
  }

  #decideLocally(userKey: string): UserDecision {
    if (this.#redis) this.#events.decidedLocally();
    return localDecision(this.#local.decide(userKey), this.#perHour, this.#clock());
  }

  /**
   * Brings Redis up to date with every window this process knows, then lets Redis decide again:
   * restores counts Redis lost and adds the requests allowed here alone. Runs when the connection
   * opens and after a command failed while connected; one run at a time.
   */
  #reconcile(): void {
    if (this.#reconciling || this.#closed) return;
    this.#reconciling = this.#sendOpenWindows().finally(() => {
      this.#reconciling = null;
    });
  }

  async #sendOpenWindows(): Promise<void> {
    const client = this.#redis?.client as (Redis & ReconcileCommand) | undefined;
    const shared = this.#shared;
    if (!client || !shared) return;
    // First every open window (Redis may have lost them all); then, since requests keep being
    // allowed here while those are sent, whatever was allowed meanwhile, until nothing is owed.
    let which: "all" | "unsynced" = "all";
    while (this.#redis?.isReady && !this.#closed) {
      const windows = this.#local.openWindows(which);
      which = "unsynced";
      if (windows.length === 0) {
        this.#sharedOpen = true;
        return;
      }
      if (!(await this.#sendBatches(client, shared, windows))) {
        // A command that failed may still have been applied; sending it again can only count a
        // request twice, which spends the budget early rather than letting anyone past it.
        this.#scheduleReconcile(RECONCILE_RETRY_MS);
        return;
      }
    }
  }

  /** Sends `windows` to Redis; false when any of them failed. */
  async #sendBatches(
    client: Redis & ReconcileCommand,
    shared: RateLimiterRedis,
    windows: OpenWindow[],
  ): Promise<boolean> {
    let succeeded = true;
    for (let i = 0; i < windows.length; i += RECONCILE_BATCH) {
      const batch = windows.slice(i, i + RECONCILE_BATCH);
      const results = await Promise.allSettled(
        batch.map((window) =>
          client.assayReconcile(
            shared.getKey(window.key),
            `${this.#baseKeyPrefix}:${window.key}`,
            String(window.unsynced),
            String(window.msLeft),
            String(window.sharedUsed),
          ),
        ),
      );
      results.forEach((result, index) => {
        const window = batch[index];
        if (!window) return;
        if (result.status === "rejected") {
          succeeded = false;
          return;
        }
        this.#local.markSynced(window.key, window.unsynced);
        const reply = parseReconcileReply(result.value);
        if (reply) this.#local.recordShared(window.key, reply.count, reply.msLeft);
        if (window.unsynced > 0) this.#events.reconciled(window.unsynced);
      });
    }
    return succeeded;
  }

  #scheduleReconcile(delayMs = 0): void {
    if (this.#retry || this.#closed) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      if (this.#redis?.isReady) this.#reconcile();
    }, delayMs);
    this.#retry.unref();
  }
}

/**
 * `points` taken from `limiter`'s window for `key`, whether or not the window had them left: the
 * count after adding them, and the milliseconds until the window closes.
 */
async function spendPoints(
  limiter: RateLimiterRedis,
  key: string,
  points: number,
): Promise<{ consumedPoints: number; msBeforeNext: number }> {
  let res: RateLimiterRes;
  try {
    res = await limiter.consume(key, points);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    res = rejection;
  }
  return { consumedPoints: res.consumedPoints, msBeforeNext: res.msBeforeNext };
}

/** The decision of the request that brought the shared count to `count`. */
function sharedDecision(count: number, msBeforeNext: number, limit: number): UserDecision {
  // The counter keeps growing past the limit on denied requests; the headers never show that.
  const used = Math.min(count, limit);
  return { allowed: count <= limit, remaining: limit - used, used, msLeft: Math.max(msBeforeNext, 0) };
}

/**
 * A decision from this process's share. Remaining is what this process will still allow; Used is
 * the rest of the limit, counting the other instances' shares as spent, so the two still add up.
 */
function localDecision(decision: LocalDecision, limit: number, nowMs: number): UserDecision {
  return {
    allowed: decision.allowed,
    remaining: decision.remaining,
    used: limit - decision.remaining,
    msLeft: Math.max(decision.endsAtMs - nowMs, 0),
  };
}

/** The script's `{count, ttl}`; null for anything else (the count is then learnt from the next request). */
function parseReconcileReply(reply: unknown): { count: number; msLeft: number } | null {
  if (!Array.isArray(reply) || reply.length !== 2) return null;
  const [count, msLeft] = reply as unknown[];
  return typeof count === "number" && typeof msLeft === "number" ? { count, msLeft } : null;
}
