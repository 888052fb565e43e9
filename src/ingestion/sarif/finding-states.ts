import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import { findArtifactAnalyzedPathsIn } from "../../modules/artifacts/artifact-analyzed-path-store.ts";
import { findArtifactOutcomesOfCheck } from "../../modules/artifacts/artifact-store.ts";
import {
  findCheckSettledAgainst,
  findFindingsVersionOf,
  setCheckBaseCheck,
} from "../../modules/checks/check-store.ts";
import {
  addPublishedArtifactToIssueCounts,
  countCheckFindingsByState,
  type FindingStateCounts,
  type IssueCountGroup,
  refreshCheckIssueCounts,
} from "../../modules/checks/issue-count-store.ts";
import { deleteResolvedOccurrencesOfCheck } from "../../modules/checks/occurrence-store.ts";
import {
  carryBaseFindingsInPaths,
  deleteResolvedCopiesFoundIn,
  flipOccurrenceStatesAgainstBase,
  insertResolvedCopies,
  insertResolvedCopiesOfBase,
  uncarryOccurrencesOfCheck,
} from "../../modules/checks/occurrence-write-store.ts";
import type { ProcessStep } from "../types.ts";
import { checkFindingPages } from "./finding-pages.ts";
import { OCCURRENCE_BATCH_SIZE } from "./occurrence-writer.ts";

export type { FindingStateCounts };

/**
 * More base findings than this missing from a report are not remembered between staging and
 * publication (their ids would take memory in proportion to the base): its publication then finds
 * them itself.
 */
const MAX_REMEMBERED_MISSING = 100_000;

/**
 * A base check of at most this many non-RESOLVED findings is read into memory before the report's
 * rows are written, which are then judged against it in Node (about 120 bytes a finding, so 23 MB
 * at most); a larger one is looked up by PostgreSQL, row by row, as they are written.
 */
const MAX_REMEMBERED_BASE = 200_000;

/**
 * The base check as staging read it before writing a row ({@link readBase}): the version of its
 * findings then, and their ids by fingerprint, or null when it held more than could be
 * remembered.
 */
export interface BaseRead {
  baseCheckId: string | null;
  /**
   * The version of the base check's findings when staging began ({@link findFindingsVersionOf}):
   * "" without a base, null when they were changing (an artifact of it was being staged).
   */
  baseVersion: string | null;
  findings: ReadonlyMap<string, string | readonly string[]> | null;
}

/**
 * What staging an artifact learned of its base check ({@link compareWithBase}), so that its
 * publication need not read the base again: which of the base's findings the artifact lacks, and
 * the version of the base's findings its rows were judged against.
 */
export interface BaseComparison {
  artifactId: string;
  /**
   * Ids of the base's non-RESOLVED occurrences whose fingerprint no row of the artifact has; null
   * when there were too many to remember.
   */
  missing: readonly string[] | null;
  /** The version of the base check's findings the artifact's rows were judged against ({@link BaseRead}). */
  baseVersion: string | null;
}

/**
 * Reads the base check before the report's rows are written, a page per step: the version of its
 * findings, and the findings by fingerprint while they are few enough to remember
 * ({@link MAX_REMEMBERED_BASE}) and no more than `worthReading` (by the base's issue counts,
 * before any page is read). Every row is then judged against this one reading, and the
 * publication judges them all again if the base's findings changed since (docs/ingestion.md
 * "Processing in steps").
 */
export async function readBase(
  step: ProcessStep,
  baseCheckId: string | null,
  {
    pageSize,
    remembered = MAX_REMEMBERED_BASE,
    worthReading = Number.POSITIVE_INFINITY,
  }: { pageSize: number; remembered?: number | undefined; worthReading?: number | undefined },
): Promise<BaseRead> {
  if (baseCheckId === null) return { baseCheckId, baseVersion: "", findings: new Map() };
  const findings = new Map<string, string | string[]>();
  let count = 0;
  let baseVersion: string | null = null;
  let holds = 0;
  const noteVersion = async (tx: Kysely<Database>) => {
    baseVersion = await findFindingsVersionOf(tx, baseCheckId);
    const counts = await countCheckFindingsByState(tx, baseCheckId);
    holds = counts.introduced + counts.existing;
  };
  // Too many to be worth reading: only the version, before any row is written.
  const counted = worthReading < remembered;
  if (counted) {
    await step(noteVersion);
    if (holds > worthReading) return { baseCheckId, baseVersion, findings: null };
  }
  const first = counted ? undefined : noteVersion;
  for await (const rows of checkFindingPages(step, baseCheckId, pageSize, { first })) {
    count += rows.length;
    if (count > remembered) return { baseCheckId, baseVersion, findings: null };
    for (const { id, fingerprint } of rows) {
      const ids = findings.get(fingerprint);
      if (ids === undefined) findings.set(fingerprint, id);
      else if (typeof ids === "string") findings.set(fingerprint, [ids, id]);
      else ids.push(id);
    }
  }
  return { baseCheckId, baseVersion, findings };
}

