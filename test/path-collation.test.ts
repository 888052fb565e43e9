// test-runner: execution-mode independent (migrates a database and pages it through the connection loader; no server)
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { type Kysely, Migrator, sql } from "kysely";
import { type DatabaseHandle, migrateToLatest, openDatabase } from "../src/db/database.ts";
import { migrationProvider } from "../src/db/migrations/index.ts";
import type { Database } from "../src/db/types.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import {
  ConnectionLoaders,
  type ConnectionResult,
  type ConnectionSource,
} from "../src/graphql/pagination.ts";
import { occurrencesOfCheck } from "../src/modules/checks/occurrence-store.ts";
import { COVERAGE_FILE_SOURCES } from "../src/modules/coverage/coverage-file-store.ts";
import { targetsOfRepository } from "../src/modules/dependencies/dependencies-store.ts";
import { createEmptyDatabase } from "./helpers/database.ts";
import { insert, insertPlain, insertRepositoryWithRun, type OldDb } from "./helpers/legacy-rows.ts";

/**
 * Paths the API lists in order compare bytewise (git's order of paths, and the embedded
 * database's), also on a PostgreSQL database whose own collation is a language's, where they used
 * to come in that language's order: findings since migration 0045, coverage files and dependency
 * targets since 0046. An upgrade keeps every row. On PostgreSQL the database is made with ICU's
 * `en-US` collation; the embedded database is always `C`, so there the order was bytewise before
 * the migrations too, and the tests say so.
 */

const BEFORE_FINDINGS = "0044-occurrence-deferred-former-fingerprint";
const BEFORE_OTHER_PATHS = "0045-occurrence-bytewise-collation";
const ON_POSTGRES = Boolean(process.env.DATABASE_URL);

/** Paths whose order under a language's collation differs from their bytes' order. */
const PATHS = [
  "src/a.ts",
  "src/B.ts",
  "src/ab.ts",
  "src/Ab.ts",
  "src/a_b.ts",
  "src/a-b.ts",
  "lib/z.ts",
  "src/ä.ts",
  "src/z.ts",
];

const bytewise = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const BYTEWISE = [...PATHS].sort(bytewise);

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A new database of a language's collation (PostgreSQL) or the embedded one, migrated to `version`. */
async function aDatabaseAt(version: string): Promise<{ handle: DatabaseHandle; db: OldDb }> {
  const database = await createEmptyDatabase(ON_POSTGRES ? { icuLocale: "en-US" } : {});
  cleanups.push(() => database.drop());
  const handle = await openDatabase({
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    databasePoolSize: 2,
  });
  cleanups.push(() => handle.close());
  const db = handle.db as OldDb;
  const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(version);
  assert.ifError(error);
  return { handle, db };
}

/**
 * The premise, on rows read in the database's order before the upgrade: on PostgreSQL a
 * language's rules (capitals with their small letters, punctuation after letters), not bytes; the
 * embedded database is `C`.
 */
async function assertOrderBeforeUpgrade(db: OldDb, before: readonly string[], bytes: readonly string[]) {
  if (ON_POSTGRES) {
    assert.notDeepEqual(before, bytes, "the database's own collation orders these paths as bytes do");
    return;
  }
  const { rows } = await sql<{ datcollate: string }>`
    SELECT datcollate FROM pg_database WHERE datname = current_database()`.execute(db);
  assert.equal(rows[0]?.datcollate, "C", "the embedded database compares text as bytes");
  assert.deepEqual(before, bytes);
}

/** The collation of each of `columns` of `table`, and which of them have statistics. */
async function collationsAndStatistics(db: OldDb, table: string, columns: readonly string[]) {
  const { rows: collations } = await sql<{ attname: string; collname: string }>`
    SELECT a.attname, c.collname
    FROM pg_attribute AS a JOIN pg_collation AS c ON c.oid = a.attcollation
    WHERE a.attrelid = ${table}::regclass AND a.attname = ANY(${columns}::text[])
    ORDER BY a.attname`.execute(db);
  const { rows: gathered } = await sql<{ attname: string }>`
    SELECT attname FROM pg_stats
    WHERE schemaname = current_schema() AND tablename = ${table} AND attname = ANY(${columns}::text[])
    ORDER BY attname`.execute(db);
  return {
    collations: Object.fromEntries(collations.map((row) => [row.attname, row.collname])),
    withStatistics: gathered.map((row) => row.attname),
  };
}

