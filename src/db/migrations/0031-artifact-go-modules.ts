import { type Kysely, sql } from "kysely";

/**
 * `artifacts.go_modules`: the Go modules a coverage upload said the repository has, each module
 * path with its directory (`uploadArtifact`'s `goModules`, sent by `assay upload` with a Go
 * profile), as a JSON array of `{"modulePath", "directory"}` in the order given; null when the
 * upload said none. A Go profile's files are placed in their module's directory by it
 * (docs/ingestion-coverage.md "Go modules in subdirectories"), and the API shows it as
 * `Artifact.goModules`, so the mapping applied to a report is never hidden. Artifacts stored
 * before have none, and are read as they were.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE artifacts ADD COLUMN go_modules jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE artifacts DROP COLUMN IF EXISTS go_modules`.execute(db);
}
