import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { UserRow } from "../src/db/types.ts";
import { generatePat, hashPat, PAT_PREFIX } from "../src/modules/auth/pat.ts";
import { createToken } from "../src/modules/auth/token-service.ts";
import { revokeTokenByKey, touchToken } from "../src/modules/auth/token-store.ts";
import { aToken, aUser } from "./helpers/builders.ts";
import {
  bearer,
  post,
  type RawAnswer,
  settle,
  startInstance,
  type TestInstance,
  waitFor,
} from "./helpers/instance.ts";

const VIEWER = "{ viewer { email } }";
const INTROSPECTION = "{ __schema { queryType { name } } }";
const DAY_MS = 86_400_000;

/** The same token with its last character changed, so its checksum no longer matches. */
function withBadChecksum(token: string): string {
  const last = token.at(-1);
  return token.slice(0, -1) + (last === "0" ? "1" : "0");
}

function assertRefused(answer: RawAnswer, label: string): void {
  assert.equal(answer.status, 401, `${label}: ${answer.text}`);
  assert.match(answer.headers.get("www-authenticate") ?? "", /^Bearer( |$)/, label);
  assert.equal(answer.json.data, undefined, label);
  assert.equal(answer.json.errors?.length, 1, label);
  assert.equal(answer.json.errors?.[0]?.extensions?.code, "UNAUTHENTICATED", label);
}

let addresses = 0;

/** An X-Forwarded-For header naming an address no other request used. */
function fromNewAddress(): Record<string, string> {
  addresses += 1;
  return { "x-forwarded-for": `10.0.${Math.floor(addresses / 256)}.${addresses % 256}` };
}

/** {@link post} from a new client address (for servers that trust X-Forwarded-For). */
function ask(endpoint: string, query: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return post(endpoint, query, { ...headers, ...fromNewAddress() });
}

/** Serves the database every instance in this file shares (each test seeds its own users). */
let home: TestInstance;
before(async () => {
  home = await startInstance();
});
after(() => home?.stop());

