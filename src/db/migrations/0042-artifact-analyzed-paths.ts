import { type Kysely, sql } from "kysely";

/**
 * `artifact_finding_paths` (migration 0041) becomes `artifact_analyzed_paths`, the repository files
 * an artifact's report says its tool analyzed: those it gave a finding in, as before, and now also
 * those its runs list among their `artifacts` (SARIF's `run.artifacts`; ESLint's formatter lists
 * every file ESLint linted, those it found nothing in among them), less those a notification of
 * the tool names (a file ESLint could not parse, or was given and ignored, which it lists too). A
 * shard that linted a file and found nothing there then says so, and a file another shard of the
 * check could not analyze counts as analyzed (docs/ingestion.md "Status").
 *
 * Only names change: a file an artifact gave a finding in is one it analyzed under the wider
 * meaning too, so the rows stay. Artifacts processed before keep the files of their findings
 * alone, as their reports were read then.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE artifact_finding_paths RENAME TO artifact_analyzed_paths`.execute(db);
  await sql`
    ALTER TABLE artifact_analyzed_paths
      RENAME CONSTRAINT artifact_finding_paths_pkey TO artifact_analyzed_paths_pkey
  `.execute(db);
  await sql`
    ALTER TABLE artifact_analyzed_paths
      RENAME CONSTRAINT artifact_finding_paths_artifact_id_fkey TO artifact_analyzed_paths_artifact_id_fkey
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE artifact_analyzed_paths
      RENAME CONSTRAINT artifact_analyzed_paths_artifact_id_fkey TO artifact_finding_paths_artifact_id_fkey
  `.execute(db);
  await sql`
    ALTER TABLE artifact_analyzed_paths
      RENAME CONSTRAINT artifact_analyzed_paths_pkey TO artifact_finding_paths_pkey
  `.execute(db);
  await sql`ALTER TABLE artifact_analyzed_paths RENAME TO artifact_finding_paths`.execute(db);
}
