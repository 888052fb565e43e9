import type { Redis } from "ioredis";
import { UserBudgets } from "./rate-limit-users.ts";
import {
  type RateLimitLogger,
  RedisConnection,
  type RedisObserver,
  withinDeadline,
} from "./redis-connection.ts";

export type { RateLimitLogger } from "./redis-connection.ts";

/**
 * The outcome of one counted request, with every number the HTTP layer puts in the rate-limit
 * headers (`X-RateLimit-Limit`, `-Remaining`, `-Used`, `-Reset`, and `Retry-After` on a 429).
 */
export interface RateLimitDecision {
  /** Whether the request may be served. */
  allowed: boolean;
  /** The size of the budget: requests per hour for users, the burst size for anonymous clients. */
  limit: number;
  /**
   * Requests still available now; 0 when denied. When this process decided alone, what it will
   * still allow from its share.
   */
  remaining: number;
  /**
   * Requests counted against the budget, capped at `limit`; `used + remaining === limit`. When this
   * process decided alone, the other instances' shares count as spent.
   */
  used: number;
  /** Epoch seconds at which the budget is full again. */
  resetEpochSeconds: number;
  /** Whole seconds to wait before retrying: at least 1 when denied, 0 when allowed. */
  retryAfterSeconds: number;
}

/** Told of what the limiter does apart from deciding: metrics count it, tests wait on it. */
export interface RateLimitObserver extends RedisObserver {
  /** A request was decided by this process alone because the configured Redis could not decide it. */
  decidedLocally?(limit: "user" | "anonymous"): void;
  /** Requests allowed alone during an outage were added to the shared counts in Redis. */
  reconciled?(requests: number): void;
}

/** How to build a {@link RateLimiter}; `src/config.ts` parses these from the environment. */
export interface RateLimiterOptions {
  /** Requests per user per fixed one-hour window; 0 turns user limiting off. */
  perHour: number;
  /** Shares every budget across server instances through this Redis; unset keeps counts in memory. */
  redisUrl?: string;
  /**
   * How many instances serve the API together; defaults to 1. Whenever this process decides alone
   * (no Redis, or Redis unreachable) it allows only its share of each budget, so the instances
   * together stay within it.
   */
  instances?: number;
  /** Prefix of every Redis key the limiter writes; defaults to `assay:rl`. */
  keyPrefix?: string;
  /** Requests an anonymous client may send at once before the trickle applies; defaults to 20. */
  anonymousBurst?: number;
  /** After the burst, an anonymous client gets one request per this many seconds; defaults to 3. */
  anonymousRefillSeconds?: number;
  /** Where Redis outages and recoveries are reported. */
  logger: RateLimitLogger;
  /** Told of local decisions, reconciliations and the connection's changes. */
  observer?: RateLimitObserver;
  /**
   * The time in epoch milliseconds for what this process decides alone; defaults to `Date.now`.
   * Tests pass a clock they move, so a refill is seen without waiting for it.
   */
  clock?: () => number;
}

/** Which store the limiter was configured with and whether Redis currently answers. */
export interface RateLimiterStatus {
  /** `redis` whenever a Redis URL is configured, even while it is down and memory stands in. */
  backend: "memory" | "redis";
  /**
   * Whether the Redis connection is open; `null` when no Redis is configured. A Redis that is connected
   * but slow still counts as up: each command that misses the 100 ms deadline falls back on its own.
   */
  redisUp: boolean | null;
  /**
   * Whether Redis decides user budgets right now: connected, and told of every request this process
   * allowed alone meanwhile. False from an outage's start until its reconciliation is done.
   */
  shared: boolean;
}

const WINDOW_SECONDS = 3600;
const DEFAULT_KEY_PREFIX = "assay:rl";
const DEFAULT_ANONYMOUS_BURST = 20;
const DEFAULT_ANONYMOUS_REFILL_SECONDS = 3;
/** A Redis that does not answer within this long is treated as down for that request. */
const REDIS_DEADLINE_MS = 100;
/** How long a readiness probe waits for Redis to answer PING. */
const REDIS_PING_DEADLINE_MS = 1000;
const MEMORY_SWEEP_INTERVAL_MS = 60_000;

