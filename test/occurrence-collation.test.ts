// test-runner: execution-mode independent (migrates a database and pages it through the connection loader; no server)
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, test } from "node:test";
import { type Kysely, Migrator, sql } from "kysely";
import { migrateToLatest, openDatabase } from "../src/db/database.ts";
import { migrationProvider } from "../src/db/migrations/index.ts";
import type { Database } from "../src/db/types.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import { ConnectionLoaders, type ConnectionResult } from "../src/graphql/pagination.ts";
import { occurrencesOfCheck } from "../src/modules/checks/occurrence-store.ts";
import { createEmptyDatabase } from "./helpers/database.ts";
import { insert, type OldDb } from "./helpers/legacy-rows.ts";

/**
 * Migration 0045: findings come by path, line and key compared bytewise (git's order of paths, and
 * the embedded database's), also on a PostgreSQL database whose own collation is a language's,
 * where they used to come in that language's order; an upgrade keeps every finding and its key.
 * On PostgreSQL the database is made with ICU's `en-US` collation; the embedded database is always
 * `C`, so there the order was bytewise before the migration too, and the test says so.
 */

const LAST_BEFORE = "0044-occurrence-deferred-former-fingerprint";
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

/** A check with one finding per path (line 1), written as the version before 0045 wrote them. */
async function anOldCheckWithFindings(db: OldDb): Promise<{ checkId: string; keys: string[] }> {
  const analyzerId = await insert(db, "analyzers", { key: newRowKey(), shortcode: "eslint", name: "ESLint" });
  const issueId = await insert(db, "issues", {
    key: newRowKey(),
    analyzer_id: analyzerId,
    shortcode: "no-console",
    title: "Unexpected console statement",
    category: "BUG_RISK",
    severity: "MINOR",
  });
  const accountId = await insert(db, "accounts", {
    key: newRowKey(),
    login: "acme",
    vcs_provider: "GITHUB",
    type: "TEAM",
  });
  const repositoryId = await insert(db, "repositories", {
    key: newRowKey(),
    account_id: accountId,
    name: "app",
    default_branch: "main",
  });
  const runId = await insert(db, "analysis_runs", {
    key: newRowKey(),
    run_uid: randomUUID(),
    repository_id: repositoryId,
    branch_name: "main",
    commit_oid: "a".repeat(40),
    status: "SUCCESS",
    finished_at: "2026-11-01T10:00:00Z",
  });
  const checkId = await insert(db, "checks", {
    key: newRowKey(),
    run_id: runId,
    analyzer_id: analyzerId,
    sequence: 0,
    status: "SUCCESS",
    finished_at: "2026-11-01T10:05:00Z",
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

/** Every finding of the check through the API's connection, `first` at a time, following cursors. */
async function pathsPaged(db: Kysely<Database>, checkId: string, first: number): Promise<string[]> {
  const paths: string[] = [];
  let after: string | null = null;
  for (;;) {
    const page: ConnectionResult<{ path: string }> = await new ConnectionLoaders(db).load(
      occurrencesOfCheck,
      checkId,
      {
        first,
        after,
      },
    );
    for (const edge of page.edges) paths.push(edge.node.path);
    if (!(await page.pageInfo.hasNextPage())) return paths;
    after = page.pageInfo.endCursor;
  }
}

test("findings come by path compared bytewise after the upgrade, on a database of a language's collation too, keep their keys, and the columns keep statistics", async () => {
  const database = await createEmptyDatabase(ON_POSTGRES ? { icuLocale: "en-US" } : {});
  cleanups.push(() => database.drop());
  const handle = await openDatabase({
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    databasePoolSize: 2,
  });
  cleanups.push(() => handle.close());
  const db = handle.db as OldDb;
  const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(LAST_BEFORE);
  assert.ifError(error);
  const { checkId, keys } = await anOldCheckWithFindings(db);
  await sql`ANALYZE occurrences`.execute(db);

  const before = await pathsInOrder(db, checkId);
  if (ON_POSTGRES) {
    // The premise: this database orders text by a language's rules (capitals with their small
    // letters, punctuation after letters), not by bytes.
    assert.notDeepEqual(before, BYTEWISE, "the database's own collation orders these paths as bytes do");
    assert.ok(before.indexOf("src/B.ts") > before.indexOf("src/a.ts"));
  } else {
    const { rows } = await sql<{ datcollate: string }>`
      SELECT datcollate FROM pg_database WHERE datname = current_database()`.execute(db);
    assert.equal(rows[0]?.datcollate, "C", "the embedded database compares text as bytes");
    assert.deepEqual(before, BYTEWISE);
  }

  await migrateToLatest(handle.db);

  assert.deepEqual(await pathsInOrder(db, checkId), BYTEWISE);
  // The API's pages, two findings at a time: the cursor's comparison follows the same order.
  assert.deepEqual(await pathsPaged(handle.db, checkId, 2), BYTEWISE);
  const kept = await db.selectFrom("occurrences").select("key").where("check_id", "=", checkId).execute();
  assert.deepEqual(
    kept.map((row) => row.key as string).sort(),
    [...keys].sort(),
    "every finding kept its key",
  );
  const { rows: collations } = await sql<{ attname: string; collname: string }>`
    SELECT a.attname, c.collname
    FROM pg_attribute AS a JOIN pg_collation AS c ON c.oid = a.attcollation
    WHERE a.attrelid = 'occurrences'::regclass
      AND a.attname IN ('key', 'path', 'fingerprint', 'former_fingerprint', 'deferred_former_fingerprint')
    ORDER BY a.attname`.execute(db);
  // Changing a column's collation drops its statistics; the migration gathers them again.
  const { rows: gathered } = await sql<{ attname: string }>`
    SELECT attname FROM pg_stats
    WHERE schemaname = current_schema() AND tablename = 'occurrences' AND attname IN ('key', 'path', 'fingerprint')
    ORDER BY attname`.execute(db);
  assert.deepEqual(
    gathered.map((row) => row.attname),
    ["fingerprint", "key", "path"],
  );
  assert.deepEqual(
    collations.map((row) => [row.attname, row.collname]),
    [
      ["deferred_former_fingerprint", "C"],
      ["fingerprint", "C"],
      ["former_fingerprint", "C"],
      ["key", "C"],
      ["path", "C"],
    ],
  );
});
