import assert from "node:assert/strict";
import { after, test } from "node:test";
import { dsnToken } from "../src/modules/repositories/dsn.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { startInstance, type TestInstance, waitFor } from "./helpers/instance.ts";
import { databaseTarget, TcpProxy } from "./helpers/tcp-proxy.ts";

/**
 * A database outage as the API shows it. The instance under test reaches its database through a
 * TCP proxy this test closes and reopens (the shared PostgreSQL server, or the embedded one's
 * socket, keeps running for everyone else).
 */

const instances: TestInstance[] = [];
const proxies: TcpProxy[] = [];
after(async () => {
  for (const proxy of proxies) await proxy.down();
  // The proxied one first: the other owns the database.
  for (const instance of instances.reverse()) await instance.stop();
});

/**
 * The viewer and their accounts. Memberships are read by every request (the identity cache holds
 * only the token and its user), so this needs the database even while the token is cached.
 */
async function viewer(instance: TestInstance, token: string) {
  const res = await fetch(instance.endpoint, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ query: "{ viewer { email accounts(first: 1) { edges { node { login } } } } }" }),
  });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), text: await res.text() };
}

/** `createArtifact` on the artifact endpoint, as the CLI sends it, with the repository's DSN. */
async function createArtifact(instance: TestInstance, dsn: string) {
  const res = await fetch(`${instance.url}/graphql/cli/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      query: "mutation($input: CreateArtifactInput!) { createArtifact(input: $input) { ok error } }",
      variables: {
        input: {
          accessToken: dsn,
          commitOid: "0123456789abcdef0123456789abcdef01234567",
          reporter: "cli",
          key: "",
          data: '{"version":"2.1.0","runs":[]}',
          analyzer: "javascript",
        },
      },
    }),
  });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), text: await res.text() };
}

/** An instance reaching `owner`'s database through a TCP proxy the test controls. */
async function proxiedInstance(
  owner: TestInstance,
  env: Record<string, string>,
): Promise<{ proxy: TcpProxy; instance: TestInstance }> {
  const { target, proxiedUrl } = databaseTarget(owner);
  const proxy = new TcpProxy(target);
  proxies.push(proxy);
  await proxy.up();
  const instance = await startInstance({
    sameDatabaseAs: owner,
    env: { DATABASE_URL: proxiedUrl(proxy.port), ...env },
  });
  instances.push(instance);
  return { proxy, instance };
}

const OUTAGE = "database unavailable: requests get 503 until it answers again";
const RECOVERY = "database available again";

test("while the database is unreachable requests get 503 with Retry-After and SERVICE_UNAVAILABLE, logged once; after it returns they succeed", async () => {
  const owner = await startInstance({ env: { ASSAY_WORKER: "false" } });
  instances.push(owner);
  const user = await aUser(owner.db);
  const token = await aToken(owner.db, owner.config.tokenPepper, user);
  const account = await anAccount(owner.db, {}, [{ user, role: "ADMIN" }]);
  const dsn = dsnToken(await aRepository(owner.db, account), owner.config.tokenPepper);

  // A Retry-After other than the default, to see the setting reach both endpoints.
  const { proxy, instance } = await proxiedInstance(owner, {
    ASSAY_WORKER: "false",
    ASSAY_DATABASE_RETRY_AFTER_SECONDS: "7",
  });
  assert.equal((await viewer(instance, token)).status, 200);

  await proxy.down();
  for (let i = 0; i < 5; i++) {
    const answer = await viewer(instance, token);
    assert.equal(answer.status, 503, answer.text);
    assert.equal(answer.retryAfter, "7");
    const body = JSON.parse(answer.text) as {
      errors: Array<{ message: string; extensions: { code: string } }>;
    };
    assert.equal(body.errors[0]?.extensions.code, "SERVICE_UNAVAILABLE");
    assert.doesNotMatch(answer.text, /ECONNREFUSED|127\.0\.0\.1|at .*\.ts|postgres/i);
  }
  // The artifact endpoint answers an outage the same way, not as an internal error.
  for (let i = 0; i < 2; i++) {
    const answer = await createArtifact(instance, dsn);
    assert.equal(answer.status, 503, answer.text);
    assert.equal(answer.retryAfter, "7");
    const body = JSON.parse(answer.text) as {
      data: { createArtifact: null } | null;
      errors: Array<{ message: string; extensions: { code: string } }>;
    };
    assert.equal(body.errors[0]?.extensions.code, "SERVICE_UNAVAILABLE");
    assert.equal(body.data?.createArtifact ?? null, null);
    assert.doesNotMatch(answer.text, /ECONNREFUSED|127\.0\.0\.1|at .*\.ts|postgres|internal error/i);
  }
  const readiness = await fetch(`${instance.url}/readyz`);
  assert.equal(readiness.status, 503);
  assert.equal(((await readiness.json()) as { checks: { database: string } }).checks.database, "down");
  const during = instance.log.entries();
  assert.equal(during.filter((entry) => entry.msg === OUTAGE).length, 1, "one warning for the outage");
  assert.equal(during.filter((entry) => entry.err !== undefined).length, 0, "no stack logged per request");

  await proxy.up();
  await waitFor(
    "a request to succeed again",
    async () => (await viewer(instance, token)).status === 200,
    15_000,
  );
  await waitFor("the recovery line", () => instance.log.entries().some((entry) => entry.msg === RECOVERY));
  const afterwards = instance.log.entries();
  assert.equal(afterwards.filter((entry) => entry.msg === OUTAGE).length, 1);
  assert.equal(afterwards.filter((entry) => entry.msg === RECOVERY).length, 1);
  assert.equal((await fetch(`${instance.url}/readyz`)).status, 200);
});

const WORKER_OUTAGE = "job worker: database unavailable; it keeps polling until the database answers";
const WORKER_RECOVERY = "job worker: database available again";

test("a job worker that polls through an outage logs one warning when it starts and one when it ends", async () => {
  const owner = await startInstance({ env: { ASSAY_WORKER: "false" } });
  instances.push(owner);
  // Polling every 10 ms, the outage below spans dozens of failed polls.
  const { proxy, instance } = await proxiedInstance(owner, { ASSAY_WORKER_POLL_MS: "10" });

  proxy.refuse();
  // Each poll finds the worker's pool empty and tries a new connection, which the proxy cuts.
  await proxy.connectionsCut(30);
  const during = instance.log.entries();
  assert.equal(during.filter((entry) => entry.msg === WORKER_OUTAGE).length, 1, "one warning for the outage");
  assert.deepEqual(
    during.filter((entry) => entry.err !== undefined).map((entry) => entry.msg),
    [],
    "no stack logged per poll",
  );

  proxy.accept();
  await waitFor(
    "the worker's recovery line",
    () => instance.log.entries().some((entry) => entry.msg === WORKER_RECOVERY),
    15_000,
  );
  const afterwards = instance.log.entries();
  assert.equal(afterwards.filter((entry) => entry.msg === WORKER_OUTAGE).length, 1);
  assert.equal(afterwards.filter((entry) => entry.msg === WORKER_RECOVERY).length, 1);
});
