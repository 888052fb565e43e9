import { type Kysely, sql } from "kysely";

/**
 * `occurrences.former_fingerprint`: for a finding in a file the run's changes say was renamed, the
 * fingerprint the same finding had at the file's old path (docs/ingestion.md "Renamed files"). A
 * base finding whose fingerprint is a row's own or its former one is the same finding: the row is
 * EXISTING and the base finding is not RESOLVED. Null for every other row, and for the rows stored
 * before, which keep the states they were given. The partial index serves the lookups of base
 * findings by former fingerprint; it holds only the rows of renamed files.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE occurrences ADD COLUMN former_fingerprint text`.execute(db);
  await sql`
    CREATE INDEX occurrences_check_former_fingerprint_idx ON occurrences (check_id, former_fingerprint)
    WHERE former_fingerprint IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS occurrences_check_former_fingerprint_idx`.execute(db);
  await sql`ALTER TABLE occurrences DROP COLUMN IF EXISTS former_fingerprint`.execute(db);
}