/**
 * The base findings that artifact `artifactId` lacks, those whose fingerprint `artifactHas` does
 * not know: from the base as {@link readBase} remembered it, else read again a page per step.
 * Only a check that showed no finding when the artifact was staged takes them from here (its
 * publication copies them as RESOLVED, {@link settleFindingStates}): for one that did (`checkHeld`),
 * whose findings only grew since, they are not looked for (`missing` null).
 */
export async function compareWithBase(
  step: ProcessStep,
  artifactId: string,
  base: BaseRead,
  artifactHas: (fingerprint: string) => boolean,
  {
    pageSize,
    remembered = MAX_REMEMBERED_MISSING,
    checkHeld,
  }: { pageSize: number; remembered?: number | undefined; checkHeld: boolean },
): Promise<BaseComparison> {
  const { baseCheckId, baseVersion } = base;
  if (checkHeld) return { artifactId, missing: null, baseVersion };
  const missing: string[] = [];
  const tooMany = () => missing.length > remembered;
  if (base.findings !== null) {
    for (const [fingerprint, ids] of base.findings) {
      if (artifactHas(fingerprint)) continue;
      if (typeof ids === "string") missing.push(ids);
      else missing.push(...ids);
      if (tooMany()) return { artifactId, missing: null, baseVersion };
    }
    return { artifactId, missing, baseVersion };
  }
  if (baseCheckId === null) return { artifactId, missing, baseVersion };
  for await (const rows of checkFindingPages(step, baseCheckId, pageSize)) {
    for (const row of rows) if (!artifactHas(row.fingerprint)) missing.push(row.id);
    if (tooMany()) return { artifactId, missing: null, baseVersion };
  }
  return { artifactId, missing, baseVersion };
}

/**
 * Sets the states of all of `checkId`'s findings against `baseCheckId` (docs/ingestion.md
 * "States against the base"): deletes the check's RESOLVED rows; marks each other row EXISTING
 * when the base check has a non-RESOLVED occurrence with its fingerprint, else INTRODUCED (all
 * INTRODUCED without a base); then copies every base occurrence whose fingerprint the check lacks
 * as a RESOLVED row, except those in the places the check's tool said it could not analyze, which
 * are carried as EXISTING (docs/ingestion.md "Status"); then rewrites the check's issue counts,
 * which every summary reads. Returns the check's counts by state, and how many were carried.
 */
export function recomputeFindingStates(
  tx: Kysely<Database>,
  checkId: string,
  baseCheckId: string | null,
): Promise<SettledStates> {
  return settleFindingStates(tx, checkId, baseCheckId, undefined);
}

type ArtifactOutcomes = Awaited<ReturnType<typeof findArtifactOutcomesOfCheck>>;

/**
 * True when one of the check's `artifacts` other than `artifactId` named places its tool could
 * not analyze: only then can the check hold carried rows ({@link unanalyzedPathsOfCheck}), which
 * are found among its rows by a scan of the whole check.
 */
function mayHoldCarried(artifacts: ArtifactOutcomes, artifactId: string): boolean {
  return artifacts.some(
    (a) => a.id !== artifactId && a.status === "PROCESSED" && (a.outcome?.unanalyzedPaths?.length ?? 0) > 0,
  );
}

/** A check's findings by state once they are set, and how many of the EXISTING were carried. */
export type SettledStates = FindingStateCounts & { carried: number };

/** The artifact being published, and the paths its tool said it could not analyze (null: not known). */
export interface Publishing {
  artifactId: string;
  unanalyzedPaths: readonly string[] | null;
  /** Its rows are shown for the first time: the check's issue counts do not count them yet. */
  shownFirst: boolean;
}

/**
 * The paths the tool of `checkId` could not analyze, over its processed `artifacts` and the one
 * being published: a path one of them names counts only when none of them analyzed it, that is
 * gave a finding there or listed it (`artifact_analyzed_paths`) without saying it could not
 * analyze it (another shard of the build that compiled the file, or linted it and found nothing).
 * Null when one of them does not know its paths (its check is NEUTRAL).
 */
async function unanalyzedPathsOfCheck(
  tx: Kysely<Database>,
  artifacts: ArtifactOutcomes,
  publishing: Publishing | undefined,
): Promise<string[] | null> {
  if (publishing !== undefined && publishing.unanalyzedPaths === null) return null;
  const unanalyzedBy = new Map<string, ReadonlySet<string>>();
  if (publishing?.unanalyzedPaths)
    unanalyzedBy.set(publishing.artifactId, new Set(publishing.unanalyzedPaths));
  for (const artifact of artifacts) {
    if (artifact.status !== "PROCESSED" || artifact.id === publishing?.artifactId) continue;
    if (artifact.outcome === null) continue;
    if (artifact.outcome.unanalyzedPaths === null) return null;
    unanalyzedBy.set(artifact.id, new Set(artifact.outcome.unanalyzedPaths));
  }
  const paths = new Set([...unanalyzedBy.values()].flatMap((own) => [...own]));
  if (paths.size === 0) return [];
  const analyzed = new Set<string>();
  for (const { artifactId, path } of await findArtifactAnalyzedPathsIn(
    tx,
    [...unanalyzedBy.keys()],
    [...paths],
  )) {
    const own = unanalyzedBy.get(artifactId);
    if (own === undefined || own.has(path) || own.has(directoryOf(path))) continue;
    analyzed.add(path);
    analyzed.add(directoryOf(path));
  }
  return [...paths].filter((path) => !analyzed.has(path));
}

