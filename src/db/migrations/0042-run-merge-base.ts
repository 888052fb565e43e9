import { type Kysely, sql } from "kysely";

/**
 * A pull request's run (or a run given a base branch) keeps the merge base its upload named, or
 * its pull request had, when it was made: `analysis_runs.merge_base_oid`. It is compared with
 * the merge base's run when that run is analysed (docs/vcs-events.md); when the merge base's run
 * comes in, or finishes, only after the run was made, the run was compared with the base branch's
 * newest analysed run instead, and the settlement of the merge base's run now finds it by this
 * column and queues its rebase (docs/ingestion.md "Where a run stands in the history").
 *
 * - `analysis_runs_merge_base_idx`: a repository's runs by the merge base they name, only those
 *   that name one.
 *
 * Nothing is rewritten: a run made before has none, and its rebase reads its pull request's merge
 * base, as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (query: ReturnType<typeof sql>) => query.execute(db);
  await run(sql`ALTER TABLE analysis_runs ADD COLUMN merge_base_oid text`);
  await run(sql`
    CREATE INDEX analysis_runs_merge_base_idx ON analysis_runs (repository_id, merge_base_oid)
      WHERE merge_base_oid IS NOT NULL`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const run = (query: ReturnType<typeof sql>) => query.execute(db);
  await run(sql`DROP INDEX IF EXISTS analysis_runs_merge_base_idx`);
  await run(sql`ALTER TABLE analysis_runs DROP COLUMN IF EXISTS merge_base_oid`);
}