/** Every row of `source` under `parentId` through the API's connection, `first` at a time, following cursors. */
async function paged<Row>(
  db: Kysely<Database>,
  source: ConnectionSource,
  parentId: string,
  first: number,
): Promise<Row[]> {
  const rows: Row[] = [];
  let after: string | null = null;
  for (;;) {
    const page: ConnectionResult<Row> = await new ConnectionLoaders(db).load(source, parentId, {
      first,
      after,
    });
    for (const edge of page.edges) rows.push(edge.node);
    if (!(await page.pageInfo.hasNextPage())) return rows;
    after = page.pageInfo.endCursor;
  }
}

/** A repository with a finished run and one check of an analyzer, as every version since 0002 stores them. */
async function anOldRepositoryWithACheck(
  db: OldDb,
): Promise<{ repositoryId: string; analyzerId: string; checkId: string }> {
  const analyzerId = await insert(db, "analyzers", { key: newRowKey(), shortcode: "eslint", name: "ESLint" });
  const { repositoryId, runId } = await insertRepositoryWithRun(db, "acme");
  const checkId = await insert(db, "checks", {
    key: newRowKey(),
    run_id: runId,
    analyzer_id: analyzerId,
    sequence: 0,
    status: "SUCCESS",
    finished_at: "2026-11-01T10:05:00Z",
  });
  return { repositoryId, analyzerId, checkId };
}

/** A check with one finding per path (line 1), written as the version before 0045 wrote them. */
async function anOldCheckWithFindings(db: OldDb): Promise<{ checkId: string; keys: string[] }> {
  const { analyzerId, checkId } = await anOldRepositoryWithACheck(db);
  const issueId = await insert(db, "issues", {
    key: newRowKey(),
    analyzer_id: analyzerId,
    shortcode: "no-console",
    title: "Unexpected console statement",
    category: "BUG_RISK",
    severity: "MINOR",
  });
  const keys: string[] = [];
  for (const path of PATHS) {
    const key = newRowKey();
    keys.push(key);
    await insert(db, "occurrences", {
      key,
      check_id: checkId,
      issue_id: issueId,
      path,
      begin_line: 1,
      end_line: 1,
      title: "Unexpected console statement",
      fingerprint: `fp-${path}`,
      state: "INTRODUCED",
    });
  }
  return { checkId, keys };
}

/** The check's findings' paths in the order the database gives them. */
async function pathsInOrder(db: OldDb, checkId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("occurrences")
    .select("path")
    .where("check_id", "=", checkId)
    .orderBy("path")
    .orderBy("begin_line")
    .orderBy("key")
    .execute();
  return rows.map((row) => row.path as string);
}

test("findings come by path compared bytewise after the upgrade, on a database of a language's collation too, keep their keys, and the columns keep statistics", async () => {
  const { handle, db } = await aDatabaseAt(BEFORE_FINDINGS);
  const { checkId, keys } = await anOldCheckWithFindings(db);
  await sql`ANALYZE occurrences`.execute(db);
  const before = await pathsInOrder(db, checkId);
  await assertOrderBeforeUpgrade(db, before, BYTEWISE);
  if (ON_POSTGRES) assert.ok(before.indexOf("src/B.ts") > before.indexOf("src/a.ts"));

  await migrateToLatest(handle.db);

  assert.deepEqual(await pathsInOrder(db, checkId), BYTEWISE);
  // The API's pages, two findings at a time: the cursor's comparison follows the same order.
  assert.deepEqual(
    (await paged<{ path: string }>(handle.db, occurrencesOfCheck, checkId, 2)).map((row) => row.path),
    BYTEWISE,
  );
  const kept = await db.selectFrom("occurrences").select("key").where("check_id", "=", checkId).execute();
  assert.deepEqual(
    kept.map((row) => row.key as string).sort(),
    [...keys].sort(),
    "every finding kept its key",
  );
  const columns = ["key", "path", "fingerprint", "former_fingerprint", "deferred_former_fingerprint"];
  const { collations, withStatistics } = await collationsAndStatistics(db, "occurrences", columns);
  assert.deepEqual(collations, Object.fromEntries(columns.map((column) => [column, "C"])));
  // Changing a column's collation drops its statistics; the migration gathers them again.
  assert.deepEqual(withStatistics, [...columns].sort());
});

