import { type Kysely, sql } from "kysely";

/**
 * Each occurrence's own severity (docs/ingestion.md "Severity of a finding"). An issue is a rule
 * of an analyzer's global catalog, but the same rule can be an error in one repository and a
 * warning in another, or graded per finding by the tool, so a finding carries the severity its
 * report gave it. Null means the severity: rows written before this migration and seeded
 * rows. Readers use `coalesce(o.severity, i.severity)`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE occurrences ADD COLUMN severity text
      CHECK (severity IN ('CRITICAL', 'MAJOR', 'MINOR'))
  `.execute(db);
}

/** Drops the column {@link up} added. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE occurrences DROP COLUMN IF EXISTS severity`.execute(db);
}
