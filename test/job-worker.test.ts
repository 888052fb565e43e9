// test-runner: execution-mode independent (the worker runs jobs; no GraphQL request is made)
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { enqueueJob } from "../src/jobs/job-store.ts";
import {
  ERROR_MAX_ATTEMPTS,
  type JobHandler,
  JobWorker,
  unfinishedAttemptsError,
} from "../src/jobs/worker.ts";
import { waitFor } from "./helpers/instance.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * The job worker's end of a job that keeps failing (src/jobs/worker.ts): retried after each
 * unexpected error, and given up at the last attempt, when its handler's `gaveUp` writes in the
 * transaction that marks the job FAILED.
 */

let server: TestServer;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER: "false" });
});
after(() => server?.stop());

test("a job that keeps failing is retried, then given up at its last attempt, where its handler's gaveUp runs", async () => {
  const gaveUp: number[] = [];
  const handler: JobHandler = {
    kind: "test.failing",
    async run() {
      throw new Error("this handler always fails");
    },
    async gaveUp(tx, job) {
      gaveUp.push(job.attempts);
      // Written in the settling transaction: it exists exactly when the job is FAILED.
      await enqueueJob(tx, { kind: "test.marker", payload: {}, dedupeKey: `test.marker:${job.id}` });
    },
  };
  await enqueueJob(server.db, { kind: "test.failing", payload: {}, dedupeKey: "test.failing:1" });
  const job = () =>
    server.db
      .selectFrom("jobs")
      .select(["state", "attempts", "last_error"])
      .where("dedupe_key", "=", "test.failing:1")
      .executeTakeFirstOrThrow();
  // Two attempts before the limit.
  await server.db
    .updateTable("jobs")
    .set({ attempts: ERROR_MAX_ATTEMPTS - 2 })
    .where("dedupe_key", "=", "test.failing:1")
    .execute();

  const worker = new JobWorker({
    db: server.db,
    logger: testLogger("job worker").logger,
    handlers: [handler],
    pollMs: 20,
    leaseSeconds: 30,
  }).start();
  try {
    await waitFor(
      "the failed attempt to be rescheduled",
      async () => (await job()).last_error !== null,
      20_000,
    );
    assert.deepEqual(await job(), {
      state: "QUEUED",
      attempts: ERROR_MAX_ATTEMPTS - 1,
      last_error: "this handler always fails",
    });
    assert.deepEqual(gaveUp, [], "an attempt before the last is retried, not given up");

    // The retry is due now instead of after its backoff.
    await server.db
      .updateTable("jobs")
      .set({ run_at: new Date() })
      .where("dedupe_key", "=", "test.failing:1")
      .execute();
    await waitFor("the job to be given up", async () => (await job()).state === "FAILED", 20_000);
    assert.deepEqual(gaveUp, [ERROR_MAX_ATTEMPTS]);
    const marker = await server.db
      .selectFrom("jobs")
      .select("kind")
      .where("dedupe_key", "like", "test.marker:%")
      .execute();
    assert.equal(marker.length, 1, "gaveUp's write committed with the job's failure");
  } finally {
    await worker.stop(1000);
  }
});

/** The job under `dedupeKey`, as the tests read it. */
function jobOf(dedupeKey: string) {
  return server.db
    .selectFrom("jobs")
    .select(["state", "attempts", "last_error"])
    .where("dedupe_key", "=", dedupeKey)
    .executeTakeFirstOrThrow();
}

function aWorker(handler: JobHandler): JobWorker {
  return new JobWorker({
    db: server.db,
    logger: testLogger("job worker").logger,
    handlers: [handler],
    pollMs: 20,
    leaseSeconds: 30,
  }).start();
}

test("a job claimed past its last attempt (the earlier ones never ended) is given up unrun, where gaveUp runs", async () => {
  const ran: number[] = [];
  const gaveUp: number[] = [];
  const handler: JobHandler = {
    kind: "test.dying",
    async run(job) {
      ran.push(job.attempts);
      return async () => ({ status: "done" });
    },
    async gaveUp(_tx, job) {
      gaveUp.push(job.attempts);
    },
  };
  await enqueueJob(server.db, { kind: "test.dying", payload: {}, dedupeKey: "test.dying:1" });
  // As if every attempt so far had been claimed and its worker had died with it.
  await server.db
    .updateTable("jobs")
    .set({ attempts: ERROR_MAX_ATTEMPTS })
    .where("dedupe_key", "=", "test.dying:1")
    .execute();
  const worker = aWorker(handler);
  try {
    await waitFor(
      "the job to be given up",
      async () => (await jobOf("test.dying:1")).state === "FAILED",
      20_000,
    );
    assert.deepEqual(await jobOf("test.dying:1"), {
      state: "FAILED",
      attempts: ERROR_MAX_ATTEMPTS + 1,
      last_error: unfinishedAttemptsError(ERROR_MAX_ATTEMPTS + 1),
    });
    assert.deepEqual(ran, [], "the handler never ran");
    assert.deepEqual(gaveUp, [ERROR_MAX_ATTEMPTS + 1]);
  } finally {
    await worker.stop(1000);
  }
});

test("a job a stopping worker gives back does not count the attempt", async () => {
  let started!: () => void;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const handler: JobHandler = {
    kind: "test.slow",
    async run(_job, signal) {
      started();
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      throw new Error("aborted");
    },
  };
  await enqueueJob(server.db, { kind: "test.slow", payload: {}, dedupeKey: "test.slow:1" });
  await server.db.updateTable("jobs").set({ attempts: 3 }).where("dedupe_key", "=", "test.slow:1").execute();
  const worker = aWorker(handler);
  await running;
  assert.equal((await jobOf("test.slow:1")).attempts, 4, "the claim counted while the job ran");
  await worker.stop(10);
  assert.deepEqual(await jobOf("test.slow:1"), { state: "QUEUED", attempts: 3, last_error: null });
});
