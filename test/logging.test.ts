import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { UserRow } from "../src/db/types.ts";
import { generatePat } from "../src/modules/auth/pat.ts";
import { anAccount, aToken, aUser } from "./helpers/builders.ts";
import { startInstance, type TestInstance } from "./helpers/instance.ts";
import { gql } from "./helpers/server.ts";

/** An instance with the production logger writing every level to memory. */
function startLoggedApp(): Promise<TestInstance> {
  // Everything the server can say, so a token cannot hide in a level the test does not read.
  return startInstance({ env: { LOG_LEVEL: "trace" } });
}

describe("request logging", () => {
  let server: TestInstance;
  let alice: UserRow;
  let token: string;

  before(async () => {
    server = await startLoggedApp();
    const { db } = server;
    alice = await aUser(db);
    await anAccount(db, {}, [{ user: alice }]);
    token = await aToken(db, server.config.tokenPepper, alice);
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
      const { db } = server;
      const user = await aUser(db);
      const token = await aToken(db, server.config.tokenPepper, user);
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