/**
 * Per-user fixed-window budgets and per-address token buckets, shared through Redis or decided by
 * this process alone.
 *
 * Authenticated requests spend from a budget of `perHour` requests per user. The window is fixed: it
 * opens with the user's first counted request and closes an hour later, whatever happened in between.
 * Requests without a valid token spend from a token bucket per client address (a burst, then one
 * request per refill interval), which makes guessing tokens at speed impractical. The anonymous bucket
 * stays on even when `perHour` is 0, because it guards authentication rather than capacity.
 *
 * With a Redis URL, all instances share one exact budget (counting is a single Lua script, so
 * concurrent requests cannot overspend it). Whenever this process has to decide alone (Redis
 * unreachable, too slow for one request, or not configured) it allows only its share of each budget,
 * `1 / instances` of what Redis last said was left, so the instances together keep the global
 * budget. When Redis returns, what was allowed alone is added to the shared counts before Redis
 * decides again (docs/api.md "Rate limit").
 */
export class RateLimiter {
  /** False when `perHour` is 0: users are never limited and callers should omit the headers. */
  readonly enabled: boolean;
  readonly #perHour: number;
  readonly #users: UserBudgets | null;
  readonly #anonymous: AnonymousBuckets;
  readonly #redis: RedisConnection | null;
  readonly #clock: () => number;

