// test-runner: execution-mode independent (the transactions are played by hand, not through GraphQL)
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { AccountRow, AnalysisRunRow, RepositoryRow } from "../src/db/types.ts";
import { artifactProcessingHandler } from "../src/ingestion/process-job.ts";
import { rebaseRun, runRebaseHandler } from "../src/ingestion/run-rebase.ts";
import { lockClaimedJob } from "../src/jobs/job-store.ts";
import { JobWorker } from "../src/jobs/worker.ts";
import { lockRepositoryNoKeyUpdate } from "../src/modules/repositories/repository-store.ts";
import { REBASE_JOB_KIND } from "../src/modules/runs/rebase-job.ts";
import { anAccount, aRepository, aUser } from "./helpers/builders.ts";
import {
  acceptedArtifactId,
  anUpload,
  claimArtifactJob,
  runArtifactJob,
} from "./helpers/builders-artifacts.ts";
import { waitFor } from "./helpers/instance.ts";
import { signal, untilWaitingForALock } from "./helpers/lock-waits.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * A check compared with a check of an earlier run while a late artifact of that run is settled,
 * leaving the check NEUTRAL or failed (docs/ingestion.md "Where a run stands in the history",
 * "Lock order"): a SARIF artifact's publication, or a rebase, reads its base check; the settlement
 * looks for the checks compared with the check it leaves inconclusive. Each sees only what the
 * other has committed, so without a lock both could miss the other: the check compared with a
 * NEUTRAL or failed check, and no rebase queued. Each test plays both transactions by hand, one
 * stopped before it commits; on PostgreSQL the other waits for it. The embedded database runs one
 * transaction at a time, so there the other side simply runs after it.
 */

const { logger } = testLogger("ingestion");
/** ESLint's lints of the js-shards project (test/fixtures/shards/, made as test/ingest-unanalyzed.test.ts says). */
const SHARDS = {
  dir: path.resolve(import.meta.dirname, "fixtures", "shards"),
  workDir: "/tmp/assay-fixtures/js-shards",
};
/** c8's coverage of a version of the pull-request project (scripts/make-fixtures.sh pull-request). */
const COVERAGE = path.resolve(import.meta.dirname, "fixtures", "pull-request", "push-1.lcov");
/** The commits, oldest first. */
const [BASE, PUSH_1, PUSH_2, PUSH_3] = ["1", "2", "3", "4"].map((digit) => digit.repeat(40)) as [
  string,
  string,
  string,
  string,
];

let server: TestServer;
let account: AccountRow;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER: "false" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, {}, [{ user, role: "ADMIN" }]);
});
after(() => server?.stop());

/** Uploads the shards project's `shard` report (the coverage with `coverage`) for `commit` on main. */
async function upload(
  repository: RepositoryRow,
  commit: string,
  shard: string,
  ancestorOids: string[],
  { coverage = false } = {},
): Promise<string> {
  return acceptedArtifactId(
    server,
    repository,
    anUpload({
      commitOid: commit,
      branch: "main",
      ancestorOids,
      ...(coverage
        ? { analyzer: "test-coverage", analyzerType: null, key: "javascript" }
        : { analyzer: "eslint" }),
      data: await fs.readFile(coverage ? COVERAGE : path.join(SHARDS.dir, `${shard}.sarif`), "utf8"),
      workDir: SHARDS.workDir,
    }),
  );
}

const handler = () => artifactProcessingHandler(server.db, server.config, logger);

/** Processes the artifact as the worker would. */
async function process(artifactId: string): Promise<void> {
  assert.deepEqual(await runArtifactJob(server.db, handler(), artifactId), { status: "done" });
}

/**
 * The artifact's processing as the worker runs it, staged now, its settling transaction (the
 * publication) left to `settle`, which holds it open until `mayCommit` settles.
 */
