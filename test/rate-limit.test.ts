// test-runner: execution-mode independent (the budget is spent and refused before any document is executed)
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:net";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { Redis } from "ioredis";
import { type DatabaseHandle, migrateToLatest, openDatabase } from "../src/db/database.ts";
import type { UserRow } from "../src/db/types.ts";
import { aToken, aUser } from "./helpers/builders.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/database.ts";
import {
  bearer,
  post,
  type RawAnswer,
  settle,
  startInstance,
  type TestInstance,
  waitFor,
} from "./helpers/instance.ts";
import { type Exposition, parsePrometheusText, sampleValue } from "./helpers/prometheus-text.ts";
import { watchChildOutput } from "./helpers/secret-leaks.ts";
import { npmStartArgs } from "./helpers/start-command.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
/** The shared Redis of the test environment; the cross-process test fails when it does not answer. */
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const VIEWER = "{ viewer { email } }";
const HOUR_SECONDS = 3600;

/** The rate-limit headers of an answer, each checked to be present and an integer. */
interface RateLimitHeaders {
  limit: number;
  remaining: number;
  used: number;
  reset: number;
}

function rateLimitOf(answer: RawAnswer): RateLimitHeaders {
  const read = (name: string): number => {
    const value = answer.headers.get(`x-ratelimit-${name}`);
    assert.ok(value !== null && /^\d+$/.test(value), `X-RateLimit-${name} is "${value}"`);
    return Number(value);
  };
  assert.equal(answer.headers.get("x-ratelimit-resource"), "graphql");
  const headers = {
    limit: read("limit"),
    remaining: read("remaining"),
    used: read("used"),
    reset: read("reset"),
  };
  assert.equal(headers.used + headers.remaining, headers.limit, JSON.stringify(headers));
  const now = Date.now() / 1000;
  assert.ok(headers.reset >= now - 1 && headers.reset <= now + HOUR_SECONDS + 1, `reset ${headers.reset}`);
  return headers;
}

function rateLimitHeaderNames(answer: RawAnswer): string[] {
  return [...answer.headers.keys()].filter((name) => name.startsWith("x-ratelimit-"));
}

function assertRateLimited(answer: RawAnswer): void {
  assert.equal(answer.status, 429, answer.text);
  const retryAfter = Number(answer.headers.get("retry-after"));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= HOUR_SECONDS, `${retryAfter}`);
  assert.equal(answer.json.data, undefined);
  assert.equal(answer.json.errors?.[0]?.extensions?.code, "RATE_LIMITED");
}