  private constructor(options: RateLimiterOptions, redis: RedisConnection | null) {
    assertIntegerAtLeast("perHour", options.perHour, 0);
    const instances = options.instances ?? 1;
    assertIntegerAtLeast("instances", instances, 1);
    const prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    const observer = options.observer ?? {};
    this.enabled = options.perHour > 0;
    this.#perHour = options.perHour;
    this.#redis = redis;
    this.#clock = options.clock ?? Date.now;
    this.#users = this.enabled
      ? new UserBudgets({
          perHour: options.perHour,
          instances,
          windowSeconds: WINDOW_SECONDS,
          keyPrefix: `${prefix}:user`,
          redis,
          deadlineMs: REDIS_DEADLINE_MS,
          clock: this.#clock,
          events: {
            decidedLocally: () => observer.decidedLocally?.("user"),
            reconciled: (requests) => observer.reconciled?.(requests),
          },
        })
      : null;
    this.#anonymous = new AnonymousBuckets({
      burst: options.anonymousBurst ?? DEFAULT_ANONYMOUS_BURST,
      refillSeconds: options.anonymousRefillSeconds ?? DEFAULT_ANONYMOUS_REFILL_SECONDS,
      instances,
      keyPrefix: `${prefix}:anon`,
      redis,
      clock: this.#clock,
      decidedLocally: () => observer.decidedLocally?.("anonymous"),
    });
  }

  /**
   * Builds a limiter and, when a Redis URL is given, connects to it. A Redis that is down at start is
   * not an error: the limiter decides alone, logs one warning and keeps reconnecting.
   */
  static async create(options: RateLimiterOptions): Promise<RateLimiter> {
    const redis = options.redisUrl
      ? await RedisConnection.create(options.redisUrl, options.logger, options.observer)
      : null;
    const limiter = new RateLimiter(options, redis);
    await redis?.connect();
    return limiter;
  }

  /**
   * Counts one authenticated request against the user's hourly budget. When the limiter is disabled
   * the answer is always allowed with all numbers 0, and the caller must not send rate-limit headers.
   */
  async consumeUser(userKey: string): Promise<RateLimitDecision> {
    if (!this.#users) return unlimitedDecision();
    const decision = await this.#users.consume(userKey);
    return {
      allowed: decision.allowed,
      limit: this.#perHour,
      remaining: decision.remaining,
      used: decision.used,
      resetEpochSeconds: Math.ceil((this.#clock() + decision.msLeft) / 1000),
      retryAfterSeconds: decision.allowed ? 0 : Math.max(1, Math.ceil(decision.msLeft / 1000)),
    };
  }

  /** Counts one request that carried no valid token against its client address's token bucket. */
  consumeAnonymous(clientAddress: string): Promise<RateLimitDecision> {
    return this.#anonymous.take(clientAddress);
  }

  /** Reports the configured store and whether Redis is reachable right now. */
  status(): RateLimiterStatus {
    if (!this.#redis) return { backend: "memory", redisUp: null, shared: false };
    // With user limiting off there is nothing to reconcile: shared as soon as connected.
    const shared = this.#users ? this.#users.sharedOpen : this.#redis.isReady;
    return { backend: "redis", redisUp: this.#redis.isReady, shared };
  }

  /** True when Redis answers PING within a second, or when no Redis is configured. */
  async ping(): Promise<boolean> {
    return this.#redis ? this.#redis.ping(REDIS_PING_DEADLINE_MS) : true;
  }

  /** Stops background work and disconnects from Redis, letting the process exit. */
  async close(): Promise<void> {
    this.#users?.close();
    this.#anonymous.close();
    await this.#redis?.close();
  }
}

function unlimitedDecision(): RateLimitDecision {
  return { allowed: true, limit: 0, remaining: 0, used: 0, resetEpochSeconds: 0, retryAfterSeconds: 0 };
}

/**
 * A bucket stored as its "theoretical arrival time" (GCRA): the instant at which it will be full
 * again. One number per client, updated in a single step, so Redis can do it atomically in Lua.
 */
interface BucketState {
  allowed: boolean;
  nowMs: number;
  fullAtMs: number;
}

/** Takes one token if the bucket has one; `fullAtMs` is the stored instant, or null when absent. */
function takeToken(fullAtMs: number | null, nowMs: number, intervalMs: number, burst: number): BucketState {
  const current = Math.max(fullAtMs ?? nowMs, nowMs);
  const next = current + intervalMs;
  const allowed = next - burst * intervalMs <= nowMs;
  return { allowed, nowMs, fullAtMs: allowed ? next : current };
}

/**
 * The same step as {@link takeToken}, run inside Redis on Redis's clock so instances agree. Writing
 * after TIME needs effects replication, the default since Redis 5.
 */
const TAKE_TOKEN_LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local current = math.max(tonumber(redis.call('GET', KEYS[1]) or now), now)
local later = current + interval
if later - burst * interval > now then
  return {0, now, current}
end
redis.call('SET', KEYS[1], string.format('%d', later), 'PX', string.format('%d', later - now))
return {1, now, later}
`;

interface TakeTokenCommand {
  assayTakeToken(key: string, intervalMs: string, burst: string): Promise<unknown>;
}

function parseBucketReply(reply: unknown): BucketState {
  if (!Array.isArray(reply) || reply.length !== 3 || !reply.every((n) => typeof n === "number")) {
    throw new Error(`Unexpected token bucket reply from Redis: ${JSON.stringify(reply)}`);
  }
  const [allowed, nowMs, fullAtMs] = reply as [number, number, number];
  return { allowed: allowed === 1, nowMs, fullAtMs };
}

function bucketDecision(state: BucketState, intervalMs: number, burst: number): RateLimitDecision {
  const resetEpochSeconds = Math.ceil(state.fullAtMs / 1000);
  if (!state.allowed) {
    const waitMs = state.fullAtMs + intervalMs - burst * intervalMs - state.nowMs;
    const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
    return { allowed: false, limit: burst, remaining: 0, used: burst, resetEpochSeconds, retryAfterSeconds };
  }
  const remaining = Math.floor((state.nowMs + burst * intervalMs - state.fullAtMs) / intervalMs);
  return {
    allowed: true,
    limit: burst,
    remaining,
    used: burst - remaining,
    resetEpochSeconds,
    retryAfterSeconds: 0,
  };
}

/** Options of {@link AnonymousBuckets}. */
interface AnonymousBucketOptions {
  burst: number;
  refillSeconds: number;
  instances: number;
  keyPrefix: string;
  redis: RedisConnection | null;
  clock: () => number;
  /** Called for each request decided in memory although Redis is configured. */
  decidedLocally(): void;
}

/**
 * Token buckets per client address, in Redis when it is up and in process memory otherwise. In
 * memory each instance's bucket is its share: `1 / instances` of the burst, refilled `instances`
 * times slower. Buckets are not merged back into Redis when it returns: a bucket is full again within
 * burst × refill seconds (a minute by default), so an outage's spending is soon forgotten anyway.
 */
class AnonymousBuckets {
  readonly #burst: number;
  readonly #intervalMs: number;
  readonly #localBurst: number;
  readonly #localIntervalMs: number;
  readonly #keyPrefix: string;
  readonly #redis: RedisConnection | null;
  readonly #memory = new Map<string, number>();
  readonly #sweeper: NodeJS.Timeout;
  readonly #clock: () => number;
  readonly #decidedLocally: () => void;

  constructor(options: AnonymousBucketOptions) {
    const { burst, refillSeconds, instances, redis } = options;
    assertIntegerAtLeast("anonymousBurst", burst, 1);
    if (!(Number.isFinite(refillSeconds) && refillSeconds > 0)) {
      throw new RangeError(`anonymousRefillSeconds must be a positive number, got ${refillSeconds}`);
    }
    this.#burst = burst;
    this.#intervalMs = Math.max(1, Math.round(refillSeconds * 1000));
    this.#localBurst = Math.ceil(burst / instances);
    this.#localIntervalMs = this.#intervalMs * instances;
    this.#keyPrefix = options.keyPrefix;
    this.#redis = redis;
    this.#clock = options.clock;
    this.#decidedLocally = options.decidedLocally;
    redis?.client.defineCommand("assayTakeToken", { numberOfKeys: 1, lua: TAKE_TOKEN_LUA });
    this.#sweeper = setInterval(() => this.#sweepFullBuckets(), MEMORY_SWEEP_INTERVAL_MS);
    this.#sweeper.unref();
  }

  async take(clientAddress: string): Promise<RateLimitDecision> {
    const shared = await this.#takeFromRedis(clientAddress);
    if (shared) return bucketDecision(shared, this.#intervalMs, this.#burst);
    if (this.#redis) this.#decidedLocally();
    return bucketDecision(this.#takeFromMemory(clientAddress), this.#localIntervalMs, this.#localBurst);
  }

  close(): void {
    clearInterval(this.#sweeper);
  }

  /** Null means "use memory": Redis is absent, reconnecting, or failed this command. */
  async #takeFromRedis(clientAddress: string): Promise<BucketState | null> {
    if (!this.#redis?.isReady) return null;
    const client = this.#redis.client as Redis & TakeTokenCommand;
    const key = `${this.#keyPrefix}:${clientAddress}`;
    // Outages are logged once by RedisConnection; a per-request log here would flood.
    const reply = client.assayTakeToken(key, String(this.#intervalMs), String(this.#burst));
    return withinDeadline(reply.then(parseBucketReply), REDIS_DEADLINE_MS);
  }

  #takeFromMemory(clientAddress: string): BucketState {
    const state = takeToken(
      this.#memory.get(clientAddress) ?? null,
      this.#clock(),
      this.#localIntervalMs,
      this.#localBurst,
    );
    if (state.allowed) this.#memory.set(clientAddress, state.fullAtMs);
    return state;
  }

  /** A bucket that is full again is the same as no bucket, so forget it to bound memory. */
  #sweepFullBuckets(): void {
    const now = this.#clock();
    for (const [address, fullAtMs] of this.#memory) {
      if (fullAtMs <= now) this.#memory.delete(address);
    }
  }
}

function assertIntegerAtLeast(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer of at least ${min}, got ${value}`);
  }
}
