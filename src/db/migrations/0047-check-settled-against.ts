import { type Kysely, sql } from "kysely";

/**
 * `checks.settled_against`: the version of the base check's findings that every finding of a
 * findings check was last judged against (docs/ingestion.md "Processing in steps", "The states at
 * publication"): the base check, its own base check and its artifacts, written as text by
 * `findFindingsVersionOf` (src/modules/checks/check-store.ts); null when not known. A publication
 * into the check finds its other findings' states and RESOLVED copies still right while the base
 * check's version is the one recorded, and then writes only what its own rows change.
 *
 * Checks stored before are left null: their next publication sets every state again, as before,
 * and records the version.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE checks ADD COLUMN settled_against text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE checks DROP COLUMN IF EXISTS settled_against`.execute(db);
}
