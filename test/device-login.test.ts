import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { UserRow } from "../src/db/types.ts";
import { hashPat } from "../src/modules/auth/pat.ts";
import { anAccount, aToken, aUser } from "./helpers/builders.ts";
import { type GraphQLResponse, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * Device login over HTTP: a client without a token registers, polls, and receives a personal
 * access token once a signed-in user approves its code.
 */

const REGISTER = `mutation Register($input: RegisterDeviceInput!) {
  registerDevice(input: $input) {
    deviceCode userCode verificationUri verificationUriComplete expiresIn interval clientMutationId
  }
}`;
const POLL = `mutation Poll($input: RequestPATWithDeviceCodeInput!) {
  requestPatWithDeviceCode(input: $input) { token expiry user { email } clientMutationId }
}`;
const APPROVE = `mutation Approve($input: ApproveDeviceInput!) { approveDevice(input: $input) { ok clientMutationId } }`;
const DENY = `mutation Deny($input: DenyDeviceInput!) { denyDevice(input: $input) { ok clientMutationId } }`;
const VIEWER = "{ viewer { email } }";
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;
const DAY_MS = 86_400_000;

interface Registered {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
  expiresIn: number;
  interval: number;
  clientMutationId: string | null;
}

let server: TestServer;
let addresses = 0;

/** Headers of a client at an address no other request used, so the anonymous limit never bites. */
function freshAddress(): Record<string, string> {
  addresses += 1;
  return { "x-forwarded-for": `10.1.${Math.floor(addresses / 256)}.${addresses % 256}` };
}

/** A request without a token, from a new address. */
function anonymous(query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse> {
  return gql(server.endpoint, null, query, variables, freshAddress());
}

/** The single error of `response`, failing the test when there is not exactly one. */
function onlyError(response: GraphQLResponse) {
  assert.equal(response.body.errors?.length, 1, JSON.stringify(response.body));
  return response.body.errors[0]!;
}

/** `data[field]` of an answer without errors. */
function payloadOf<T>(response: GraphQLResponse, field: string): T {
  assert.equal(response.body.errors, undefined, JSON.stringify(response.body.errors));
  const value = response.body.data?.[field];
  assert.ok(value, `${field} answered`);
  return value as T;
}

async function register(input: Record<string, unknown> = {}): Promise<Registered> {
  const response = await anonymous(REGISTER, { input });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  assert.equal(response.body.errors, undefined, JSON.stringify(response.body.errors));
  return response.body.data?.registerDevice as Registered;
}

function poll(deviceCode: string, extra: Record<string, unknown> = {}): Promise<GraphQLResponse> {
  return anonymous(POLL, { input: { deviceCode, ...extra } });
}

/** The stored row's key: the device code's keyed hash. */
function hashOf(deviceCode: string): Buffer {
  return hashPat(deviceCode, server.config.tokenPepper);
}

/** Moves the login's last poll a minute back, as if the client had waited its interval. */
async function waitInterval(deviceCode: string): Promise<void> {
  await sql`
    UPDATE device_authorizations SET last_polled_at = last_polled_at - interval '1 minute'
    WHERE device_code_hash = ${hashOf(deviceCode)}
  `.execute(server.db);
}

async function countTokens(user: UserRow): Promise<number> {
  const row = await server.db
    .selectFrom("personal_access_tokens")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("user_id", "=", user.id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

before(async () => {
  server = await startTestServer({
    ASSAY_TRUST_PROXY: "true",
    ASSAY_PUBLIC_URL: "https://assay.example.test",
  });
});
after(() => server?.stop());

describe("device login", () => {
  let alice: UserRow;
  let aliceToken: string;
  let bob: UserRow;
  let bobToken: string;

  before(async () => {
    alice = await aUser(server.db, { email: "alice.device@example.test" });
    bob = await aUser(server.db, { email: "bob.device@example.test" });
    await anAccount(server.db, {}, [{ user: alice, role: "ADMIN", isOwner: true }]);
    aliceToken = await aToken(server.db, server.config.tokenPepper, alice);
    bobToken = await aToken(server.db, server.config.tokenPepper, bob);
  });

  test("the whole flow runs without a token until a signed-in user approves, and the token works once", async () => {
    const registered = await register({ clientMutationId: "reg-1" });
    assert.match(registered.deviceCode, /^assay_dc_[A-Za-z0-9_-]{43}$/);
    assert.match(registered.userCode, USER_CODE);
    assert.equal(registered.verificationUri, "https://assay.example.test/device");
    assert.equal(
      registered.verificationUriComplete,
      `https://assay.example.test/device?user_code=${registered.userCode}`,
    );
    assert.equal(registered.expiresIn, 900);
    assert.equal(registered.interval, 5);
    assert.equal(registered.clientMutationId, "reg-1");

    const pending = await poll(registered.deviceCode);
    assert.equal(pending.status, 200);
    assert.deepEqual(pending.body.data, { requestPatWithDeviceCode: null });
    assert.equal(onlyError(pending).extensions?.code, "AUTHORIZATION_PENDING");

    const approved = await gql(server.endpoint, aliceToken, APPROVE, {
      input: { userCode: registered.userCode.toLowerCase().replace("-", " "), clientMutationId: "ok-1" },
    });
    assert.deepEqual(approved.body, { data: { approveDevice: { ok: true, clientMutationId: "ok-1" } } });

    await waitInterval(registered.deviceCode);
    const issued = await poll(registered.deviceCode, {
      description: "CLI on the laptop",
      clientMutationId: "p",
    });
    assert.equal(issued.body.errors, undefined, JSON.stringify(issued.body.errors));
    const payload = issued.body.data?.requestPatWithDeviceCode as {
      token: string;
      expiry: string;
      user: { email: string };
      clientMutationId: string;
    };
    assert.match(payload.token, /^assay_pat_/);
    assert.deepEqual(payload.user, { email: "alice.device@example.test" });
    assert.equal(payload.clientMutationId, "p");
    const lifetime = Date.parse(payload.expiry) - Date.now();
    assert.ok(Math.abs(lifetime - 90 * DAY_MS) < 60_000, `expiry ${payload.expiry}`);

    const viewer = await gql(server.endpoint, payload.token, VIEWER);
    assert.deepEqual(viewer.body, { data: { viewer: { email: "alice.device@example.test" } } });
    const stored = await server.db
      .selectFrom("personal_access_tokens")
      .select(["name", "last_four"])
      .where("last_four", "=", payload.token.slice(-4))
      .where("user_id", "=", alice.id)
      .execute();
    assert.deepEqual(
      stored.map((row) => row.name),
      ["CLI on the laptop"],
    );

    await waitInterval(registered.deviceCode);
    const again = await poll(registered.deviceCode);
    assert.deepEqual(again.body.data, { requestPatWithDeviceCode: null });
    const spent = onlyError(again);
    assert.equal(spent.extensions?.code, "BAD_USER_INPUT");
    assert.equal(spent.extensions?.field, "deviceCode");
  });

  test("only hashes of the two codes are stored", async () => {
    const registered = await register();
    const rows = await sql<Record<string, unknown>>`
      SELECT * FROM device_authorizations WHERE device_code_hash = ${hashOf(registered.deviceCode)}
    `.execute(server.db);
    assert.equal(rows.rows.length, 1, "the row is found by the device code's keyed hash");
    const text = JSON.stringify(rows.rows[0], (_key, value) =>
      value?.type === "Buffer" ? Buffer.from(value.data).toString("latin1") : value,
    );
    const compactCode = registered.userCode.replace("-", "");
    for (const secret of [
      registered.deviceCode,
      registered.deviceCode.slice(9, 30),
      compactCode,
      registered.userCode,
    ]) {
      assert.ok(!text.includes(secret), `the row holds ${secret}`);
    }
  });

  test("polling faster than the interval answers SLOW_DOWN with a longer interval", async () => {
    const { deviceCode } = await register();
    await poll(deviceCode);
    const tooSoon = await poll(deviceCode);
    const error = onlyError(tooSoon);
    assert.equal(error.extensions?.code, "SLOW_DOWN");
    assert.equal(error.extensions?.interval, 10);
    const evenSooner = await poll(deviceCode);
    assert.equal(onlyError(evenSooner).extensions?.interval, 15);
    await waitInterval(deviceCode);
    assert.equal(onlyError(await poll(deviceCode)).extensions?.code, "AUTHORIZATION_PENDING");
  });

  test("an expired device code answers EXPIRED_TOKEN, and its user code can no longer be approved", async () => {
    const { deviceCode, userCode } = await register();
    await sql`
      UPDATE device_authorizations SET expires_at = now() - interval '1 second'
      WHERE device_code_hash = ${hashOf(deviceCode)}
    `.execute(server.db);
    assert.equal(onlyError(await poll(deviceCode)).extensions?.code, "EXPIRED_TOKEN");
    const late = await gql(server.endpoint, aliceToken, APPROVE, { input: { userCode } });
    assert.deepEqual(late.body.data, { approveDevice: null });
    assert.equal(onlyError(late).extensions?.code, "BAD_USER_INPUT");
    assert.equal(onlyError(late).extensions?.field, "userCode");
  });

  test("a denied login answers ACCESS_DENIED, and the denial is final", async () => {
    const { deviceCode, userCode } = await register();
    const denied = await gql(server.endpoint, aliceToken, DENY, {
      input: { userCode, clientMutationId: "no" },
    });
    assert.deepEqual(denied.body, { data: { denyDevice: { ok: true, clientMutationId: "no" } } });
    const deniedAgain = await gql(server.endpoint, aliceToken, DENY, { input: { userCode } });
    assert.deepEqual(deniedAgain.body.data, { denyDevice: { ok: true, clientMutationId: null } });
    assert.equal(onlyError(await poll(deviceCode)).extensions?.code, "ACCESS_DENIED");
    const approve = await gql(server.endpoint, aliceToken, APPROVE, { input: { userCode } });
    assert.equal(onlyError(approve).extensions?.field, "userCode");
    await waitInterval(deviceCode);
    assert.equal(onlyError(await poll(deviceCode)).extensions?.code, "ACCESS_DENIED");
  });

  test("whoever approved may still deny before the device collects its token", async () => {
    const before = await countTokens(alice);
    const { deviceCode, userCode } = await register();
    await gql(server.endpoint, aliceToken, APPROVE, { input: { userCode } });
    const changed = await gql(server.endpoint, aliceToken, DENY, { input: { userCode } });
    assert.deepEqual(changed.body.data, { denyDevice: { ok: true, clientMutationId: null } });
    assert.equal(onlyError(await poll(deviceCode)).extensions?.code, "ACCESS_DENIED");
    assert.equal(await countTokens(alice), before);
  });

  test("approving twice is fine, but another user cannot take over or refuse an approved code", async () => {
    const { deviceCode, userCode } = await register();
    for (let i = 0; i < 2; i++) {
      const ok = await gql(server.endpoint, aliceToken, APPROVE, { input: { userCode } });
      assert.deepEqual(ok.body.data, { approveDevice: { ok: true, clientMutationId: null } });
    }
    for (const mutation of [APPROVE, DENY]) {
      const other = await gql(server.endpoint, bobToken, mutation, { input: { userCode } });
      assert.equal(onlyError(other).extensions?.code, "BAD_USER_INPUT");
      assert.equal(onlyError(other).extensions?.field, "userCode");
    }
    const issued = await poll(deviceCode, { description: "for alice" });
    const payload = issued.body.data?.requestPatWithDeviceCode as { user: { email: string } };
    assert.deepEqual(payload.user, { email: "alice.device@example.test" });
  });

  test("unknown and malformed user codes are BAD_USER_INPUT naming userCode, alike, and change nothing", async () => {
    const { deviceCode } = await register();
    const messages = new Set<string>();
    for (const userCode of ["BCDF-GHJK", "AAAA-AAAA", "not a code", "", "BCDF-GHJ"]) {
      const response = await gql(server.endpoint, aliceToken, APPROVE, { input: { userCode } });
      assert.deepEqual(response.body.data, { approveDevice: null }, userCode);
      const error = onlyError(response);
      assert.equal(error.extensions?.code, "BAD_USER_INPUT", userCode);
      assert.equal(error.extensions?.field, "userCode", userCode);
      messages.add(error.message);
    }
    assert.equal(messages.size, 1);
    assert.equal(onlyError(await poll(deviceCode)).extensions?.code, "AUTHORIZATION_PENDING");
  });

  test("an unknown or malformed device code is BAD_USER_INPUT naming deviceCode", async () => {
    for (const deviceCode of [`assay_dc_${"A".repeat(43)}`, "nonsense", ""]) {
      const error = onlyError(await poll(deviceCode));
      assert.equal(error.extensions?.code, "BAD_USER_INPUT", deviceCode);
      assert.equal(error.extensions?.field, "deviceCode", deviceCode);
    }
  });

  test("concurrent polls of one approved login give exactly one token", async () => {
    const before = await countTokens(alice);
    const { deviceCode, userCode } = await register();
    await gql(server.endpoint, aliceToken, APPROVE, { input: { userCode } });
    // Only `token` is selected: every statement of these polls then runs inside their transactions.
    const onlyToken = `mutation Poll($input: RequestPATWithDeviceCodeInput!) {
      requestPatWithDeviceCode(input: $input) { token } }`;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => anonymous(onlyToken, { input: { deviceCode } })),
    );
    const tokens = answers
      .map((answer) => (answer.body.data?.requestPatWithDeviceCode as { token?: string } | null)?.token)
      .filter((token) => token !== undefined);
    assert.equal(tokens.length, 1, JSON.stringify(answers.map((answer) => answer.body)));
    for (const answer of answers) {
      if (answer.body.data?.requestPatWithDeviceCode) continue;
      assert.ok(
        ["BAD_USER_INPUT", "SLOW_DOWN"].includes(String(onlyError(answer).extensions?.code)),
        JSON.stringify(answer.body),
      );
    }
    assert.equal(await countTokens(alice), before + 1);
  });

  test("the token is named after the device type without a description, and a bad description changes nothing", async () => {
    const { deviceCode, userCode } = await register({ deviceType: "IDE" });
    await gql(server.endpoint, bobToken, APPROVE, { input: { userCode } });
    const tooLong = await poll(deviceCode, { description: "x".repeat(101) });
    assert.equal(onlyError(tooLong).extensions?.code, "BAD_USER_INPUT");
    assert.equal(onlyError(tooLong).extensions?.field, "description");
    const row = await server.db
      .selectFrom("device_authorizations")
      .select(["status", "last_polled_at"])
      .where("device_code_hash", "=", hashOf(deviceCode))
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: "APPROVED", last_polled_at: null });
    const issued = await poll(deviceCode, { description: "   " });
    const { token } = payloadOf<{ token: string }>(issued, "requestPatWithDeviceCode");
    const named = await server.db
      .selectFrom("personal_access_tokens")
      .select("name")
      .where("user_id", "=", bob.id)
      .where("last_four", "=", token.slice(-4))
      .executeTakeFirstOrThrow();
    assert.equal(named.name, "Device login (IDE)");
  });

  test("without a token, the payload's user answers its own fields and refuses the ones that need a viewer", async () => {
    const { deviceCode, userCode } = await register();
    await gql(server.endpoint, aliceToken, APPROVE, { input: { userCode } });
    const response = await anonymous(
      `mutation($input: RequestPATWithDeviceCodeInput!) {
        requestPatWithDeviceCode(input: $input) { token user { email accounts { totalCount } } } }`,
      { input: { deviceCode } },
    );
    const payload = response.body.data?.requestPatWithDeviceCode as { token: string; user: unknown };
    assert.match(payload.token, /^assay_pat_/);
    assert.deepEqual(payload.user, { email: "alice.device@example.test", accounts: null });
    const error = onlyError(response);
    assert.equal(error.extensions?.code, "UNAUTHENTICATED");
    assert.deepEqual(error.path, ["requestPatWithDeviceCode", "user", "accounts"]);
  });

  test("with a token, the payload's user answers every field", async () => {
    const { deviceCode, userCode } = await register();
    await gql(server.endpoint, aliceToken, APPROVE, { input: { userCode } });
    const response = await gql(
      server.endpoint,
      bobToken,
      `mutation($input: RequestPATWithDeviceCodeInput!) {
        requestPatWithDeviceCode(input: $input) { user { email accounts { totalCount } } } }`,
      { input: { deviceCode } },
    );
    assert.equal(response.body.errors, undefined, JSON.stringify(response.body.errors));
  });
});

