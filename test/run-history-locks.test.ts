// test-runner: execution-mode independent (the transactions are played by hand, not through GraphQL)
import assert from "node:assert/strict";
import { createHash, randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { AccountRow, AnalysisRunRow, RepositoryRow } from "../src/db/types.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import { type NewRunSpec, openRun, settleRun } from "../src/ingestion/run-lifecycle.ts";
import { rebaseRun } from "../src/ingestion/run-rebase.ts";
import { insertCheck } from "../src/modules/checks/check-store.ts";
import { lockRepositoryNoKeyUpdate } from "../src/modules/repositories/repository-store.ts";
import { REBASE_JOB_KIND } from "../src/modules/runs/rebase-job.ts";
import { lockRun } from "../src/modules/runs/run-store.ts";
import { anAccount, aRepository, aRun, aUser } from "./helpers/builders.ts";
import { aPullRequest, aPullRequestRun } from "./helpers/builders-pull-requests.ts";
import { signal, untilWaitingForALock } from "./helpers/lock-waits.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * An upload making a run of a commit while the run of its parent, uploaded late, is settled
 * (docs/ingestion.md "Where a run stands in the history", "Lock order"). The upload chooses the
 * new run's base among the analysed runs it can see; the settlement looks for the runs after the
 * late run that are compared with a run before it. Each sees only what the other has committed,
 * so without a lock both could miss the other: the new run compared with the run before the late
 * one, and no rebase queued. Each test plays both sides by hand, one stopped before it commits;
 * on PostgreSQL the other must wait for it. The embedded database runs one transaction at a time,
 * so there the other side simply runs after it.
 */

let server: TestServer;
let account: AccountRow;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER: "false" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, {}, [{ user, role: "ADMIN" }]);
});
after(() => server?.stop());

function aCommit(): string {
  return createHash("sha1").update(randomUUID()).digest("hex");
}

/**
 * main's history `first` ← `late`: `first` analysed; `late` uploaded after a descendant's upload
 * started, its one check finished (SUCCESS) and its run still PENDING until settled.
 */
async function aLateRunBeingFinished(): Promise<{
  repository: RepositoryRow;
  first: AnalysisRunRow;
  late: AnalysisRunRow;
  lateCheckId: string;
}> {
  const repository = await aRepository(server.db, account, { defaultBranch: "main" });
  const first = await aRun(server.db, repository, {
    branch: "main",
    createdAt: new Date(Date.now() - 60_000),
  });
  const late = await aRun(server.db, repository, { branch: "main", status: "PENDING", baseRun: first });
  await server.db
    .updateTable("analysis_runs")
    .set({ ancestor_oids: [first.commit_oid] })
    .where("id", "=", late.id)
    .execute();
  const analyzer = await server.db
    .selectFrom("analyzers")
    .select("id")
    .orderBy("id")
    .executeTakeFirstOrThrow();
  const check = await insertCheck(server.db, {
    key: newRowKey(),
    run_id: late.id,
    analyzer_id: analyzer.id,
    sequence: 1,
    status: "SUCCESS",
  });
  return { repository, first, late, lateCheckId: check.id };
}

/** The upload's intake of a run of `commitOid` on main, as intake.ts orders it, up to its commit. */
function anUploadMakingARun(
  repository: RepositoryRow,
  commitOid: string,
  ancestorOids: string[],
  mayCommit: Promise<void>,
  spec: Partial<NewRunSpec> = {},
): { made: Promise<AnalysisRunRow>; hasMadeRun: Promise<void> } {
  const hasMadeRun = signal();
  const made = server.db.transaction().execute(async (tx) => {
    const locked = await lockRepositoryNoKeyUpdate(tx, repository.id);
    assert.ok(locked);
    const { run } = await openRun(tx, locked, account, {
      commitOid,
      branch: "main",
      ancestorOids,
      timeoutSeconds: 3600,
      ...spec,
    });
    hasMadeRun.fire();
    await mayCommit;
    return run;
  });
  return { made, hasMadeRun: Promise.race([hasMadeRun.fired, made.then(() => undefined)]) };
}

/**
 * The late run's settlement (what processing its last artifact ends with), up to its commit;
 * `locked` takes the run's lock first, as processing does.
 */
function aSettlement(
  runId: string,
  checkId: string,
  mayCommit: Promise<void>,
  { locked = false } = {},
): { settled: Promise<AnalysisRunRow>; hasSettled: Promise<void> } {
  const hasSettled = signal();
  const settled = server.db.transaction().execute(async (tx) => {
    if (locked) await lockRun(tx, runId);
    const run = await settleRun(tx, runId, checkId);
    hasSettled.fire();
    await mayCommit;
    return run;
  });
  return { settled, hasSettled: Promise.race([hasSettled.fired, settled.then(() => undefined)]) };
}

