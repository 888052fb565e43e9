import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type AuditFail, type AuditResult, serverAudits } from "graphql-http";
import type { UserRow } from "../src/db/types.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { rawRequest } from "./helpers/raw-request.ts";
import { gql, startTestServer, type TestServer } from "./helpers/server.ts";

/** The error document of an error response: one error with a message and a code. */
function errorCodeOf(text: string): string | undefined {
  const body = JSON.parse(text) as { errors?: Array<{ message?: unknown; extensions?: { code?: unknown } }> };
  assert.ok(Array.isArray(body.errors) && body.errors.length > 0, `not an error document: ${text}`);
  assert.equal(typeof body.errors[0]?.message, "string");
  const code = body.errors[0]?.extensions?.code;
  return typeof code === "string" ? code : undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("the HTTP endpoint", () => {
  let server: TestServer;
  let alice: UserRow;
  let token: string;
  let auth: Record<string, string>;

  before(async () => {
    server = await startTestServer({ ASSAY_MAX_BODY_BYTES: "2048" });
    alice = await aUser(server.db, { email: "alice@wire.test" });
    const team = await anAccount(server.db, { login: "wire-team" }, [{ user: alice, role: "ADMIN" }]);
    await aRepository(server.db, team, { name: "alpha" });
    await aRepository(server.db, team, { name: "beta" });
    token = await aToken(server.db, server.config.tokenPepper, alice);
    auth = { authorization: `Bearer ${token}` };
  });
  after(() => server.stop());

  test("POST answers at /graphql and /api/graphql, with and without the trailing slash", async () => {
    for (const path of ["/graphql/", "/graphql", "/api/graphql/", "/api/graphql"]) {
      const res = await gql(`${server.url}${path}`, token, "{ viewer { email } }");
      assert.equal(res.status, 200, path);
      assert.deepEqual(res.body, { data: { viewer: { email: "alice@wire.test" } } }, path);
    }
  });

  test("every graphql-http audit of the GraphQL over HTTP spec passes", async () => {
    const fetchFn: typeof fetch = (input, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set("authorization", `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    };
    const results: AuditResult[] = [];
    for (const audit of serverAudits({ url: server.endpoint, fetchFn })) results.push(await audit.fn());
    assert.ok(results.length > 40, "the audit list is not empty");
    // Warnings and notices count as failures: the SHOULDs are held to as firmly as the MUSTs.
    const failures = await Promise.all(
      results
        .filter((result): result is AuditFail => result.status !== "ok")
        .map(
          async (result) =>
            `${result.id} ${result.name} [${result.status}]: ${result.reason} -> ${result.response.status} ${await result.response.text().catch(() => "")}`,
        ),
    );
    assert.deepEqual(failures, []);
  });

  test("GET with a query string executes a query", async () => {
    const url = new URL(server.endpoint);
    url.searchParams.set(
      "query",
      "query Me($n: Int) { viewer { email accounts(first: $n) { totalCount } } }",
    );
    url.searchParams.set("variables", JSON.stringify({ n: 1 }));
    const res = await fetch(url, { headers: auth });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      data: { viewer: { email: "alice@wire.test", accounts: { totalCount: 1 } } },
    });
  });

  test("a mutation over GET is refused with 405 and Allow: POST before validation", async () => {
    // The schema has no Mutation type: validation would call this document invalid, so a 405
    // proves the method is checked first.
    const url = new URL(server.endpoint);
    url.searchParams.set("query", "mutation { doesNotExist }");
    const res = await fetch(url, { headers: auth });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "POST");
    assert.equal(errorCodeOf(await res.text()), "METHOD_NOT_ALLOWED");
  });

  test("PUT and DELETE are refused with 405 and Allow: GET, POST", async () => {
    for (const method of ["PUT", "DELETE", "PATCH"]) {
      const res = await fetch(server.endpoint, { method, headers: auth });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get("allow"), "GET, POST", method);
      assert.equal(errorCodeOf(await res.text()), "METHOD_NOT_ALLOWED", method);
    }
  });

  test("a body over ASSAY_MAX_BODY_BYTES with an honest Content-Length gets 413", async () => {
    const body = JSON.stringify({ query: `{ viewer { email } } #${"x".repeat(4000)}` });
    const res = await rawRequest(server.endpoint, {
      method: "POST",
      headers: {
        ...auth,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
      },
      chunks: [body],
    });
    assert.equal(res.status, 413);
    assert.equal(errorCodeOf(res.text), "PAYLOAD_TOO_LARGE");
    assert.match(String(res.headers["x-request-id"]), UUID);
  });

  test("a chunked body without Content-Length gets 413 once it passes the limit", async () => {
    const res = await rawRequest(server.endpoint, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", "transfer-encoding": "chunked" },
      chunks: [`{"query":"{ viewer { email } } #`, "x".repeat(1500), "x".repeat(1500), `"}`],
    });
    assert.equal(res.status, 413);
    assert.equal(errorCodeOf(res.text), "PAYLOAD_TOO_LARGE");
    assert.match(String(res.headers["x-request-id"]), UUID);
  });

  test("a body just under the limit is accepted", async () => {
    const query = `{ viewer { email } } #${"x".repeat(1900)}`;
    const res = await gql(server.endpoint, token, query);
    assert.equal(res.status, 200);
    assert.equal(res.body.errors, undefined);
  });

  test("an unsupported or missing content type gets 415 with an error document", async () => {
    for (const contentType of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/json; charset=latin1",
      undefined,
    ]) {
      const headers: Record<string, string> = { ...auth };
      if (contentType) headers["content-type"] = contentType;
      const res = await rawRequest(server.endpoint, {
        method: "POST",
        headers,
        chunks: [JSON.stringify({ query: "{ viewer { email } }" })],
      });
      assert.equal(res.status, 415, String(contentType));
      assert.match(String(res.headers["content-type"]), /^application\/json/);
      assert.equal(errorCodeOf(res.text), "UNSUPPORTED_MEDIA_TYPE", String(contentType));
    }
  });

  test("malformed JSON gets 400 with an error document", async () => {
    for (const accept of ["application/json", "application/graphql-response+json"]) {
      const res = await fetch(server.endpoint, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", accept },
        body: '{"query": "{ viewer { email } }"',
      });
      assert.equal(res.status, 400, accept);
      assert.equal(errorCodeOf(await res.text()), "BAD_REQUEST", accept);
    }
  });

  test("a connection without `first` answers its default page", async () => {
    const res = await gql<{
      viewer: {
        accounts: { edges: Array<{ node: { repositories: { totalCount: number; edges: unknown[] } } }> };
      };
    }>(
      server.endpoint,
      token,
      "{ viewer { accounts { edges { node { repositories { totalCount edges { node { name } } } } } } } }",
    );
    assert.equal(res.body.errors, undefined);
    const repositories = res.body.data?.viewer.accounts.edges[0]?.node.repositories;
    assert.equal(repositories?.totalCount, 2);
    assert.equal(repositories?.edges.length, 2);
  });

  test("variables the document does not declare are ignored", async () => {
    const res = await gql(server.endpoint, token, "query Me { viewer { email } }", {
      unused: "value",
      first: 10_000,
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { data: { viewer: { email: "alice@wire.test" } } });
  });

  test("variables: null is the same as no variables", async () => {
    const res = await gql(
      server.endpoint,
      token,
      "query Me($n: Int) { viewer { accounts(first: $n) { totalCount } } }",
      null,
    );
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { data: { viewer: { accounts: { totalCount: 1 } } } });
  });

  test("operationName selects one of several operations", async () => {
    const document = "query Email { viewer { email } } query Accounts { viewer { accounts { totalCount } } }";
    for (const [operationName, data] of [
      ["Email", { viewer: { email: "alice@wire.test" } }],
      ["Accounts", { viewer: { accounts: { totalCount: 1 } } }],
    ] as const) {
      const res = await fetch(server.endpoint, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ query: document, operationName }),
      });
      assert.equal(res.status, 200, operationName);
      assert.deepEqual(await res.json(), { data }, operationName);
    }
  });

  test("several operations without operationName, or an unknown operationName, is a BAD_USER_INPUT error", async () => {
    const document = "query A { viewer { email } } query B { viewer { email } }";
    for (const [operationName, message] of [
      [undefined, "Must provide operation name if query contains multiple operations."],
      ["C", 'Unknown operation named "C".'],
    ] as const) {
      const res = await fetch(server.endpoint, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ query: document, operationName }),
      });
      const body = (await res.json()) as {
        data?: unknown;
        errors?: Array<{ message: string; extensions: unknown }>;
      };
      assert.equal(body.data, undefined);
      assert.deepEqual(body.errors, [
        { message, extensions: { code: "BAD_USER_INPUT", field: "operationName" } },
      ]);
    }
  });

  test("every response carries x-request-id: a sane incoming one is echoed, otherwise a UUID", async () => {
    const echoed = await gql(server.endpoint, token, "{ viewer { email } }", undefined, {
      "x-request-id": "client-req.42:a_b-c",
    });
    assert.equal(echoed.headers.get("x-request-id"), "client-req.42:a_b-c");

    for (const insane of ["has spaces in it", "x".repeat(129), "semi;colon", "<script>"]) {
      const res = await gql(server.endpoint, token, "{ viewer { email } }", undefined, {
        "x-request-id": insane,
      });
      assert.match(String(res.headers.get("x-request-id")), UUID, insane);
    }
    // A token pasted into the wrong header is plain enough, but would end up in the log.
    const pasted = await gql(server.endpoint, token, "{ viewer { email } }", undefined, {
      "x-request-id": token,
    });
    assert.match(String(pasted.headers.get("x-request-id")), UUID);

    const unauthenticated = await gql(server.endpoint, null, "{ viewer { email } }");
    assert.equal(unauthenticated.status, 401);
    assert.match(String(unauthenticated.headers.get("x-request-id")), UUID);
    const put = await fetch(server.endpoint, { method: "PUT" });
    assert.match(String(put.headers.get("x-request-id")), UUID);
    const unsupported = await rawRequest(server.endpoint, {
      method: "POST",
      headers: { ...auth, "content-type": "text/plain" },
      chunks: ["{}"],
    });
    assert.match(String(unsupported.headers["x-request-id"]), UUID);
    const first = await gql(server.endpoint, token, "{ viewer { email } }");
    const second = await gql(server.endpoint, token, "{ viewer { email } }");
    assert.notEqual(first.headers.get("x-request-id"), second.headers.get("x-request-id"));
  });

  test("/healthz answers 200 without a token", async () => {
    const res = await fetch(`${server.url}/healthz`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: "ok" });
  });

  test("/readyz reports the database up and Redis up or not configured, without a token", async () => {
    const res = await fetch(`${server.url}/readyz`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      status: "ready",
      checks: { database: "up", redis: process.env.REDIS_URL ? "up" : "not configured" },
    });
  });
});

