// test-runner: execution-mode independent (uploads go through the intake, not GraphQL execution)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { AccountRow, AnalysisRunRow, CheckRow, PullRequestRow, RepositoryRow } from "../src/db/types.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import { acceptUpload } from "../src/ingestion/intake.ts";
import { rebaseRun, runRebaseHandler } from "../src/ingestion/run-rebase.ts";
import type { ArtifactUpload } from "../src/ingestion/types.ts";
import { JobWorker } from "../src/jobs/worker.ts";
import { findLatestDefaultBranchRuns } from "../src/modules/checks/repository-issue-store.ts";
import { importAdvisories } from "../src/modules/dependencies/advisory-import.ts";
import { deleteScaChecksOfRunTarget, upsertPackageVersions } from "../src/modules/dependencies/sbom-store.ts";
import { applyVcsDelivery } from "../src/modules/pull-requests/vcs-event-service.ts";
import { insertPullRequest } from "../src/modules/pull-requests/vcs-event-store.ts";
import type { PullRequestFacts } from "../src/modules/pull-requests/vcs-payloads.ts";
import { lockRepositoryNoKeyUpdate } from "../src/modules/repositories/repository-store.ts";
import { enqueueRunRebases, REBASE_JOB_KIND } from "../src/modules/runs/rebase-job.ts";
import { anAccount, aRepository, aRun, aUser } from "./helpers/builders.ts";
import {
  anScaCheck,
  aPackage,
  aPackageVersion,
  aTarget,
  scaCheckDependencies,
} from "./helpers/builders-dependencies.ts";
import { waitFor } from "./helpers/instance.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * An upload arriving while the same run is being processed. Processing holds the run's lock and
 * writes rows that reference the repository (metric items), whose foreign key takes KEY SHARE on
 * the repository row; the intake holds the repository's lock and waits for the run's check. With
 * a FOR UPDATE lock on the repository the two deadlocked and PostgreSQL aborted one of them.
 *
 * The processing side is played here statement by statement on its own connection, so the test
 * can stop it exactly where the intake has to wait for it. The embedded database runs one
 * transaction at a time: there the intake simply waits for the processing transaction to end.
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

const COMMIT = "c".repeat(40);

function sarifUpload(): ArtifactUpload {
  const report = JSON.stringify({
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "lock-lint", rules: [{ id: "r1" }] } },
        results: [
          {
            ruleId: "r1",
            level: "warning",
            message: { text: "a finding" },
            locations: [
              { physicalLocation: { artifactLocation: { uri: "src/a.js" }, region: { startLine: 1 } } },
            ],
          },
        ],
      },
    ],
  });
  return {
    commitOid: COMMIT,
    branch: null,
    analyzer: "lock-lint",
    analyzerType: "community",
    key: null,
    data: report,
    compression: "NONE",
    workDir: null,
    reporter: "test",
    reporterVersion: null,
    uploadedBy: null,
  };
}

/** A one-time signal between the two sides of a test: `fire()` settles `fired`. */
function signal(): { fire: () => void; fired: Promise<void> } {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fire, fired };
}

/** Sessions of this test's database waiting for a lock, other than the one asking. */
async function sessionsWaitingForALock(): Promise<number> {
  const { rows } = await sql<{ waiting: number }>`
    SELECT count(*)::int AS waiting FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`.execute(
    server.db,
  );
  return rows[0]?.waiting ?? 0;
}

