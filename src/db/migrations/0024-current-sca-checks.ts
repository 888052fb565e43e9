import { type Kysely, sql } from "kysely";

/**
 * What a repository's current dependency vulnerabilities are read from (docs/read-model.md
 * "Current dependency scans"): per target, its newest scan on the default branch whose `sca`
 * check says what the code holds, the way an analyzer's current findings are chosen (migration
 * 0023). SCA checks get the same copy of their run's repository, branch, creation time and key
 * as checks, filled by the same trigger function when a scan is inserted (a run's never change),
 * and an index that lists a target's scans of a branch newest run first: finding a target's
 * current scan then costs its few newest scans, not a walk over every run of the branch. It leads
 * with `target_id`, so it also serves what `sca_checks_target_idx` (migration 0007) did, which
 * goes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (query: ReturnType<typeof sql>) => query.execute(db);
  await run(sql`
    ALTER TABLE sca_checks ADD COLUMN repository_id bigint, ADD COLUMN branch_name text,
      ADD COLUMN run_created_at timestamptz, ADD COLUMN run_key text`);
  await run(sql`
    UPDATE sca_checks AS s
    SET repository_id = r.repository_id, branch_name = r.branch_name, run_created_at = r.created_at, run_key = r.key
    FROM analysis_runs AS r WHERE r.id = s.run_id`);
  await run(sql`
    ALTER TABLE sca_checks ALTER COLUMN repository_id SET NOT NULL, ALTER COLUMN run_created_at SET NOT NULL,
      ALTER COLUMN run_key SET NOT NULL`);
  // checks_copy_run (migration 0023) sets exactly these four columns of NEW from its run_id.
  await run(sql`
    CREATE TRIGGER sca_checks_copy_run BEFORE INSERT OR UPDATE OF run_id ON sca_checks
      FOR EACH ROW EXECUTE FUNCTION checks_copy_run()`);
  await run(sql`
    CREATE INDEX sca_checks_target_branch_idx
      ON sca_checks (target_id, branch_name, run_created_at DESC, run_key DESC)`);
  await run(sql`DROP INDEX sca_checks_target_idx`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const run = (query: ReturnType<typeof sql>) => query.execute(db);
  await run(sql`CREATE INDEX IF NOT EXISTS sca_checks_target_idx ON sca_checks (target_id)`);
  await run(sql`DROP INDEX IF EXISTS sca_checks_target_branch_idx`);
  await run(sql`DROP TRIGGER IF EXISTS sca_checks_copy_run ON sca_checks`);
  await run(sql`
    ALTER TABLE sca_checks DROP COLUMN IF EXISTS repository_id, DROP COLUMN IF EXISTS branch_name,
      DROP COLUMN IF EXISTS run_created_at, DROP COLUMN IF EXISTS run_key`);
}
