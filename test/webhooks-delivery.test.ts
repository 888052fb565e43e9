// test-runner: execution-mode independent (delivery runs in the worker, not through GraphQL execution)
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { type Kysely, sql } from "kysely";
import { openDatabase } from "../src/db/database.ts";
import type { AccountRow, Database, RepositoryRow } from "../src/db/types.ts";
import type { WebhookDeliveryRow, WebhookEndpointRow } from "../src/db/types-webhooks.ts";
import { startJobWorker, workerPoolSize } from "../src/job-handlers.ts";
import type { JobWorker } from "../src/jobs/worker.ts";
import { recordEvent } from "../src/modules/events/outbox.ts";
import { repositoryObject } from "../src/modules/repositories/repository-events.ts";
import { anAccount, aRepository, aUser } from "./helpers/builders.ts";
import { aWebhookEndpoint } from "./helpers/builders-webhooks.ts";
import { startInstance, type TestInstance, waitFor } from "./helpers/instance.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { watchChildOutput } from "./helpers/secret-leaks.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";
import { assayArgs } from "./helpers/start-command.ts";
import { type Receiver, startReceiver } from "./helpers/webhook-receiver.ts";

/**
 * Durable delivery (docs/webhooks.md "Delivery" and "Durable background work"): retries for the
 * retry window, disabling an endpoint that keeps failing, a worker killed between commit and
 * delivery, a graceful stop, and several workers sharing one queue. Progress is watched at the
 * receiver and with single statements (each waits for the deliveries to reach a final state), never
 * through the API while the worker writes.
 */

const ROOT = path.resolve(import.meta.dirname, "..");
const SECRET = "test-secret-0123456789";

/** Delivery to the local receiver, with fast retries. */
const LOCAL_DELIVERY = {
  ASSAY_WEBHOOK_ALLOW_HTTP: "true",
  ASSAY_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  ASSAY_WORKER_POLL_MS: "50",
  ASSAY_WEBHOOK_BACKOFF_BASE_MS: "50",
  ASSAY_WEBHOOK_BACKOFF_MAX_MS: "100",
};

function recordActivation(
  db: Kysely<Database>,
  account: AccountRow,
  repository: RepositoryRow,
): Promise<void> {
  return db.transaction().execute((tx) =>
    recordEvent(tx, {
      accountId: account.id,
      type: "repository.analysis.activated",
      data: { object: repositoryObject(repository, account, null) },
    }),
  );
}

function deliveriesOf(db: Kysely<Database>, endpoint: WebhookEndpointRow): Promise<WebhookDeliveryRow[]> {
  return db
    .selectFrom("webhook_deliveries")
    .selectAll()
    .where("endpoint_id", "=", endpoint.id)
    .orderBy("id")
    .execute();
}

function endpointNow(db: Kysely<Database>, endpoint: WebhookEndpointRow): Promise<WebhookEndpointRow> {
  return db
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("id", "=", endpoint.id)
    .executeTakeFirstOrThrow();
}

/**
 * Waits until `endpoint` has `count` deliveries and every one of them has reached its final state
 * (SUCCEEDED or FAILED): the worker is done with them, however long its retries took.
 */
async function untilSettled(
  db: Kysely<Database>,
  endpoint: WebhookEndpointRow,
  count: number,
): Promise<void> {
  await waitFor(
    `${count} deliveries to settle`,
    async () => {
      const deliveries = await deliveriesOf(db, endpoint);
      return deliveries.length >= count && deliveries.every((d) => d.status !== "PENDING");
    },
    30_000,
  );
}

/** A team with a repository, and an ENABLED endpoint of it at `receiver` (`suffix` added to its URL). */
async function aTeamWithEndpoint(db: Kysely<Database>, pepper: string, receiver: Receiver, suffix = "") {
  const user = await aUser(db);
  const team = await anAccount(db, {}, [{ user, role: "ADMIN", isOwner: true }]);
  const repository = await aRepository(db, team);
  const endpoint = await aWebhookEndpoint(db, pepper, team, {
    url: `${receiver.url}${suffix}`,
    secret: SECRET,
    eventTypes: ["repository.analysis.activated"],
  });
  return { team, repository, endpoint };
}