describe("authentication", () => {
  let server: TestInstance;
  let pepper: string;
  let alice: UserRow;
  let aliceToken: string;

  before(async () => {
    // Each request comes from an address of its own, so the refusals these tests provoke never
    // reach the unauthenticated limit (tested on a server of its own below).
    server = await startInstance({ sameDatabaseAs: home, env: { ASSAY_TRUST_PROXY: "true" } });
    pepper = server.config.tokenPepper;
    alice = await aUser(server.db, { email: "alice@example.test" });
    aliceToken = await aToken(server.db, pepper, alice);
  });
  after(() => server?.stop());

  test("a valid token is answered, schema introspection included", async () => {
    const viewer = await ask(server.endpoint, VIEWER, bearer(aliceToken));
    assert.equal(viewer.status, 200, viewer.text);
    assert.deepEqual(viewer.json.data, { viewer: { email: "alice@example.test" } });
    const schema = await ask(server.endpoint, INTROSPECTION, bearer(aliceToken));
    assert.equal(schema.status, 200, schema.text);
    assert.deepEqual(schema.json.data, { __schema: { queryType: { name: "Query" } } });
  });

  test("missing, malformed, unknown, expired and revoked tokens all get the same 401 body", async () => {
    const expired = await aToken(server.db, pepper, alice, {
      now: new Date(Date.now() - 2 * DAY_MS),
      expiresInDays: 1,
    });
    const revoked = await createToken(server.db, pepper, {
      userId: alice.id,
      name: "revoked",
      expiresInDays: 30,
    });
    const beforeRevoking = await ask(server.endpoint, VIEWER, bearer(revoked.token));
    assert.equal(beforeRevoking.status, 200, "the token works until it is revoked");
    assert.equal(await revokeTokenByKey(server.db, revoked.row.key), true);
    // Revoked as another process would (the CLI): the instance's identity cache may serve the token
    // it just checked for up to a second more (test/identity-cache.test.ts).
    await waitFor(
      "the revocation to reach the server",
      async () => (await ask(server.endpoint, VIEWER, bearer(revoked.token))).status === 401,
      1500,
    );

    const attempts: Array<[string, Record<string, string>]> = [
      ["missing", {}],
      ["bad checksum", bearer(withBadChecksum(aliceToken))],
      ["wrong prefix", bearer(`ghp_${aliceToken.slice(PAT_PREFIX.length)}`)],
      ["garbage", bearer("not-a-token")],
      ["unknown", bearer(generatePat().token)],
      ["expired", bearer(expired)],
      ["revoked", bearer(revoked.token)],
    ];
    const answers: RawAnswer[] = [];
    for (const [label, headers] of attempts) {
      for (const query of [VIEWER, INTROSPECTION]) {
        const answer = await ask(server.endpoint, query, headers);
        assertRefused(answer, `${label}, ${query}`);
        answers.push(answer);
      }
    }
    const bodies = new Set(answers.map((answer) => answer.text));
    assert.equal(bodies.size, 1, [...bodies].join("\n"));
    // The spec's `errors`, and the same words as a top-level `message` for clients that read one.
    const body = JSON.parse([...bodies][0]!) as { message?: unknown; errors: Array<{ message: string }> };
    assert.deepEqual(Object.keys(body).sort(), ["errors", "message"]);
    assert.equal(body.message, body.errors[0]?.message);
    assert.match(String(body.message), /not valid/);
  });

  test("a query sent with GET needs a token too", async () => {
    const url = `${server.endpoint}?query=${encodeURIComponent(INTROSPECTION)}`;
    const refused = await fetch(url, { headers: fromNewAddress() });
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get("www-authenticate") ?? "", /^Bearer( |$)/);
    const accepted = await fetch(url, { headers: { ...bearer(aliceToken), ...fromNewAddress() } });
    assert.equal(accepted.status, 200);
  });

  test("a Basic credential, or two Bearer tokens in one header, is refused", async () => {
    const reference = await ask(server.endpoint, VIEWER);
    const headers = [
      { authorization: `Basic ${Buffer.from(`alice:${aliceToken}`).toString("base64")}` },
      { authorization: `Basic ${aliceToken}` },
      { authorization: `Bearer ${aliceToken} ${aliceToken}` },
      { authorization: `Bearer ${aliceToken}, Bearer ${aliceToken}` },
      { authorization: `Bearer ${aliceToken},${aliceToken}` },
    ];
    for (const header of headers) {
      const answer = await ask(server.endpoint, VIEWER, header);
      assertRefused(answer, header.authorization);
      assert.equal(answer.text, reference.text);
    }
  });

  test("a token is stored only as its keyed hash beside its last four characters and metadata", async () => {
    const { token, row } = await createToken(server.db, pepper, {
      userId: alice.id,
      name: "stored",
      expiresInDays: 7,
    });
    const stored = await sql<Record<string, unknown>>`
      SELECT * FROM personal_access_tokens WHERE key = ${row.key}
    `.execute(server.db);
    const columns = stored.rows[0];
    assert.ok(columns);
    assert.deepEqual(Object.keys(columns).sort(), [
      "created_at",
      "expires_at",
      "id",
      "key",
      "last_four",
      "last_used_at",
      "name",
      "revoked_at",
      "token_hash",
      "user_id",
    ]);
    assert.ok(Buffer.isBuffer(columns.token_hash));
    assert.ok(columns.token_hash.equals(hashPat(token, pepper)), "token_hash is HMAC-SHA256 with the pepper");
    assert.equal(columns.last_four, token.slice(-4));

    const secret = token.slice(PAT_PREFIX.length, PAT_PREFIX.length + 32);
    const pieces = Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8));
    for (const [name, value] of Object.entries(columns)) {
      const renderings = Buffer.isBuffer(value)
        ? ["hex", "base64", "base64url", "latin1"].map((encoding) =>
            value.toString(encoding as BufferEncoding),
          )
        : [value instanceof Date ? value.toISOString() : String(value)];
      for (const text of renderings) {
        assert.ok(!text.includes(token), `${name} holds the token`);
        for (const piece of pieces)
          assert.ok(!text.includes(piece), `${name} holds "${piece}" of the secret`);
      }
    }
  });

  test("a server with another pepper refuses a token the first one accepts", async () => {
    const other = await startInstance({
      sameDatabaseAs: home,
      env: { ASSAY_TOKEN_PEPPER: "another-pepper-0123456789abcdef", ASSAY_TRUST_PROXY: "true" },
    });
    try {
      assert.equal((await ask(server.endpoint, VIEWER, bearer(aliceToken))).status, 200);
      const refused = await ask(other.endpoint, VIEWER, bearer(aliceToken));
      assertRefused(refused, "other pepper");
      assert.equal(refused.text, (await ask(server.endpoint, VIEWER)).text);
    } finally {
      await other.stop();
    }
  });

  test("a token with a bad checksum is refused without any SQL statement", async () => {
    await settle(server.statements);
    const before = server.statements.length;
    const mistyped = await ask(server.endpoint, VIEWER, bearer(withBadChecksum(aliceToken)));
    assertRefused(mistyped, "bad checksum");
    await settle(server.statements);
    assert.deepEqual(server.statements.slice(before), []);

    // The counter does see the lookup of a well-formed token, so the zero above means something.
    const unknown = await ask(server.endpoint, VIEWER, bearer(generatePat().token));
    assertRefused(unknown, "unknown");
    await settle(server.statements);
    assert.equal(server.statements.length - before, 1);
    assert.match(server.statements.at(-1) ?? "", /personal_access_tokens/);
  });
});

