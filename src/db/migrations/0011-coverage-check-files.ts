import { type Kysely, sql } from "kysely";

/**
 * Per-file coverage of a check as its totals count it (docs/ingestion-coverage.md "Per-file
 * coverage"): one row per (language, file) of the check, a file several reports of one language
 * name merged the way the totals merge it, with its figures on the run's changed lines. Written
 * whenever the check's coverage is recomputed; read by `Check.coverageFiles` and
 * `Repository.coverageFiles`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE coverage_check_files (
      check_id bigint NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
      -- The language the file was reported under, as a metric key (JAVASCRIPT, GO ...).
      metric_key text NOT NULL,
      path text NOT NULL,
      -- How many of the check's coverage reports of that language name the file.
      reports integer NOT NULL,
      lines_total integer NOT NULL,
      lines_covered integer NOT NULL,
      branches_total integer NOT NULL,
      branches_covered integer NOT NULL,
      conditions_total integer,
      conditions_covered integer,
      -- On the run's changed lines; null while the run has no changed lines.
      lines_new integer,
      lines_new_covered integer,
      branches_new integer,
      branches_new_covered integer,
      conditions_new integer,
      conditions_new_covered integer,
      uncovered_lines integer[] NOT NULL,
      PRIMARY KEY (check_id, path, metric_key)
    )`.execute(db);
}

/** Drops what {@link up} created. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS coverage_check_files`.execute(db);
}
