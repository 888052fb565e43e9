// test-runner: execution-mode independent (the database's own guarantees; no GraphQL)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Kysely, sql } from "kysely";
import { type DatabaseHandle, openDatabase } from "../src/db/database.ts";
import type { AnalyzerRow, CheckRow, Database, IssueRow, RepositoryRow } from "../src/db/types.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aRun, aUser } from "./helpers/builders.ts";
import { anArtifact } from "./helpers/builders-artifacts.ts";
import { anAnalyzer, anIssue } from "./helpers/builders-catalog.ts";
import { aCheck, occurrencesIn } from "./helpers/builders-checks.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/database.ts";
import { signal, untilWaitingForALock } from "./helpers/lock-waits.ts";

/**
 * An occurrence's check, artifact and issue are kept by triggers that work per statement (migration
 * 0021) rather than by foreign keys that check every row. These tests hold them to what the
 * foreign keys guaranteed: no occurrence names a parent that does not exist, deleting a check or an
 * artifact deletes its occurrences, an issue that occurrences name cannot be deleted, and a parent
 * deleted while its findings are being written either takes them along or makes the write fail.
 */

let database: TestDatabase;
let handle: DatabaseHandle;
let db: Kysely<Database>;
let repository: RepositoryRow;
let analyzer: AnalyzerRow;
let issue: IssueRow;

before(async () => {
  database = await createTestDatabase();
  // Two transactions held open at once, and a third connection to watch them wait.
  handle = await openDatabase({
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    databasePoolSize: 4,
  });
  db = handle.db;
  const user = await aUser(db);
  const account = await anAccount(db, {}, [{ user, role: "ADMIN" }]);
  repository = await aRepository(db, account);
  analyzer = await anAnalyzer(db);
  issue = await anIssue(db, analyzer);
});
after(async () => {
  await handle?.close();
  await database?.drop();
});

async function aCheckOfNewRun(): Promise<CheckRow> {
  return aCheck(db, await aRun(db, repository), analyzer);
}

/** Inserts one raw occurrence row per parent triple, in one statement. */
function insertRows(
  rows: ReadonlyArray<{ checkId: string; issueId: string; artifactId?: string | null }>,
  on: Kysely<Database> = db,
) {
  return on
    .insertInto("occurrences")
    .values(
      rows.map((row, i) => ({
        key: newRowKey(),
        check_id: row.checkId,
        issue_id: row.issueId,
        artifact_id: row.artifactId ?? null,
        path: "src/a.ts",
        begin_line: i + 1,
        end_line: i + 1,
        title: "a finding",
        fingerprint: newRowKey(),
        state: "INTRODUCED" as const,
      })),
    )
    .execute();
}

