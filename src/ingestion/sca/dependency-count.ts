import type { Kysely } from "kysely";
import type { CheckRow, Database } from "../../db/types.ts";
import { findCheckById, findCheckOfRunByAnalyzerShortcode } from "../../modules/checks/check-store.ts";
import { countDistinctPackagesOfRun } from "../../modules/dependencies/sbom-store.ts";
import { updateMetricValueOfCheck } from "../../modules/metrics/metric-store.ts";
import { SCA_ANALYZER } from "../types.ts";

/**
 * Counts run `runId`'s DDP again (docs/ingestion-sbom.md "DDP"), inside `tx`, whose caller holds
 * the run's lock: the targets it did not scan count by the newest scans placed before it, which a
 * run of an older commit that came in, or finished, after it may have changed (docs/ingestion.md
 * "Where a run stands in the history"). The value its SBOMs recorded is rewritten when the count
 * differs (a run that recorded none gets none). Answers its `sca` check when the value changed:
 * its gate may judge it otherwise now.
 */
export async function recountRunDependencies(
  tx: Kysely<Database>,
  runId: string,
): Promise<CheckRow | undefined> {
  const check = await findCheckOfRunByAnalyzerShortcode(tx, runId, SCA_ANALYZER);
  if (check === undefined) return undefined;
  const packages = await countDistinctPackagesOfRun(tx, runId);
  const item = { shortcode: "DDP", key: "AGGREGATE" } as const;
  if (!(await updateMetricValueOfCheck(tx, check.id, item, packages))) return undefined;
  return findCheckById(tx, check.id);
}
