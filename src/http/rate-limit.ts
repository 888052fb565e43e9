import { Redis } from "ioredis";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from "rate-limiter-flexible";

/**
 * The outcome of one counted request, with every number the HTTP layer puts in the rate-limit
 * headers (`X-RateLimit-Limit`, `-Remaining`, `-Used`, `-Reset`, and `Retry-After` on a 429).
 */
export interface RateLimitDecision {
  /** Whether the request may be served. */
  allowed: boolean;
  /** The size of the budget: requests per hour for users, the burst size for anonymous clients. */
  limit: number;
  /** Requests still available now; 0 when denied. */
  remaining: number;
  /** Requests counted against the budget, capped at `limit`; `used + remaining === limit`. */
  used: number;
  /** Epoch seconds at which the budget is full again. */
  resetEpochSeconds: number;
  /** Whole seconds to wait before retrying: at least 1 when denied, 0 when allowed. */
  retryAfterSeconds: number;
}

/** The subset of a pino logger the limiter writes to. */
export interface RateLimitLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** How to build a {@link RateLimiter}; `src/config.ts` parses these from the environment. */
export interface RateLimiterOptions {
  /** Requests per user per fixed one-hour window; 0 turns user limiting off. */
  perHour: number;
  /** Shares every budget across server instances through this Redis; unset keeps counts in memory. */
  redisUrl?: string;
  /** Prefix of every Redis key the limiter writes; defaults to `assay:rl`. */
  keyPrefix?: string;
  /** Requests an anonymous client may send at once before the trickle applies; defaults to 20. */
  anonymousBurst?: number;
  /** After the burst, an anonymous client gets one request per this many seconds; defaults to 3. */
  anonymousRefillSeconds?: number;
  /** Where Redis outages and recoveries are reported. */
  logger: RateLimitLogger;
  /**
   * The time in epoch milliseconds for the in-memory anonymous buckets; defaults to `Date.now`.
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
}

const WINDOW_SECONDS = 3600;
const DEFAULT_KEY_PREFIX = "assay:rl";
const DEFAULT_ANONYMOUS_BURST = 20;
const DEFAULT_ANONYMOUS_REFILL_SECONDS = 3;
/** A Redis that does not answer within this long is treated as down for that request. */
const REDIS_DEADLINE_MS = 100;
/** Commands still unanswered this long are abandoned, so a hung Redis cannot pile them up. */
const REDIS_COMMAND_TIMEOUT_MS = 2000;
const REDIS_CONNECT_TIMEOUT_MS = 1000;
const REDIS_MAX_RECONNECT_DELAY_MS = 1000;
const MEMORY_SWEEP_INTERVAL_MS = 60_000;

/**
 * Per-user fixed-window budgets and per-address token buckets, in memory or shared through Redis.
 *
 * Authenticated requests spend from a budget of `perHour` requests per user. The window is fixed: it
 * opens with the user's first counted request and closes an hour later, whatever happened in between.
 * Requests without a valid token spend from a token bucket per client address (a burst, then one
 * request per refill interval), which makes guessing tokens at speed impractical. The anonymous bucket
 * stays on even when `perHour` is 0, because it guards authentication rather than capacity.
 *
 * With a Redis URL, all instances share one exact budget (counting is a single Lua script, so
 * concurrent requests cannot overspend it). While Redis is unreachable, each instance counts in its
 * own memory instead: requests keep being served, the budget is per process for the duration, and
 * those counts are not merged back into Redis when it returns.
 */
export class RateLimiter {
  /** False when `perHour` is 0: users are never limited and callers should omit the headers. */
  readonly enabled: boolean;
  readonly #perHour: number;
  readonly #users: UserBudgets | null;
  readonly #anonymous: AnonymousBuckets;
  readonly #redis: RedisConnection | null;

