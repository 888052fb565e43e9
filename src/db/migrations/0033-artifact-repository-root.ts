import { type Kysely, sql } from "kysely";

/**
 * `artifacts.repository_root`: the checkout's root on the machine that made the report, when the
 * upload said the report was made in a subdirectory of it (`uploadArtifact`'s `repositoryRoot`,
 * sent by `assay upload --work-dir` with a directory inside the git checkout). With it, the
 * report's paths are placed under the subdirectory the upload's `workDir` is in the checkout
 * (docs/ingestion.md "Where the report's paths lead"), and the API shows it as
 * `Artifact.repositoryRoot`. Artifacts stored before have none, and are read as they were: their
 * `workDir` is the repository's root.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE artifacts ADD COLUMN repository_root text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE artifacts DROP COLUMN IF EXISTS repository_root`.execute(db);
}