describe("health endpoints and the rate limit", () => {
  let server: TestServer;
  let token: string;

  before(async () => {
    server = await startTestServer({ RATE_LIMIT_PER_HOUR: "1" });
    const user = await aUser(server.db);
    token = await aToken(server.db, server.config.tokenPepper, user);
  });
  after(() => server.stop());

  test("/healthz and /readyz are not rate limited and do not spend the user's budget", async () => {
    for (let i = 0; i < 20; i += 1) {
      for (const path of ["/healthz", "/readyz"]) {
        // With the user's token and without one: neither budget may be touched.
        const headers: Record<string, string> = i % 2 === 0 ? { authorization: `Bearer ${token}` } : {};
        const res = await fetch(`${server.url}${path}`, { headers });
        const text = await res.text();
        assert.equal(res.headers.get("x-ratelimit-limit"), null, `${path} #${i}`);
        // A slow Redis ping may report Redis down in /readyz's body, but never fails readiness.
        assert.equal(res.status, 200, `${path} #${i}: ${text}`);
      }
    }
    const first = await gql(server.endpoint, token, "{ viewer { email } }");
    assert.equal(first.status, 200, "the one request of the budget is still there");
    assert.equal(first.headers.get("x-ratelimit-remaining"), "0");
    const second = await gql(server.endpoint, token, "{ viewer { email } }");
    assert.equal(second.status, 429, "the budget of one is now spent");
    assert.equal(second.body.errors?.[0]?.extensions?.code, "RATE_LIMITED");
  });
});

