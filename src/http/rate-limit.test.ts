import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { connect, createServer, type Socket } from "node:net";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { type RateLimitDecision, RateLimiter, type RateLimiterOptions } from "./rate-limit.ts";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
/** A fallback answer must come back well within this, however Redis misbehaves. */
const FAST_MS = 200;

interface LogLine {
  level: "warn" | "info";
  obj: object;
  msg: string;
}

function recordingLogger(): RateLimiterOptions["logger"] & {
  lines: LogLine[];
  count(level: string): number;
} {
  const lines: LogLine[] = [];
  return {
    lines,
    warn: (obj, msg) => lines.push({ level: "warn", obj, msg }),
    info: (obj, msg) => lines.push({ level: "info", obj, msg }),
    count: (level) => lines.filter((line) => line.level === level).length,
  };
}

const openLimiters: RateLimiter[] = [];
after(() => Promise.all(openLimiters.map((limiter) => limiter.close())));

async function createLimiter(options: Partial<RateLimiterOptions> = {}): Promise<RateLimiter> {
  const limiter = await RateLimiter.create({ perHour: 5000, logger: recordingLogger(), ...options });
  openLimiters.push(limiter);
  return limiter;
}

/** A limiter on the shared test Redis under its own key prefix; fails the test if Redis is down. */
async function createSharedLimiter(
  keyPrefix: string,
  options: Partial<RateLimiterOptions> = {},
): Promise<RateLimiter> {
  const limiter = await createLimiter({ redisUrl: REDIS_URL, keyPrefix, ...options });
  assert.equal(limiter.status().redisUp, true, `Redis at ${REDIS_URL} must be reachable for this test`);
  return limiter;
}

function uniquePrefix(): string {
  return `assay:rl:test:${randomUUID()}`;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(20);
  }
}

async function unusedPort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  assert.ok(address && typeof address === "object");
  return address.port;
}

/** Starts a throwaway Redis and resolves once it answers; the caller stops it with {@link stopRedisServer}. */
async function startRedisServer(port: number): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"],
    { stdio: "ignore" },
  );
  try {
    await waitForRedis(port);
  } catch (error) {
    await stopRedisServer(child);
    throw error;
  }
  return child;
}

async function waitForRedis(port: number, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      (await connectAdmin(`redis://127.0.0.1:${port}`)).disconnect();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(20);
    }
  }
}

/** A client for test set-up that fails at once, rather than retrying forever, when Redis is down. */
async function connectAdmin(url: string): Promise<Redis> {
  const client = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

async function stopRedisServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}

/** A TCP proxy to a local port whose connections the test can cut and let through again. */
async function startProxy(targetPort: number): Promise<{
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  const listen = async (port: number) => {
    server.listen(port, "127.0.0.1");
    await once(server, "listening");
  };
  await listen(0);
  const address = server.address();
  assert.ok(address && typeof address === "object");
  const port = address.port;
  const cut = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return {
    port,
    cut,
    restore: () => listen(port),
    close: async () => {
      if (server.listening) await cut();
    },
  };
}

/** How many times Redis has run a script (the limiter's commands are scripts). */
async function scriptCalls(admin: Redis): Promise<number> {
  const stats = String(await admin.info("commandstats"));
  let calls = 0;
  for (const match of stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)) calls += Number(match[1]);
  return calls;
}

async function deleteKeys(prefix: string): Promise<void> {
  const admin = await connectAdmin(REDIS_URL).catch(() => null);
  if (!admin) return; // Redis is down, so the test has already failed and left nothing behind.
  try {
    const keys = await admin.keys(`${prefix}:*`);
    if (keys.length > 0) await admin.del(...keys);
  } finally {
    admin.disconnect();
  }
}

async function consumeMany(count: number, consume: () => Promise<RateLimitDecision>) {
  const decisions: RateLimitDecision[] = [];
  for (let i = 0; i < count; i++) decisions.push(await consume());
  return decisions;
}

