// test-runner: execution-mode independent (uploads go through the intake, not GraphQL execution)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { AccountRow, AnalysisRunRow, CheckRow, RepositoryRow } from "../src/db/types.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import { acceptUpload } from "../src/ingestion/intake.ts";
import type { ArtifactUpload } from "../src/ingestion/types.ts";
import { upsertPackageVersions } from "../src/modules/dependencies/sbom-store.ts";
import { anAccount, aRepository, aUser } from "./helpers/builders.ts";
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

    let releaseProcessing!: () => void;
    const processingMayFinish = new Promise<void>((resolve) => {
      releaseProcessing = resolve;
    });
    let processingHoldsLocks!: () => void;
    const processingLocked = new Promise<void>((resolve) => {
      processingHoldsLocks = resolve;
    });

    // Processing: lock the run, settle its check, then record a metric item of the repository.
    const processing = server.db.transaction().execute(async (tx) => {
      await tx.selectFrom("analysis_runs").select("id").where("id", "=", run.id).forUpdate().execute();
      await tx
        .updateTable("checks")
        .set({ updated_at: sql<Date>`now()` })
        .where("id", "=", check.id)
        .execute();
      processingHoldsLocks();
      await processingMayFinish;
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
    await processingLocked;

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
    releaseProcessing();

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

    let releaseFirst!: () => void;
    const firstMayCommit = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    let firstInserted!: () => void;
    const firstHoldsRows = new Promise<void>((resolve) => {
      firstInserted = resolve;
    });
    const first = server.db.transaction().execute(async (tx) => {
      const ids = await upsertPackageVersions(tx, [a, b]);
      firstInserted();
      await firstMayCommit;
      return ids;
    });
    await firstHoldsRows;

    // The second names them in the other order, and one more: on PostgreSQL its insert waits on
    // the first's uncommitted rows, and its read of the known rows cannot see them once they commit.
    const second = server.db.transaction().execute((tx) => upsertPackageVersions(tx, [c, b, a]));
    if (server.config.databaseUrl) {
      await waitFor(
        "the second upsert to wait for the first's rows",
        async () => (await sessionsWaitingForALock()) > 0,
      );
    }
    releaseFirst();

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