describe("an upload while its run is being processed", () => {
  test("neither waits on the other in a cycle: both commit, in order", async () => {
    const repository: RepositoryRow = await aRepository(server.db, account);
    // The first upload makes the run and its check, as processing would find them.
    const first = await acceptUpload(server.db, server.config, logger, repository, sarifUpload());
    const run: AnalysisRunRow = await server.db
      .selectFrom("analysis_runs")
      .selectAll()
      .where("key", "=", first.runKey)
      .executeTakeFirstOrThrow();
    const check: CheckRow = await server.db
      .selectFrom("checks")
      .selectAll()
      .where("run_id", "=", run.id)
      .executeTakeFirstOrThrow();

    const processingMayFinish = signal();
    const processingLocked = signal();

    // Processing: lock the run, settle its check, then record a metric item of the repository.
    const processing = server.db.transaction().execute(async (tx) => {
      await tx.selectFrom("analysis_runs").select("id").where("id", "=", run.id).forUpdate().execute();
      await tx
        .updateTable("checks")
        .set({ updated_at: sql<Date>`now()` })
        .where("id", "=", check.id)
        .execute();
      processingLocked.fire();
      await processingMayFinish.fired;
      await tx
        .insertInto("repository_metric_items")
        .values({
          key: newRowKey(),
          repository_id: repository.id,
          metric_shortcode: "LCV",
          metric_key: "AGGREGATE",
        })
        .execute();
    });
    await processingLocked.fired;

    // The second upload of the same commit and analyzer reopens that check.
    const second = acceptUpload(server.db, server.config, logger, repository, {
      ...sarifUpload(),
      data: sarifUpload().data.replace("a finding", "another finding"),
    });
    if (server.config.databaseUrl) {
      await waitFor(
        "the upload to wait for the processing transaction",
        async () => (await sessionsWaitingForALock()) > 0,
      );
    }
    processingMayFinish.fire();

    await processing;
    const accepted = await second;
    assert.equal(accepted.runKey, run.key, "the second upload joined the run");
    assert.equal(accepted.duplicate, false);
    const reopened = await server.db
      .selectFrom("checks")
      .select("status")
      .where("id", "=", check.id)
      .executeTakeFirstOrThrow();
    assert.equal(reopened.status, "PENDING", "the intake reopened the check after processing committed");
    const items = await server.db
      .selectFrom("repository_metric_items")
      .select("id")
      .where("repository_id", "=", repository.id)
      .execute();
    assert.equal(items.length, 1, "the processing transaction committed its write");
  });
});

describe("an upload attaching a run to its pull request while the run's rebase is settled", () => {
  test("both take the job's row before the run's: both commit, and the run is rebased again", async () => {
    const repository: RepositoryRow = await aRepository(server.db, account, { defaultBranch: "main" });
    const commit = "d".repeat(40);
    // CI on push, before Assay knows the pull request: a run of the branch, of no pull request.
    const first = await acceptUpload(server.db, server.config, logger, repository, {
      ...sarifUpload(),
      commitOid: commit,
      branch: "feature",
    });
    const run = await server.db
      .selectFrom("analysis_runs")
      .selectAll()
      .where("key", "=", first.runKey)
      .executeTakeFirstOrThrow();
    assert.equal(run.pull_request_id, null);
    await enqueueRunRebases(server.db, [run.id]);
    const dedupeKey = `${REBASE_JOB_KIND}:${run.id}`;

    const settlingMayLockRun = signal();
    const settlingHoldsJob = signal();
    // The worker settling that run's rebase job: its job's row first, then the run (run-rebase.ts).
    const settling = server.db.transaction().execute(async (tx) => {
      await tx.selectFrom("jobs").select("id").where("dedupe_key", "=", dedupeKey).forUpdate().execute();
      settlingHoldsJob.fire();
      await settlingMayLockRun.fired;
      await tx.selectFrom("analysis_runs").select("id").where("id", "=", run.id).forUpdate().execute();
    });
    await settlingHoldsJob.fired;

    // The pull request's own CI job uploads for the same commit, naming the pull request.
    const second = acceptUpload(server.db, server.config, logger, repository, {
      ...sarifUpload(),
      commitOid: commit,
      branch: "feature",
      pullRequestNumber: 7,
      baseBranch: "main",
    });
    if (server.config.databaseUrl) {
      await waitFor(
        "the upload to wait for the settling transaction",
        async () => (await sessionsWaitingForALock()) > 0,
      );
    }
    // Had the upload locked the run before asking for the job's row, this would close a cycle
    // and PostgreSQL would abort one of the two ("deadlock detected").
    settlingMayLockRun.fire();

    await settling;
    const accepted = await second;
    assert.equal(accepted.runKey, run.key, "the upload joined the run");
    const attached = await server.db
      .selectFrom("analysis_runs")
      .innerJoin("pull_requests", "pull_requests.id", "analysis_runs.pull_request_id")
      .select("pull_requests.number")
      .where("analysis_runs.id", "=", run.id)
      .executeTakeFirstOrThrow();
    assert.equal(attached.number, 7);
    const job = await server.db
      .selectFrom("jobs")
      .select("state")
      .where("dedupe_key", "=", dedupeKey)
      .executeTakeFirstOrThrow();
    assert.equal(job.state, "QUEUED", "the rebase runs again, after the pull request was attached");
  });
});

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

