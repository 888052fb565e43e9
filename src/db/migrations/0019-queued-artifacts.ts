import { type Kysely, sql } from "kysely";

/**
 * The artifacts still being processed, indexed on their own. SARIF processing writes a report's
 * occurrences in short steps and publishes them in one transaction that marks the artifact
 * PROCESSED (docs/ingestion.md "Processing in steps"); until then every read leaves out the rows
 * of QUEUED artifacts, and asks for their ids through this index, which holds only the few
 * artifacts waiting or in progress however many have been processed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX artifacts_queued_idx ON artifacts (id) WHERE status = 'QUEUED'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS artifacts_queued_idx`.execute(db);
}
