import { type Kysely, sql } from "kysely";

/**
 * `analysis_runs.config_json`: the repository's configuration (its `.deepsource.toml` as JSON) an
 * upload of the run carried, i.e. the configuration at the run's commit; null when none did.
 * `repositories.config_json` follows the default branch's newest run that has one
 * (docs/ingestion.md "The repository's configuration"). Runs stored before have none, and the
 * repositories keep the configuration they had.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE analysis_runs ADD COLUMN config_json jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE analysis_runs DROP COLUMN IF EXISTS config_json`.execute(db);
}