/** The directory a file is directly in, as unanalyzed paths write it (`./` for the root). */
function directoryOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "./" : path.slice(0, slash + 1);
}

/**
 * {@link recomputeFindingStates} at an artifact's publication, given what staging learned of the
 * base (`comparison`). While the base's findings are the ones staging read (the same version,
 * {@link findFindingsVersionOf}), the artifact's rows, whose states were decided against them as
 * they were written, are not tested again. When the check showed no other finding before, the
 * artifact's rows are all it has: nothing is flipped, and the base findings it lacks are the ones
 * staging found. When it did, and its other findings were last judged against that same version
 * too (`checks.settled_against`), their states and the RESOLVED copies stand: only the copies the
 * artifact's rows found again are deleted, and the carried ones found again; the issue counts are
 * then those before plus the artifact's rows less the deleted copies, unless carried rows moved.
 * Either way publishing costs the artifact's rows, not the base's or the check's size; otherwise
 * every row is judged again. `publishing` says what the artifact's tool could not analyze, which
 * its stored result does not hold yet, and whether its rows are shown for the first time.
 */
export async function settleFindingStates(
  tx: Kysely<Database>,
  checkId: string,
  baseCheckId: string | null,
  comparison: BaseComparison | undefined,
  publishing?: Publishing,
): Promise<SettledStates> {
  const version = await findFindingsVersionOf(tx, baseCheckId);
  // The artifact's rows were judged against the base's findings as they are now: no artifact of
  // the base came, went or was being staged since staging read it, and its base is the same.
  const current = comparison !== undefined && version !== null && comparison.baseVersion === version;
  // The counts still describe the check as it was before this publication.
  const before = current ? await countCheckFindingsByState(tx, checkId) : undefined;
  const missing = comparison?.missing;
  // Read once, for the carried rows below: without a base there are none.
  const artifacts = baseCheckId === null ? [] : await findArtifactOutcomesOfCheck(tx, checkId);
  // What changed in the check's published rows, when it is that little.
  let counted: { artifactId: string; removed: IssueCountGroup[] } | undefined;
  if (before !== undefined && before.introduced + before.existing === 0 && missing) {
    if (before.resolved > 0) await deleteResolvedOccurrencesOfCheck(tx, checkId);
    await insertResolvedCopies(tx, checkId, missing, OCCURRENCE_BATCH_SIZE);
  } else if (current && (await findCheckSettledAgainst(tx, checkId)) === version) {
    // The carried rows are found again below, with the places this artifact analyzed.
    const uncarried = mayHoldCarried(artifacts, comparison.artifactId);
    if (uncarried) await uncarryOccurrencesOfCheck(tx, checkId);
    const removed =
      uncarried || (before?.resolved ?? 1) > 0
        ? await deleteResolvedCopiesFoundIn(tx, checkId, comparison.artifactId)
        : [];
    // Only the artifact's rows and these copies changed, unless carried rows moved.
    if (!uncarried && publishing?.shownFirst && publishing.artifactId === comparison.artifactId)
      counted = { artifactId: comparison.artifactId, removed };
  } else {
    await deleteResolvedOccurrencesOfCheck(tx, checkId);
    // Flips exactly the rows whose state disagrees with the base: EXISTING without a base
    // occurrence of the fingerprint, INTRODUCED with one. Rows already right are not rewritten.
    await flipOccurrenceStatesAgainstBase(tx, checkId, baseCheckId, current ? comparison.artifactId : null);
    if (baseCheckId !== null)
      await insertResolvedCopiesOfBase(tx, checkId, baseCheckId, OCCURRENCE_BATCH_SIZE);
  }
  // The base's findings in what the tool could not analyze are not fixed: kept as EXISTING.
  const unanalyzed = baseCheckId === null ? [] : await unanalyzedPathsOfCheck(tx, artifacts, publishing);
  const carried = unanalyzed === null ? 0 : await carryBaseFindingsInPaths(tx, checkId, unanalyzed);
  // Every row has now been judged against the base's findings as they are.
  await setCheckBaseCheck(tx, checkId, baseCheckId, version);
  if (counted !== undefined && carried === 0)
    await addPublishedArtifactToIssueCounts(tx, checkId, counted.artifactId, counted.removed);
  else await refreshCheckIssueCounts(tx, [checkId]);
  return { ...(await countCheckFindingsByState(tx, checkId)), carried };
}