/** A client for test set-up that fails at once, rather than retrying, when Redis does not answer. */
async function connectRedis(url: string): Promise<Redis> {
  const client = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const client = await connectRedis(url).catch(() => null);
  if (!client) return;
  try {
    const keys = await client.keys(`${prefix}:*`);
    if (keys.length > 0) await client.del(...keys);
  } finally {
    client.disconnect();
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

/** Sends SIGTERM (then SIGKILL after `graceMs`) and resolves once `child` has exited. */
async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** A throwaway Redis on `port` that keeps nothing on disk, started and answering. */
async function startRedisServer(port: number): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  try {
    await waitFor(`redis-server on port ${port}`, async () => {
      const client = await connectRedis(`redis://127.0.0.1:${port}`).catch(() => null);
      client?.disconnect();
      return client !== null;
    });
  } catch (error) {
    await stopChild(child, 0);
    throw error;
  }
  return child;
}

/** `npm start` in a child process, as a deployment runs it. */
interface ServerProcess {
  endpoint: string;
  stop(): Promise<void>;
}

/** The URL in the server's "listening" log line, if `line` is that line. */
function listeningUrl(line: string): string | undefined {
  try {
    const entry = JSON.parse(line) as { msg?: unknown; url?: unknown };
    return entry.msg === "listening" && typeof entry.url === "string" ? entry.url : undefined;
  } catch {
    return undefined;
  }
}

/** Starts `src/main.ts` with `env` on a free port and resolves once it says it is listening. */
async function spawnServer(env: Record<string, string>): Promise<ServerProcess> {
  const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
  const child = spawn(process.execPath, npmStartArgs(), {
    cwd: ROOT,
    env: { ...inherited, ...env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  watchChildOutput(child, "server process");
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = "";
      const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${stderr}`)), 180_000);
      child.stdout?.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        const lines = stdout.split("\n");
        stdout = lines.pop() ?? "";
        for (const line of lines) {
          const url = listeningUrl(line);
          if (url) {
            clearTimeout(timer);
            resolve(url);
          }
        }
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`server exited with code ${code}:\n${stderr}`));
      });
    });
    return { endpoint: `${url}/graphql/`, stop: () => stopChild(child) };
  } catch (error) {
    await stopChild(child, 0);
    throw error;
  }
}

/** Serves the database every in-process instance in this file shares. */
let home: TestInstance;
before(async () => {
  home = await startInstance();
});
after(() => home?.stop());

describe("the per-user hourly limit", () => {
  const LIMIT = 5;
  let server: TestInstance;

  async function aUserWithToken(): Promise<{ user: UserRow; token: string }> {
    const user = await aUser(home.db);
    return { user, token: await aToken(home.db, home.config.tokenPepper, user) };
  }

  before(async () => {
    server = await startInstance({ sameDatabaseAs: home, env: { RATE_LIMIT_PER_HOUR: String(LIMIT) } });
  });
  after(() => server?.stop());

  test("every authenticated request counts and its answer carries X-RateLimit headers that add up", async () => {
    const { token } = await aUserWithToken();
    const answers = [
      await post(server.endpoint, VIEWER, bearer(token)),
      await post(server.endpoint, "{ noSuchField }", bearer(token)),
      await post(server.endpoint, "{ viewer {", bearer(token)),
      await post(server.endpoint, "query { viewer { email } }", {
        ...bearer(token),
        "content-type": "text/plain",
      }),
    ];
    assert.equal(answers[0]?.status, 200);
    assert.deepEqual(
      answers.slice(1, 3).map((answer) => answer.json.errors?.[0]?.extensions?.code),
      ["GRAPHQL_VALIDATION_FAILED", "GRAPHQL_PARSE_FAILED"],
    );
    assert.equal(answers[3]?.status, 415);
    const headers = answers.map(rateLimitOf);
    assert.deepEqual(
      headers.map((h) => [h.limit, h.used, h.remaining]),
      [
        [LIMIT, 1, 4],
        [LIMIT, 2, 3],
        [LIMIT, 3, 2],
        [LIMIT, 4, 1],
      ],
    );
    const resets = new Set(headers.map((h) => h.reset));
    assert.ok(Math.max(...resets) - Math.min(...resets) <= 1, "the window is fixed: one reset for all");
  });

  test("past the limit a request gets 429 with Retry-After and RATE_LIMITED, and runs nothing but (at most) the token lookup", async () => {
    const { token } = await aUserWithToken();
    await settle(server.statements);
    const beforeFirst = server.statements.length;
    assert.equal((await post(server.endpoint, VIEWER, bearer(token))).status, 200);
    await settle(server.statements);
    assert.ok(server.statements.length - beforeFirst >= 2, "a served query runs SQL beyond the lookup");
    for (let i = 2; i <= LIMIT; i++)
      assert.equal((await post(server.endpoint, VIEWER, bearer(token))).status, 200);

    await settle(server.statements);
    const before = server.statements.length;
    const refused = await post(server.endpoint, VIEWER, bearer(token));
    await settle(server.statements);
    assertRateLimited(refused);
    const headers = rateLimitOf(refused);
    assert.deepEqual([headers.limit, headers.used, headers.remaining], [LIMIT, LIMIT, 0]);
    // The token lookup at most: none when the identity cache still holds the token (it was
    // seen within the last second), never anything the query itself would run.
    const ran = server.statements.slice(before);
    assert.ok(ran.length <= 1, ran.join("\n"));
    for (const statement of ran) assert.match(statement, /^select .* from "personal_access_tokens"/i);
  });

  test("two users spend separate budgets and two tokens of one user spend the same one", async () => {
    const { user: ann, token: annFirst } = await aUserWithToken();
    const annSecond = await aToken(home.db, home.config.tokenPepper, ann, { name: "second" });
    const { token: ben } = await aUserWithToken();

    const used: number[] = [];
    for (const token of [annFirst, annSecond, annFirst, annSecond]) {
      used.push(rateLimitOf(await post(server.endpoint, VIEWER, bearer(token))).used);
    }
    assert.deepEqual(used, [1, 2, 3, 4]);
    assert.equal(rateLimitOf(await post(server.endpoint, VIEWER, bearer(ben))).used, 1);
    assert.equal((await post(server.endpoint, VIEWER, bearer(annSecond))).status, 200);
    assertRateLimited(await post(server.endpoint, VIEWER, bearer(annFirst)));
    assert.equal((await post(server.endpoint, VIEWER, bearer(ben))).status, 200);
  });

  test("a limit of 0 turns user limiting off and leaves out the X-RateLimit headers", async () => {
    const unlimited = await startInstance({ sameDatabaseAs: home, env: { RATE_LIMIT_PER_HOUR: "0" } });
    try {
      const { token } = await aUserWithToken();
      const answers = await Promise.all(
        Array.from({ length: LIMIT * 3 }, () => post(unlimited.endpoint, VIEWER, bearer(token))),
      );
      for (const answer of answers) {
        assert.equal(answer.status, 200);
        assert.deepEqual(rateLimitHeaderNames(answer), []);
      }
    } finally {
      await unlimited.stop();
    }
  });
});

describe("a budget shared through Redis", () => {
  const LIMIT = 40;
  const EXTRA = 50;
  const prefix = `assay:test:${randomBytes(6).toString("hex")}`;
  const pepper = "shared-pepper-0123456789abcdef";
  let database: TestDatabase | undefined;
  let handle: DatabaseHandle | undefined;
  const servers: ServerProcess[] = [];

  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await handle?.close();
    await database?.drop();
    await deleteRedisKeys(REDIS_URL, prefix);
  });

  test("two server processes on one Redis serve exactly the hourly budget between them", async () => {
    const redis = await connectRedis(REDIS_URL).catch((error: unknown) => {
      assert.fail(`Redis at ${REDIS_URL} must answer for this test: ${String(error)}`);
    });
    redis.disconnect();

    // This process opens the database first, so both servers reach the embedded one through its
    // lock file; on PostgreSQL they simply share the URL.
    database = await createTestDatabase();
    handle = await openDatabase({
      databaseUrl: database.databaseUrl,
      dataDir: database.dataDir,
      databasePoolSize: 2,
    });
    // So the two servers starting side by side find nothing left to migrate on the embedded database.
    if (handle.kind === "embedded") await migrateToLatest(handle.db);
    const user = await aUser(handle.db);
    const token = await aToken(handle.db, pepper, user);

    const env = {
      DATABASE_URL: database.databaseUrl ?? "",
      ASSAY_DATA_DIR: database.dataDir,
      ASSAY_TOKEN_PEPPER: pepper,
      REDIS_URL,
      ASSAY_REDIS_KEY_PREFIX: prefix,
      RATE_LIMIT_PER_HOUR: String(LIMIT),
    };
    for (const started of await Promise.allSettled([spawnServer(env), spawnServer(env)])) {
      if (started.status === "fulfilled") servers.push(started.value);
    }
    assert.equal(servers.length, 2, "both servers start");

    const answers = await Promise.all(
      Array.from({ length: LIMIT + EXTRA }, (_, i) => post(servers[i % 2]!.endpoint, VIEWER, bearer(token))),
    );
    const served = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status !== 200);
    assert.equal(served.length, LIMIT);
    assert.equal(refused.length, EXTRA);
    for (const answer of refused) assertRateLimited(answer);
    assert.deepEqual(
      served.map((answer) => rateLimitOf(answer).used).sort((a, b) => a - b),
      Array.from({ length: LIMIT }, (_, i) => i + 1),
      "each served request took its own place in one count",
    );
  });
});

describe("when Redis goes away", () => {
  const LIMIT = 100;
  const prefix = `assay:test:${randomBytes(6).toString("hex")}`;
  let port: number;
  let redis: ChildProcess | undefined;
  const instances: TestInstance[] = [];

  after(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    if (redis) await stopChild(redis, 0);
  });

  async function readiness(instance: TestInstance): Promise<{ status: number; redis: unknown }> {
    const response = await fetch(`${instance.url}/readyz`);
    const body = (await response.json()) as { checks?: Record<string, unknown> };
    return { status: response.status, redis: body.checks?.redis };
  }

  async function metricsOf(instance: TestInstance): Promise<Exposition> {
    const response = await fetch(`${instance.url}/metrics`);
    assert.equal(response.status, 200);
    return parsePrometheusText(await response.text());
  }

  test("two instances keep serving within the budget left, stay ready, and add what they spent when Redis returns", async () => {
    port = await unusedPort();
    redis = await startRedisServer(port);
    const env = {
      REDIS_URL: `redis://127.0.0.1:${port}`,
      ASSAY_REDIS_KEY_PREFIX: prefix,
      RATE_LIMIT_PER_HOUR: String(LIMIT),
      RATE_LIMIT_INSTANCES: "2",
      ASSAY_METRICS: "on",
    };
    const first = await startInstance({ sameDatabaseAs: home, env });
    instances.push(first);
    const second = await startInstance({ sameDatabaseAs: home, env });
    instances.push(second);
    const tokenOfNewUser = async () => aToken(home.db, home.config.tokenPepper, await aUser(home.db));
    const [spender, quiet] = [await tokenOfNewUser(), await tokenOfNewUser()];
    const ask = (instance: TestInstance, token: string) => post(instance.endpoint, VIEWER, bearer(token));
    const usedOn = async (instance: TestInstance, token: string): Promise<number> => {
      const answer = await ask(instance, token);
      assert.equal(answer.status, 200, answer.text);
      return rateLimitOf(answer).used;
    };

    assert.deepEqual(await readiness(first), { status: 200, redis: "up" });
    const before = [];
    for (const instance of [first, second, first, second]) before.push(await usedOn(instance, spender));
    assert.deepEqual(before, [1, 2, 3, 4], "one budget while Redis is up");
    assert.deepEqual([await usedOn(first, quiet), await usedOn(second, quiet)], [1, 2]);

    await stopChild(redis, 0);
    for (const instance of [first, second]) {
      await waitFor(
        "readiness to report Redis down",
        async () => (await readiness(instance)).redis === "down",
      );
      assert.deepEqual(await readiness(instance), { status: 200, redis: "down" }, "still taking traffic");
    }
    await waitFor("a warning about Redis", () =>
      first.log.entries().some((entry) => entry.level === 40 && /redis/i.test(String(entry.msg))),
    );

    // The quiet user spends a little: 5 requests, well within each instance's share.
    for (const instance of [first, first, first, second, second]) await ask(instance, quiet);
    // The spender tries far more than is left (96): together the instances allow at most that,
    // give or take one, as the first instance's last count from Redis was one request behind.
    const served = [0, 0];
    for (let i = 0; i < 2 * LIMIT; i++) {
      const answer = await ask(i % 2 === 0 ? first : second, spender);
      if (answer.status === 200) served[i % 2]! += 1;
      else assertRateLimited(answer);
    }
    assert.deepEqual(served, [Math.ceil((LIMIT - 3) / 2), Math.ceil((LIMIT - 4) / 2)]);
    assert.ok(served[0]! + served[1]! <= LIMIT - 4 + 1, `${served} served`);
    const during = await metricsOf(first);
    assert.equal(sampleValue(during, "assay_redis_up"), 0);
    assert.equal(sampleValue(during, "assay_rate_limit_local_decisions_total", { limit: "user" }), 3 + LIMIT);

    // Redis comes back empty (it keeps nothing on disk): the instances rebuild the counts they knew
    // and add what they allowed alone, before Redis decides again.
    redis = await startRedisServer(port);
    const reconciled = [3 + served[0]!, 2 + served[1]!];
    for (const [index, instance] of [first, second].entries()) {
      await waitFor(
        "the requests allowed alone to be added to Redis",
        async () =>
          sampleValue(await metricsOf(instance), "assay_rate_limit_reconciled_requests_total") ===
          reconciled[index],
        10_000,
      );
      assert.deepEqual(await readiness(instance), { status: 200, redis: "up" });
      assert.equal(sampleValue(await metricsOf(instance), "assay_redis_up"), 1);
    }
    assert.equal(await usedOn(second, quiet), 2 + 5 + 1, "X-RateLimit-Used counts the outage's requests");
    const refused = await ask(first, spender);
    assertRateLimited(refused);
    assert.equal(rateLimitOf(refused).used, LIMIT, "no fresh budget after the outage");
  });
});
