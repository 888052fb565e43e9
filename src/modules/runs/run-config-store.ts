import type { Kysely } from "kysely";
import type { AnalysisRunRow, Database } from "../../db/types.ts";

/**
 * The configuration a run was uploaded with (`analysis_runs.config_json`, migration 0028;
 * docs/ingestion.md "The repository's configuration").
 */

/**
 * Records the lockfiles and manifests git tracks at run `runId`'s commit (sorted
 * repository-relative paths; docs/ingestion-sbom.md "Lockfiles gone from the project").
 */
export async function setRunLockfilePaths(
  tx: Kysely<Database>,
  runId: string,
  paths: readonly string[],
): Promise<void> {
  await tx
    .updateTable("analysis_runs")
    .set({ lockfile_paths: [...paths] })
    .where("id", "=", runId)
    .execute();
}

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