  private constructor(options: RateLimiterOptions, redis: RedisConnection | null) {
    assertIntegerAtLeast("perHour", options.perHour, 0);
    const prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.enabled = options.perHour > 0;
    this.#perHour = options.perHour;
    this.#redis = redis;
    this.#users = this.enabled ? createUserLimiter(options.perHour, `${prefix}:user`, redis) : null;
    this.#anonymous = new AnonymousBuckets(
      options.anonymousBurst ?? DEFAULT_ANONYMOUS_BURST,
      options.anonymousRefillSeconds ?? DEFAULT_ANONYMOUS_REFILL_SECONDS,
      `${prefix}:anon`,
      redis,
      options.clock ?? Date.now,
    );
  }

  /**
   * Builds a limiter and, when a Redis URL is given, connects to it. A Redis that is down at start is
   * not an error: the limiter counts in memory, logs one warning and keeps reconnecting.
   */
  static async create(options: RateLimiterOptions): Promise<RateLimiter> {
    const redis = options.redisUrl ? new RedisConnection(options.redisUrl, options.logger) : null;
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
    const { shared, memory } = this.#users;
    // Memory stands in while Redis is down, and for each request Redis does not answer in time.
    const spent =
      (shared && (await withinDeadline(spendPoint(shared, userKey), REDIS_DEADLINE_MS))) ??
      (await spendPoint(memory, userKey));
    return windowDecision(spent.res, this.#perHour, spent.allowed);
  }

  /** Counts one request that carried no valid token against its client address's token bucket. */
  consumeAnonymous(clientAddress: string): Promise<RateLimitDecision> {
    return this.#anonymous.take(clientAddress);
  }

  /** Reports the configured store and whether Redis is reachable right now. */
  status(): RateLimiterStatus {
    if (!this.#redis) return { backend: "memory", redisUp: null };
    return { backend: "redis", redisUp: this.#redis.isReady };
  }

  /** True when Redis answers PING, or when no Redis is configured (for readiness probes). */
  async ping(): Promise<boolean> {
    return this.#redis ? this.#redis.ping() : true;
  }

  /** Stops background work and disconnects from Redis, letting the process exit. */
  async close(): Promise<void> {
    this.#anonymous.close();
    await this.#redis?.close();
  }
}

/** The per-user windows: in Redis when one is configured, and in memory as its stand-in. */
interface UserBudgets {
  shared: RateLimiterAbstract | null;
  memory: RateLimiterAbstract;
}

function createUserLimiter(perHour: number, keyPrefix: string, redis: RedisConnection | null): UserBudgets {
  const memory = new RateLimiterMemory({ points: perHour, duration: WINDOW_SECONDS, keyPrefix });
  const shared =
    redis &&
    new RateLimiterRedis({
      storeClient: redis.client,
      points: perHour,
      duration: WINDOW_SECONDS,
      keyPrefix,
      // Skip Redis entirely while it is reconnecting, rather than failing each command on its own.
      rejectIfRedisNotReady: true,
    });
  return { shared, memory };
}

/** One point taken from `limiter`'s window for `key`, whether or not the window had one left. */
async function spendPoint(
  limiter: RateLimiterAbstract,
  key: string,
): Promise<{ res: RateLimiterRes; allowed: boolean }> {
  try {
    return { res: await limiter.consume(key), allowed: true };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return { res: rejection, allowed: false };
    throw rejection;
  }
}

/**
 * What `work` resolves to, or null when it fails or has not settled `ms` after the call. At the
 * deadline it lets the event loop read pending I/O once more before giving up: a reply that arrived
 * while this process was busy (a burst of requests, a garbage collection) must not be taken for a
 * slow Redis, because Redis has already counted that request and counting it again in memory would
 * let the instances together spend more than the shared budget.
 */
function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T | null> {
  return new Promise((resolve) => {
    // Timers run before the poll phase that reads sockets, and immediates after it.
    const timer = setTimeout(() => setImmediate(() => resolve(null)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(null);
      },
    );
  });
}

function windowDecision(res: RateLimiterRes, limit: number, allowed: boolean): RateLimitDecision {
  // The counter keeps growing past the limit on denied requests; the headers never show that.
  const used = Math.min(res.consumedPoints, limit);
  const msLeft = Math.max(res.msBeforeNext, 0);
  return {
    allowed,
    limit,
    remaining: limit - used,
    used,
    resetEpochSeconds: Math.ceil((Date.now() + msLeft) / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(msLeft / 1000)),
  };
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

/** Token buckets per client address, in Redis when it is up and in process memory otherwise. */
class AnonymousBuckets {
  readonly #burst: number;
  readonly #intervalMs: number;
  readonly #keyPrefix: string;
  readonly #redis: RedisConnection | null;
  readonly #memory = new Map<string, number>();
  readonly #sweeper: NodeJS.Timeout;
  readonly #clock: () => number;

  constructor(
    burst: number,
    refillSeconds: number,
    keyPrefix: string,
    redis: RedisConnection | null,
    clock: () => number,
  ) {
    assertIntegerAtLeast("anonymousBurst", burst, 1);
    if (!(Number.isFinite(refillSeconds) && refillSeconds > 0)) {
      throw new RangeError(`anonymousRefillSeconds must be a positive number, got ${refillSeconds}`);
    }
    this.#burst = burst;
    this.#intervalMs = Math.max(1, Math.round(refillSeconds * 1000));
    this.#keyPrefix = keyPrefix;
    this.#redis = redis;
    this.#clock = clock;
    redis?.client.defineCommand("assayTakeToken", { numberOfKeys: 1, lua: TAKE_TOKEN_LUA });
    this.#sweeper = setInterval(() => this.#sweepFullBuckets(), MEMORY_SWEEP_INTERVAL_MS);
    this.#sweeper.unref();
  }

  async take(clientAddress: string): Promise<RateLimitDecision> {
    const state = (await this.#takeFromRedis(clientAddress)) ?? this.#takeFromMemory(clientAddress);
    return bucketDecision(state, this.#intervalMs, this.#burst);
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
      this.#intervalMs,
      this.#burst,
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

/**
 * One ioredis client set up to fail fast, plus the bookkeeping that logs each outage exactly once:
 * a warning when the connection is lost (or never made) and an info line when it is back.
 */
class RedisConnection {
  readonly client: Redis;
  readonly #logger: RateLimitLogger;
  #outageLogged = false;
  #closing = false;
  #lastError: Error | null = null;

  constructor(url: string, logger: RateLimitLogger) {
    this.#logger = logger;
    this.client = new Redis(url, {
      lazyConnect: true,
      // Without a queue, commands issued while disconnected reject at once instead of waiting.
      enableOfflineQueue: false,
      // Commands in flight when the connection drops reject at once instead of being retried.
      maxRetriesPerRequest: 0,
      // Requests stop waiting after REDIS_DEADLINE_MS; this frees the commands of a Redis that is
      // connected but not answering (paused, overloaded, partitioned).
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
      retryStrategy: (attempt) => Math.min(attempt * 100, REDIS_MAX_RECONNECT_DELAY_MS),
    });
    this.client.on("ready", () => this.#markUp());
    this.client.on("error", (error: Error) => {
      this.#lastError = error;
      // A failed connection attempt may report only an error; a lost connection also reports "close".
      if (!this.isReady) this.#markDown();
    });
    this.client.on("close", () => this.#markDown());
  }

  get isReady(): boolean {
    return this.client.status === "ready";
  }

  /** Resolves once the first attempt has succeeded or failed; later attempts run in the background. */
  async connect(): Promise<void> {
    await this.client.connect().catch(() => undefined);
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.client.ping()) === "PONG";
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.#closing = true;
    if (this.isReady) {
      try {
        await this.client.quit();
        return;
      } catch {
        // Fall through: the connection is going away anyway.
      }
    }
    this.client.disconnect();
  }

  #markUp(): void {
    if (this.#outageLogged) {
      this.#logger.info({}, "Redis is reachable again; rate limits are shared across instances again");
    }
    this.#outageLogged = false;
    this.#lastError = null;
  }

  #markDown(): void {
    if (this.#closing || this.#outageLogged) return;
    this.#outageLogged = true;
    this.#logger.warn(
      this.#lastError ? { err: this.#lastError } : {},
      "Redis is unreachable; rate limits are counted in this process's memory until it returns",
    );
  }
}

function assertIntegerAtLeast(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer of at least ${min}, got ${value}`);
  }
}
