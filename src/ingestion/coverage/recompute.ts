import type { Kysely } from "kysely";
import type { Database, MetricKey } from "../../db/types.ts";
import { alternativesOf } from "../../formats/coverage/index.ts";
import { findUnfailedChangesArtifactsOfRun } from "../../modules/artifacts/artifact-store.ts";
import { findCheckOfRunByAnalyzerShortcode } from "../../modules/checks/check-store.ts";
import {
  type ChangedCoverageFile,
  type MergedCoverageFile,
  replaceCoverageCheckFiles,
  setChangedCoverageOfCheckFiles,
} from "../../modules/coverage/coverage-file-store.ts";
import {
  findCoverageFilePathsOfFormat,
  findCoverageFilesByPaths,
  findFilesOfSeveralLanguages,
  findRepeatedFiles,
  findSingleFileTotals,
  hasCoverageReport,
  type StoredCoverageFile,
  upsertCoverageReport,
} from "../../modules/coverage/coverage-report-store.ts";
import { compareMetricKeys } from "../../modules/metrics/metric-order.ts";
import { replaceMetricValuesOfCheck } from "../../modules/metrics/metric-store.ts";
import { artifactText } from "../artifact-bytes.ts";
import {
  type ChangedLines,
  ChangedLinesFormatError,
  isChanged,
  mergeChangedLines,
  parseChangedLines,
} from "../changes.ts";
import { COVERAGE_FORMAT_NAMES } from "../intake-report.ts";
import { COVERAGE_ANALYZER, COVERAGE_LANGUAGE_KEYS } from "../types.ts";
import { metricValuesOf } from "./metrics.ts";
import { type AmbiguousPath, type PathPairing, pairStoredPaths } from "./path-pairing.ts";
import {
  type CoverageSummary,
  type CoverageTally,
  emptyCounts,
  emptyTally,
  mergedFiles,
  subtractTally,
  sumTallies,
  tallyOfRow,
} from "./tallies.ts";
import { collectText, metricKeyOfLanguage } from "./validate.ts";

/** A stored path several of the run's changed files could be, and the artifacts that hold it. */
export interface AmbiguousCoverageFile extends AmbiguousPath {
  artifactIds: string[];
}

/** What a recomputation found that the uploader should see. */
export interface CoverageRecomputation {
  /** Files whose changed lines counted nowhere, since several changed files could be them. */
  ambiguous: AmbiguousCoverageFile[];
}

/**
 * Recomputes the coverage of the run's `test-coverage` check, if it has one with a report: the
 * `coverage_reports` row (totals over the check's files; the `*_new` counts over the run's
 * changed lines, null while none are known) and the check's metric values, replaced as a whole.
 * `maxBytes` caps the text read from each CHANGES artifact.
 */
export async function recomputeRunCoverage(
  tx: Kysely<Database>,
  runId: string,
  maxBytes: number,
): Promise<CoverageRecomputation> {
  const check = await findCheckOfRunByAnalyzerShortcode(tx, runId, COVERAGE_ANALYZER);
  if (!check || !(await hasCoverageReport(tx, check.id))) return { ambiguous: [] };
  const changed = await changedLinesOfRun(tx, runId, maxBytes);
  const { perLanguage, aggregate, merged, changedFiles, ambiguous } = await summariseCheck(
    tx,
    check.id,
    changed,
  );
  await writeCoverageReport(tx, check.id, aggregate);
  await replaceCoverageCheckFiles(tx, check.id, COVERAGE_LANGUAGE_KEYS, merged);
  if (changedFiles !== null) await setChangedCoverageOfCheckFiles(tx, check.id, changedFiles);
  const values = [
    ...metricValuesOf("AGGREGATE", aggregate),
    ...[...perLanguage].flatMap(([key, summary]) => metricValuesOf(key, summary)),
  ];
  await replaceMetricValuesOfCheck(
    tx,
    {
      id: check.id,
      repositoryId: check.repository_id,
      commitOid: check.commit_oid,
      onDefaultBranch: check.branch_name !== null && check.branch_name === check.default_branch,
      measuredAt: check.run_created_at,
    },
    values,
  );
  return { ambiguous };
}

/**
 * The union of the run's CHANGES artifacts that did not fail, or null when it has none. One that
 * does not parse is left out: its own processing reports the problem. One sent for its renamed
 * files alone (`renames_base_oid`) has no changed lines: a default-branch run gets no new-code
 * coverage from the renames `assay upload` sends it (docs/ingestion.md "Renamed files").
 */
