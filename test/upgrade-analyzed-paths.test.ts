// test-runner: execution-mode independent (migrates a database; no GraphQL)
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { after, test } from "node:test";
import { Migrator } from "kysely";
import { migrateToLatest, openDatabase } from "../src/db/database.ts";
import { migrationProvider } from "../src/db/migrations/index.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import { createEmptyDatabase } from "./helpers/database.ts";
import { insert, insertPlain, type OldDb } from "./helpers/legacy-rows.ts";

/**
 * Migration 0042 (docs/ingestion.md "Status"): `artifact_finding_paths` becomes
 * `artifact_analyzed_paths`, the files an artifact's tool analyzed, with every row it held (a file
 * an artifact gave a finding in is one it analyzed), still deleted with its artifact.
 */

const LAST_BEFORE = "0041-artifact-finding-paths";

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** A processed SARIF artifact of a check, as migration 0041's version stores one. */
async function anOldArtifact(db: OldDb): Promise<string> {
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
  const analyzerId = await insert(db, "analyzers", {
    key: newRowKey(),
    shortcode: "eslint",
    name: "eslint",
    type: "COMMUNITY",
  });
  const checkId = await insert(db, "checks", {
    key: newRowKey(),
    run_id: runId,
    analyzer_id: analyzerId,
    sequence: 0,
    status: "SUCCESS",
    finished_at: "2026-11-01T10:05:00Z",
  });
  return insert(db, "artifacts", {
    key: newRowKey(),
    repository_id: repositoryId,
    run_id: runId,
    check_id: checkId,
    kind: "SARIF",
    analyzer: "eslint",
    analyzer_type: "community",
    reporter: "test",
    compression: "NONE",
    stored_bytes: 10,
    content_sha256: randomBytes(32),
    status: "PROCESSED",
  });
}

test("keeps every file an artifact gave findings in as one it analyzed, deleted with its artifact", async () => {
  const database = await createEmptyDatabase();
  cleanups.push(() => database.drop());
  const handle = await openDatabase({
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    databasePoolSize: 2,
  });
  const db = handle.db as OldDb;
  try {
    const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(LAST_BEFORE);
    if (error) throw error;
    const artifactId = await anOldArtifact(db);
    const paths = ["src/a.js", "src/sp ace/é.js"];
    for (const path of paths)
      await insertPlain(db, "artifact_finding_paths", { artifact_id: artifactId, path });

    assert.ok((await migrateToLatest(handle.db)).includes("0042-artifact-analyzed-paths"));

    const rows = await handle.db
      .selectFrom("artifact_analyzed_paths")
      .select(["artifact_id", "path"])
      .orderBy("path")
      .execute();
    assert.deepEqual(
      rows.map((row) => ({ ...row, artifact_id: String(row.artifact_id) })),
      paths.map((path) => ({ artifact_id: artifactId, path })),
    );
    // The same file once per artifact, and its rows go with the artifact.
    await assert.rejects(
      handle.db
        .insertInto("artifact_analyzed_paths")
        .values({ artifact_id: artifactId, path: "src/a.js" })
        .execute(),
      /duplicate key value violates unique constraint "artifact_analyzed_paths_pkey"/,
    );
    await handle.db.deleteFrom("artifacts").where("id", "=", artifactId).execute();
    assert.deepEqual(await handle.db.selectFrom("artifact_analyzed_paths").select("path").execute(), []);
  } finally {
    await handle.close();
  }
});