describe("requests without a token", () => {
  let token: string;

  before(async () => {
    token = await aToken(server.db, server.config.tokenPepper, await aUser(server.db));
  });

  test("anything but the public mutations still gets the one 401, even beside a public field", async () => {
    const reference = await anonymous(VIEWER);
    assert.equal(reference.status, 401);
    const attempts = [
      `mutation { registerDevice(input: {}) { userCode } revokePat { ok } }`,
      `mutation { approveDevice(input: {userCode: "BCDF-GHJK"}) { ok } }`,
      `mutation { refreshPat { token } }`,
      `mutation { createSessionToken(input: {}) { token } }`,
      `mutation { ... on Mutation { registerDevice(input: {}) { userCode } } }`,
      `{ __typename }`,
      `mutation { registerDevice(input: {}) { nope } }`,
    ];
    for (const query of attempts) {
      const response = await anonymous(query);
      assert.equal(response.status, 401, query);
      assert.deepEqual(response.body, reference.body, query);
      assert.match(response.headers.get("www-authenticate") ?? "", /^Bearer /, query);
    }
  });

  test("a body that is not a JSON GraphQL request gets the same 401, not 415 or 400", async () => {
    const reference = await anonymous(VIEWER);
    for (const [contentType, body] of [
      ["text/plain", JSON.stringify({ query: "mutation { registerDevice(input: {}) { userCode } }" })],
      ["application/json", "{ not json"],
      ["application/json", JSON.stringify({ query: 42 })],
    ]) {
      const response = await fetch(server.endpoint, {
        method: "POST",
        headers: { "content-type": contentType ?? "", ...freshAddress() },
        body,
      });
      assert.equal(response.status, 401, body);
      assert.deepEqual(await response.json(), reference.body);
    }
  });

  test("a public mutation sent with GET is refused with 405 like any mutation, and a GET query with 401", async () => {
    const mutation = encodeURIComponent("mutation { registerDevice(input: {}) { interval } }");
    const viaGet = await fetch(`${server.endpoint}?query=${mutation}`, { headers: freshAddress() });
    assert.equal(viaGet.status, 405);
    assert.equal(viaGet.headers.get("allow"), "POST");
    const query = await fetch(`${server.endpoint}?query=${encodeURIComponent(VIEWER)}`, {
      headers: freshAddress(),
    });
    assert.equal(query.status, 401);
  });

  test("a public mutation is answered even with a bad token, and with a good one as usual", async () => {
    const bad = await gql(
      server.endpoint,
      "assay_pat_not-a-real-token",
      `mutation { registerDevice(input: {}) { interval } }`,
      null,
      freshAddress(),
    );
    assert.deepEqual(bad.body, { data: { registerDevice: { interval: 5 } } });
    const good = await gql(server.endpoint, token, `mutation { registerDevice(input: {}) { interval } }`);
    assert.deepEqual(good.body, { data: { registerDevice: { interval: 5 } } });
    assert.ok(good.headers.get("x-ratelimit-limit"), "an authenticated call spends the user's budget");
    assert.equal(bad.headers.get("x-ratelimit-limit"), null);
  });

  test("public mutations count against the per-address limit: the 21st from one address gets 429", async () => {
    const address = { "x-forwarded-for": "10.99.0.1" };
    for (let i = 1; i <= 20; i++) {
      const response = await gql(
        server.endpoint,
        null,
        `mutation { registerDevice(input: {}) { interval } }`,
        null,
        address,
      );
      assert.equal(response.status, 200, `request ${i}`);
    }
    const limited = await gql(
      server.endpoint,
      null,
      `mutation { registerDevice(input: {}) { interval } }`,
      null,
      address,
    );
    assert.equal(limited.status, 429);
    assert.equal(onlyError(limited).extensions?.code, "RATE_LIMITED");
  });
});

