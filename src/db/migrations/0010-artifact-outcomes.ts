import { type Kysely, sql } from "kysely";

/**
 * What the API shows of each upload (docs/ingestion.md "What an upload stored"): the format the
 * intake recognised, and the report's size after decompression (what the size cap counts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // "SARIF 2.1.0", "LCOV", "unified diff"...; null for artifacts stored before it was recorded.
  await sql`ALTER TABLE artifacts ADD COLUMN format text`.execute(db);
  await sql`ALTER TABLE artifacts ADD COLUMN report_bytes bigint`.execute(db);
  // An artifact stored uncompressed is its report; compressed ones stored earlier stay unknown.
  await sql`UPDATE artifacts SET report_bytes = stored_bytes WHERE compression = 'NONE'`.execute(db);
}

/** Drops the columns {@link up} added. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE artifacts DROP COLUMN IF EXISTS report_bytes`.execute(db);
  await sql`ALTER TABLE artifacts DROP COLUMN IF EXISTS format`.execute(db);
}