describe("retries and disabling", () => {
  let server: TestServer;
  let receiver: Receiver;

  before(async () => {
    server = await startTestServer({
      ...LOCAL_DELIVERY,
      ASSAY_WEBHOOK_RETRY_WINDOW_SECONDS: "1",
      ASSAY_WEBHOOK_DISABLE_AFTER_SECONDS: "7200",
    });
    receiver = await startReceiver();
    receiver.secret = SECRET;
    receiver.answer = (request) =>
      request.url.endsWith("?healthy") ? { status: 200 } : { status: 500, body: "down" };
  });
  after(async () => {
    await server.stop();
    await receiver.close();
  });

  test("a delivery that keeps failing is retried with the same id for the retry window, then FAILED", async () => {
    const { team, repository, endpoint } = await aTeamWithEndpoint(
      server.db,
      server.config.tokenPepper,
      receiver,
    );
    const from = receiver.requests.length;
    await recordActivation(server.db, team, repository);
    await untilSettled(server.db, endpoint, 1);
    const [delivery] = await deliveriesOf(server.db, endpoint);
    assert.equal(delivery?.status, "FAILED");
    assert.ok(delivery.attempt_count >= 2, `retried (${delivery.attempt_count} attempts)`);
    assert.equal(delivery.next_attempt_at, null);
    const requests = receiver.requests.slice(from);
    assert.equal(requests.length, delivery.attempt_count);
    assert.ok(requests.every((r) => r.verified && r.headers["x-assay-delivery"] === String(delivery.id)));
    // The give-up is decided when an attempt is settled, against the database's clock: the last
    // attempt may start inside the window, but the delivery is marked FAILED only after it.
    const settled = await server.db
      .selectFrom("webhook_deliveries")
      .select(sql<boolean>`updated_at >= created_at + interval '1 second'`.as("late"))
      .where("id", "=", delivery.id)
      .executeTakeFirstOrThrow();
    assert.equal(settled.late, true, "given up only once the retry window has passed");
    const job = await server.db
      .selectFrom("jobs")
      .select("id")
      .where("dedupe_key", "=", `webhook.deliver:${delivery.id}`)
      .executeTakeFirst();
    assert.equal(job, undefined, "no job is left for it");
    const after = await endpointNow(server.db, endpoint);
    assert.equal(after.status, "ENABLED", "not failing long enough to be disabled");
    assert.ok(after.failing_since, "its failure clock runs");
  });

  test("an endpoint that has failed every attempt for the disable period is DISABLED at its next failure, with a reason", async () => {
    const { team, repository, endpoint } = await aTeamWithEndpoint(
      server.db,
      server.config.tokenPepper,
      receiver,
    );
    // Two hours of failures already behind it.
    await server.db
      .updateTable("webhook_endpoints")
      .set({ failing_since: sql<Date>`now() - interval '2 hours 1 minute'` })
      .where("id", "=", endpoint.id)
      .execute();
    const from = receiver.requests.length;
    await recordActivation(server.db, team, repository);
    await untilSettled(server.db, endpoint, 1);
    assert.equal(receiver.requests.length - from, 1, "no retry once disabled");
    const disabled = await endpointNow(server.db, endpoint);
    assert.equal(disabled.status, "DISABLED");
    assert.match(
      disabled.disabled_reason ?? "",
      /^Every delivery attempt failed for 2 hours \(since \d{4}-\d{2}-\d{2}T.+Z\); disabled automatically\.$/,
    );
    assert.ok(disabled.disabled_at);
    const [delivery] = await deliveriesOf(server.db, endpoint);
    assert.equal(delivery?.status, "FAILED");
    assert.equal(delivery.attempt_count, 1);
    await recordActivation(server.db, team, repository);
    assert.equal(
      (await deliveriesOf(server.db, endpoint)).length,
      1,
      "a disabled endpoint gets no new deliveries",
    );
  });

  test("a 2xx answer resets the failure clock", async () => {
    const { team, repository, endpoint } = await aTeamWithEndpoint(
      server.db,
      server.config.tokenPepper,
      receiver,
      "?healthy",
    );
    await server.db
      .updateTable("webhook_endpoints")
      .set({ failing_since: sql<Date>`now() - interval '1 hour'` })
      .where("id", "=", endpoint.id)
      .execute();
    await recordActivation(server.db, team, repository);
    await untilSettled(server.db, endpoint, 1);
    const healthy = await endpointNow(server.db, endpoint);
    assert.equal(healthy.status, "ENABLED");
    assert.equal(healthy.failing_since, null);
    assert.ok(healthy.last_success_at);
  });
});

