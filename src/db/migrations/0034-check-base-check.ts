import { type Kysely, sql } from "kysely";

/**
 * `checks.base_check_id`: the check a findings check was compared with when its findings' states
 * and RESOLVED copies were last written (docs/ingestion.md "Base"); null when it was compared with
 * none. The base check is the analyzer's newest conclusive check on the base run's branch up to
 * the base run, so it can change after the comparison: a report of that analyzer for an earlier
 * run that comes in late makes a newer check the rule's answer, while the findings stay as they
 * were compared. The code health trend reads a check's RESOLVED rows as its fixes only when they
 * were written against the check it replaces, and needs to know which check that was
 * (docs/reports.md "Code health trend").
 *
 * Checks stored before are given the base check the rule names today, which is what the trend
 * assumed of them until now. No foreign key: nothing is ever looked up through it, only compared,
 * and a key would make every comparison lock the base check's row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE checks ADD COLUMN base_check_id bigint`.execute(db);
  await sql`
    UPDATE checks AS c SET base_check_id = (
      SELECT bc.id
      FROM analysis_runs AS base
      JOIN checks AS bc ON bc.repository_id = base.repository_id AND bc.branch_name = base.branch_name
        AND bc.analyzer_id = c.analyzer_id AND (bc.run_created_at, bc.run_key) <= (base.created_at, base.key)
      WHERE base.id = r.base_run_id
        AND (bc.status IN ('SUCCESS', 'FAILURE') OR bc.reopened_from IN ('SUCCESS', 'FAILURE'))
        AND NOT EXISTS (SELECT 1 FROM artifacts AS fa WHERE fa.check_id = bc.id AND fa.status = 'FAILED')
      ORDER BY bc.run_created_at DESC, bc.run_key DESC
      LIMIT 1)
    FROM analysis_runs AS r
    WHERE r.id = c.run_id AND r.base_run_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE checks DROP COLUMN IF EXISTS base_check_id`.execute(db);
}