async function changedLinesOfRun(
  tx: Kysely<Database>,
  runId: string,
  maxBytes: number,
): Promise<ChangedLines | null> {
  const artifacts = (await findUnfailedChangesArtifactsOfRun(tx, runId)).filter(
    (artifact) => artifact.renames_base_oid === null,
  );
  if (artifacts.length === 0) return null;
  const sets: ChangedLines[] = [];
  for (const artifact of artifacts) {
    try {
      sets.push(
        parseChangedLines(await collectText(artifactText(tx, artifact, maxBytes)), artifact.work_dir),
      );
    } catch (error) {
      if (!(error instanceof ChangedLinesFormatError)) throw error;
    }
  }
  return mergeChangedLines(sets);
}

/** What {@link summariseCheck} finds: the totals, and the per-file rows the totals do not keep. */
interface CheckSummary {
  perLanguage: Map<MetricKey, CoverageSummary>;
  /** The whole check: each file once, also one reported under several language keys. */
  aggregate: CoverageSummary;
  /** The files several reports of one language name, merged. */
  merged: MergedCoverageFile[];
  /** Each file's figures on the changed lines (files with none left out); null without changed lines. */
  changedFiles: ChangedCoverageFile[] | null;
  ambiguous: AmbiguousCoverageFile[];
}

/**
 * Coverage per language (by metric key) of the check. A file named by one artifact counts as
 * stored, summed in the database; a file several artifacts of one language name (unit and
 * integration reports) counts once, merged (see {@link mergeFiles} in tallies.ts).
 */
async function summariseCheck(
  tx: Kysely<Database>,
  checkId: string,
  changed: ChangedLines | null,
): Promise<CheckSummary> {
  const overall = new Map<MetricKey, CoverageTally>();
  const add = (languageKey: string, tally: CoverageTally) => {
    const key = metricKeyOfLanguage(languageKey);
    overall.set(key, sumTallies([overall.get(key) ?? emptyTally(), tally]));
  };
  for (const row of await findSingleFileTotals(tx, checkId)) add(row.language_key, tallyOfRow(row));
  const merged = mergedFiles(await findRepeatedFiles(tx, checkId));
  for (const { file } of merged) add(file.language_key, tallyOfRow(file));

  // A file under several language keys counts in each of them, and once in the AGGREGATE.
  const shared = await findFilesOfSeveralLanguages(tx, checkId);
  const aggregateOverall = sumTallies([
    subtractTally(
      sumTallies([...overall.values()]),
      sumTallies(mergedFiles(shared).map(({ file }) => tallyOfRow(file))),
    ),
    ...mergedFiles(shared, "languages").map(({ file }) => tallyOfRow(file)),
  ]);

  const fresh = changed === null ? null : await changedTallies(tx, checkId, changed);
  const perLanguage = new Map<MetricKey, CoverageSummary>();
  for (const key of [...overall.keys()].sort(compareMetricKeys)) {
    perLanguage.set(key, {
      overall: overall.get(key)!,
      changed:
        fresh === null
          ? null
          : (fresh.perLanguage.get(key) ?? emptyTally(overall.get(key)!.conditions !== null)),
    });
  }
  return {
    perLanguage,
    aggregate: {
      overall: aggregateOverall,
      // Conditions counted on changed lines whenever the check counts them at all, as per language.
      changed:
        fresh === null
          ? null
          : sumTallies([emptyTally(aggregateOverall.conditions !== null), fresh.aggregate]),
    },
    merged: merged.map(({ file, reports }) => ({
      metricKey: metricKeyOfLanguage(file.language_key),
      path: file.path,
      reports,
      linesTotal: file.lines_total,
      linesCovered: file.lines_covered,
      branchesTotal: file.branches_total,
      branchesCovered: file.branches_covered,
      conditionsTotal: file.conditions_total,
      conditionsCovered: file.conditions_covered,
      uncoveredLines: file.uncovered_lines,
    })),
    changedFiles: fresh?.files ?? null,
    ambiguous: fresh?.ambiguous ?? [],
  };
}

/**
 * Coverage of the changed lines, per language: lines with a count that are changed (covered when
 * run), and the branch outcomes on changed lines. Every format that reports conditions counts
 * them per line exactly as its branches, so a file with conditions counts the same outcomes there.
 * A file stands for the changed file of its path, or for the one its JaCoCo package path or its
 * places under several sources name (see {@link pairChangedFiles}); one that several changed
 * files could be counts no changed line.
 */
