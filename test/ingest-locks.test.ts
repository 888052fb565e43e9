// test-runner: execution-mode independent (uploads go through the intake, not GraphQL execution)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { AccountRow, AnalysisRunRow, CheckRow, RepositoryRow } from "../src/db/types.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import { acceptUpload } from "../src/ingestion/intake.ts";
import type { ArtifactUpload } from "../src/ingestion/types.ts";
import { importAdvisories } from "../src/modules/dependencies/advisory-import.ts";
import { deleteScaChecksOfRunTarget, upsertPackageVersions } from "../src/modules/dependencies/sbom-store.ts";
import { enqueueRunRebases } from "../src/modules/runs/rebase-job.ts";
import { anAccount, aRepository, aRun, aUser } from "./helpers/builders.ts";
import {
  anScaCheck,
  aPackage,
  aPackageVersion,
  aTarget,
  scaCheckDependencies,
} from "./helpers/builders-dependencies.ts";
import {
  aSettlingRebase,
  attachmentAndRebaseOf,
  signal,
  untilWaitingForALock,
} from "./helpers/lock-waits.ts";
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

/** The first upload of a repository, accepted: the run and the check it made, as processing finds them. */
async function aFirstUpload(repository: RepositoryRow): Promise<{ run: AnalysisRunRow; check: CheckRow }> {
  const first = await acceptUpload(server.db, server.config, logger, repository, sarifUpload());
  const run = await server.db
    .selectFrom("analysis_runs")
    .selectAll()
    .where("key", "=", first.runKey)
    .executeTakeFirstOrThrow();
  const check = await server.db
    .selectFrom("checks")
    .selectAll()
    .where("run_id", "=", run.id)
    .executeTakeFirstOrThrow();
  return { run, check };
}

describe("an upload while its run is being processed", () => {
  test("neither waits on the other in a cycle: both commit, in order", async () => {
    const repository: RepositoryRow = await aRepository(server.db, account);
    // The first upload makes the run and its check, as processing would find them.
    const { run, check } = await aFirstUpload(repository);

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
    try {
      if (server.config.databaseUrl)
        await untilWaitingForALock(server.db, "the upload to wait for the processing transaction");
    } finally {
      // Also when the wait failed: the held transaction ends, and the test with it.
      processingMayFinish.fire();
    }

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

describe("an upload while processing holds its run and has yet to settle the check", () => {
  test("the upload waits for the run before it reopens the check: no deadlock, both commit", async () => {
    const repository: RepositoryRow = await aRepository(server.db, account);
    const { run, check } = await aFirstUpload(repository);

    const processingMaySettle = signal();
    const processingLocked = signal();

    // Processing as the worker orders it: the run's lock first, the check's settlement later.
    const processing = server.db.transaction().execute(async (tx) => {
      await tx.selectFrom("analysis_runs").select("id").where("id", "=", run.id).forUpdate().execute();
      processingLocked.fire();
      await processingMaySettle.fired;
      await tx
        .updateTable("checks")
        .set({ status: "SUCCESS", updated_at: sql<Date>`now()` })
        .where("id", "=", check.id)
        .execute();
    });
    await processingLocked.fired;

    // The second upload must wait for processing before it touches the check: had it reopened the
    // check first, processing's write of it would close a cycle and PostgreSQL would abort one.
    const second = acceptUpload(server.db, server.config, logger, repository, {
      ...sarifUpload(),
      data: sarifUpload().data.replace("a finding", "a third finding"),
    });
    try {
      if (server.config.databaseUrl)
        await untilWaitingForALock(server.db, "the upload to wait for the processing transaction");
    } finally {
      // Also when the wait failed: the held transaction ends, and the test with it.
      processingMaySettle.fire();
    }

    await processing;
    const accepted = await second;
    assert.equal(accepted.runKey, run.key);
    assert.equal(accepted.duplicate, false);
    const reopened = await server.db
      .selectFrom("checks")
      .select("status")
      .where("id", "=", check.id)
      .executeTakeFirstOrThrow();
    assert.equal(reopened.status, "PENDING", "the upload reopened the check processing had settled");
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

    // The worker settling that run's rebase job: its job's row first, then the run (run-rebase.ts).
    const settling = await aSettlingRebase(server.db, run.id);

    // The pull request's own CI job uploads for the same commit, naming the pull request.
    const second = acceptUpload(server.db, server.config, logger, repository, {
      ...sarifUpload(),
      commitOid: commit,
      branch: "feature",
      pullRequestNumber: 7,
      baseBranch: "main",
    });
    try {
      if (server.config.databaseUrl)
        await untilWaitingForALock(server.db, "the upload to wait for the settling transaction");
    } finally {
      // Had the upload locked the run before asking for the job's row, this would close a cycle
      // and PostgreSQL would abort one of the two ("deadlock detected").
      // Also when the wait failed: the held transaction ends, and the test with it.
      settling.mayLockRun();
    }

    await settling.settled;
    const accepted = await second;
    assert.equal(accepted.runKey, run.key, "the upload joined the run");
    assert.deepEqual(
      await attachmentAndRebaseOf(server.db, run.id),
      { pullRequestNumber: 7, rebaseJob: "QUEUED" },
      "attached, and the rebase runs again after the attachment",
    );
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
    try {
      if (server.config.databaseUrl)
        await untilWaitingForALock(server.db, "the second upsert to wait for the first's rows");
    } finally {
      // Also when the wait failed: the held transaction ends, and the test with it.
      firstMayCommit.fire();
    }

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
    try {
      if (server.config.databaseUrl)
        await untilWaitingForALock(server.db, "the import to wait for the replaced check");
    } finally {
      // Also when the wait failed: the held transaction ends, and the test with it.
      replacementMayCommit.fire();
    }
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
