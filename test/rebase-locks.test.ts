// test-runner: execution-mode independent (the rebases run in the job worker, not GraphQL execution)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AccountRow, AnalysisRunRow, CheckRow, RepositoryRow } from "../src/db/types.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import { announceRepositoryIssues } from "../src/ingestion/repository-issue-events.ts";
import { rebaseRun, runRebaseHandler } from "../src/ingestion/run-rebase.ts";
import { JobWorker } from "../src/jobs/worker.ts";
import { lockBaseCheckId } from "../src/modules/checks/check-store.ts";
import { applyVcsDelivery } from "../src/modules/pull-requests/vcs-event-service.ts";
import type { PullRequestFacts } from "../src/modules/pull-requests/vcs-payloads.ts";
import { lockRepositoryNoKeyUpdate } from "../src/modules/repositories/repository-store.ts";
import { enqueueRunRebases, REBASE_JOB_KIND } from "../src/modules/runs/rebase-job.ts";
import { findLatestDefaultBranchRuns, lockRun } from "../src/modules/runs/run-store.ts";
import { anAccount, aRepository, aRun, aUser } from "./helpers/builders.ts";
import { anArtifact } from "./helpers/builders-artifacts.ts";
import { anAnalyzer } from "./helpers/builders-catalog.ts";
import { aCheck } from "./helpers/builders-checks.ts";
import { aPullRequest } from "./helpers/builders-pull-requests.ts";
import { waitFor } from "./helpers/instance.ts";
import {
  aSettlingRebase,
  attachmentAndRebaseOf,
  signal,
  untilWaitingForALock,
} from "./helpers/lock-waits.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * The rebase job against the transactions that queue it (docs/ingestion.md "Lock order"). The
 * worker settling a rebase locks the run's repository, then the job's row, then the run, then
 * the runs made after it; an upload or a provider's delivery locks the repository, queues the
 * rebases, then writes the runs. Each test plays one side by hand on its own connection, stopped
 * where the other has to wait for it; had the other taken its locks in another order, the two
 * would wait for each other and PostgreSQL would abort one ("deadlock detected"). The embedded
 * database runs one transaction at a time: there the other side simply waits for it to end.
 */

const { logger } = testLogger("ingestion");
let server: TestServer;
let account: AccountRow;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER: "false" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, {}, [{ user, role: "ADMIN" }]);
});
after(() => server?.stop());

/** What a provider's event says of an open pull request from `branch` into main. */
function pullRequestFacts(number: number, branch: string): PullRequestFacts {
  return {
    number,
    title: null,
    state: "OPEN",
    branch,
    baseBranch: "main",
    headCommitOid: null,
    baseCommitOid: null,
    mergeBaseOid: null,
    url: null,
    createdAt: null,
    updatedAt: null,
    isCrossRepository: false,
    headRepository: null,
  };
}

/**
 * A run put on main for want of a branch, whose pull request (`number`) turns out to be from
 * `topic`: its rebase moves it there.
 */
async function aRunPutOnMain(
  repository: RepositoryRow,
  number: number,
  fields: { createdAt?: Date } = {},
): Promise<AnalysisRunRow> {
  const run = await aRun(server.db, repository, { branch: "main", ...fields });
  const pullRequest = await aPullRequest(server.db, repository, { number, branch: "topic" });
  await server.db
    .updateTable("analysis_runs")
    .set({ is_branch_defaulted: true, pull_request_id: pullRequest.id })
    .where("id", "=", run.id)
    .execute();
  return run;
}

/** A worker that settles rebases, telling `onRun` of each job's outcome. */
function aRebaseWorker(onRun?: (outcome: string) => void): JobWorker {
  return new JobWorker({
    db: server.db,
    logger,
    handlers: [runRebaseHandler()],
    pollMs: 50,
    leaseSeconds: 60,
    onRun: onRun && ((_kind, outcome) => onRun(outcome)),
  }).start();
}

