import { type Kysely, sql } from "kysely";

/**
 * `artifact_finding_paths`: the repository files in which an artifact's report gave a finding
 * (a result placed in the repository, whether stored, left out as already reported by another
 * artifact of the check, repeated, suppressed, excluded or of a category not reported). A report
 * that gives a finding in a file analyzed that file, unless its tool said it could not
 * (`result.unanalyzedPaths`): in a check of several shards, a file one shard could not analyze
 * counts as unanalyzed only when no other artifact of the check analyzed it (docs/ingestion.md
 * "Status"). Artifacts processed before have no rows: they are taken to have analyzed nothing,
 * which keeps the base's findings where they were kept before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE artifact_finding_paths (
      artifact_id bigint NOT NULL REFERENCES artifacts (id) ON DELETE CASCADE,
      path text NOT NULL,
      PRIMARY KEY (artifact_id, path)
    )
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS artifact_finding_paths`.execute(db);
}
