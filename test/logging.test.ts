import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { type RunningApp, startApp } from "../src/app.ts";
import { parseConfig } from "../src/config.ts";
import type { UserRow } from "../src/db/types.ts";
import { createLogger } from "../src/logger.ts";
import { generatePat } from "../src/modules/auth/pat.ts";
import { anAccount, aToken, aUser } from "./helpers/builders.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/database.ts";
import { gql } from "./helpers/server.ts";

/** Every byte the logger wrote, kept in memory. */
class MemoryLog extends Writable {
  text = "";

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }

  /** Each line parsed; fails the test on a line that is not one JSON object. */
  entries(): Array<Record<string, unknown>> {
    return this.text
      .split("\n")
      .filter((line) => line.length > 0)
      .map((line) => {
        const parsed: unknown = JSON.parse(line);
        assert.ok(parsed !== null && typeof parsed === "object" && !Array.isArray(parsed), line);
        return parsed as Record<string, unknown>;
      });
  }

  /** The entries with `requestId`, once `count` of them are there (the line follows the response). */
  async forRequest(requestId: string | null, count = 1): Promise<Array<Record<string, unknown>>> {
    const deadline = Date.now() + 2000;
    for (;;) {
      const found = this.entries().filter((entry) => entry.requestId === requestId);
      if (found.length >= count || Date.now() > deadline) return found;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/** An app started with the production logger writing to memory, over a database of its own. */
interface LoggedApp {
  app: RunningApp;
  endpoint: string;
  log: MemoryLog;
  pepper: string;
  stop(): Promise<void>;
}

async function startLoggedApp(): Promise<LoggedApp> {
  const database: TestDatabase = await createTestDatabase();
  const config = parseConfig({
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: database.databaseUrl,
    ASSAY_DATA_DIR: database.dataDir,
    ASSAY_TOKEN_PEPPER: "logging-test-pepper-0123456789",
    ASSAY_REDIS_KEY_PREFIX: `assay:test:${randomBytes(6).toString("hex")}`,
    // Everything the server can say, so a token cannot hide in a level the test does not read.
    LOG_LEVEL: "trace",
  });
  const log = new MemoryLog();
  const app = await startApp(config, createLogger(config.logLevel, log));
  return {
    app,
    endpoint: `${app.url}/graphql/`,
    log,
    pepper: config.tokenPepper,
    async stop() {
      await app.stop();
      await database.drop();
    },
  };
}

describe("request logging", () => {
  let server: LoggedApp;
  let alice: UserRow;
  let token: string;

  before(async () => {
    server = await startLoggedApp();
    const { db } = server.app.database;
    alice = await aUser(db);
    await anAccount(db, {}, [{ user: alice }]);
    token = await aToken(db, server.pepper, alice);
  });
  after(() => server.stop());

  test("each GraphQL request writes one JSON line with request id, user, operation, status and duration", async () => {
    const res = await gql(server.endpoint, token, "query ViewerEmail { viewer { email } }");
    assert.equal(res.status, 200);
    const requestId = res.headers.get("x-request-id");
    const lines = await server.log.forRequest(requestId);
    assert.equal(lines.length, 1, JSON.stringify(lines));
    const line = lines[0] ?? {};
    assert.equal(line.msg, "request");
    assert.equal(line.userId, String(alice.id));
    assert.equal(line.operationName, "ViewerEmail");
    assert.equal(line.status, 200);
    assert.equal(line.method, "POST");
    assert.equal(typeof line.durationMs, "number");
    assert.ok(Number(line.durationMs) >= 0);
  });

  test("the operation named by operationName is the one logged", async () => {
    const res = await fetch(server.endpoint, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        query: "query First { viewer { email } } query Second { viewer { firstName } }",
        operationName: "Second",
      }),
    });
    assert.equal(res.status, 200);
    const [line] = await server.log.forRequest(res.headers.get("x-request-id"));
    assert.equal(line?.operationName, "Second");
  });

  test("a refused request is logged with its status and no user", async () => {
    const res = await gql(server.endpoint, null, "query Anonymous { viewer { email } }", undefined, {
      "x-request-id": "logging-refused-1",
    });
    assert.equal(res.status, 401);
    const lines = await server.log.forRequest("logging-refused-1");
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.status, 401);
    assert.equal(lines[0]?.userId, undefined);
  });

  test("no token appears in the log, whether valid, unknown, malformed or sent in the variables", async () => {
    const unknown = generatePat().token;
    const malformed = "assay_pat_thisIsNotARealTokenAtAll0000000";
    const inVariables = generatePat().token;
    const requests = [
      gql(server.endpoint, token, "query Valid { viewer { email } }"),
      gql(server.endpoint, unknown, "query Unknown { viewer { email } }"),
      gql(server.endpoint, malformed, "query Malformed { viewer { email } }"),
      gql(server.endpoint, token, "query Variables { viewer { email } }", { token: inVariables }),
      // Fails validation ($t is never used) with the token as its value.
      gql(server.endpoint, token, "query Unused($t: String) { viewer { email } }", { t: inVariables }),
      // A variable of the wrong type makes the server quote the value back in an error.
      gql(server.endpoint, token, "query Coerce($n: Int) { viewer { accounts(first: $n) { totalCount } } }", {
        n: inVariables,
      }),
    ];
    const responses = await Promise.all(requests);
    for (const res of responses) {
      const lines = await server.log.forRequest(res.headers.get("x-request-id"));
      assert.equal(lines.length, 1, "the request was logged");
    }
    assert.deepEqual(
      responses.map((res) => res.status),
      [200, 401, 401, 200, 200, 200],
    );
    const text = server.log.text;
    for (const name of ["Valid", "Variables", "Unused", "Coerce"]) {
      assert.ok(text.includes(`"operationName":"${name}"`), `the ${name} request was logged by name`);
    }
    for (const [name, secret] of [
      ["valid", token],
      ["unknown", unknown],
      ["malformed", malformed],
      ["in variables", inVariables],
    ] as const) {
      assert.ok(!text.includes(secret), `the ${name} token is in the log`);
      // Not even the random part without its recognisable prefix.
      assert.ok(!text.includes(secret.slice(10, 30)), `part of the ${name} token is in the log`);
    }
  });
});

describe("logging unexpected errors", () => {
  test("a masked resolver error is logged with its request id and stack", async () => {
    const server = await startLoggedApp();
    try {
      const { db } = server.app.database;
      const user = await aUser(db);
      const token = await aToken(db, server.pepper, user);
      await db.schema.dropTable("memberships").cascade().execute();
      const res = await gql(server.endpoint, token, "query Broken { viewer { accounts { totalCount } } }");
      const requestId = res.headers.get("x-request-id");
      assert.equal(res.body.errors?.[0]?.message, `Internal server error (request id ${requestId})`);
      const lines = await server.log.forRequest(requestId, 2);
      const failure = lines.find((line) => line.msg === "resolver failed");
      assert.ok(failure, JSON.stringify(lines));
      assert.equal(failure.level, 50, "logged as an error");
      const err = failure.err as { message?: string; stack?: string };
      assert.match(String(err.message), /memberships/);
      assert.match(String(err.stack), /\n\s+at /);
      assert.ok(
        lines.some((line) => line.msg === "request" && line.operationName === "Broken"),
        "the request line is still written",
      );
    } finally {
      await server.stop();
    }
  });
});
