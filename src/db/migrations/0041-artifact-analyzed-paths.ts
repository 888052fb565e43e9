import { type Kysely, sql } from "kysely";

/**
 * `artifact_analyzed_paths`: the repository files an artifact's report says its tool analyzed.
 * Those it gave a finding in (a result placed in the repository, whether stored, left out as
 * already reported by another artifact of the check, repeated, suppressed, excluded or of a
 * category not reported), and those its runs list among their `artifacts` (SARIF's
 * `run.artifacts`: ESLint's formatter lists every file ESLint linted, those it found nothing in
 * among them), less those a notification of the tool names (a file it could not parse, or was
 * given and ignored) or its results say it could not analyze (`result.unanalyzedPaths`). In a
 * check of several shards, a file one shard could not analyze counts as unanalyzed only when no
 * other artifact of the check analyzed it (docs/ingestion.md "Status"). Artifacts processed
 * before have no rows: they are taken to have analyzed nothing, which keeps the base's findings
 * where they were kept before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE artifact_analyzed_paths (
      artifact_id bigint NOT NULL REFERENCES artifacts (id) ON DELETE CASCADE,
      path text NOT NULL,
      PRIMARY KEY (artifact_id, path)
    )
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS artifact_analyzed_paths`.execute(db);
}
