import { type Kysely, sql } from "kysely";

/**
 * What `advisories sync` (docs/advisories.md "Sync") records of each export URL beyond the
 * validators 0014 keeps: how the last check ended (`NOT_MODIFIED`, `IMPORTED` or `FAILED`), why it
 * failed (a sentence of ours, never a response body), and the size and import summary of the last
 * export imported.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (statement: ReturnType<typeof sql>) => statement.execute(db);
  await run(sql`
    ALTER TABLE advisory_sources
      ADD COLUMN status text CHECK (status IN ('NOT_MODIFIED', 'IMPORTED', 'FAILED')),
      ADD COLUMN error text,
      ADD COLUMN downloaded_bytes bigint,
      ADD COLUMN import_summary jsonb`);
}

/** Drops what {@link up} added. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE advisory_sources
      DROP COLUMN IF EXISTS import_summary,
      DROP COLUMN IF EXISTS downloaded_bytes,
      DROP COLUMN IF EXISTS error,
      DROP COLUMN IF EXISTS status`.execute(db);
}