test("coverage files and dependency targets come by path compared bytewise after the upgrade, on a database of a language's collation too", async () => {
  const { handle, db } = await aDatabaseAt(BEFORE_OTHER_PATHS);
  const { repositoryId, checkId } = await anOldRepositoryWithACheck(db);
  // Two language keys for one file: the files come by path, then key (`C_AND_CPP` after `CSHARP` bytewise).
  const files = [
    ...PATHS.map((path) => ({ path, metricKey: "JAVASCRIPT" })),
    { path: "src/a.ts", metricKey: "CSHARP" },
    { path: "src/a.ts", metricKey: "C_AND_CPP" },
  ];
  for (const { path, metricKey } of files) {
    await insertPlain(db, "coverage_check_files", {
      check_id: checkId,
      metric_key: metricKey,
      path,
      reports: 1,
      lines_total: 10,
      lines_covered: 5,
      branches_total: 0,
      branches_covered: 0,
      uncovered_lines: sql`'{1,2,3,4,5}'::integer[]`,
    });
  }
  const lockfiles = PATHS.map((path) => `${path.slice(0, -".ts".length)}/package-lock.json`);
  for (const lockfile of lockfiles) {
    await insert(db, "repository_targets", {
      key: newRowKey(),
      repository_id: repositoryId,
      ecosystem: "NPM",
      package_manager: "NPM",
      lockfile_path: lockfile,
    });
  }
  await sql`ANALYZE coverage_check_files`.execute(db);
  await sql`ANALYZE repository_targets`.execute(db);
  const fileOrder = (rows: ReadonlyArray<{ path: string; metric_key: string }>) =>
    rows.map((row) => `${row.path} ${row.metric_key}`);
  const filesInOrder = async () =>
    fileOrder(
      await db
        .selectFrom("coverage_check_files")
        .select(["path", "metric_key"])
        .where("check_id", "=", checkId)
        .orderBy("path")
        .orderBy("metric_key")
        .execute(),
    );
  const lockfilesInOrder = async () =>
    (
      await db
        .selectFrom("repository_targets")
        .select("lockfile_path")
        .where("repository_id", "=", repositoryId)
        .orderBy("lockfile_path")
        .execute()
    ).map((row) => row.lockfile_path as string);
  const bytewiseFiles = [...files]
    .sort((a, b) => bytewise(a.path, b.path) || bytewise(a.metricKey, b.metricKey))
    .map(({ path, metricKey }) => `${path} ${metricKey}`);
  const bytewiseLockfiles = [...lockfiles].sort(bytewise);
  await assertOrderBeforeUpgrade(db, await filesInOrder(), bytewiseFiles);
  await assertOrderBeforeUpgrade(db, await lockfilesInOrder(), bytewiseLockfiles);

  await migrateToLatest(handle.db);

  assert.deepEqual(await filesInOrder(), bytewiseFiles);
  assert.deepEqual(fileOrder(await paged(handle.db, COVERAGE_FILE_SOURCES.PATH, checkId, 3)), bytewiseFiles);
  assert.deepEqual(await lockfilesInOrder(), bytewiseLockfiles);
  assert.deepEqual(
    (await paged<{ lockfile_path: string }>(handle.db, targetsOfRepository, repositoryId, 3)).map(
      (row) => row.lockfile_path,
    ),
    bytewiseLockfiles,
  );
  const coverage = await collationsAndStatistics(db, "coverage_check_files", ["path", "metric_key"]);
  assert.deepEqual(coverage, {
    collations: { metric_key: "C", path: "C" },
    withStatistics: ["metric_key", "path"],
  });
  const targets = await collationsAndStatistics(db, "repository_targets", ["lockfile_path"]);
  assert.deepEqual(targets, { collations: { lockfile_path: "C" }, withStatistics: ["lockfile_path"] });
});