async function aStagedArtifact(artifactId: string) {
  const job = await claimArtifactJob(server.db, artifactId);
  const settlement = await handler().run(job, new AbortController().signal);
  return (mayCommit: Promise<void>) => {
    const hasSettled = signal();
    const settled = server.db.transaction().execute(async (tx) => {
      assert.ok(await lockClaimedJob(tx, job));
      const outcome = await settlement(tx);
      hasSettled.fire();
      await mayCommit;
      return outcome;
    });
    return { settled, hasSettled: Promise.race([hasSettled.fired, settled.then(() => undefined)]) };
  };
}

function runOf(repository: RepositoryRow, commit: string): Promise<AnalysisRunRow> {
  return server.db
    .selectFrom("analysis_runs")
    .selectAll()
    .where("repository_id", "=", repository.id)
    .where("commit_oid", "=", commit)
    .executeTakeFirstOrThrow();
}

/** The eslint check of `commit`'s run: its status, the check it was compared with, its findings' states. */
async function checkOf(repository: RepositoryRow, commit: string) {
  const run = await runOf(repository, commit);
  const check = await server.db
    .selectFrom("checks")
    .innerJoin("analyzers", "analyzers.id", "checks.analyzer_id")
    .select(["checks.id", "checks.status", "checks.base_check_id"])
    .where("checks.run_id", "=", run.id)
    .where("analyzers.shortcode", "=", "eslint")
    .executeTakeFirstOrThrow();
  const rows = await server.db
    .selectFrom("occurrences")
    .select("state")
    .where("check_id", "=", check.id)
    .execute();
  return { ...check, states: rows.map((row) => row.state).sort() };
}

/** Runs the queued rebases with a worker, until none is left. */
async function runRebases(): Promise<void> {
  const worker = new JobWorker({
    db: server.db,
    logger,
    handlers: [runRebaseHandler()],
    pollMs: 20,
    leaseSeconds: 60,
  }).start();
  try {
    await waitFor(
      "the rebases to be settled",
      async () =>
        (await server.db.selectFrom("jobs").select("id").where("kind", "=", REBASE_JOB_KIND).execute())
          .length === 0,
      20_000,
    );
  } finally {
    await worker.stop(1000);
  }
}

/** How the late shard of push 1 leaves its ESLint check inconclusive, and the status it ends with. */
interface Spoiling {
  name: string;
  status: string;
  spoil: (artifactId: string) => Promise<void>;
}

const SPOILINGS: Spoiling[] = [
  {
    name: "NEUTRAL",
    status: "NEUTRAL",
    // The directory the report was made in, lost behind the intake's back: processing stores
    // nothing, and the check is NEUTRAL.
    spoil: async (artifactId) => {
      await server.db.updateTable("artifacts").set({ work_dir: null }).where("id", "=", artifactId).execute();
    },
  },
  {
    name: "failed",
    status: "FAILURE",
    // Bytes the intake would refuse, put behind its back: processing fails, and so does the check.
    spoil: async (artifactId) => {
      await server.db
        .updateTable("artifact_chunks")
        .set({ data: Buffer.from('{"version": "2.1.0", "runs": [') })
        .where("artifact_id", "=", artifactId)
        .execute();
    },
  },
];

/**
 * main's history base ← push 1 ← push 2, as test/run-history-rebase.test.ts's late shard left
 * NEUTRAL: base and push 1 analysed (push 1 with its coverage, so its run stays analysed whatever
 * its ESLint check says); push 2's report staged against push 1's ESLint check, its publication
 * not run; a late shard of push 1, `spoiling`'s way, staged too, its settlement not run.
 */
async function aPublicationAndALateShard(spoiling: Spoiling) {
  const repository = await aRepository(server.db, account, { defaultBranch: "main" });
  await process(await upload(repository, BASE, "base", []));
  await process(await upload(repository, PUSH_1, "app", [BASE]));
  await process(await upload(repository, PUSH_1, "push-1", [BASE], { coverage: true }));
  const publication = await aStagedArtifact(await upload(repository, PUSH_2, "app", [PUSH_1, BASE]));
  const late = await upload(repository, PUSH_1, "server", [BASE]);
  await spoiling.spoil(late);
  const settlement = await aStagedArtifact(late);
  return { repository, publication, settlement };
}