describe("the /device page", () => {
  async function page(path: string, init: RequestInit = {}) {
    const response = await fetch(`${server.url}${path}`, init);
    return { response, text: await response.text() };
  }

  test("explains how to approve, with the code from the link filled in", async () => {
    const { response, text } = await page("/device?user_code=bcdf%20ghjk");
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/html; charset=utf-8/);
    assert.equal(response.headers.get("cache-control"), "no-store");
    assert.equal(response.headers.get("referrer-policy"), "no-referrer");
    assert.ok(text.includes("BCDF-GHJK"));
    assert.ok(text.includes("approveDevice(input: {userCode: &quot;BCDF-GHJK&quot;})"));
    assert.ok(text.includes("denyDevice"));
    assert.ok(!/<form/i.test(text), "no login form: Assay has no passwords");
    assert.ok(text.includes('<a href="/graphql/">playground</a>'), "links to the playground");
  });

  test("without a code it shows a placeholder, and anything else in the parameter is never echoed", async () => {
    const plain = await page("/device");
    assert.equal(plain.response.status, 200);
    assert.ok(plain.text.includes("XXXX-XXXX"));
    const hostile = await page(`/device?user_code=${encodeURIComponent('<script>alert("x")</script>')}`);
    assert.equal(hostile.response.status, 200);
    assert.ok(!hostile.text.includes("<script>"));
    assert.ok(!hostile.text.includes("alert"));
    assert.ok(hostile.text.includes("not a valid device code"));
  });

  test("only GET and HEAD are answered", async () => {
    const post = await page("/device", { method: "POST" });
    assert.equal(post.response.status, 405);
    assert.equal(post.response.headers.get("allow"), "GET, HEAD");
    const head = await page("/device?user_code=BCDF-GHJK", { method: "HEAD" });
    assert.equal(head.response.status, 200);
    assert.equal(head.text, "");
  });
});