/** An open pull request of `repository` from `branch` into main, as a provider's event records it. */
function aPullRequest(repository: RepositoryRow, number: number, branch: string): Promise<PullRequestRow> {
  return insertPullRequest(server.db, repository.id, pullRequestFacts(number, branch));
}

describe("a run moving off the default branch while a run compared with it has its rebase settled", () => {
  test("the mover queues that rebase before locking its run: both commit, and the run is rebased again", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    // A run put on main for want of a branch, whose pull request turns out to be from `topic`.
    const moving = await aRun(server.db, repository, { branch: "main" });
    const ownPullRequest = await aPullRequest(repository, 1, "topic");
    await server.db
      .updateTable("analysis_runs")
      .set({ is_branch_defaulted: true, pull_request_id: ownPullRequest.id })
      .where("id", "=", moving.id)
      .execute();
    // Another pull request's run, compared with it, whose rebase is queued.
    const other = await aPullRequest(repository, 2, "other");
    const dependent = await aRun(server.db, repository, { branch: "other", baseRun: moving });
    await server.db
      .updateTable("analysis_runs")
      .set({ pull_request_id: other.id })
      .where("id", "=", dependent.id)
      .execute();
    await enqueueRunRebases(server.db, [dependent.id]);
    const dedupeKey = `${REBASE_JOB_KIND}:${dependent.id}`;

    const settlingMayLockRun = signal();
    const settlingHoldsJob = signal();
    // The worker settling the dependent's rebase: its job's row first, then its run (run-rebase.ts).
    const settling = server.db.transaction().execute(async (tx) => {
      await tx.selectFrom("jobs").select("id").where("dedupe_key", "=", dedupeKey).forUpdate().execute();
      settlingHoldsJob.fire();
      await settlingMayLockRun.fired;
      await tx.selectFrom("analysis_runs").select("id").where("id", "=", dependent.id).forUpdate().execute();
    });
    await settlingHoldsJob.fired;

    // The worker settling the moving run's own rebase.
    const rebasing = server.db.transaction().execute((tx) => rebaseRun(tx, moving.id));
    if (server.config.databaseUrl) {
      await waitFor(
        "the rebase to wait for the settling transaction",
        async () => (await sessionsWaitingForALock()) > 0,
      );
    }
    // Had the rebase locked the dependent run before asking for its job's row, this would close a
    // cycle and PostgreSQL would abort one of the two ("deadlock detected").
    settlingMayLockRun.fire();

    await settling;
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

describe("an upload making a run while the run it chooses as its base leaves the default branch", () => {
  test("the move waits for the upload's repository lock, and compares the new run again", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    const earlier = await aRun(server.db, repository, {
      branch: "main",
      createdAt: new Date(Date.now() - 60_000),
    });
    // A run put on main for want of a branch, whose pull request turns out to be from `topic`.
    const moving = await aRun(server.db, repository, {
      branch: "main",
      createdAt: new Date(Date.now() - 30_000),
    });
    const pullRequest = await aPullRequest(repository, 3, "topic");
    await server.db
      .updateTable("analysis_runs")
      .set({ is_branch_defaulted: true, pull_request_id: pullRequest.id })
      .where("id", "=", moving.id)
      .execute();
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
    const worker = new JobWorker({
      db: server.db,
      logger,
      handlers: [runRebaseHandler()],
      pollMs: 50,
      leaseSeconds: 60,
    }).start();
    const rebaseDone = async () =>
      (await server.db.selectFrom("jobs").select("id").where("dedupe_key", "=", dedupeKey).execute())
        .length === 0;
    try {
      if (server.config.databaseUrl) {
        // Without the repository's lock the move would not wait: it would be done first, and the
        // upload's run would keep a base that is no longer the default branch's.
        await waitFor(
          "the rebase to wait for the upload, or to be done",
          async () => (await sessionsWaitingForALock()) > 0 || (await rebaseDone()),
        );
      }
      uploadMayMakeRun.fire();
      const made = await uploading;
      await waitFor("the rebase to be done", rebaseDone);

      const moved = await server.db
        .selectFrom("analysis_runs")
        .select("branch_name")
        .where("id", "=", moving.id)
        .executeTakeFirstOrThrow();
      assert.equal(moved.branch_name, "topic");
      const compared = await server.db
        .selectFrom("analysis_runs")
        .select("base_run_id")
        .where("id", "=", made.id)
        .executeTakeFirstOrThrow();
      assert.equal(compared.base_run_id, earlier.id, "the new run is compared with main's run before it");
    } finally {
      await worker.stop(0);
    }
  });
});

describe("a delivery queueing a run's rebase while that rebase is settled", () => {
  test("the settling transaction takes the repository's lock before the job's row: both commit", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    const moving = await aRun(server.db, repository, { branch: "main" });
    const pullRequest = await aPullRequest(repository, 4, "topic");
    await server.db
      .updateTable("analysis_runs")
      .set({ is_branch_defaulted: true, pull_request_id: pullRequest.id })
      .where("id", "=", moving.id)
      .execute();
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
    const worker = new JobWorker({
      db: server.db,
      logger,
      handlers: [runRebaseHandler()],
      pollMs: 50,
      leaseSeconds: 60,
      onRun: (_kind, outcome) => outcomes.push(outcome),
    }).start();
    const branchOfRun = async () =>
      (
        await server.db
          .selectFrom("analysis_runs")
          .select("branch_name")
          .where("id", "=", moving.id)
          .executeTakeFirstOrThrow()
      ).branch_name;
    try {
      if (server.config.databaseUrl) {
        await waitFor(
          "the rebase to wait for the delivery",
          async () => (await sessionsWaitingForALock()) > 0,
        );
      }
      // Had the settling transaction locked the job's row before the repository, the delivery
      // would now wait for it in a cycle and PostgreSQL would abort one ("deadlock detected").
      deliveryMayQueue.fire();
      await delivering;
      await waitFor(
        "the rebase to be settled, or to fail",
        async () => outcomes.includes("error") || (await branchOfRun()) === "topic",
      );
      assert.ok(!outcomes.includes("error"), "the worker settled every job it ran");
      assert.equal(await branchOfRun(), "topic", "the run moved");
    } finally {
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
    const dedupeKey = `${REBASE_JOB_KIND}:${run.id}`;

    const settlingMayLockRun = signal();
    const settlingHoldsJob = signal();
    // The worker settling that run's rebase job: its job's row first, then the run (run-rebase.ts).
    const settling = server.db.transaction().execute(async (tx) => {
      await tx.selectFrom("jobs").select("id").where("dedupe_key", "=", dedupeKey).forUpdate().execute();
      settlingHoldsJob.fire();
      await settlingMayLockRun.fired;
      await tx.selectFrom("analysis_runs").select("id").where("id", "=", run.id).forUpdate().execute();
    });
    await settlingHoldsJob.fired;

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
    if (server.config.databaseUrl) {
      await waitFor(
        "the delivery to wait for the settling transaction",
        async () => (await sessionsWaitingForALock()) > 0,
      );
    }
    // Had the delivery written the run before asking for the job's row, this would close a cycle
    // and PostgreSQL would abort one of the two ("deadlock detected").
    settlingMayLockRun.fire();

    await settling;
    assert.equal((await delivering).status, 200);
    const attached = await server.db
      .selectFrom("analysis_runs")
      .innerJoin("pull_requests", "pull_requests.id", "analysis_runs.pull_request_id")
      .select("pull_requests.number")
      .where("analysis_runs.id", "=", run.id)
      .executeTakeFirstOrThrow();
    assert.equal(attached.number, 5);
    const job = await server.db
      .selectFrom("jobs")
      .select("state")
      .where("dedupe_key", "=", dedupeKey)
      .executeTakeFirstOrThrow();
    assert.equal(job.state, "QUEUED", "the rebase runs again, after the pull request was attached");
  });
});

describe("two SBOMs naming the same new packages at once", () => {
  test("the one that waited for the other's rows answers the same ids, and adds only its own", async () => {
    const name = (suffix: string) => `locks-${newRowKey()}-${suffix}`.toLowerCase();
    const spec = (packageName: string) => ({
      ecosystem: "NPM" as const,
      name: packageName,
      packagePurl: `pkg:npm/${packageName}`,
      version: "1.0.0",
    });
    const [a, b, c] = [spec(name("a")), spec(name("b")), spec(name("c"))];

    const firstMayCommit = signal();
    const firstHoldsRows = signal();
    const first = server.db.transaction().execute(async (tx) => {
      const ids = await upsertPackageVersions(tx, [a, b]);
      firstHoldsRows.fire();
      await firstMayCommit.fired;
      return ids;
    });
    await firstHoldsRows.fired;

    // The second names them in the other order, and one more: on PostgreSQL its insert waits on
    // the first's uncommitted rows, and its read of the known rows cannot see them once they commit.
    const second = server.db.transaction().execute((tx) => upsertPackageVersions(tx, [c, b, a]));
    if (server.config.databaseUrl) {
      await waitFor(
        "the second upsert to wait for the first's rows",
        async () => (await sessionsWaitingForALock()) > 0,
      );
    }
    firstMayCommit.fire();

    const [firstIds, secondIds] = await Promise.all([first, second]);
    const ref = (s: typeof a) => `NPM:${s.name}@1.0.0`;
    assert.deepEqual(secondIds.get(ref(a)), firstIds.get(ref(a)));
    assert.deepEqual(secondIds.get(ref(b)), firstIds.get(ref(b)));
    assert.ok(secondIds.get(ref(c)), "the second inserted the package only it named");
    const stored = await server.db
      .selectFrom("packages")
      .select("name")
      .where("name", "in", [a.name, b.name, c.name])
      .execute();
    assert.equal(stored.length, 3);
  });
});

describe("an advisory import while a newer SBOM replaces a check it is about to match", () => {
  test("the replaced check is passed over and every other check is still matched", async () => {
    // A real OSV record: lodash before 4.17.12.
    const advisory = {
      name: "GHSA-jf85-cpcp-j695.json",
      text: readFileSync(
        new URL("../src/formats/osv/fixtures/GHSA-jf85-cpcp-j695.json", import.meta.url),
        "utf8",
      ),
    };
    const lodash = await aPackage(server.db, { ecosystem: "NPM", name: "lodash" });
    const vulnerable = await aPackageVersion(server.db, lodash, { version: "4.17.11" });
    // Two repositories whose latest runs depend on it; the first one's check is being replaced.
    const checkOf = async () => {
      const repository = await aRepository(server.db, account);
      const run = await aRun(server.db, repository);
      const target = await aTarget(server.db, repository);
      const check = await anScaCheck(server.db, run, { target });
      await scaCheckDependencies(server.db, check, target, [vulnerable]);
      return { run, target, check };
    };
    const replaced = await checkOf();
    const kept = await checkOf();

    const replacementMayCommit = signal();
    const replacementHoldsRow = signal();
    // The newer SBOM's processing, up to the deletion of the run's older check of its target.
    const replacement = server.db.transaction().execute(async (tx) => {
      assert.equal(await deleteScaChecksOfRunTarget(tx, replaced.run.id, replaced.target.id), 1);
      replacementHoldsRow.fire();
      await replacementMayCommit.fired;
    });
    await replacementHoldsRow.fired;

    // On PostgreSQL the import lists both checks (the deletion is not committed) and waits on the
    // replaced one's row lock; the embedded database runs it after the replacement commits.
    const importing = importAdvisories(server.db, [advisory]);
    if (server.config.databaseUrl) {
      await waitFor(
        "the import to wait for the replaced check",
        async () => (await sessionsWaitingForALock()) > 0,
      );
    }
    replacementMayCommit.fire();
    await replacement;

    const summary = await importing;
    assert.equal(summary.imported, 1);
    assert.equal(summary.rematchedChecks, 1, "only the check that still exists was matched");
    assert.equal(summary.occurrencesAdded, 1);
    const occurrences = await server.db
      .selectFrom("vulnerability_occurrences")
      .select(["sca_check_id", "state"])
      .execute();
    assert.deepEqual(occurrences, [{ sca_check_id: kept.check.id, state: "INTRODUCED" }]);
  });
});