/**
 * The check of `commit`'s run (push 2's, or push 3's) once both committed and the rebases they
 * queued ran: compared with base's, past push 1's.
 */
async function assertComparedPastTheLateCheck(
  repository: RepositoryRow,
  spoiling: Spoiling,
  commit = PUSH_2,
): Promise<void> {
  assert.equal((await checkOf(repository, PUSH_1)).status, spoiling.status);
  await runRebases();
  const published = await checkOf(repository, commit);
  assert.equal(published.base_check_id, (await checkOf(repository, BASE)).id, "compared with base's check");
  // Against base, push 2 keeps cart.js's two findings and fixes badge.jsx's three.
  assert.deepEqual(published.states, ["EXISTING", "EXISTING", "RESOLVED", "RESOLVED", "RESOLVED"]);
  assert.equal(published.status, "SUCCESS");
}

describe("a publication while a late artifact leaves its base check inconclusive", () => {
  for (const spoiling of SPOILINGS) {
    test(`(${spoiling.name}) the settlement first: the publication waits for it and compares with the check before`, async () => {
      const { repository, publication, settlement } = await aPublicationAndALateShard(spoiling);
      const settlementMayCommit = signal();
      const settling = settlement(settlementMayCommit.fired);
      try {
        await settling.hasSettled;
        const publishing = publication(Promise.resolve());
        // Without the lock the publication would read push 1's check as comparable (the
        // settlement has not committed) and record it; the settlement, done looking, queues nothing.
        if (server.config.databaseUrl)
          await untilWaitingForALock(
            server.db,
            "the publication to wait for the settlement, or to be done",
            publishing.settled,
          );
        settlementMayCommit.fire();
        assert.deepEqual(await settling.settled, { status: "done" });
        assert.deepEqual(await publishing.settled, { status: "done" });
      } finally {
        settlementMayCommit.fire();
        await settling.settled.catch(() => undefined);
      }
      await assertComparedPastTheLateCheck(repository, spoiling);
    });

    test(`(${spoiling.name}) the publication first: the settlement waits for it, finds its check and queues its rebase`, async () => {
      const { repository, publication, settlement } = await aPublicationAndALateShard(spoiling);
      const publicationMayCommit = signal();
      const publishing = publication(publicationMayCommit.fired);
      try {
        await publishing.hasSettled;
        const settling = settlement(Promise.resolve());
        // Without the lock the settlement would look for the checks compared with push 1's before
        // the publication committed its own, and queue nothing.
        if (server.config.databaseUrl)
          await untilWaitingForALock(
            server.db,
            "the settlement to wait for the other transaction, or to be done",
            settling.settled,
          );
        publicationMayCommit.fire();
        assert.deepEqual(await publishing.settled, { status: "done" });
        assert.deepEqual(await settling.settled, { status: "done" });
      } finally {
        publicationMayCommit.fire();
        await publishing.settled.catch(() => undefined);
      }
      if (server.config.databaseUrl) {
        const published = await checkOf(repository, PUSH_2);
        assert.equal(
          published.base_check_id,
          (await checkOf(repository, PUSH_1)).id,
          "read while comparable",
        );
      }
      await assertComparedPastTheLateCheck(repository, spoiling);
    });
  }
});

/**
 * main's history base ← push 1 ← push 2 ← push 3, push 1 late: push 2's CI sent only its coverage,
 * so push 3's ESLint findings, compared with push 2's run, were compared with base's check; push 1
 * analysed since (with its coverage), its settlement queued push 3's rebase, which compares push 3
 * with push 1's ESLint check, not run (the other rebases ran); a late shard of push 1, `spoiling`'s
 * way, staged, its settlement not run.
 */