describe("recording a token's last use", () => {
  let server: TestInstance;
  /** A second instance on the same database, as a replica behind a load balancer would be. */
  let second: TestInstance;
  let pepper: string;
  let user: UserRow;

  /** How many times the token's row was actually written (counted by a trigger), and its last use. */
  async function writesOf(token: string): Promise<{ writes: number; lastUsedAt: Date | null }> {
    const result = await sql<{ writes: string; last_used_at: Date | null }>`
      SELECT (SELECT count(*) FROM token_use_writes w WHERE w.token_id = t.id) AS writes, t.last_used_at
      FROM personal_access_tokens t WHERE t.token_hash = ${hashPat(token, pepper)}
    `.execute(server.db);
    const row = result.rows[0];
    assert.ok(row, "the token exists");
    return { writes: Number(row.writes), lastUsedAt: row.last_used_at };
  }

  async function requestMany(count: number, endpoints: string[], token: string): Promise<void> {
    const answers = await Promise.all(
      Array.from({ length: count }, (_, i) => post(endpoints[i % endpoints.length]!, VIEWER, bearer(token))),
    );
    assert.deepEqual(
      answers.map((answer) => answer.status),
      answers.map(() => 200),
    );
  }

  before(async () => {
    server = await startInstance({ sameDatabaseAs: home });
    second = await startInstance({ sameDatabaseAs: home });
    pepper = server.config.tokenPepper;
    user = await aUser(server.db);
    await sql`CREATE TABLE token_use_writes (token_id bigint NOT NULL, at timestamptz)`.execute(server.db);
    await sql`
      CREATE FUNCTION record_token_use_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO token_use_writes VALUES (NEW.id, NEW.last_used_at);
        RETURN NEW;
      END $$
    `.execute(server.db);
    await sql`
      CREATE TRIGGER record_token_use_write AFTER UPDATE OF last_used_at ON personal_access_tokens
      FOR EACH ROW EXECUTE FUNCTION record_token_use_write()
    `.execute(server.db);
  });
  after(async () => {
    await Promise.all([second?.stop(), server?.stop()]);
  });

  test("a burst of requests writes last use once, and more requests within the minute do not write it again", async () => {
    const token = await aToken(server.db, pepper, user);
    assert.equal((await writesOf(token)).lastUsedAt, null);
    await settle(server.statements);
    const start = server.statements.length;

    await requestMany(10, [server.endpoint], token);
    await waitFor("last use to be written", async () => (await writesOf(token)).writes > 0);
    const first = await writesOf(token);
    assert.ok(first.lastUsedAt && Math.abs(first.lastUsedAt.getTime() - Date.now()) < 60_000);

    await requestMany(10, [server.endpoint], token);
    await settle(server.statements);
    const later = await writesOf(token);
    assert.equal(later.writes, 1);
    assert.deepEqual(later.lastUsedAt, first.lastUsedAt);
    // The instance remembers its own write, so even the concurrent first burst sent one UPDATE.
    const updates = server.statements
      .slice(start)
      .filter((statement) => /^update "personal_access_tokens"/i.test(statement));
    assert.equal(updates.length, 1, updates.join("\n"));
  });

  test("once a minute has passed, the next request writes last use again", async () => {
    const token = await aToken(server.db, pepper, user);
    await requestMany(3, [server.endpoint], token);
    await waitFor("last use to be written", async () => (await writesOf(token)).writes === 1);

    // A minute passes, as the database sees it. The instance that wrote also remembers the write in
    // memory by its own clock, which no test can move; the second instance never saw this token, as
    // the first one would not remember it a minute later. Either way the next request writes.
    await sql`
      UPDATE personal_access_tokens SET last_used_at = now() - interval '2 minutes'
      WHERE token_hash = ${hashPat(token, pepper)}
    `.execute(server.db);
    const aged = await writesOf(token);
    assert.equal(aged.writes, 2, "the simulated minute is itself a write");

    await requestMany(5, [second.endpoint], token);
    await waitFor("last use to be written again", async () => (await writesOf(token)).writes === 3);
    await settle(second.statements);
    const rewritten = await writesOf(token);
    assert.equal(rewritten.writes, 3);
    assert.ok(rewritten.lastUsedAt && aged.lastUsedAt && rewritten.lastUsedAt > aged.lastUsedAt);
  });

  test("two instances on one database write last use at most once a minute between them", async () => {
    const token = await aToken(server.db, pepper, user);
    await requestMany(20, [server.endpoint, second.endpoint], token);
    await waitFor("last use to be written", async () => (await writesOf(token)).writes > 0);
    await requestMany(20, [server.endpoint, second.endpoint], token);
    await settle(server.statements);
    await settle(second.statements);
    assert.equal((await writesOf(token)).writes, 1);
  });

  test("the store's condition alone allows one write a minute, however many instances try at once", async () => {
    const { row } = await createToken(server.db, pepper, {
      userId: user.id,
      name: "race",
      expiresInDays: 30,
    });
    await Promise.all(Array.from({ length: 10 }, () => touchToken(server.db, row.id)));
    await Promise.all(Array.from({ length: 10 }, () => touchToken(server.db, row.id)));
    const result = await sql<{ writes: string }>`
      SELECT count(*) AS writes FROM token_use_writes WHERE token_id = ${row.id}
    `.execute(server.db);
    assert.equal(Number(result.rows[0]?.writes), 1);
  });
});

