import { type Kysely, sql } from "kysely";

/**
 * `artifacts.repository_root`: the checkout's root on the machine that made the report, when the
 * upload said the report was made in a subdirectory of it (`uploadArtifact`'s `repositoryRoot`,
 * sent by `assay upload --work-dir` with a directory inside the git checkout). With it, the
 * report's paths are placed under the subdirectory the upload's `workDir` is in the checkout
 * (docs/ingestion.md "Where the report's paths lead"), and the API shows it as
 * `Artifact.repositoryRoot`. Artifacts stored before have none, and are read as they were: their
 * `workDir` is the repository's root.
 *
 * The same bytes made in two subdirectories are two reports (two services of one checkout with
 * the same files write the same coverage report), so the index that keeps one artifact per report
 * and run takes the placement in: the root, and `work_dir` when there is a root. Without a root it
 * is what it was.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE artifacts ADD COLUMN repository_root text`.execute(db);
  await sql`DROP INDEX artifacts_content_idx`.execute(db);
  await sql`CREATE UNIQUE INDEX artifacts_content_idx ON artifacts (
    run_id, analyzer, coalesce(language_key, ''), content_sha256, coalesce(repository_root, ''),
    (CASE WHEN repository_root IS NULL THEN '' ELSE coalesce(work_dir, '') END)
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS artifacts_content_idx`.execute(db);
  await sql`ALTER TABLE artifacts DROP COLUMN IF EXISTS repository_root`.execute(db);
  await sql`CREATE UNIQUE INDEX artifacts_content_idx ON artifacts (run_id, analyzer, coalesce(language_key, ''), content_sha256)`.execute(
    db,
  );
}
