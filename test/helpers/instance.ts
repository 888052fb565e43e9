import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Kysely } from "kysely";
import { startApp } from "../../src/app.ts";
import { type Config, parseConfig } from "../../src/config.ts";
import type { Database } from "../../src/db/types.ts";
import { createTestDatabase } from "./database.ts";
import { type MemoryLog, testLogger } from "./log-capture.ts";
import { assertNoSecretLeaks } from "./secret-leaks.ts";
import { recordedLevel, TEST_TOKEN_PEPPER } from "./server.ts";

export { MemoryLog } from "./log-capture.ts";

/**
 * Assay instances for tests that need more than {@link startTestServer}: the SQL each one runs,
 * its log lines, and several instances over one database (as several replicas behind a load
 * balancer would be).
 */

/** A running Assay app started by a test. */
export interface TestInstance {
  url: string;
  /** The GraphQL endpoint (cloud form). */
  endpoint: string;
  db: Kysely<Database>;
  config: Config;
  /** The SQL of every statement this instance ran, in the order they finished. */
  statements: string[];
  log: MemoryLog;
  /** Stops the app, drops its own database, and fails when a log line or error answer held a secret. */
  stop(): Promise<void>;
}

/** Options of {@link startInstance}. */
export interface InstanceOptions {
  /** Configuration variables over the test defaults. */
  env?: Record<string, string | undefined>;
  /** Serve the database of this instance instead of a new one of its own. */
  sameDatabaseAs?: TestInstance;
}

/**
 * Starts an app on port 0 that records its SQL statements and log lines. Without `sameDatabaseAs`
 * it gets a new database (dropped by `stop`); with it, it shares that instance's database, which
 * outlives it. Redis keys get a prefix of their own unless `env` names one.
 */
export async function startInstance(options: InstanceOptions = {}): Promise<TestInstance> {
  const shared = options.sameDatabaseAs;
  const database = shared ? undefined : await createTestDatabase();
  const config = parseConfig({
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    // A second instance on the embedded database reaches it through the first one's lock file.
    DATABASE_URL: shared ? shared.config.databaseUrl : database?.databaseUrl,
    ASSAY_DATA_DIR: shared ? shared.config.dataDir : database?.dataDir,
    ASSAY_TOKEN_PEPPER: TEST_TOKEN_PEPPER,
    ASSAY_REDIS_KEY_PREFIX: `assay:test:${randomBytes(6).toString("hex")}`,
    LOG_LEVEL: "info",
    ...options.env,
  });
  const statements: string[] = [];
  const { logger, log } = testLogger("test instance", recordedLevel(config));
  const app = await startApp(config, logger, {
    database: { onQuery: (sql) => statements.push(sql) },
  });
  let stopped: Promise<void> | undefined;
  return {
    url: app.url,
    endpoint: `${app.url}/graphql/`,
    db: app.database.db,
    config,
    statements,
    log,
    stop() {
      stopped ??= (async () => {
        await app.stop();
        await database?.drop();
        assertNoSecretLeaks(log.watchedText);
      })();
      return stopped;
    },
  };
}

/** Resolves once `condition` holds; fails with `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, `timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

/**
 * Resolves once `statements` has not grown for `quietMs`, so work a previous request left running
 * in the background (such as recording a token's last use) is not counted against the next one.
 */
export async function settle(statements: readonly string[], quietMs = 150): Promise<void> {
  let seen = statements.length;
  let quietSince = Date.now();
  while (Date.now() - quietSince < quietMs) {
    await sleep(20);
    if (statements.length !== seen) {
      seen = statements.length;
      quietSince = Date.now();
    }
  }
}

/** A statement with its parameter lists collapsed, so batches of any size read the same. */
function statementShape(sql: string): string {
  return sql
    .replace(/\s+/g, " ")
    .replace(/\(\$\d+(?:, \$\d+)*\)/g, "($…)")
    .trim();
}

/**
 * Fails when the statements of the larger page grow with the number of parents they serve. Each
 * statement shape may run at most once more for the larger page than for the smaller: batching
 * loaders merge or split a batch by when their parents' answers arrive (an object one branch of a
 * query already loaded is taken from the loader's cache by the other), which moves one statement
 * between runs, while a statement per parent adds one for every extra parent.
 */
export function assertPageSizeIndependent(
  small: readonly string[],
  large: readonly string[],
  labels: [string, string] = ["N=10", "N=100"],
): void {
  assert.ok(small.length > 0, "the smaller page ran no statement at all");
  const count = (statements: readonly string[]) => {
    const counts = new Map<string, number>();
    for (const sql of statements) counts.set(statementShape(sql), (counts.get(statementShape(sql)) ?? 0) + 1);
    return counts;
  };
  const smallCounts = count(small);
  const grown = [...count(large)]
    .filter(([shape, n]) => n > (smallCounts.get(shape) ?? 0) + 1)
    .map(([shape, n]) => `${n}× (${smallCounts.get(shape) ?? 0}× for ${labels[0]}): ${shape}`);
  assert.deepEqual(
    grown,
    [],
    `statements that grow with the page:\n${grown.join("\n")}\n\n${labels[0]} ran:\n${small.join("\n")}\n\n${labels[1]} ran:\n${large.join("\n")}`,
  );
}

/** An HTTP answer with its body as sent, for tests that compare bodies byte for byte. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON. */
  json: {
    data?: unknown;
    errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
  };
}

/** POSTs `{ query }` to `endpoint` with exactly `headers` (plus the JSON content type). */
export async function post(
  endpoint: string,
  query: string,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const response = await fetch(endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ query }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: JSON.parse(text) };
}

/** The `Authorization` header for `token`. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
