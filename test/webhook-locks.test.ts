// test-runner: execution-mode independent (the worker delivers; no GraphQL request is made)
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { JobOutcome } from "../src/jobs/worker.ts";
import { JobWorker } from "../src/jobs/worker.ts";
import { recordEvent } from "../src/modules/events/outbox.ts";
import { repositoryObject } from "../src/modules/repositories/repository-events.ts";
import { webhookDeliveryHandler } from "../src/modules/webhooks/delivery-job.ts";
import { lockEndpointForSettling } from "../src/modules/webhooks/delivery-store.ts";
import { disableEndpoint } from "../src/modules/webhooks/webhook-store.ts";
import { anAccount, aRepository, aUser } from "./helpers/builders.ts";
import { aWebhookEndpoint } from "./helpers/builders-webhooks.ts";
import { waitFor } from "./helpers/instance.ts";
import { signal, untilWaitingForALock } from "./helpers/lock-waits.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";
import { type Receiver, startReceiver } from "./helpers/webhook-receiver.ts";

/**
 * The worker settling a failed delivery against an ADMIN disabling its endpoint
 * (docs/webhooks.md "Durable background work"). Disabling holds the endpoint and deletes the job
 * rows of its pending deliveries; the worker settling one of them used to hold its job's row and
 * then wait for the endpoint, and PostgreSQL aborted one of the two ("deadlock detected"). The
 * embedded database runs one transaction at a time: there the worker simply waits.
 */

const { logger } = testLogger("webhook locks");
let server: TestServer;
let receiver: Receiver;

before(async () => {
  server = await startTestServer({
    ASSAY_WORKER: "false",
    ASSAY_WEBHOOK_ALLOW_HTTP: "true",
    ASSAY_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  });
  receiver = await startReceiver();
  receiver.answer = () => ({ status: 500, body: "down" });
});
after(async () => {
  await server?.stop();
  await receiver?.close();
});

test("an endpoint disabled while its worker settles a failed delivery: both commit, the delivery FAILED", async () => {
  const user = await aUser(server.db);
  const team = await anAccount(server.db, {}, [{ user, role: "ADMIN" }]);
  const repository = await aRepository(server.db, team);
  const endpoint = await aWebhookEndpoint(server.db, server.config.tokenPepper, team, {
    url: `${receiver.url}/hook`,
  });
  await server.db.transaction().execute((tx) =>
    recordEvent(tx, {
      accountId: team.id,
      type: "repository.analysis.activated",
      data: { object: repositoryObject(repository, team, null) },
    }),
  );

  // An ADMIN disabling the endpoint: its lock, then its deliveries and their jobs (endpoint-service.ts).
  const adminHoldsEndpoint = signal();
  const adminMayDisable = signal();
  const disabling = server.db.transaction().execute(async (tx) => {
    assert.ok(await lockEndpointForSettling(tx, endpoint.id));
    adminHoldsEndpoint.fire();
    await adminMayDisable.fired;
    await disableEndpoint(tx, endpoint.id, "Disabled by an ADMIN of the team.");
  });
  await adminHoldsEndpoint.fired;

  const outcomes: Array<JobOutcome["status"] | "released" | "lost" | "error"> = [];
  const worker = new JobWorker({
    db: server.db,
    logger,
    handlers: [webhookDeliveryHandler(server.db, server.config)],
    pollMs: 50,
    leaseSeconds: 60,
    onRun: (_kind, outcome) => outcomes.push(outcome),
  }).start();
  try {
    if (server.config.databaseUrl) {
      // The worker has claimed the job, attempted the delivery and is settling it.
      await untilWaitingForALock(
        server.db,
        "the worker's settling transaction to wait for the endpoint",
        undefined,
        20_000,
      );
    }
    // Had the worker locked its job's row before the endpoint, disabling would now wait for that
    // row in a cycle and PostgreSQL would abort one of the two.
    adminMayDisable.fire();
    await disabling;
    // On PostgreSQL the worker was settling and ends now (its lease found lost: the job is gone);
    // on the embedded database it never got to claim the job, which disabling deleted.
    if (server.config.databaseUrl) {
      await waitFor("the worker to be done with the job", () => outcomes.length > 0, 20_000);
    }
    assert.ok(!outcomes.includes("error"), `the worker settled without an error (${outcomes.join(", ")})`);
    const delivery = await server.db
      .selectFrom("webhook_deliveries")
      .select("status")
      .where("endpoint_id", "=", endpoint.id)
      .executeTakeFirstOrThrow();
    assert.equal(delivery.status, "FAILED");
    const jobs = await server.db
      .selectFrom("jobs")
      .select("id")
      .where("kind", "=", "webhook.deliver")
      .execute();
    assert.deepEqual(jobs, [], "no job is left for the disabled endpoint's delivery");
  } finally {
    adminMayDisable.fire();
    await disabling.catch(() => undefined);
    await worker.stop(0);
  }
});