describe("the unauthenticated rate limit", () => {
  let server: TestInstance;
  let token: string;

  before(async () => {
    server = await startInstance({ sameDatabaseAs: home });
    token = await aToken(server.db, server.config.tokenPepper, await aUser(server.db));
  });
  after(() => server?.stop());

  test("a burst of 20 requests without a valid token is refused with 401, the 21st gets 429, and a valid token still works", async () => {
    const mistyped = bearer(withBadChecksum(token));
    for (let i = 1; i <= 20; i++) {
      const answer = await post(server.endpoint, VIEWER, i % 2 === 0 ? mistyped : {});
      assert.equal(answer.status, 401, `request ${i}`);
    }
    const limited = await post(server.endpoint, VIEWER, mistyped);
    assert.equal(limited.status, 429, limited.text);
    const retryAfter = Number(limited.headers.get("retry-after"));
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 3,
      `Retry-After ${retryAfter}`,
    );
    assert.equal(limited.json.errors?.[0]?.extensions?.code, "RATE_LIMITED");
    assert.equal(limited.json.data, undefined);

    const authenticated = await post(server.endpoint, VIEWER, bearer(token));
    assert.equal(authenticated.status, 200, authenticated.text);
    assert.equal((await post(server.endpoint, VIEWER)).status, 429, "the bucket is still empty");
  });
});
