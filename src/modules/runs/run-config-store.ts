import { type Kysely, sql } from "kysely";
import type { AnalysisRunRow, Database } from "../../db/types.ts";

/**
 * The configuration a run was uploaded with (`analysis_runs.config_json`, migration 0028;
 * docs/ingestion.md "The repository's configuration").
 */

/** Records the configuration (JSON text) of run `runId`; answers the run as it now stands. */
export function setRunConfig(
  tx: Kysely<Database>,
  runId: string,
  configJson: string,
): Promise<AnalysisRunRow> {
  return tx
    .updateTable("analysis_runs")
    .set({ config_json: configJson })
    .where("id", "=", runId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * True when `run` is the newest run of its branch, in the order `analysisRuns` lists runs
 * (creation, then key), among those that carry a configuration: no later run of the branch has one.
 */
export async function isNewestConfiguredRunOfBranch(
  db: Kysely<Database>,
  run: Pick<AnalysisRunRow, "id" | "repository_id" | "branch_name">,
): Promise<boolean> {
  if (run.branch_name === null) return false;
  // The run's own creation time is read in SQL: a JavaScript Date would lose its microseconds.
  const newer = await db
    .selectFrom("analysis_runs as later")
    .select("later.id")
    .where("later.repository_id", "=", run.repository_id)
    .where("later.branch_name", "=", run.branch_name)
    .where("later.config_json", "is not", null)
    .where("later.id", "!=", run.id)
    .where(
      sql<boolean>`(later.created_at, later.key) > (SELECT r.created_at, r.key FROM analysis_runs AS r WHERE r.id = ${run.id})`,
    )
    .limit(1)
    .executeTakeFirst();
  return newer === undefined;
}
