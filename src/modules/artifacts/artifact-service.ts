import type { GraphQLContext } from "../../graphql/context.ts";
import { visibleArtifactByKey } from "./artifact-loaders.ts";
import { type ArtifactOutcome, type ArtifactView, outcomeOf } from "./artifact-store.ts";

/**
 * Reading artifacts for the API. An artifact is visible exactly to the members of its
 * repository's account; to anyone else it does not exist (the loader filters in SQL, and
 * `node(id:)` answers a hidden artifact like an unknown id).
 */

/** Why entries were skipped, in the order the API lists them (the pipeline's `SkipReason`). */
export const ARTIFACT_SKIP_REASONS = [
  "OUTSIDE_REPOSITORY",
  "NO_LOCATION",
  "NOT_REPORTED",
  "ABSENT",
  "NOT_A_FAILURE",
  "NO_PURL",
  "UNSUPPORTED_ECOSYSTEM",
  "NO_VERSION",
  "PROJECT_PACKAGE",
  "UNSTORABLE_TEXT",
  "ALREADY_REPORTED",
  "REPEATED",
  "EXCLUDED",
] as const;
export type ArtifactSkipReason = (typeof ARTIFACT_SKIP_REASONS)[number];

/** One reason and how many entries it skipped. */
export interface ArtifactSkipCount {
  reason: ArtifactSkipReason;
  count: number;
}

/** The artifact with this key when the viewer can see its repository, else null. */
export function findVisibleArtifact(ctx: GraphQLContext, key: string): Promise<ArtifactView | null> {
  return visibleArtifactByKey(ctx).load(key);
}

/** What processing found for `artifact`; null until it was processed (and for a FAILED one). */
export function outcomeOfArtifact(artifact: ArtifactView): ArtifactOutcome | null {
  return artifact.status === "PROCESSED" ? outcomeOf(artifact.result) : null;
}

/** Entries skipped for any reason; null until processed. */
export function skippedTotal(artifact: ArtifactView): number | null {
  const outcome = outcomeOfArtifact(artifact);
  return outcome === null ? null : Object.values(outcome.skipped).reduce((sum, n) => sum + n, 0);
}

/** The skip counts by reason, in {@link ARTIFACT_SKIP_REASONS} order, reasons with none left out. */
export function skipCounts(artifact: ArtifactView): ArtifactSkipCount[] {
  const skipped = outcomeOfArtifact(artifact)?.skipped ?? {};
  return ARTIFACT_SKIP_REASONS.flatMap((reason) => {
    const count = skipped[reason] ?? 0;
    return count > 0 ? [{ reason, count }] : [];
  });
}

/**
 * The report's size in bytes: after decompression as the size cap counts it; as stored for a
 * compressed artifact uploaded before that size was recorded.
 */
export function reportSize(artifact: ArtifactView): number {
  return Number(artifact.report_bytes ?? artifact.stored_bytes);
}
