import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { type RunningApp, startApp } from "../../src/app.ts";
import { type Config, parseConfig } from "../../src/config.ts";
import type { Database } from "../../src/db/types.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import { defaultTestLogLevel, type MemoryLog, testLogger } from "./log-capture.ts";
import { assertNoSecretLeaks, registerSecret, registerSecretsIn } from "./secret-leaks.ts";

/** The token pepper of every test server (builders derive DSN tokens with it). */
export const TEST_TOKEN_PEPPER = "test-pepper-0123456789abcdef";

/** A real Assay server on port 0 over its own database. */
export interface TestServer {
  url: string;
  /** The GraphQL endpoint (cloud form). */
  endpoint: string;
  db: Kysely<Database>;
  config: Config;
  app: RunningApp;
  /** Every line the server logged (at debug unless the test chose a level). */
  log: MemoryLog;
  /** Stops the server, drops its database, and fails when a log line or error answer held a secret. */
  stop(): Promise<void>;
}

/**
 * Starts a server for a test file. `env` overrides configuration variables (e.g.
 * `RATE_LIMIT_PER_HOUR`). Uses Redis when `REDIS_URL` is set, with a key prefix of its own.
 */
export async function startTestServer(env: Record<string, string | undefined> = {}): Promise<TestServer> {
  const database: TestDatabase = await createTestDatabase();
  const config = parseConfig({
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: database.databaseUrl,
    ASSAY_DATA_DIR: database.dataDir,
    ASSAY_TOKEN_PEPPER: TEST_TOKEN_PEPPER,
    ASSAY_SESSION_SECRET: "test-session-secret-0123456789abcdef",
    ASSAY_REDIS_KEY_PREFIX: `assay:test:${randomBytes(6).toString("hex")}`,
    LOG_LEVEL: defaultTestLogLevel(),
    ...env,
  });
  const { logger, log } = testLogger("test server", recordedLevel(config));
  const app = await startApp(config, logger);
  let stopped: Promise<void> | undefined;
  return {
    url: app.url,
    endpoint: `${app.url}/graphql/`,
    db: app.database.db,
    config,
    app,
    log,
    stop() {
      stopped ??= (async () => {
        await app.stop();
        await database.drop();
        assertNoSecretLeaks(log.watchedText);
      })();
      return stopped;
    },
  };
}

/**
 * The level a test server's logger records at: the configured one, except that "silent" (which
 * tests choose to keep their output quiet) still records at the test default, in memory, so the
 * secret check reads every line.
 */
export function recordedLevel(config: Config): Config["logLevel"] {
  return config.logLevel === "silent" ? defaultTestLogLevel() : config.logLevel;
}

/** A GraphQL response as the tests read it. */
export interface GraphQLResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: {
    data?: T | null;
    errors?: Array<{
      message: string;
      path?: Array<string | number>;
      locations?: unknown;
      extensions?: Record<string, unknown>;
    }>;
  };
}

/** POSTs a GraphQL request with `token` (or none) and parses the answer. */
export async function gql<T = Record<string, unknown>>(
  endpoint: string,
  token: string | null,
  query: string,
  variables?: Record<string, unknown> | null,
  extraHeaders: Record<string, string> = {},
): Promise<GraphQLResponse<T>> {
  const headers: Record<string, string> = { "content-type": "application/json", ...extraHeaders };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  registerSecret(token);
  registerSecretsIn(variables);
  const response = await fetch(endpoint, {
    method: "POST",
    headers,
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  let body: GraphQLResponse<T>["body"];
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`response ${response.status} is not JSON: ${text.slice(0, 200)}`);
  }
  return { status: response.status, headers: response.headers, body };
}

/** The `data` of a response, failing the test when there is none. */
export function dataOf(response: GraphQLResponse): Record<string, unknown> {
  if (!response.body.data) {
    throw new Error(`expected data, got ${response.status}: ${JSON.stringify(response.body.errors)}`);
  }
  return response.body.data;
}

/**
 * Uploads a report with the contract's `createArtifact` on the CLI endpoint, as `deepsource
 * report` does: the repository's DSN token (`accessToken`) in the input, no bearer token.
 * `reporter` and `key` default to the CLI's. Answers the payload.
 */
export async function createArtifact(
  server: TestServer,
  input: Record<string, unknown>,
): Promise<{ ok: boolean; error: string }> {
  const answer = await gql(
    `${server.url}/graphql/cli/`,
    null,
    `mutation($input: CreateArtifactInput!) { createArtifact(input: $input) { ok error } }`,
    { input: { reporter: "cli", key: "", ...input } },
  );
  return dataOf(answer).createArtifact as { ok: boolean; error: string };
}
