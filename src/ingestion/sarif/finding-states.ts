import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import {
  countCheckFindingsByState,
  type FindingStateCounts,
  refreshCheckIssueCounts,
} from "../../modules/checks/issue-count-store.ts";
import { deleteResolvedOccurrencesOfCheck } from "../../modules/checks/occurrence-store.ts";
import {
  flipOccurrenceStatesAgainstBase,
  insertResolvedCopiesOfBase,
} from "../../modules/checks/occurrence-write-store.ts";
import { OCCURRENCE_BATCH_SIZE } from "./occurrence-writer.ts";

export type { FindingStateCounts };

/**
 * Sets the states of all of `checkId`'s findings against `baseCheckId` (docs/ingestion.md
 * "States against the base"): deletes the check's RESOLVED rows; marks each other row EXISTING
 * when the base check has a non-RESOLVED occurrence with its fingerprint, else INTRODUCED (all
 * INTRODUCED without a base); then copies every base occurrence whose fingerprint the check lacks
 * as a RESOLVED row; then rewrites the check's issue counts, which every summary reads. Returns
 * the check's counts by state.
 */
export function recomputeFindingStates(
  tx: Kysely<Database>,
  checkId: string,
  baseCheckId: string | null,
): Promise<FindingStateCounts> {
  return settleFindingStates(tx, checkId, baseCheckId, null);
}

/**
 * {@link recomputeFindingStates}, skipping the state test for the rows of `freshArtifactId`,
 * which were just written with their state decided against the same base.
 */
export async function settleFindingStates(
  tx: Kysely<Database>,
  checkId: string,
  baseCheckId: string | null,
  freshArtifactId: string | null,
): Promise<FindingStateCounts> {
  await deleteResolvedOccurrencesOfCheck(tx, checkId);
  // Flips exactly the rows whose state disagrees with the base: EXISTING without a base
  // occurrence of the fingerprint, INTRODUCED with one. Rows already right are not rewritten.
  await flipOccurrenceStatesAgainstBase(tx, checkId, baseCheckId, freshArtifactId);
  if (baseCheckId !== null) await insertResolvedCopiesOfBase(tx, checkId, baseCheckId, OCCURRENCE_BATCH_SIZE);
  await refreshCheckIssueCounts(tx, [checkId]);
  return countCheckFindingsByState(tx, checkId);
}
