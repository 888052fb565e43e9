import type { Redis } from "ioredis";

/** The subset of a pino logger the rate limiter writes to. */
export interface RateLimitLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** Told of the Redis connection's changes (metrics use it; tests wait on it instead of sleeping). */
export interface RedisObserver {
  /** The connection opened (`true`) or was lost or could not be made (`false`). */
  redisAvailability?(up: boolean): void;
  /** A reconnection attempt has been scheduled after a failed or lost connection. */
  redisReconnecting?(): void;
}

/** Commands still unanswered this long are abandoned, so a hung Redis cannot pile them up. */
const REDIS_COMMAND_TIMEOUT_MS = 2000;
const REDIS_CONNECT_TIMEOUT_MS = 1000;
const REDIS_MAX_RECONNECT_DELAY_MS = 1000;

/**
 * One ioredis client set up to fail fast, plus the bookkeeping that logs each outage exactly once:
 * a warning when the connection is lost (or never made) and an info line when it is back.
 */
export class RedisConnection {
  readonly client: Redis;
  readonly #logger: RateLimitLogger;
  readonly #observer: RedisObserver;
  #outageLogged = false;
  #closing = false;
  #lastError: Error | null = null;

  /**
   * A connection to `url`, not yet connected ({@link connect}). ioredis is loaded here, by the
   * first server that is given a Redis URL: the embedded default never is, and the library is
   * several MB resident.
   */
  static async create(
    url: string,
    logger: RateLimitLogger,
    observer: RedisObserver = {},
  ): Promise<RedisConnection> {
    const { Redis } = await import("ioredis");
    const client = new Redis(url, {
      lazyConnect: true,
      // Without a queue, commands issued while disconnected reject at once instead of waiting.
      enableOfflineQueue: false,
      // Commands in flight when the connection drops reject at once instead of being retried.
      maxRetriesPerRequest: 0,
      // Requests stop waiting after the rate limiter's short deadline; this frees the commands of a
      // Redis that is connected but not answering (paused, overloaded, partitioned).
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
      retryStrategy: (attempt) => Math.min(attempt * 100, REDIS_MAX_RECONNECT_DELAY_MS),
    });
    return new RedisConnection(client, logger, observer);
  }

  private constructor(client: Redis, logger: RateLimitLogger, observer: RedisObserver) {
    this.#logger = logger;
    this.#observer = observer;
    this.client = client;
    this.client.on("ready", () => this.#markUp());
    this.client.on("error", (error: Error) => {
      this.#lastError = error;
      // A failed connection attempt may report only an error; a lost connection also reports "close".
      if (!this.isReady) this.#markDown();
    });
    this.client.on("close", () => this.#markDown());
    this.client.on("reconnecting", () => this.#observer.redisReconnecting?.());
  }

  get isReady(): boolean {
    return this.client.status === "ready";
  }

  /** Resolves once the first attempt has succeeded or failed; later attempts run in the background. */
  async connect(): Promise<void> {
    await this.client.connect().catch(() => undefined);
    if (!this.isReady) this.#markDown();
  }

  /** Whether Redis answers PING within `deadlineMs`. */
  async ping(deadlineMs: number): Promise<boolean> {
    const reply = await withinDeadline(this.client.ping(), deadlineMs);
    return reply === "PONG";
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
    this.#observer.redisAvailability?.(true);
  }

  #markDown(): void {
    if (this.#closing || this.#outageLogged) return;
    this.#outageLogged = true;
    this.#observer.redisAvailability?.(false);
    this.#logger.warn(
      this.#lastError ? { err: this.#lastError } : {},
      "Redis is unreachable; each instance allows its share of the rate limits until it returns",
    );
  }
}

/**
 * What `work` resolves to, or null when it fails or has not settled `ms` after the call. At the
 * deadline it lets the event loop read pending I/O once more before giving up: a reply that arrived
 * while this process was busy (a burst of requests, a garbage collection) must not be taken for a
 * slow Redis, because Redis has already counted that request and counting it again in memory would
 * let the instances together spend more than the shared budget.
 */
export function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T | null> {
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