async function rebasesQueuedFor(runId: string): Promise<number> {
  const jobs = await server.db
    .selectFrom("jobs")
    .select("payload")
    .where("kind", "=", REBASE_JOB_KIND)
    .execute();
  return jobs.filter((job) => (job.payload as { runId?: unknown }).runId === runId).length;
}

/**
 * The upload first: it makes its run (of a child of the late run, or of a pull request whose
 * spec names it) and holds its transaction open while the late run is settled, then commits.
 * Answers the run it made, the late run's base and its settlement's rebases of the new run.
 */
async function anUploadThenTheSettlement(
  spec: (
    late: AnalysisRunRow,
    first: AnalysisRunRow,
  ) => { ancestorOids: string[]; spec?: Partial<NewRunSpec> },
): Promise<{ made: AnalysisRunRow; first: AnalysisRunRow; rebases: number; settled: AnalysisRunRow }> {
  const { repository, first, late, lateCheckId } = await aLateRunBeingFinished();
  const uploadMayCommit = signal();
  const given = spec(late, first);
  const upload = anUploadMakingARun(
    repository,
    aCommit(),
    given.ancestorOids,
    uploadMayCommit.fired,
    given.spec,
  );
  try {
    await upload.hasMadeRun;
    const settlement = aSettlement(late.id, lateCheckId, Promise.resolve());
    // Without the lock the settlement would not wait: it would look for the runs to compare
    // again before the new run is committed, and queue nothing.
    if (server.config.databaseUrl)
      await untilWaitingForALock(
        server.db,
        "the settlement to wait for the upload, or to be done",
        settlement.settled,
      );
    uploadMayCommit.fire();
    const made = await upload.made;
    const settled = await settlement.settled;
    return { made, first, rebases: await rebasesQueuedFor(made.id), settled };
  } finally {
    uploadMayCommit.fire();
    await upload.made.catch(() => undefined);
  }
}

describe("an upload making a run while the late run it should be compared with is settled", () => {
  test("the upload first: the settlement waits for it, finds the new run and queues its rebase", async () => {
    const { made, first, rebases, settled } = await anUploadThenTheSettlement((late, first) => ({
      ancestorOids: [late.commit_oid, first.commit_oid],
    }));
    assert.equal(made.base_run_id, first.id, "made while the late run was not analysed yet");
    assert.equal(settled.status, "SUCCESS");
    assert.equal(rebases, 1, "the new run is compared again with the late run");
  });

  test("the settlement first: the upload waits for it and compares the new run with the late run", async () => {
    const { repository, first, late, lateCheckId } = await aLateRunBeingFinished();
    const settlementMayCommit = signal();
    const settlement = aSettlement(late.id, lateCheckId, settlementMayCommit.fired);
    try {
      await settlement.hasSettled;
      const upload = anUploadMakingARun(
        repository,
        aCommit(),
        [late.commit_oid, first.commit_oid],
        Promise.resolve(),
      );
      // Without the lock the upload would not wait: it would choose its base while the late run
      // is still PENDING to it, and the settlement, done looking, would not see the new run.
      if (server.config.databaseUrl)
        await untilWaitingForALock(
          server.db,
          "the upload to wait for the settlement, or to be done",
          upload.made,
        );
      settlementMayCommit.fire();
      assert.equal((await settlement.settled).status, "SUCCESS");
      const made = await upload.made;
      assert.equal(made.base_run_id, late.id, "compared with the late run, now analysed");
    } finally {
      settlementMayCommit.fire();
      await settlement.settled.catch(() => undefined);
    }
  });

  test("a pull request's run made while its merge base's run is settled: the settlement finds it", async () => {
    const { made, first, rebases } = await anUploadThenTheSettlement((late) => ({
      ancestorOids: [],
      spec: {
        branch: "topic",
        pullRequestNumber: 7,
        baseBranch: "main",
        mergeBaseOid: late.commit_oid,
        ancestorOids: null,
      },
    }));
    assert.equal(made.base_run_id, first.id, "made while its merge base's run was not analysed yet");
    assert.equal(rebases, 1, "compared again with its merge base's run");
  });
});

/**
 * main's history `first` ← `base`: both analysed, `base` reopened by a late artifact that left its
 * one check NEUTRAL, its run PENDING (`reopened_from` SUCCESS: still analysed) until settled, when
 * it is SKIPPED and stops being a base.
 */
async function aBaseBeingLeftSkipped(): Promise<{
  repository: RepositoryRow;
  first: AnalysisRunRow;
  base: AnalysisRunRow;
  baseCheckId: string;
}> {
  const { repository, first, late, lateCheckId } = await aLateRunBeingFinished();
  await server.db
    .updateTable("analysis_runs")
    .set({ reopened_from: "SUCCESS" })
    .where("id", "=", late.id)
    .execute();
  await server.db.updateTable("checks").set({ status: "NEUTRAL" }).where("id", "=", lateCheckId).execute();
  return { repository, first, base: late, baseCheckId: lateCheckId };
}