async function occurrencesOfCheck(checkId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM occurrences WHERE check_id = ${checkId}`.execute(db);
  return rows[0]!.n;
}

/** The SQLSTATE and constraint of what `write` threw. */
async function refusal(
  write: Promise<unknown>,
): Promise<{ code: string; constraint: string; detail: string }> {
  const error = await write.then(
    () => assert.fail("the write was accepted"),
    (caught: unknown) => caught as { code: string; constraint: string; detail: string },
  );
  return { code: error.code, constraint: error.constraint, detail: error.detail };
}

const NO_SUCH_ID = "999999999";

describe("writing occurrences", () => {
  test("a statement naming a check that does not exist is refused whole, as a foreign key refuses it", async () => {
    const check = await aCheckOfNewRun();
    const refused = await refusal(
      insertRows([
        { checkId: check.id, issueId: issue.id },
        { checkId: NO_SUCH_ID, issueId: issue.id },
      ]),
    );
    assert.deepEqual(refused, {
      code: "23503",
      constraint: "occurrences_check_id_fkey",
      detail: `Key (check_id)=(${NO_SUCH_ID}) is not present in table "checks".`,
    });
    assert.equal(await occurrencesOfCheck(check.id), 0, "not even the row whose check exists was kept");
  });

  test("so is one naming an artifact or an issue that does not exist", async () => {
    const check = await aCheckOfNewRun();
    const artifact = await refusal(
      insertRows([{ checkId: check.id, issueId: issue.id, artifactId: NO_SUCH_ID }]),
    );
    assert.equal(artifact.code, "23503");
    assert.equal(artifact.constraint, "occurrences_artifact_id_fkey");
    const missingIssue = await refusal(insertRows([{ checkId: check.id, issueId: NO_SUCH_ID }]));
    assert.equal(missingIssue.code, "23503");
    assert.equal(missingIssue.constraint, "occurrences_issue_id_fkey");
    assert.equal(await occurrencesOfCheck(check.id), 0);
  });

  test("rows whose parents all exist are written, with or without an artifact", async () => {
    const run = await aRun(db, repository);
    const check = await aCheck(db, run, analyzer);
    const artifact = await anArtifact(db, run, check);
    await insertRows([
      { checkId: check.id, issueId: issue.id, artifactId: artifact.id },
      { checkId: check.id, issueId: issue.id },
    ]);
    assert.equal(await occurrencesOfCheck(check.id), 2);
  });

  test("moving an occurrence to a check that does not exist is refused", async () => {
    const check = await aCheckOfNewRun();
    const [row] = await occurrencesIn(db, check, [{ issue }]);
    const refused = await refusal(
      db.updateTable("occurrences").set({ check_id: NO_SUCH_ID }).where("id", "=", row!.id).execute(),
    );
    assert.equal(refused.code, "23503");
    assert.equal(refused.constraint, "occurrences_check_id_fkey");
    const other = await aCheckOfNewRun();
    await db.updateTable("occurrences").set({ check_id: other.id }).where("id", "=", row!.id).execute();
    assert.equal(await occurrencesOfCheck(other.id), 1, "a move to a check that exists is allowed");
  });
});

describe("deleting a parent", () => {
  test("deleting a check deletes its occurrences and no other check's", async () => {
    const [gone, kept] = [await aCheckOfNewRun(), await aCheckOfNewRun()];
    await occurrencesIn(db, gone, [{ issue }, { issue }]);
    await occurrencesIn(db, kept, [{ issue }]);
    await db.deleteFrom("checks").where("id", "=", gone.id).execute();
    assert.equal(await occurrencesOfCheck(gone.id), 0);
    assert.equal(await occurrencesOfCheck(kept.id), 1);
  });

  test("deleting an artifact deletes the occurrences it wrote, and leaves the check's others", async () => {
    const run = await aRun(db, repository);
    const check = await aCheck(db, run, analyzer);
    const artifact = await anArtifact(db, run, check);
    await insertRows([
      { checkId: check.id, issueId: issue.id, artifactId: artifact.id },
      { checkId: check.id, issueId: issue.id, artifactId: artifact.id },
      { checkId: check.id, issueId: issue.id },
    ]);
    await db.deleteFrom("artifacts").where("id", "=", artifact.id).execute();
    assert.equal(await occurrencesOfCheck(check.id), 1);
  });

  test("deleting a repository deletes every occurrence of its runs' checks", async () => {
    const account = await anAccount(db);
    const doomed = await aRepository(db, account);
    const run = await aRun(db, doomed);
    const checks = [await aCheck(db, run, analyzer), await aCheck(db, await aRun(db, doomed), analyzer)];
    for (const check of checks) await occurrencesIn(db, check, [{ issue }]);
    await db.deleteFrom("repositories").where("id", "=", doomed.id).execute();
    for (const check of checks) assert.equal(await occurrencesOfCheck(check.id), 0);
  });

  test("an issue that occurrences name cannot be deleted; one they do not name can", async () => {
    const named = await anIssue(db, analyzer);
    await occurrencesIn(db, await aCheckOfNewRun(), [{ issue: named }]);
    // The check's issue counts name it too; they have a foreign key of their own.
    await db.deleteFrom("check_issue_counts").where("issue_id", "=", named.id).execute();
    const refused = await refusal(db.deleteFrom("issues").where("id", "=", named.id).execute());
    assert.equal(refused.code, "23503");
    assert.equal(refused.constraint, "occurrences_issue_id_fkey");
    const unnamed = await anIssue(db, analyzer);
    await db.deleteFrom("issues").where("id", "=", unnamed.id).execute();
  });
});

describe("a check deleted while its findings are written", () => {
  // The embedded database runs one transaction at a time, so there the second side simply waits
  // for the first to end; on PostgreSQL it waits for the first's row lock, which the test sees.
  const isPostgres = () => handle.kind === "postgres";

  test("a delete that comes after the insert waits for it, then takes its rows along", async () => {
    const check = await aCheckOfNewRun();
    const inserted = signal();
    const mayCommit = signal();
    const writing = db.transaction().execute(async (tx) => {
      await insertRows([{ checkId: check.id, issueId: issue.id }], tx);
      inserted.fire();
      await mayCommit.fired;
    });
    await inserted.fired;
    const deleting = db.deleteFrom("checks").where("id", "=", check.id).execute();
    try {
      if (isPostgres()) await untilWaitingForALock(db, "the delete to wait for the insert's lock");
    } finally {
      // Also when the wait failed: the held transaction ends, and the test with it.
      mayCommit.fire();
    }
    await writing;
    await deleting;
    assert.equal(await occurrencesOfCheck(check.id), 0, "no occurrence outlived its check");
  });

  test("an insert that comes after the delete waits for it, then fails", async () => {
    const check = await aCheckOfNewRun();
    const deleted = signal();
    const mayCommit = signal();
    const deleting = db.transaction().execute(async (tx) => {
      await tx.deleteFrom("checks").where("id", "=", check.id).execute();
      deleted.fire();
      await mayCommit.fired;
    });
    await deleted.fired;
    const writing = refusal(insertRows([{ checkId: check.id, issueId: issue.id }]));
    try {
      if (isPostgres()) await untilWaitingForALock(db, "the insert to wait for the delete's lock");
    } finally {
      // Also when the wait failed: the held transaction ends, and the test with it.
      mayCommit.fire();
    }
    await deleting;
    const refused = await writing;
    assert.equal(refused.code, "23503");
    assert.equal(refused.constraint, "occurrences_check_id_fkey");
    assert.equal(await occurrencesOfCheck(check.id), 0);
  });
});
