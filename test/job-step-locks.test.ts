// test-runner: execution-mode independent (job rows locked by hand; no GraphQL request is made)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Kysely, sql } from "kysely";
import type { Database } from "../src/db/types.ts";
import {
  beginJobStep,
  type ClaimedJob,
  claimJobs,
  enqueueJob,
  lockClaimedJob,
  renewLeases,
} from "../src/jobs/job-store.ts";
import { waitFor } from "./helpers/instance.ts";
import { signal, untilWaitingForALock } from "./helpers/lock-waits.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * The steps of one attempt at a job (a SARIF artifact's batches, src/ingestion/process-job.ts)
 * each lock the job's row under the attempt's lease. Two of them write at once, so their locks
 * must not exclude each other, nor the lease's renewal; a takeover's claim must still pass the
 * row over while a step holds it, so no two attempts write at once. And a renewal of a worker's
 * leases never waits for a job's row another transaction holds.
 *
 * The embedded database runs one transaction at a time, so there the steps follow each other and
 * only what a lock answers is checked; the waits are PostgreSQL's.
 */

let server: TestServer;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER: "false" });
});
after(() => server?.stop());

const KIND = "test.step-locks";

/** A queued job of its own kind, claimed by one worker. */
async function aClaimedJob(): Promise<ClaimedJob> {
  await sql`DELETE FROM jobs WHERE kind = ${KIND}`.execute(server.db);
  await enqueueJob(server.db, { kind: KIND, payload: {} });
  const [job] = await claimJobs(server.db, { kinds: [KIND], limit: 1, leaseSeconds: 60, workerId: "first" });
  assert.ok(job, "the job was claimed");
  return job;
}

/** Makes the job's lease run out, as when its worker stalled. */
async function expireLease(job: ClaimedJob): Promise<void> {
  await sql`UPDATE jobs SET locked_until = now() - interval '1 minute' WHERE id = ${job.id}`.execute(
    server.db,
  );
}

function takeOver(): Promise<ClaimedJob[]> {
  return claimJobs(server.db, { kinds: [KIND], limit: 1, leaseSeconds: 60, workerId: "second" });
}

/** A step's transaction, held open until `release` is called. */
function aHeldStep(job: ClaimedJob) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let locked: boolean | undefined;
  const done = server.db.transaction().execute(async (tx: Kysely<Database>) => {
    locked = await beginJobStep(tx, job);
    await released;
  });
  return { release, done, locked: () => locked };
}

describe("a job's steps", () => {
  test("a step of an attempt another worker took over finds the lease lost", async () => {
    const job = await aClaimedJob();
    await expireLease(job);
    const [taken] = await takeOver();
    assert.equal(taken?.id, job.id);
    const old = await server.db.transaction().execute((tx) => beginJobStep(tx, job));
    assert.equal(old, false);
    const current = await server.db.transaction().execute((tx) => beginJobStep(tx, taken!));
    assert.equal(current, true);
  });

  test("a step commits without waiting for its WAL, and the setting ends with the step", async () => {
    const job = await aClaimedJob();
    const synchronousCommit = async (tx: Kysely<Database>) =>
      (await sql<{ synchronous_commit: string }>`SHOW synchronous_commit`.execute(tx)).rows[0]
        ?.synchronous_commit;
    const inStep = await server.db.transaction().execute(async (tx) => {
      assert.equal(await beginJobStep(tx, job), true);
      return synchronousCommit(tx);
    });
    assert.equal(inStep, "off");
    // The embedded database has one connection: the next transaction is on the step's own.
    assert.equal(await server.db.transaction().execute(synchronousCommit), "on");
  });

  test("two steps hold the job at once, its lease is renewed meanwhile, and no takeover starts until both end", async () => {
    const job = await aClaimedJob();
    if (!server.config.databaseUrl) {
      // One transaction at a time: each step locks in turn, and the lease is renewed between them.
      for (let i = 0; i < 2; i += 1) {
        const step = aHeldStep(job);
        step.release();
        await step.done;
        assert.equal(step.locked(), true);
      }
      await renewLeases(server.db, [job.leaseToken], 60);
      await expireLease(job);
      assert.equal((await takeOver())[0]?.id, job.id);
      return;
    }
    const first = aHeldStep(job);
    await waitFor("the first step to lock the job", () => first.locked() !== undefined);
    const second = aHeldStep(job);
    try {
      await untilWaitingForALock(
        server.db,
        "the second step to lock the job, or to wait for the first",
        () => second.locked() !== undefined,
      );
      assert.equal(second.locked(), true, "the second step waited for the first one's lock");

      let renewed = false;
      const renewal = renewLeases(server.db, [job.leaseToken], 60).then(() => {
        renewed = true;
      });
      await untilWaitingForALock(server.db, "the renewal to end, or to wait", () => renewed);
      assert.equal(renewed, true, "the lease's renewal waited for the steps");
      await renewal;

      await expireLease(job);
      assert.deepEqual(await takeOver(), [], "a takeover passed the job over while its steps wrote");
    } finally {
      first.release();
      second.release();
      await Promise.all([first.done, second.done]);
    }
    assert.equal((await takeOver())[0]?.id, job.id, "the job was taken over once its steps ended");
  });
});

describe("a lease's renewal", () => {
  test("passes over a job whose row another transaction holds, and renews the others", async () => {
    await sql`DELETE FROM jobs WHERE kind = ${KIND}`.execute(server.db);
    await enqueueJob(server.db, { kind: KIND, payload: { n: 1 } });
    await enqueueJob(server.db, { kind: KIND, payload: { n: 2 } });
    const claimed = await claimJobs(server.db, {
      kinds: [KIND],
      limit: 2,
      leaseSeconds: 60,
      workerId: "first",
    });
    assert.equal(claimed.length, 2);
    const [held, free] = claimed as [ClaimedJob, ClaimedJob];
    await sql`UPDATE jobs SET locked_until = now() WHERE kind = ${KIND}`.execute(server.db);
    const leaseEnds = async () =>
      new Map(
        (
          await server.db
            .selectFrom("jobs")
            .select(["id", sql<boolean>`locked_until > now() + interval '30 seconds'`.as("renewed")])
            .where("kind", "=", KIND)
            .execute()
        ).map((row) => [String(row.id), row.renewed]),
      );
    if (!server.config.databaseUrl) {
      // One transaction at a time: nothing else can hold a row while the renewal runs.
      await renewLeases(server.db, [held.leaseToken, free.leaseToken], 60);
      assert.deepEqual([...(await leaseEnds()).values()], [true, true]);
      return;
    }
    // Another transaction holds one job's row (its settling, say) until told to end.
    const holds = signal();
    const mayEnd = signal();
    const holding = server.db.transaction().execute(async (tx) => {
      assert.ok(await lockClaimedJob(tx, held));
      holds.fire();
      await mayEnd.fired;
    });
    try {
      await holds.fired;
      let renewed = false;
      const renewal = renewLeases(server.db, [held.leaseToken, free.leaseToken], 60).then(() => {
        renewed = true;
      });
      await untilWaitingForALock(server.db, "the renewal to end, or to wait", () => renewed);
      assert.equal(renewed, true, "the renewal waited for the held row");
      await renewal;
      const ends = await leaseEnds();
      assert.equal(ends.get(free.id), true, "the free job's lease was renewed");
      assert.equal(ends.get(held.id), false, "the held job was passed over");
    } finally {
      mayEnd.fire();
      await holding;
    }
  });
});
