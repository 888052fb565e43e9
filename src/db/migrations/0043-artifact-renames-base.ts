import { type Kysely, sql } from "kysely";

/**
 * `artifacts.renames_base_oid`: the commit a CHANGES artifact's diff was made against, when the
 * upload said it was sent for its renamed files alone (`uploadArtifact`'s `renamesBaseOid`, which
 * `assay upload` sends for a default-branch build: the diff from the commit's first parent). Such
 * an artifact's renames are matched only while that commit is its run's base commit, and its lines
 * are no changed lines of the run (docs/ingestion.md "Renamed files"). Null for every other
 * artifact, and for every CHANGES artifact stored before: their renames and lines count as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE artifacts ADD COLUMN renames_base_oid text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE artifacts DROP COLUMN IF EXISTS renames_base_oid`.execute(db);
}
