import { type Kysely, sql } from "kysely";

/**
 * Whether a metric value's run has analysed the code, kept on the value (docs/read-model.md
 * "Metrics"). A repository shows only the values of analysed runs (`isAnalysedRun`: finished
 * SUCCESS or FAILURE, or PENDING again while a late artifact is processed); until now every read
 * looked up each value's check and run to know it, which made the coverage trend, which reads a
 * scope's whole history, cost about six times the blocks of the values themselves
 * (docs/benchmarks.md "Metric values of analysed runs, and lockfiles gone").
 *
 * `metric_values.of_analysed_run` is that answer, kept by the database whoever writes:
 *
 * - computed from the value's check's run when a value is inserted (or moved to another check); a
 *   value of no check (stored before values had one) counts as analysed, as it did;
 * - rewritten on the run's values when a run's status or `reopened_from` changes whether it is
 *   analysed. Writers lock the run before they write its values or its status (ingestion's
 *   `lockRun`), so the two cannot miss each other.
 *
 * `assay_run_is_analysed` is the SQL twin of `isAnalysedRun` (src/modules/runs/run-store.ts); a
 * change of that rule needs a migration that replaces this function and recomputes the column.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (query: ReturnType<typeof sql>) => query.execute(db);
  await run(sql`
    CREATE FUNCTION assay_run_is_analysed(status text, reopened_from text) RETURNS boolean
    LANGUAGE sql IMMUTABLE AS $$
      SELECT status IN ('SUCCESS', 'FAILURE') OR coalesce(reopened_from IN ('SUCCESS', 'FAILURE'), false)
    $$`);
  // A constant default: PostgreSQL adds the column without rewriting the table, and only the
  // values of runs that have not analysed the code are then written.
  await run(sql`ALTER TABLE metric_values ADD COLUMN of_analysed_run boolean NOT NULL DEFAULT true`);
  await run(sql`
    UPDATE metric_values AS v SET of_analysed_run = false
    FROM checks AS c JOIN analysis_runs AS r ON r.id = c.run_id
    WHERE c.id = v.check_id AND NOT assay_run_is_analysed(r.status, r.reopened_from)`);
  await run(sql`
    CREATE FUNCTION metric_values_copy_run_analysed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.check_id IS NULL THEN
        NEW.of_analysed_run := true;
      ELSE
        SELECT assay_run_is_analysed(r.status, r.reopened_from) INTO NEW.of_analysed_run
          FROM checks AS c JOIN analysis_runs AS r ON r.id = c.run_id WHERE c.id = NEW.check_id;
        -- A check that does not exist: the foreign key refuses the row after this.
        NEW.of_analysed_run := coalesce(NEW.of_analysed_run, false);
      END IF;
      RETURN NEW;
    END $$`);
  await run(sql`
    CREATE TRIGGER metric_values_copy_run_analysed BEFORE INSERT OR UPDATE OF check_id ON metric_values
      FOR EACH ROW EXECUTE FUNCTION metric_values_copy_run_analysed()`);
  await run(sql`
    CREATE FUNCTION analysis_runs_mark_metric_values() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE metric_values SET of_analysed_run = assay_run_is_analysed(NEW.status, NEW.reopened_from)
        WHERE check_id IN (SELECT id FROM checks WHERE run_id = NEW.id);
      RETURN NULL;
    END $$`);
  await run(sql`
    CREATE TRIGGER analysis_runs_mark_metric_values AFTER UPDATE OF status, reopened_from ON analysis_runs
      FOR EACH ROW
      WHEN (assay_run_is_analysed(OLD.status, OLD.reopened_from) <> assay_run_is_analysed(NEW.status, NEW.reopened_from))
      EXECUTE FUNCTION analysis_runs_mark_metric_values()`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const run = (query: ReturnType<typeof sql>) => query.execute(db);
  await run(sql`DROP TRIGGER IF EXISTS analysis_runs_mark_metric_values ON analysis_runs`);
  await run(sql`DROP FUNCTION IF EXISTS analysis_runs_mark_metric_values()`);
  await run(sql`DROP TRIGGER IF EXISTS metric_values_copy_run_analysed ON metric_values`);
  await run(sql`DROP FUNCTION IF EXISTS metric_values_copy_run_analysed()`);
  await run(sql`ALTER TABLE metric_values DROP COLUMN IF EXISTS of_analysed_run`);
  await run(sql`DROP FUNCTION IF EXISTS assay_run_is_analysed(text, text)`);
}