describe("unexpected errors", () => {
  test("a resolver's driver error is masked as an internal error with the request id", async () => {
    const server = await startTestServer();
    try {
      const user = await aUser(server.db);
      await anAccount(server.db, {}, [{ user }]);
      const token = await aToken(server.db, server.config.tokenPepper, user);
      // Authentication still works (users and tokens stay); the accounts resolver hits a driver error.
      await server.db.schema.dropTable("memberships").cascade().execute();
      const res = await gql(server.endpoint, token, "{ viewer { email accounts { totalCount } } }");
      const requestId = res.headers.get("x-request-id");
      assert.equal(res.status, 200);
      assert.equal(res.body.errors?.length, 1);
      const error = res.body.errors?.[0];
      assert.equal(error?.message, `Internal server error (request id ${requestId})`);
      assert.equal(error?.extensions?.code, "INTERNAL_SERVER_ERROR");
      assert.deepEqual(error?.path, ["viewer", "accounts"]);
      const text = JSON.stringify(res.body);
      assert.doesNotMatch(text, /relation|does not exist|memberships|stack|select/i);
    } finally {
      await server.stop();
    }
  });

  test("a request that fails outside any resolver is masked as a 500 with the request id", async () => {
    const server = await startTestServer();
    try {
      const user = await aUser(server.db);
      const token = await aToken(server.db, server.config.tokenPepper, user);
      await server.app.database.db.destroy();
      const res = await gql(server.endpoint, token, "{ viewer { email } }", undefined, {
        "x-request-id": "req-boom-1",
      });
      assert.equal(res.status, 500);
      assert.equal(res.headers.get("x-request-id"), "req-boom-1");
      assert.deepEqual(res.body, {
        errors: [
          {
            message: "Internal server error (request id req-boom-1)",
            extensions: { code: "INTERNAL_SERVER_ERROR", requestId: "req-boom-1" },
          },
        ],
      });
      const ready = await fetch(`${server.url}/readyz`);
      assert.equal(ready.status, 503, "/readyz reports the database down");
      assert.equal(((await ready.json()) as { checks: { database: string } }).checks.database, "down");
    } finally {
      await server.stop();
    }
  });
});

