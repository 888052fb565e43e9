import { type Kysely, sql } from "kysely";

/**
 * `checks.fingerprint_version`: how the fingerprints of a check's findings were made
 * (docs/ingestion.md "Fingerprints", src/ingestion/fingerprint.ts `FINGERPRINT_VERSION`).
 * Version 2 leaves the numbers standing alone in a message out of the context a fingerprint
 * hashes (`File has too many lines (539)` and `(540)` are one finding); version 1 kept them.
 *
 * Every check stored before is version 1, as its findings were hashed; a check inserted from now
 * on is version 2, the column's default. A check keeps its version for good: a late report into
 * it is hashed as its other findings were, and a check compared with a base check of another
 * version also computes each finding's fingerprint in the base's version
 * (`occurrences.former_fingerprint`), so the first run after the upgrade matches the findings of
 * the run before it instead of showing them all as new.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE checks ADD COLUMN fingerprint_version smallint NOT NULL DEFAULT 1`.execute(db);
  await sql`ALTER TABLE checks ALTER COLUMN fingerprint_version SET DEFAULT 2`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE checks DROP COLUMN IF EXISTS fingerprint_version`.execute(db);
}
