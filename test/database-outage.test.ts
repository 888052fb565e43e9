import assert from "node:assert/strict";
import net from "node:net";
import path from "node:path";
import { after, test } from "node:test";
import { findRunningEmbedded } from "../src/db/embedded.ts";
import { aToken, aUser } from "./helpers/builders.ts";
import { startInstance, type TestInstance, waitFor } from "./helpers/instance.ts";

/**
 * A database outage as the API shows it. The instance under test reaches its database through a
 * TCP proxy this test closes and reopens (the shared PostgreSQL server, or the embedded one's
 * socket, keeps running for everyone else).
 */

/** A TCP proxy to `target` that can be taken down (listener closed, connections cut) and back up. */
class TcpProxy {
  private readonly sockets = new Set<net.Socket>();
  private server: net.Server | undefined;
  port = 0;

  constructor(private readonly target: net.NetConnectOpts) {}

  async up(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const instances: TestInstance[] = [];
const proxies: TcpProxy[] = [];
after(async () => {
  for (const proxy of proxies) await proxy.down();
  // The proxied one first: the other owns the database.
  for (const instance of instances.reverse()) await instance.stop();
});

async function viewer(instance: TestInstance, token: string) {
  const res = await fetch(instance.endpoint, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ query: "{ viewer { email } }" }),
  });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), text: await res.text() };
}

const OUTAGE = "database unavailable: requests get 503 until it answers again";
const RECOVERY = "database available again";

test("while the database is unreachable requests get 503 with Retry-After and SERVICE_UNAVAILABLE, logged once; after it returns they succeed", async () => {
  const owner = await startInstance({ env: { ASSAY_WORKER: "false" } });
  instances.push(owner);
  const user = await aUser(owner.db);
  const token = await aToken(owner.db, owner.config.tokenPepper, user);

  let target: net.NetConnectOpts;
  let proxiedUrl: (port: number) => string;
  if (owner.config.databaseUrl) {
    const url = new URL(owner.config.databaseUrl);
    target = { host: url.hostname, port: Number(url.port || 5432) };
    proxiedUrl = (port) => Object.assign(new URL(url), { host: `127.0.0.1:${port}` }).toString();
  } else {
    const embedded = findRunningEmbedded(owner.config.dataDir);
    assert.ok(embedded, "the embedded database is running");
    target = { path: path.join(embedded.socketDirectory, `.s.PGSQL.${embedded.port}`) };
    proxiedUrl = (port) => `postgres://postgres@127.0.0.1:${port}/postgres`;
  }
  const proxy = new TcpProxy(target);
  proxies.push(proxy);
  await proxy.up();
  const instance = await startInstance({
    sameDatabaseAs: owner,
    env: { DATABASE_URL: proxiedUrl(proxy.port), ASSAY_WORKER: "false" },
  });
  instances.push(instance);
  assert.equal((await viewer(instance, token)).status, 200);

  await proxy.down();
  for (let i = 0; i < 5; i++) {
    const answer = await viewer(instance, token);
    assert.equal(answer.status, 503, answer.text);
    assert.equal(answer.retryAfter, "5");
    const body = JSON.parse(answer.text) as {
      errors: Array<{ message: string; extensions: { code: string } }>;
    };
    assert.equal(body.errors[0]?.extensions.code, "SERVICE_UNAVAILABLE");
    assert.doesNotMatch(answer.text, /ECONNREFUSED|127\.0\.0\.1|at .*\.ts|postgres/i);
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