/** The branch run `runId` is on now. */
async function branchOfRun(runId: string): Promise<string | null> {
  const run = await server.db
    .selectFrom("analysis_runs")
    .select("branch_name")
    .where("id", "=", runId)
    .executeTakeFirstOrThrow();
  return run.branch_name;
}

describe("a run moving off the default branch while a run compared with it has its rebase settled", () => {
  test("the mover queues that rebase before locking its run: both commit, and the run is rebased again", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    const moving = await aRunPutOnMain(repository, 1);
    // Another pull request's run, compared with it, whose rebase is queued.
    const other = await aPullRequest(server.db, repository, { number: 2, branch: "other" });
    const dependent = await aRun(server.db, repository, { branch: "other", baseRun: moving });
    await server.db
      .updateTable("analysis_runs")
      .set({ pull_request_id: other.id })
      .where("id", "=", dependent.id)
      .execute();
    await enqueueRunRebases(server.db, [dependent.id]);

    const dedupeKey = `${REBASE_JOB_KIND}:${dependent.id}`;
    // The worker settling the dependent's rebase: its job's row first, then its run (run-rebase.ts).
    const settling = await aSettlingRebase(server.db, dependent.id);

    // The worker settling the moving run's own rebase.
    const rebasing = server.db.transaction().execute((tx) => rebaseRun(tx, moving.id));
    try {
      if (server.config.databaseUrl)
        await untilWaitingForALock(server.db, "the rebase to wait for the settling transaction");
    } finally {
      // Had the rebase locked the dependent run before asking for its job's row, this would close a
      // cycle and PostgreSQL would abort one of the two ("deadlock detected").
      // Also when the wait failed: the held transaction ends, and the test with it.
      settling.mayLockRun();
    }

    await settling.settled;
    assert.equal(await rebasing, true, "the run moved");
    const moved = await server.db
      .selectFrom("analysis_runs")
      .select("branch_name")
      .where("id", "=", moving.id)
      .executeTakeFirstOrThrow();
    assert.equal(moved.branch_name, "topic");
    const job = await server.db
      .selectFrom("jobs")
      .select("state")
      .where("dedupe_key", "=", dedupeKey)
      .executeTakeFirstOrThrow();
    assert.equal(job.state, "QUEUED", "the dependent run is rebased again, after its base moved");
  });
});