async function changedTallies(
  tx: Kysely<Database>,
  checkId: string,
  changed: ChangedLines,
): Promise<{
  perLanguage: Map<MetricKey, CoverageTally>;
  /** Every language's changed lines, a file under several language keys once. */
  aggregate: CoverageTally;
  files: ChangedCoverageFile[];
  ambiguous: AmbiguousCoverageFile[];
}> {
  const perLanguage = new Map<MetricKey, CoverageTally>();
  const files: ChangedCoverageFile[] = [];
  const paths = [...changed.keys()];
  if (paths.length === 0) return { perLanguage, aggregate: emptyTally(), files, ambiguous: [] };
  const { pairing, inexact } = await pairChangedFiles(tx, checkId, paths);
  const paired = inexact.map((p) => p.path).filter((path) => pairing.changedPathOf(path) !== undefined);
  const rows = await findCoverageFilesByPaths(tx, checkId, [...new Set([...paths, ...paired])]);
  for (const { file } of mergedFiles(rows)) {
    const key = metricKeyOfLanguage(file.language_key);
    const tally = changedTallyOf(file, changed, pairing.changedPathOf(file.path));
    perLanguage.set(key, sumTallies([perLanguage.get(key) ?? emptyTally(), tally]));
    files.push({
      metricKey: key,
      path: file.path,
      linesTotal: tally.lines.total,
      linesCovered: tally.lines.covered,
      branchesTotal: tally.branches.total,
      branchesCovered: tally.branches.covered,
    });
  }
  const ambiguous = pairing.ambiguous.map((entry) => ({
    ...entry,
    artifactIds: inexact.filter((p) => p.path === entry.path).map((p) => p.artifact_id),
  }));
  const aggregate = sumTallies(
    mergedFiles(rows, "languages").map(({ file }) =>
      changedTallyOf(file, changed, pairing.changedPathOf(file.path)),
    ),
  );
  return { perLanguage, aggregate, files, ambiguous };
}

/**
 * Pairs the check's files with the changed paths (see {@link pairStoredPaths}): JaCoCo's package
 * paths, and the alternatives paths of Cobertura reports with several sources (`{a,b}/name`),
 * besides the paths that match exactly. Answers those two kinds of files, each with its artifact.
 */
async function pairChangedFiles(
  tx: Kysely<Database>,
  checkId: string,
  changedPaths: readonly string[],
): Promise<{ pairing: PathPairing; inexact: Array<{ path: string; artifact_id: string }> }> {
  const packagePaths = await findCoverageFilePathsOfFormat(tx, checkId, COVERAGE_FORMAT_NAMES.jacoco);
  const alternatives = (
    await findCoverageFilePathsOfFormat(tx, checkId, COVERAGE_FORMAT_NAMES.cobertura, "{")
  ).filter(({ path }) => alternativesOf(path) !== null);
  const pairing = pairStoredPaths(
    [
      ...packagePaths.map(({ path }) => ({ path, kind: "below-source-root" as const })),
      ...alternatives.map(({ path }) => ({ path, kind: "one-of" as const })),
    ],
    changedPaths,
  );
  return { pairing, inexact: [...packagePaths, ...alternatives] };
}

/** A file's coverage on the lines of `changedPath` that changed; nothing when it stands for no changed file. */
function changedTallyOf(
  file: StoredCoverageFile,
  changed: ChangedLines,
  changedPath: string | undefined,
): CoverageTally {
  const on = (line: number) => changedPath !== undefined && isChanged(changed, changedPath, line);
  const covered = file.covered_lines.filter(on).length;
  const lines = { covered, total: covered + file.uncovered_lines.filter(on).length };
  const branches = { covered: 0, total: 0 };
  file.branch_lines.forEach((line, i) => {
    if (!on(line)) return;
    branches.total += file.branch_totals[i] ?? 0;
    branches.covered += file.branch_taken[i] ?? 0;
  });
  return { lines, branches, conditions: file.conditions_total === null ? null : { ...branches } };
}

/** Writes the check's `coverage_reports` row from the AGGREGATE summary. */
async function writeCoverageReport(
  tx: Kysely<Database>,
  checkId: string,
  summary: CoverageSummary,
): Promise<void> {
  const { overall, changed } = summary;
  // New conditions: null unless the report has conditions and the changed lines are known.
  const changedConditions =
    overall.conditions === null || changed === null ? null : (changed.conditions ?? emptyCounts());
  const row = {
    lines_total: overall.lines.total,
    lines_covered: overall.lines.covered,
    lines_new: changed?.lines.total ?? null,
    lines_new_covered: changed?.lines.covered ?? null,
    branches_total: overall.branches.total,
    branches_covered: overall.branches.covered,
    branches_new: changed?.branches.total ?? null,
    branches_new_covered: changed?.branches.covered ?? null,
    conditions_total: overall.conditions?.total ?? null,
    conditions_covered: overall.conditions?.covered ?? null,
    conditions_new: changedConditions?.total ?? null,
    conditions_new_covered: changedConditions?.covered ?? null,
  };
  await upsertCoverageReport(tx, checkId, row);
}