async function aRebaseAndALateShard(spoiling: Spoiling) {
  const repository = await aRepository(server.db, account, { defaultBranch: "main" });
  await process(await upload(repository, BASE, "base", []));
  await process(await upload(repository, PUSH_2, "push-2", [PUSH_1, BASE], { coverage: true }));
  await process(await upload(repository, PUSH_3, "app", [PUSH_2, PUSH_1, BASE]));
  assert.equal((await checkOf(repository, PUSH_3)).base_check_id, (await checkOf(repository, BASE)).id);
  await process(await upload(repository, PUSH_1, "app", [BASE]));
  await process(await upload(repository, PUSH_1, "push-1", [BASE], { coverage: true }));
  const newer = await runOf(repository, PUSH_3);
  const queued = await server.db
    .selectFrom("jobs")
    .select(["id", "payload"])
    .where("kind", "=", REBASE_JOB_KIND)
    .execute();
  const ofNewer = queued.filter((job) => (job.payload as { runId?: unknown }).runId === newer.id);
  assert.ok(ofNewer.length > 0, "push 3's rebase is queued");
  // Played by hand below.
  await server.db
    .deleteFrom("jobs")
    .where(
      "id",
      "in",
      ofNewer.map((job) => job.id),
    )
    .execute();
  await runRebases();
  const late = await upload(repository, PUSH_1, "server", [BASE]);
  await spoiling.spoil(late);
  const settlement = await aStagedArtifact(late);
  /** Push 3's rebase as the worker settles it, held open until `mayCommit` settles. */
  const rebase = (mayCommit: Promise<void>) => {
    const hasRebased = signal();
    const rebased = server.db.transaction().execute(async (tx) => {
      assert.ok(await lockRepositoryNoKeyUpdate(tx, repository.id));
      const changed = await rebaseRun(tx, newer.id);
      hasRebased.fire();
      await mayCommit;
      return changed;
    });
    return { rebased, hasRebased: Promise.race([hasRebased.fired, rebased.then(() => undefined)]) };
  };
  return { repository, rebase, settlement };
}

describe("a rebase while a late artifact leaves the base check it moves to inconclusive", () => {
  for (const spoiling of SPOILINGS) {
    test(`(${spoiling.name}) the settlement first: the rebase waits for it and keeps the check before`, async () => {
      const { repository, rebase, settlement } = await aRebaseAndALateShard(spoiling);
      const settlementMayCommit = signal();
      const settling = settlement(settlementMayCommit.fired);
      try {
        await settling.hasSettled;
        const rebasing = rebase(Promise.resolve());
        // Without the lock the rebase would read push 1's check as comparable (the settlement has
        // not committed) and compare push 3 with it; the settlement, done looking, queues nothing.
        if (server.config.databaseUrl)
          await untilWaitingForALock(
            server.db,
            "the rebase to wait for the settlement, or to be done",
            rebasing.rebased,
          );
        settlementMayCommit.fire();
        assert.deepEqual(await settling.settled, { status: "done" });
        await rebasing.rebased;
      } finally {
        settlementMayCommit.fire();
        await settling.settled.catch(() => undefined);
      }
      await assertComparedPastTheLateCheck(repository, spoiling, PUSH_3);
    });

    test(`(${spoiling.name}) the rebase first: the settlement waits for it, finds its check and queues its rebase`, async () => {
      const { repository, rebase, settlement } = await aRebaseAndALateShard(spoiling);
      const rebaseMayCommit = signal();
      const rebasing = rebase(rebaseMayCommit.fired);
      try {
        await rebasing.hasRebased;
        const settling = settlement(Promise.resolve());
        // Without the lock the settlement would look for the checks compared with push 1's before
        // the rebase committed push 3's, and queue nothing.
        if (server.config.databaseUrl)
          await untilWaitingForALock(
            server.db,
            "the settlement to wait for the other transaction, or to be done",
            settling.settled,
          );
        rebaseMayCommit.fire();
        assert.equal(await rebasing.rebased, true);
        assert.deepEqual(await settling.settled, { status: "done" });
      } finally {
        rebaseMayCommit.fire();
        await rebasing.rebased.catch(() => undefined);
      }
      if (server.config.databaseUrl) {
        const rebased = await checkOf(repository, PUSH_3);
        assert.equal(rebased.base_check_id, (await checkOf(repository, PUSH_1)).id, "read while comparable");
      }
      await assertComparedPastTheLateCheck(repository, spoiling, PUSH_3);
    });
  }
});