describe("user budgets in memory", () => {
  test("a user gets exactly the hourly budget, then is denied with a retry delay and nothing remaining", async () => {
    const limiter = await createLimiter({ perHour: 5 });
    const allowed = await consumeMany(5, () => limiter.consumeUser("user-1"));
    assert.ok(allowed.every((decision) => decision.allowed && decision.retryAfterSeconds === 0));

    const denied = await limiter.consumeUser("user-1");
    assert.equal(denied.allowed, false);
    assert.equal(denied.remaining, 0);
    assert.equal(denied.used, 5);
    assert.ok(denied.retryAfterSeconds >= 1 && denied.retryAfterSeconds <= 3600);
    assert.ok(Number.isInteger(denied.retryAfterSeconds));
  });

  test("used plus remaining equals the limit, and the reset stays an hour after the window opened", async () => {
    const limiter = await createLimiter({ perHour: 4 });
    const openedAt = Math.floor(Date.now() / 1000);
    const decisions = await consumeMany(5, () => limiter.consumeUser("user-1"));

    decisions.slice(0, 4).forEach((decision, index) => {
      assert.equal(decision.limit, 4);
      assert.equal(decision.used, index + 1);
      assert.equal(decision.used + decision.remaining, decision.limit);
    });
    for (const decision of decisions) {
      assert.ok(
        Math.abs(decision.resetEpochSeconds - (openedAt + 3600)) <= 1,
        `${decision.resetEpochSeconds}`,
      );
    }
  });

  test("each user spends from a separate budget", async () => {
    const limiter = await createLimiter({ perHour: 2 });
    await consumeMany(3, () => limiter.consumeUser("user-a"));

    const other = await limiter.consumeUser("user-b");
    assert.equal(other.allowed, true);
    assert.equal(other.used, 1);
  });

  test("a per-hour limit of 0 disables user limiting and allows every request", async () => {
    const limiter = await createLimiter({ perHour: 0 });
    assert.equal(limiter.enabled, false);
    assert.deepEqual(limiter.status(), { backend: "memory", redisUp: null, shared: false });
    assert.equal(await limiter.ping(), true);

    const decisions = await consumeMany(50, () => limiter.consumeUser("user-1"));
    assert.ok(decisions.every((decision) => decision.allowed));
  });

  test("invalid limits are rejected when the limiter is created", async () => {
    await assert.rejects(createLimiter({ perHour: -1 }), RangeError);
    await assert.rejects(createLimiter({ perHour: 1.5 }), RangeError);
    await assert.rejects(createLimiter({ anonymousBurst: 0 }), RangeError);
    await assert.rejects(createLimiter({ anonymousRefillSeconds: 0 }), RangeError);
  });
});

describe("anonymous token buckets in memory", () => {
  test("an address gets its burst, is denied, and gets one more request after the refill interval", async () => {
    let nowMs = Date.parse("2026-01-01T00:00:00Z");
    const limiter = await createLimiter({ anonymousBurst: 3, anonymousRefillSeconds: 1, clock: () => nowMs });
    const burst = await consumeMany(3, () => limiter.consumeAnonymous("203.0.113.7"));
    assert.deepEqual(
      burst.map((decision) => [decision.allowed, decision.used, decision.remaining]),
      [
        [true, 1, 2],
        [true, 2, 1],
        [true, 3, 0],
      ],
    );

    const denied = await limiter.consumeAnonymous("203.0.113.7");
    assert.equal(denied.allowed, false);
    assert.equal(denied.limit, 3);
    assert.equal(denied.retryAfterSeconds, 1);

    nowMs += 999;
    assert.equal((await limiter.consumeAnonymous("203.0.113.7")).allowed, false, "not refilled 1 ms early");
    nowMs += 1;
    assert.equal((await limiter.consumeAnonymous("203.0.113.7")).allowed, true);
    assert.equal((await limiter.consumeAnonymous("203.0.113.7")).allowed, false);
  });

  test("each address has its own bucket", async () => {
    const limiter = await createLimiter({ anonymousBurst: 1, anonymousRefillSeconds: 60 });
    await consumeMany(2, () => limiter.consumeAnonymous("203.0.113.7"));
    assert.equal((await limiter.consumeAnonymous("2001:db8::1")).allowed, true);
  });

  test("anonymous limiting stays on when user limiting is off", async () => {
    const limiter = await createLimiter({ perHour: 0, anonymousBurst: 2, anonymousRefillSeconds: 60 });
    const decisions = await consumeMany(3, () => limiter.consumeAnonymous("203.0.113.7"));
    assert.deepEqual(
      decisions.map((decision) => decision.allowed),
      [true, true, false],
    );
    assert.ok(decisions[2]!.retryAfterSeconds >= 59);
  });
});