describe("in production", () => {
  let server: TestServer;
  let token: string;

  before(async () => {
    server = await startTestServer({ NODE_ENV: "production" });
    const user = await aUser(server.db);
    token = await aToken(server.db, server.config.tokenPepper, user);
  });
  after(() => server.stop());

  test("a misspelled field is a validation error without a 'Did you mean' suggestion", async () => {
    const res = await gql(server.endpoint, token, "{ viewer { emial } }");
    assert.equal(res.body.errors?.[0]?.extensions?.code, "GRAPHQL_VALIDATION_FAILED");
    assert.match(String(res.body.errors?.[0]?.message), /emial/);
    assert.doesNotMatch(JSON.stringify(res.body), /Did you mean/);
  });

  test("a misspelled enum value in variables gets no suggestion either", async () => {
    const res = await gql(
      server.endpoint,
      token,
      'query($p: VCSProvider!) { account(login: "x", vcsProvider: $p) { login } }',
      { p: "GITHUUB" },
    );
    assert.ok(res.body.errors?.length);
    assert.doesNotMatch(JSON.stringify(res.body), /Did you mean/);
  });
});

describe("outside production", () => {
  test("a misspelled field gets a 'Did you mean' suggestion (the production test can fail)", async () => {
    const server = await startTestServer({ NODE_ENV: "development" });
    try {
      const user = await aUser(server.db);
      const token = await aToken(server.db, server.config.tokenPepper, user);
      const res = await gql(server.endpoint, token, "{ viewer { emial } }");
      assert.match(String(res.body.errors?.[0]?.message), /Did you mean "email"\?/);
    } finally {
      await server.stop();
    }
  });
});