describe("a run moving off the default branch while a publication holds a check it compares again", () => {
  test("the move announces the repository's issues after its last check: both commit", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    const analyzer = await anAnalyzer(server.db);
    const ago = (seconds: number) => new Date(Date.now() - seconds * 1000);
    const first = await aRun(server.db, repository, { branch: "main", createdAt: ago(60) });
    await aCheck(server.db, first, analyzer);
    const moving = await aRunPutOnMain(repository, 6, { createdAt: ago(50) });
    await server.db
      .updateTable("analysis_runs")
      .set({ base_run_id: first.id, base_oid: first.commit_oid })
      .where("id", "=", moving.id)
      .execute();
    await aCheck(server.db, moving, analyzer);
    // Two default-branch runs compared with it, each with a published report: the move compares
    // the earlier with `first`, settles it, then compares the later with the earlier.
    const dependents: Array<{ run: AnalysisRunRow; check: CheckRow }> = [];
    for (const seconds of [40, 30]) {
      const run = await aRun(server.db, repository, { createdAt: ago(seconds), baseRun: moving });
      const check = await aCheck(server.db, run, analyzer);
      await anArtifact(server.db, run, check);
      dependents.push({ run, check });
    }
    const [earlier, later] = dependents as [(typeof dependents)[0], (typeof dependents)[0]];
    // The newest run, compared with the later run, whose report is being published.
    const newest = await aRun(server.db, repository, { createdAt: ago(20), baseRun: later.run });
    await aCheck(server.db, newest, analyzer);

    const publicationHoldsCheck = signal();
    const publicationMayAnnounce = signal();
    // The publication as processing runs it, up to its end (process-job.ts, sarif/process.ts,
    // then settleRun): its run locked, its base check (the later run's) held FOR SHARE, then the
    // repository's announcement row.
    const publishing = server.db.transaction().execute(async (tx) => {
      assert.ok(await lockRun(tx, newest.id));
      const held = await lockBaseCheckId(tx, later.run.id, analyzer.id);
      publicationHoldsCheck.fire();
      await publicationMayAnnounce.fired;
      await announceRepositoryIssues(tx, repository, account);
      return held;
    });
    try {
      await Promise.race([publicationHoldsCheck.fired, publishing]);
      // The worker settling the moving run's rebase, which writes the later run's check.
      const rebasing = server.db.transaction().execute(async (tx) => {
        assert.ok(await lockRepositoryNoKeyUpdate(tx, repository.id));
        return rebaseRun(tx, moving.id);
      });
      try {
        if (server.config.databaseUrl)
          await untilWaitingForALock(server.db, "the rebase to wait for the publication's check");
      } finally {
        // Had the move announced when it settled the earlier run, before it writes the later run's
        // check, this would close a cycle and PostgreSQL would abort one ("deadlock detected").
        // Also when the wait failed: the held transaction ends, and the test with it.
        publicationMayAnnounce.fire();
      }
      assert.equal(await publishing, later.check.id);
      assert.equal(await rebasing, true, "the run moved");
      assert.equal(await branchOfRun(moving.id), "topic");
      const compared = await server.db
        .selectFrom("checks")
        .select("base_check_id")
        .where("id", "=", later.check.id)
        .executeTakeFirstOrThrow();
      assert.equal(
        compared.base_check_id,
        earlier.check.id,
        "the later run is compared with the earlier one",
      );
    } finally {
      // Released whatever failed above, so its transaction ends.
      publicationMayAnnounce.fire();
      await publishing.catch(() => undefined);
    }
  });
});

describe("an upload making a run while the run it chooses as its base leaves the default branch", () => {
  test("the move waits for the upload's repository lock, and compares the new run again", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    const earlier = await aRun(server.db, repository, {
      branch: "main",
      createdAt: new Date(Date.now() - 60_000),
    });
    const moving = await aRunPutOnMain(repository, 3, { createdAt: new Date(Date.now() - 30_000) });
    await enqueueRunRebases(server.db, [moving.id]);
    const dedupeKey = `${REBASE_JOB_KIND}:${moving.id}`;

    const uploadChoseBase = signal();
    const uploadMayMakeRun = signal();
    // An upload's intake (openRun) up to the run it makes: the repository's lock, then its base,
    // the default branch's newest analysed run (the moving one), then the run.
    const uploading = server.db.transaction().execute(async (tx) => {
      assert.ok(await lockRepositoryNoKeyUpdate(tx, repository.id));
      const [base] = await findLatestDefaultBranchRuns(tx, [repository.id]);
      assert.equal(base?.id, moving.id);
      uploadChoseBase.fire();
      await uploadMayMakeRun.fired;
      return aRun(tx, repository, { branch: "main", status: "PENDING", baseRun: base });
    });
    await uploadChoseBase.fired;

    // The worker settles the moving run's rebase meanwhile.
    const worker = aRebaseWorker();
    const rebaseDone = async () =>
      (await server.db.selectFrom("jobs").select("id").where("dedupe_key", "=", dedupeKey).execute())
        .length === 0;
    try {
      if (server.config.databaseUrl) {
        // Without the repository's lock the move would not wait: it would be done first, and the
        // upload's run would keep a base that is no longer the default branch's.
        await untilWaitingForALock(server.db, "the rebase to wait for the upload, or to be done", rebaseDone);
      }
      uploadMayMakeRun.fire();
      const made = await uploading;
      await waitFor("the rebase to be done", rebaseDone);

      assert.equal(await branchOfRun(moving.id), "topic");
      const compared = await server.db
        .selectFrom("analysis_runs")
        .select("base_run_id")
        .where("id", "=", made.id)
        .executeTakeFirstOrThrow();
      assert.equal(compared.base_run_id, earlier.id, "the new run is compared with main's run before it");
    } finally {
      // Released whatever failed above, so its transaction ends.
      uploadMayMakeRun.fire();
      await uploading.catch(() => undefined);
      await worker.stop(0);
    }
  });
});

