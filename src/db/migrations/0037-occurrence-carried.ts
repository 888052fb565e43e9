import { type Kysely, sql } from "kysely";

/**
 * `occurrences.is_carried`: true for a base finding copied into a check as EXISTING because the
 * check's tool said it could not analyze the finding's file (a file it could not parse or
 * compile, a Go package that does not type-check): the check keeps what the base knew there
 * instead of calling it fixed (docs/ingestion.md "Status"). Such rows are written again, like the
 * RESOLVED copies, each time the check's states are set, and are never taken for a report of the
 * finding (docs/ingestion.md "The same findings reported twice"). Rows stored before are findings
 * of reports, so false.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE occurrences ADD COLUMN is_carried boolean NOT NULL DEFAULT false`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE occurrences DROP COLUMN IF EXISTS is_carried`.execute(db);
}