describe("shares of instances that count alone", () => {
  test("with RATE_LIMIT_INSTANCES=2 and no Redis, an instance allows half of a user's budget, rounded up", async () => {
    const limiter = await createLimiter({ perHour: 5, instances: 2 });
    const decisions = await consumeMany(4, () => limiter.consumeUser("user-1"));
    assert.deepEqual(
      decisions.map((d) => [d.allowed, d.used, d.remaining, d.limit]),
      [
        [true, 3, 2, 5],
        [true, 4, 1, 5],
        [true, 5, 0, 5],
        [false, 5, 0, 5],
      ],
      "Remaining is what this instance still allows; Used counts the other instance's share as spent",
    );
  });

  test("an anonymous bucket counted alone is a share: part of the burst, refilled more slowly", async () => {
    let nowMs = Date.parse("2026-01-01T00:00:00Z");
    const limiter = await createLimiter({
      instances: 2,
      anonymousBurst: 5,
      anonymousRefillSeconds: 1,
      clock: () => nowMs,
    });
    const burst = await consumeMany(4, () => limiter.consumeAnonymous("203.0.113.7"));
    assert.deepEqual(
      burst.map((decision) => decision.allowed),
      [true, true, true, false],
    );
    assert.equal(burst[3]?.limit, 3);
    nowMs += 1999;
    assert.equal((await limiter.consumeAnonymous("203.0.113.7")).allowed, false, "refills every 2 s");
    nowMs += 1;
    assert.equal((await limiter.consumeAnonymous("203.0.113.7")).allowed, true);
  });

  test("an instance count below 1 is refused when the limiter is created", async () => {
    await assert.rejects(createLimiter({ instances: 0 }), RangeError);
  });
});

describe("budgets shared through Redis", () => {
  test("two instances on one Redis allow exactly the budget among concurrent requests", async (t) => {
    const prefix = uniquePrefix();
    t.after(() => deleteKeys(prefix));
    const limit = 100;
    const first = await createSharedLimiter(prefix, { perHour: limit });
    const second = await createSharedLimiter(prefix, { perHour: limit });

    const decisions = await Promise.all(
      Array.from({ length: limit + 50 }, (_, i) => (i % 2 === 0 ? first : second).consumeUser("user-1")),
    );
    const allowed = decisions.filter((decision) => decision.allowed);
    assert.equal(allowed.length, limit);
    assert.equal(Math.max(...allowed.map((decision) => decision.used)), limit);
    assert.ok(
      decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.retryAfterSeconds >= 1),
    );
  });

  test("two instances on one Redis share each address's anonymous burst", async (t) => {
    const prefix = uniquePrefix();
    t.after(() => deleteKeys(prefix));
    const options = { anonymousBurst: 5, anonymousRefillSeconds: 60 };
    const first = await createSharedLimiter(prefix, options);
    const second = await createSharedLimiter(prefix, options);

    const decisions = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? first : second).consumeAnonymous("203.0.113.7")),
    );
    assert.equal(decisions.filter((decision) => decision.allowed).length, 5);
  });

  test("a Redis reply held up only by a busy event loop still counts in the shared budget", async (t) => {
    const prefix = uniquePrefix();
    t.after(() => deleteKeys(prefix));
    const first = await createSharedLimiter(prefix, { perHour: 10 });
    const second = await createSharedLimiter(prefix, { perHour: 10 });
    await second.consumeUser("user-1");

    const pending = first.consumeUser("user-1");
    // Blocks this process well past the deadline, while Redis answers within a millisecond.
    const busyUntil = performance.now() + 3 * FAST_MS;
    while (performance.now() < busyUntil) {}
    assert.equal((await pending).used, 2, "answered by Redis, not by this process's memory");
  });

  test("a user's requests of one turn cost one Redis command and are counted as if one after another", async (t) => {
    const port = await unusedPort();
    const server = await startRedisServer(port);
    t.after(() => stopRedisServer(server));
    const admin = await connectAdmin(`redis://127.0.0.1:${port}`);
    t.after(() => admin.disconnect());
    const limit = 30;
    const limiter = await createLimiter({ perHour: limit, redisUrl: `redis://127.0.0.1:${port}` });
    await waitFor(() => limiter.status().shared);
    await limiter.consumeUser("user-1");
    const before = await scriptCalls(admin);

    const decisions = await Promise.all([
      ...Array.from({ length: 40 }, () => limiter.consumeUser("user-1")),
      ...Array.from({ length: 5 }, () => limiter.consumeUser("user-2")),
    ]);
    assert.equal((await scriptCalls(admin)) - before, 2, "one command for each user's requests of the turn");
    const first = decisions.slice(0, 40);
    assert.deepEqual(
      first.map((d) => d.used),
      Array.from({ length: 40 }, (_, i) => Math.min(i + 2, limit)),
    );
    assert.equal(first.filter((d) => d.allowed).length, limit - 1);
    assert.ok(first.every((d) => d.used + d.remaining === limit));
    assert.ok(first.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.retryAfterSeconds >= 1));
    assert.deepEqual(
      decisions.slice(40).map((d) => [d.allowed, d.used]),
      [1, 2, 3, 4, 5].map((used) => [true, used]),
    );
    assert.equal(await admin.get(`assay:rl:user:user-1`), "41", "denied requests are counted as before");
  });

  test("a per-hour limit of 0 writes nothing to Redis for authenticated requests", async (t) => {
    const prefix = uniquePrefix();
    t.after(() => deleteKeys(prefix));
    const limiter = await createSharedLimiter(prefix, { perHour: 0 });
    await consumeMany(3, () => limiter.consumeUser("user-1"));

    const admin = await connectAdmin(REDIS_URL);
    t.after(() => admin.disconnect());
    assert.deepEqual(await admin.keys(`${prefix}:*`), []);
    assert.equal(await limiter.ping(), true);
  });
});