describe("an upload making a run while the run it chooses as its base is left SKIPPED", () => {
  /**
   * The settlement first, as processing does it: the run locked FOR UPDATE, then settled SKIPPED,
   * its transaction held open while an upload makes a run compared with it (`spec`); then both
   * commit. Answers the new run as made and once its queued rebases ran, and the first run.
   */
  async function theSettlementThenAnUpload(
    spec: (
      base: AnalysisRunRow,
      first: AnalysisRunRow,
    ) => { ancestorOids: string[]; spec?: Partial<NewRunSpec> },
  ) {
    const { repository, first, base, baseCheckId } = await aBaseBeingLeftSkipped();
    const settlementMayCommit = signal();
    const settlement = aSettlement(base.id, baseCheckId, settlementMayCommit.fired, { locked: true });
    try {
      await settlement.hasSettled;
      const given = spec(base, first);
      const upload = anUploadMakingARun(
        repository,
        aCommit(),
        given.ancestorOids,
        Promise.resolve(),
        given.spec,
      );
      // On PostgreSQL the upload reads the base as analysed and waits for the settlement to insert
      // its run, whose reference to the base takes KEY SHARE on the row the settlement holds.
      if (server.config.databaseUrl)
        await untilWaitingForALock(
          server.db,
          "the upload to wait for the settlement, or to be done",
          upload.made,
        );
      settlementMayCommit.fire();
      assert.equal((await settlement.settled).status, "SKIPPED");
      const made = await upload.made;
      const rebases = await rebasesQueuedFor(made.id);
      if (rebases > 0) await server.db.transaction().execute((tx) => rebaseRun(tx, made.id));
      const rebased = await server.db
        .selectFrom("analysis_runs")
        .selectAll()
        .where("id", "=", made.id)
        .executeTakeFirstOrThrow();
      return { made, rebases, rebased, base, first };
    } finally {
      settlementMayCommit.fire();
      await settlement.settled.catch(() => undefined);
    }
  }

  for (const { name, spec } of [
    {
      name: "a pull request's run made for its merge base",
      spec: (base: AnalysisRunRow) => ({
        ancestorOids: [],
        spec: {
          branch: "topic",
          pullRequestNumber: 9,
          baseBranch: "main",
          mergeBaseOid: base.commit_oid,
          ancestorOids: null,
        } as Partial<NewRunSpec>,
      }),
    },
    {
      name: "a default-branch run of its child",
      spec: (base: AnalysisRunRow, first: AnalysisRunRow) => ({
        ancestorOids: [base.commit_oid, first.commit_oid],
      }),
    },
  ]) {
    test(`(${name}) the new run is compared again past it`, async () => {
      const { made, rebases, rebased, base, first } = await theSettlementThenAnUpload(spec);
      if (server.config.databaseUrl) {
        assert.equal(made.base_run_id, base.id, "chosen while it was analysed");
        assert.equal(rebases, 1, "the new run's rebase is queued");
      }
      assert.equal(rebased.base_run_id, first.id, "compared with the analysed run before it");
    });
  }
});

describe("a rebase comparing a pull request's run with a run a settlement is leaving SKIPPED", () => {
  test("the run ends compared past it, not with it", async () => {
    const { repository, first, base, baseCheckId } = await aBaseBeingLeftSkipped();
    // A pull request's run made for the merge base `base` while `base` was not analysed yet:
    // compared with `first`, its rebase (queued when `base` became analysed) not run yet.
    const pullRequest = await aPullRequest(server.db, repository, { baseBranch: "main" });
    const made = await aPullRequestRun(server.db, repository, pullRequest);
    await server.db
      .updateTable("analysis_runs")
      .set({ base_run_id: first.id, base_oid: first.commit_oid, merge_base_oid: base.commit_oid })
      .where("id", "=", made.id)
      .execute();
    const settlementMayCommit = signal();
    const settlement = aSettlement(base.id, baseCheckId, settlementMayCommit.fired, { locked: true });
    try {
      await settlement.hasSettled;
      // On PostgreSQL the rebase reads its merge base's run as analysed and waits for the
      // settlement as it writes the run's base.
      const rebase = server.db.transaction().execute((tx) => rebaseRun(tx, made.id));
      if (server.config.databaseUrl)
        await untilWaitingForALock(server.db, "the rebase to wait for the settlement, or to be done", rebase);
      settlementMayCommit.fire();
      assert.equal((await settlement.settled).status, "SKIPPED");
      await rebase;
    } finally {
      settlementMayCommit.fire();
      await settlement.settled.catch(() => undefined);
    }
    const rebased = await server.db
      .selectFrom("analysis_runs")
      .select("base_run_id")
      .where("id", "=", made.id)
      .executeTakeFirstOrThrow();
    assert.equal(rebased.base_run_id, first.id, "compared with the analysed run before it");
  });
});
