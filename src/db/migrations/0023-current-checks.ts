import { type Kysely, sql } from "kysely";

/**
 * What a repository's current findings are read from (docs/read-model.md "The repository's
 * current findings"): per analyzer, its newest check on the default branch that says what the code
 * holds. Two additions to `checks`:
 *
 * - `reopened_from`: the status a finished check had when an artifact uploaded after it finished
 *   made it PENDING again; null otherwise. A check reopened from SUCCESS or FAILURE keeps saying
 *   what the code holds while the late artifact is processed, as its run stays the current state
 *   (`analysis_runs.reopened_from`, migration 0022). Nothing is filled in for a check PENDING
 *   again when this runs: its earlier status is gone, and it counts again once it finishes.
 * - the repository, branch, creation time and key of the check's run, copied when the check is
 *   inserted (a run's never change), with an index that lists one repository's checks of a branch
 *   by analyzer, newest run first. Finding an analyzer's newest usable check then costs the few
 *   newest checks of that analyzer, not a walk over every run of the branch (about 50 ms for
 *   5,000 runs of four checks each, on PostgreSQL, measured before this index). A partial index
 *   of the artifacts that FAILED to process answers whether a check's report could be read.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (query: ReturnType<typeof sql>) => query.execute(db);
  await run(sql`
    ALTER TABLE checks ADD COLUMN reopened_from text
      CHECK (reopened_from IN ('SUCCESS', 'FAILURE', 'NEUTRAL', 'TIMEOUT', 'CANCEL', 'READY', 'ARTIFACT_TIMEOUT', 'SKIPPED')),
    ADD CONSTRAINT checks_reopened_pending CHECK (reopened_from IS NULL OR status = 'PENDING'),
    ADD COLUMN repository_id bigint,
    ADD COLUMN branch_name text,
    ADD COLUMN run_created_at timestamptz,
    ADD COLUMN run_key text`);
  await run(sql`
    UPDATE checks AS c
    SET repository_id = r.repository_id, branch_name = r.branch_name, run_created_at = r.created_at, run_key = r.key
    FROM analysis_runs AS r WHERE r.id = c.run_id`);
  await run(sql`
    ALTER TABLE checks ALTER COLUMN repository_id SET NOT NULL, ALTER COLUMN run_created_at SET NOT NULL,
      ALTER COLUMN run_key SET NOT NULL`);
  // Before each row is written, so the NOT NULL columns are there when it is checked. A run that
  // does not exist leaves them null and the row fails; the foreign key on run_id would refuse it
  // anyway.
  await run(sql`
    CREATE FUNCTION checks_copy_run() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      SELECT r.repository_id, r.branch_name, r.created_at, r.key
        INTO NEW.repository_id, NEW.branch_name, NEW.run_created_at, NEW.run_key
        FROM analysis_runs AS r WHERE r.id = NEW.run_id;
      RETURN NEW;
    END $$`);
  await run(sql`
    CREATE TRIGGER checks_copy_run BEFORE INSERT OR UPDATE OF run_id ON checks
      FOR EACH ROW EXECUTE FUNCTION checks_copy_run()`);
  await run(sql`
    CREATE INDEX checks_branch_analyzer_idx
      ON checks (repository_id, branch_name, analyzer_id, run_created_at DESC, run_key DESC)`);
  // The few artifacts that failed to process, by check: whether a check's report could be read.
  await run(sql`CREATE INDEX artifacts_failed_idx ON artifacts (check_id) WHERE status = 'FAILED'`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const run = (query: ReturnType<typeof sql>) => query.execute(db);
  await run(sql`DROP INDEX IF EXISTS artifacts_failed_idx`);
  await run(sql`DROP TRIGGER IF EXISTS checks_copy_run ON checks`);
  await run(sql`DROP FUNCTION IF EXISTS checks_copy_run()`);
  await run(sql`
    ALTER TABLE checks DROP CONSTRAINT IF EXISTS checks_reopened_pending,
    DROP COLUMN IF EXISTS reopened_from, DROP COLUMN IF EXISTS repository_id, DROP COLUMN IF EXISTS branch_name,
    DROP COLUMN IF EXISTS run_created_at, DROP COLUMN IF EXISTS run_key`);
}