/** The environment of an `assay worker` process over `server`'s database. */
function workerEnv(server: TestServer): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...LOCAL_DELIVERY,
    ASSAY_DATA_DIR: server.config.dataDir,
    ASSAY_TOKEN_PEPPER: server.config.tokenPepper,
    ASSAY_JOB_LEASE_SECONDS: "1",
    ASSAY_WORKER_POLL_MS: "100",
    ASSAY_WEBHOOK_TIMEOUT_MS: "30000",
    LOG_LEVEL: "info",
  };
  delete env.NODE_TEST_CONTEXT;
  if (server.config.databaseUrl) env.DATABASE_URL = server.config.databaseUrl;
  else delete env.DATABASE_URL;
  return env;
}

/** Starts `assay worker`; resolves once it says it is running. */
async function startWorkerProcess(
  server: TestServer,
): Promise<{ child: ChildProcess; stderr: () => string }> {
  const child = spawn(process.execPath, assayArgs("worker"), {
    cwd: ROOT,
    env: workerEnv(server),
    stdio: ["ignore", "pipe", "pipe"],
  });
  watchChildOutput(child, "worker process");
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await waitFor("the worker process to start", () => stderr.includes("The worker is running"), 180_000);
  return { child, stderr: () => stderr };
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

describe("a worker killed between commit and delivery", () => {
  let server: TestServer;
  let receiver: Receiver;
  const children: ChildProcess[] = [];

  before(async () => {
    server = await startTestServer({ ...LOCAL_DELIVERY, ASSAY_WORKER: "false" });
    receiver = await startReceiver();
    receiver.secret = SECRET;
  });
  after(async () => {
    for (const child of children) child.kill("SIGKILL");
    await receiver.close();
    await server.stop();
  });

  test("SIGKILL during the delivery: a new worker takes the job over after its lease and sends the same delivery id", async () => {
    const { team, repository, endpoint } = await aTeamWithEndpoint(
      server.db,
      server.config.tokenPepper,
      receiver,
    );
    // The first request is held open: the worker is killed while it waits for the answer.
    receiver.answer = (_request, nth) => (nth === 0 ? "hold" : { status: 200, body: "got it" });
    await recordActivation(server.db, team, repository);
    const [committed] = await deliveriesOf(server.db, endpoint);
    assert.equal(committed?.status, "PENDING");

    const first = await startWorkerProcess(server);
    children.push(first.child);
    await waitFor("the first worker's request", () => receiver.requests.length === 1, 30_000);
    first.child.kill("SIGKILL");
    assert.equal((await exited(first.child)).signal, "SIGKILL");
    const [afterKill] = await deliveriesOf(server.db, endpoint);
    assert.equal(afterKill?.status, "PENDING", "nothing was recorded for the killed attempt");
    assert.equal(afterKill?.attempt_count, 0);

    const second = await startWorkerProcess(server);
    children.push(second.child);
    await waitFor("the second worker's request", () => receiver.requests.length === 2, 30_000);
    const [held, retried] = receiver.requests;
    assert.equal(held!.headers["x-assay-delivery"], String(committed!.id));
    assert.equal(retried!.headers["x-assay-delivery"], String(committed!.id), "the same delivery id");
    assert.equal(retried!.body.toString(), held!.body.toString());
    assert.equal(retried!.verified, true, retried!.verifyError ?? "");
    assert.deepEqual(
      receiver.processed.map((p) => p.id),
      [String(committed!.id)],
    );

    // A graceful stop lets the running job settle before the process exits.
    second.child.kill("SIGTERM");
    assert.equal((await exited(second.child)).code, 0, second.stderr());
    assert.match(second.stderr(), /Stopping/);
    const [done] = await deliveriesOf(server.db, endpoint);
    assert.equal(done?.attempt_count, 1);
    const attempts = await server.db
      .selectFrom("webhook_delivery_attempts")
      .select(["status_code", "response_excerpt"])
      .where("delivery_id", "=", done!.id)
      .execute();
    assert.deepEqual(attempts, [{ status_code: 200, response_excerpt: "got it" }]);
    const jobs = await server.db.selectFrom("jobs").select("id").execute();
    assert.deepEqual(jobs, []);
  });
});

describe("workers inside servers", () => {
  let owner: TestInstance;
  let receiver: Receiver;
  const instances: TestInstance[] = [];

  before(async () => {
    owner = await startInstance({ env: { ...LOCAL_DELIVERY, ASSAY_WORKER: "false", LOG_LEVEL: "silent" } });
    receiver = await startReceiver();
    receiver.secret = SECRET;
  });
  after(async () => {
    for (const instance of instances) await instance.stop();
    await owner.stop();
    await receiver.close();
  });

  test("a stopping server gives its unfinished delivery back, and another instance sends it at once with the same id", async () => {
    const { team, repository, endpoint } = await aTeamWithEndpoint(
      owner.db,
      owner.config.tokenPepper,
      receiver,
    );
    receiver.answer = (_request, nth) => (nth === 0 ? "hold" : { status: 200 });
    const env = {
      ...LOCAL_DELIVERY,
      ASSAY_JOB_LEASE_SECONDS: "60",
      ASSAY_SHUTDOWN_TIMEOUT_SECONDS: "1",
      ASSAY_WEBHOOK_TIMEOUT_MS: "30000",
      LOG_LEVEL: "silent",
    };
    const stopping = await startInstance({ sameDatabaseAs: owner, env });
    await recordActivation(owner.db, team, repository);
    await waitFor("the held request", () => receiver.requests.length === 1);
    const started = Date.now();
    await stopping.stop();
    assert.ok(Date.now() - started < 5000, "the stop does not wait for the receiver");
    const job = await owner.db.selectFrom("jobs").selectAll().executeTakeFirstOrThrow();
    assert.equal(job.state, "QUEUED");
    assert.equal(job.lease_token, null, "the lease was given back");
    const [delivery] = await deliveriesOf(owner.db, endpoint);
    assert.equal(delivery?.attempt_count, 0);

    const next = await startInstance({ sameDatabaseAs: owner, env });
    instances.push(next);
    // Well within the 60-second lease: the job was released, not abandoned.
    await waitFor("the redelivery", () => receiver.requests.length === 2, 10_000);
    assert.equal(receiver.requests[1]!.headers["x-assay-delivery"], String(delivery!.id));
  });

  test("several workers share one queue: every delivery arrives, each exactly once", async () => {
    for (const instance of instances.splice(0)) await instance.stop();
    const { team, repository, endpoint } = await aTeamWithEndpoint(
      owner.db,
      owner.config.tokenPepper,
      receiver,
    );
    receiver.answer = () => ({ status: 200 });
    const from = receiver.requests.length;
    await owner.db.transaction().execute(async (tx) => {
      for (let i = 0; i < 12; i++) {
        await recordEvent(tx, {
          accountId: team.id,
          type: "repository.analysis.activated",
          data: { object: repositoryObject(repository, team, null) },
        });
      }
    });
    const config = { ...owner.config, workerPollMs: 20, jobLeaseSeconds: 30 };
    // Three workers, each with a pool of its own, as three instances would have.
    const pools = await Promise.all(
      Array.from({ length: 3 }, () => openDatabase({ ...config, databasePoolSize: workerPoolSize(config) })),
    );
    const workers: JobWorker[] = pools.map((pool) =>
      startJobWorker(pool.db, config, testLogger("job worker").logger),
    );
    try {
      await untilSettled(owner.db, endpoint, 12);
    } finally {
      await Promise.all(workers.map((w) => w.stop(5000)));
      await Promise.all(pools.map((pool) => pool.close()));
    }
    const deliveries = await deliveriesOf(owner.db, endpoint);
    assert.equal(deliveries.length, 12);
    assert.ok(deliveries.every((d) => d.status === "SUCCEEDED" && d.attempt_count === 1));
    const received = receiver.requests.slice(from).map((r) => String(r.headers["x-assay-delivery"]));
    assert.deepEqual(
      [...received].sort(),
      deliveries.map((d) => String(d.id)).sort(),
      "no delivery was sent twice",
    );
  });
});