describe("Redis outages", () => {
  test("with nothing listening at the Redis URL, requests are answered quickly from memory and one warning is logged", async () => {
    const logger = recordingLogger();
    const url = `redis://127.0.0.1:${await unusedPort()}`;
    let reconnects = 0;
    const local: string[] = [];
    const limiter = await createLimiter({
      perHour: 3,
      redisUrl: url,
      logger,
      anonymousBurst: 2,
      observer: {
        redisReconnecting: () => reconnects++,
        decidedLocally: (limit) => local.push(limit),
      },
    });
    assert.deepEqual(limiter.status(), { backend: "redis", redisUp: false, shared: false });

    for (let round = 0; round < 2; round++) {
      const user = await timed(() => limiter.consumeUser(`user-${round}`));
      const anonymous = await timed(() => limiter.consumeAnonymous(`203.0.113.${round}`));
      assert.ok(user.ms < FAST_MS && anonymous.ms < FAST_MS, `${user.ms} ms, ${anonymous.ms} ms`);
      assert.equal(user.value.allowed, true);
      assert.equal(user.value.used, 1);
      assert.equal(anonymous.value.allowed, true);
      // Let more reconnection attempts fail; none of them may log again.
      const seen = reconnects;
      await waitFor(() => reconnects >= seen + 2);
    }
    const denied = await consumeMany(3, () => limiter.consumeUser("user-0"));
    assert.equal(denied.at(-1)?.allowed, false, "the memory fallback still enforces the budget");
    assert.equal(await limiter.ping(), false);
    assert.equal(logger.count("warn"), 1);
    assert.deepEqual(local, ["user", "anonymous", "user", "anonymous", "user", "user", "user"]);
  });

  test("two instances keep the remaining budget between them while Redis is down, and add what they spent when it returns empty", async (t) => {
    const port = await unusedPort();
    let server = await startRedisServer(port);
    t.after(() => stopRedisServer(server));
    const url = `redis://127.0.0.1:${port}`;
    const [firstLog, secondLog] = [recordingLogger(), recordingLogger()];
    const reconciled = [0, 0];
    const options = (index: number) => ({
      perHour: 20,
      instances: 2,
      redisUrl: url,
      observer: { reconciled: (requests: number) => (reconciled[index]! += requests) },
    });
    const first = await createLimiter({ ...options(0), logger: firstLog });
    const second = await createLimiter({ ...options(1), logger: secondLog });
    const admin = await connectAdmin(url);
    t.after(() => admin.disconnect());
    const key = "assay:rl:user:user-1";
    // A window with ten minutes left, as if it had opened fifty minutes ago.
    await admin.set(key, "0", "PX", 600_000);
    const spentBefore = [];
    for (let i = 0; i < 4; i++)
      spentBefore.push((await (i % 2 === 0 ? first : second).consumeUser("user-1")).used);
    assert.deepEqual(spentBefore, [1, 2, 3, 4], "one shared count while Redis is up");

    await stopRedisServer(server);
    await waitFor(() => first.status().redisUp === false && second.status().redisUp === false);
    const during = await timed(() => first.consumeUser("user-1"));
    assert.ok(during.ms < FAST_MS, `${during.ms} ms`);
    assert.deepEqual(
      [during.value.allowed, during.value.used, during.value.remaining],
      [true, 12, 8],
      "the first instance last saw 3 spent: its share is ceil(17 / 2) = 9, 8 of them left",
    );
    const allowed = [1, 0];
    for (let i = 0; i < 40; i++) {
      const index = i % 2;
      if ((await (index === 0 ? first : second).consumeUser("user-1")).allowed) allowed[index]! += 1;
    }
    // 16 were left; the first instance's count was one request behind, so it may allow one more.
    assert.deepEqual(allowed, [9, 8]);

    server = await startRedisServer(port);
    const restarted = await connectAdmin(url);
    t.after(() => restarted.disconnect());
    await waitFor(() => first.status().shared && second.status().shared);
    assert.deepEqual(reconciled, [9, 8], "every request allowed alone was added to Redis");
    const after = await first.consumeUser("user-1");
    assert.equal(after.allowed, false, "no fresh budget: 4 + 17 were spent");
    assert.equal(after.used, 20);
    // The rebuilt count is the 4 both instances knew of, counted once, plus the 17; and the window
    // still closes when it would have, not an hour after Redis came back.
    assert.equal(Number(await restarted.get(key)), 4 + 17 + 1);
    const ttl = await restarted.pttl(key);
    assert.ok(ttl > 0 && ttl <= 600_000, `${ttl} ms left`);
    for (const logger of [firstLog, secondLog]) {
      assert.equal(logger.count("warn"), 1);
      assert.equal(logger.count("info"), 1);
    }
  });

  test("when Redis was only out of reach and kept its counts, an instance adds just what it spent alone", async (t) => {
    const port = await unusedPort();
    const server = await startRedisServer(port);
    t.after(() => stopRedisServer(server));
    const proxy = await startProxy(port);
    t.after(() => proxy.close());
    const url = `redis://127.0.0.1:${proxy.port}`;
    const limiter = await createLimiter({ perHour: 100, instances: 2, redisUrl: url });
    const direct = await createLimiter({ perHour: 100, redisUrl: `redis://127.0.0.1:${port}` });
    await consumeMany(5, () => limiter.consumeUser("user-1"));

    await proxy.cut();
    await waitFor(() => limiter.status().redisUp === false);
    await consumeMany(3, () => limiter.consumeUser("user-1"));
    // Meanwhile an instance that still reaches Redis spends from the shared count.
    assert.equal((await direct.consumeUser("user-1")).used, 6);

    await proxy.restore();
    await waitFor(() => limiter.status().shared);
    assert.equal((await limiter.consumeUser("user-1")).used, 5 + 1 + 3 + 1);
  });

  test("a limiter started while Redis is down keeps retrying and shares the budget once Redis is up", async (t) => {
    const port = await unusedPort();
    const url = `redis://127.0.0.1:${port}`;
    const logger = recordingLogger();
    const early = await createLimiter({ perHour: 10, redisUrl: url, logger });
    assert.equal(early.status().redisUp, false);
    assert.equal((await early.consumeUser("user-1")).allowed, true);

    const server = await startRedisServer(port);
    t.after(() => stopRedisServer(server));
    await waitFor(() => early.status().redisUp === true);
    const late = await createLimiter({ perHour: 10, redisUrl: url });
    const fromEarly = await early.consumeUser("user-1");
    assert.equal((await late.consumeUser("user-1")).used, fromEarly.used + 1);
    assert.equal(await early.ping(), true);
    assert.deepEqual(
      logger.lines.map((line) => line.level),
      ["warn", "info"],
    );
  });

  test("a Redis that stops answering holds a request no longer than about 100 ms", async (t) => {
    const port = await unusedPort();
    const server = await startRedisServer(port);
    t.after(() => stopRedisServer(server));
    const admin = await connectAdmin(`redis://127.0.0.1:${port}`);
    t.after(() => admin.disconnect());
    const limiter = await createLimiter({ perHour: 10, redisUrl: `redis://127.0.0.1:${port}` });
    await limiter.consumeUser("user-1");
    await limiter.consumeAnonymous("203.0.113.7");

    await admin.call("CLIENT", "PAUSE", "1000", "ALL");
    const user = await timed(() => limiter.consumeUser("user-1"));
    const anonymous = await timed(() => limiter.consumeAnonymous("203.0.113.7"));
    assert.ok(user.ms < FAST_MS && anonymous.ms < FAST_MS, `${user.ms} ms, ${anonymous.ms} ms`);
    assert.equal(user.value.allowed, true);
    assert.equal(anonymous.value.allowed, true);
  });
});
