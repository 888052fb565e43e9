import { type Kysely, sql } from "kysely";

/**
 * Dependency scans follow the commit history, not the upload order (docs/read-model.md "Current
 * dependency scans", docs/ingestion.md "Where a run stands in the history"): what reads "the
 * newest" run with a list of lockfiles, or the repository's latest analysed run, orders runs by
 * `analysis_runs.placed_at` (migration 0035) instead of `created_at`, so it needs indexes in that
 * order.
 *
 * - `analysis_runs_lockfile_lists_placed_idx` replaces `analysis_runs_lockfile_lists_idx`
 *   (migration 0030): a branch's runs that carry a list of lockfiles, newest first in the history.
 *   `isLockfileGone` reads the newest of them, the DDP's "as of this run" bound being a condition
 *   of the index.
 * - `analysis_runs_repository_placed_idx`: a repository's runs of every branch, newest first in
 *   the history, from which an advisory import takes the latest analysed run
 *   (`findLatestScaChecks`).
 *
 * Nothing is rewritten. A scan's own place, `sca_checks.run_created_at`, has been its run's
 * `placed_at` since migration 0035: the `sca_checks_copy_run` trigger (migration 0024) calls the
 * same `checks_copy_run` function as checks, which 0035 made copy `placed_at`, and a run's
 * `placed_at` never changes after its insert. Scans stored before 0035 have their run's
 * `created_at`, which 0035 set as every such run's `placed_at`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (query: ReturnType<typeof sql>) => query.execute(db);
  await run(sql`
    CREATE INDEX analysis_runs_lockfile_lists_placed_idx
      ON analysis_runs (repository_id, branch_name, placed_at DESC, key DESC)
      WHERE lockfile_paths IS NOT NULL`);
  await run(sql`DROP INDEX IF EXISTS analysis_runs_lockfile_lists_idx`);
  await run(sql`
    CREATE INDEX analysis_runs_repository_placed_idx ON analysis_runs (repository_id, placed_at DESC, key DESC)`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const run = (query: ReturnType<typeof sql>) => query.execute(db);
  await run(sql`DROP INDEX IF EXISTS analysis_runs_repository_placed_idx`);
  await run(sql`
    CREATE INDEX IF NOT EXISTS analysis_runs_lockfile_lists_idx
      ON analysis_runs (repository_id, branch_name, created_at DESC, key DESC)
      WHERE lockfile_paths IS NOT NULL`);
  await run(sql`DROP INDEX IF EXISTS analysis_runs_lockfile_lists_placed_idx`);
}