describe("a delivery queueing a run's rebase while that rebase is settled", () => {
  test("the settling transaction takes the repository's lock before the job's row: both commit", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    const moving = await aRunPutOnMain(repository, 4);
    await enqueueRunRebases(server.db, [moving.id]);

    const deliveryHoldsRepository = signal();
    const deliveryMayQueue = signal();
    // A provider's delivery about the pull request: the repository's lock, then the rebases of
    // the pull request's runs (vcs-event-service.ts).
    const delivering = server.db.transaction().execute(async (tx) => {
      assert.ok(await lockRepositoryNoKeyUpdate(tx, repository.id));
      deliveryHoldsRepository.fire();
      await deliveryMayQueue.fired;
      await enqueueRunRebases(tx, [moving.id]);
    });
    await deliveryHoldsRepository.fired;

    const outcomes: string[] = [];
    const worker = aRebaseWorker((outcome) => outcomes.push(outcome));
    try {
      try {
        if (server.config.databaseUrl)
          await untilWaitingForALock(server.db, "the rebase to wait for the delivery");
      } finally {
        // Had the settling transaction locked the job's row before the repository, the delivery
        // would now wait for it in a cycle and PostgreSQL would abort one ("deadlock detected").
        // Also when the wait failed: the held transaction ends, and the test with it.
        deliveryMayQueue.fire();
      }
      await delivering;
      await waitFor(
        "the rebase to be settled, or to fail",
        async () => outcomes.includes("error") || (await branchOfRun(moving.id)) === "topic",
      );
      assert.ok(!outcomes.includes("error"), "the worker settled every job it ran");
      assert.equal(await branchOfRun(moving.id), "topic", "the run moved");
    } finally {
      // Released whatever failed above, so its transaction ends.
      deliveryMayQueue.fire();
      await delivering.catch(() => undefined);
      await worker.stop(0);
    }
  });
});

describe("a pull request's event attaching a run while the run's rebase is settled", () => {
  test("the delivery takes the job's row before the run's: both commit, and the run is rebased again", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    // CI on push, before the provider's event: a run of the branch, of no pull request.
    const run = await aRun(server.db, repository, { branch: "feature" });
    await enqueueRunRebases(server.db, [run.id]);

    // The worker settling that run's rebase job: its job's row first, then the run (run-rebase.ts).
    const settling = await aSettlingRebase(server.db, run.id);

    // The provider reports the pull request whose head the run's commit is.
    const delivering = server.db.transaction().execute((tx) =>
      applyVcsDelivery(tx, {
        provider: "GITHUB",
        repositoryId: repository.id,
        repositoryKey: repository.key,
        eventName: "pull_request",
        deliveryId: newRowKey(),
        event: {
          kind: "pull_request",
          action: "opened",
          pullRequest: { ...pullRequestFacts(5, "feature"), headCommitOid: run.commit_oid },
        },
      }),
    );
    try {
      if (server.config.databaseUrl)
        await untilWaitingForALock(server.db, "the delivery to wait for the settling transaction");
    } finally {
      // Had the delivery written the run before asking for the job's row, this would close a cycle
      // and PostgreSQL would abort one of the two ("deadlock detected").
      // Also when the wait failed: the held transaction ends, and the test with it.
      settling.mayLockRun();
    }

    await settling.settled;
    assert.equal((await delivering).status, 200);
    assert.deepEqual(
      await attachmentAndRebaseOf(server.db, run.id),
      { pullRequestNumber: 5, rebaseJob: "QUEUED" },
      "attached, and the rebase runs again after the attachment",
    );
  });
});
