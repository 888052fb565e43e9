import { type Kysely, sql } from "kysely";

/**
 * DDP is the contract's count of third-party dependencies (docs/api.md "Metrics"), not a
 * duplication percentage as 0002 described it: a whole number of packages, no unit, no upper bound.
 * Values already stored keep their numbers; only the definition they are read against changes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE metrics
    SET name = 'External Dependencies',
      description = 'How many third-party packages the code depends on.',
      unit = NULL,
      min_value_allowed = 0,
      max_value_allowed = NULL
    WHERE shortcode = 'DDP'
  `.execute(db);
}

/** Puts back the definition of 0002. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE metrics
    SET name = 'Duplicate Code',
      description = 'Percentage of lines that are part of duplicated blocks.',
      unit = '%',
      min_value_allowed = 0,
      max_value_allowed = 100
    WHERE shortcode = 'DDP'
  `.execute(db);
}
