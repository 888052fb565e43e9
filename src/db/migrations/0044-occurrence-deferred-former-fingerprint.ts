import { type Kysely, sql } from "kysely";

/**
 * `occurrences.deferred_former_fingerprint`: the fingerprint a finding had at its file's old path when
 * the run's changes rename the file against a commit that is not the run's base commit when the
 * report is processed (a default-branch build's renames against its first parent, whose run is
 * not analysed yet). It is deferred, and compared with nothing, until a rebase compares the run with
 * that commit: the rebase then makes it the finding's former fingerprint (docs/ingestion.md
 * "Renamed files"). Null for every other row, and for every row stored before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE occurrences ADD COLUMN deferred_former_fingerprint text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE occurrences DROP COLUMN IF EXISTS deferred_former_fingerprint`.execute(db);
}
