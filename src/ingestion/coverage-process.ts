import { type Kysely, sql } from "kysely";
import type { Database, MetricKey, MetricShortcode, RepositoryRow } from "../db/types.ts";
import type { ArtifactRow } from "../db/types-ingestion.ts";
import {
  type CoverageCounts,
  type CoveragePathOptions,
  type CoverageReport,
  type FileCoverage,
  parseCoverage,
} from "../formats/coverage/index.ts";
import { newRowKey } from "../graphql/global-id.ts";
import { accountVcsUrl } from "../modules/accounts/vcs.ts";
import {
  type ChangedCoverageFile,
  type MergedCoverageFile,
  replaceCoverageCheckFiles,
  setChangedCoverageOfCheckFiles,
} from "../modules/coverage/coverage-file-store.ts";
import { coveragePercent, formatMetricValue, thresholdStatusOf } from "../modules/metrics/metric-format.ts";
import { compareMetricKeys, compareShortcodes } from "../modules/metrics/metric-order.ts";
import { artifactText } from "./artifact-bytes.ts";
import {
  type ChangedLines,
  ChangedLinesFormatError,
  countChangedLines,
  isChanged,
  mergeChangedLines,
  parseChangedLines,
} from "./changes.ts";
import { mismatchWarnings, outsideWarning } from "./coverage-warnings.ts";
import { UploadError } from "./errors.ts";
import {
  COVERAGE_ANALYZER,
  COVERAGE_LANGUAGE_KEYS,
  type ProcessInput,
  type ProcessResult,
  ProcessTally,
} from "./types.ts";

/**
 * Coverage processing (docs/ingestion-coverage.md "Coverage metrics and new-code coverage"): a
 * coverage artifact becomes per-file rows (`coverage_files`), and the run's coverage check gets
 * its report (`coverage_reports`) and metric values (LCV, BCV, CCV, CPCV and the new-code NLCV,
 * NBCV, NCCV, NCPCV per language and AGGREGATE), recomputed from every coverage file of the check
 * and the run's changed lines whenever either arrives. Everything runs in the caller's transaction.
 */

/**
 * The cap on a CHANGES artifact's text when the caller does not pass one: the default of
 * `ASSAY_ARTIFACT_MAX_BYTES`. Stored artifacts were already held to the configured cap at upload.
 */
export const DEFAULT_CHANGES_MAX_BYTES = 268_435_456;

/** Rows per `coverage_files` INSERT: each row carries its line arrays. */
const FILE_ROWS_PER_INSERT = 2000;

/** Covered / total line, branch and condition counts; `conditions` null when the format has none. */
export interface CoverageTally {
  lines: CoverageCounts;
  branches: CoverageCounts;
  conditions: CoverageCounts | null;
}

/** A language's (or the whole check's) coverage: overall, and on changed lines when they are known. */
export interface CoverageSummary {
  overall: CoverageTally;
  /** Null when the run has no CHANGES artifact. */
  changed: CoverageTally | null;
}

/** One metric value computed for the check. */
export interface CoverageMetricValue {
  shortcode: MetricShortcode;
  key: MetricKey;
  /** A percentage from 0 to 100, rounded to two decimals. */
  value: number;
}

// --- Validation (the upload intake) -------------------------------------------------------------

/** The metric key a coverage language key is reported under; throws UNKNOWN_LANGUAGE. */
export function metricKeyOfLanguage(languageKey: string): MetricKey {
  const key = (COVERAGE_LANGUAGE_KEYS as Record<string, MetricKey>)[languageKey];
  if (key === undefined) {
    throw new UploadError(
      "UNKNOWN_LANGUAGE",
      `unknown coverage language key "${languageKey}"; expected one of ${Object.keys(COVERAGE_LANGUAGE_KEYS).join(", ")}`,
    );
  }
  return key;
}

/**
 * Parses a whole coverage report for the intake: throws CoverageFormatError for an unreadable
 * report and UploadError (UNKNOWN_LANGUAGE) for an unknown language key.
 */
export function validateCoverage(text: string, languageKey: string, workDir: string | null): CoverageReport {
  metricKeyOfLanguage(languageKey);
  return parseCoverage(text, workDir ? { workDir } : {});
}

/** Parses a CHANGES artifact for the intake; throws ChangedLinesFormatError. */
export function validateChanges(text: string, workDir: string | null): ChangedLines {
  return parseChangedLines(text, workDir);
}

// --- Processing ---------------------------------------------------------------------------------

/**
 * Processes one coverage artifact: parses it whole, replaces its `coverage_files` rows, and
 * recomputes the run's coverage. Processing the same artifact again gives the same rows.
 */
export async function processCoverage(
  input: ProcessInput,
  maxBytes: number = DEFAULT_CHANGES_MAX_BYTES,
): Promise<ProcessResult> {
  const { tx, artifact, check } = input;
  if (check === null) throw new Error(`coverage artifact ${artifact.id} has no check`);
  const languageKey = artifact.language_key ?? "";
  metricKeyOfLanguage(languageKey);
  const report = parseCoverage(await collectText(input.text()), await pathOptionsOf(tx, input));
  await tx.deleteFrom("coverage_files").where("artifact_id", "=", artifact.id).execute();
  await insertCoverageFiles(tx, { checkId: check.id, artifactId: artifact.id, languageKey }, report.files);
  // The check has a report from now on, even when this one named no files.
  await tx
    .insertInto("coverage_reports")
    .values({ check_id: check.id })
    .onConflict((oc) => oc.column("check_id").doNothing())
    .execute();
  await recomputeRunCoverage(tx, input.run.id, maxBytes);
  const { lines, branches } = report.totals;
  const tally = new ProcessTally();
  tally.store(report.files.length);
  if (report.excluded.length > 0) {
    tally.skip("OUTSIDE_REPOSITORY", report.excluded.length);
    tally.warn(outsideWarning(report.excluded, artifact.work_dir));
  }
  for (const warning of mismatchWarnings(report.mismatches)) tally.warn(warning);
  return tally.result({
    linesTotal: lines.total,
    linesCovered: lines.covered,
    branchesTotal: branches.total,
    branchesCovered: branches.covered,
  });
}

/**
 * Processes a CHANGES artifact: checks it parses, then recomputes the run's coverage so new-code
 * coverage appears whether the coverage or the changed lines arrived first.
 */
export async function processChanges(
  input: ProcessInput,
  maxBytes: number = DEFAULT_CHANGES_MAX_BYTES,
): Promise<ProcessResult> {
  const changed = parseChangedLines(await collectText(input.text()), input.artifact.work_dir);
  await recomputeRunCoverage(input.tx, input.run.id, maxBytes);
  const tally = new ProcessTally();
  tally.store(changed.size);
  return tally.result({ changedLines: countChangedLines(changed) });
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
): Promise<void> {
  const check = await tx
    .selectFrom("checks as c")
    .innerJoin("analyzers as a", "a.id", "c.analyzer_id")
    .innerJoin("analysis_runs as r", "r.id", "c.run_id")
    .innerJoin("repositories as repo", "repo.id", "r.repository_id")
    .select(["c.id", "r.repository_id", "r.commit_oid", "r.branch_name", "repo.default_branch"])
    .where("c.run_id", "=", runId)
    .where("a.shortcode", "=", COVERAGE_ANALYZER)
    .executeTakeFirst();
  if (!check || !(await hasCoverageReport(tx, check.id))) return;
  const changed = await changedLinesOfRun(tx, runId, maxBytes);
  const { perLanguage, merged, changedFiles } = await summariseCheck(tx, check.id, changed);
  const aggregate = sumSummaries([...perLanguage.values()], changed !== null);
  await writeCoverageReport(tx, check.id, aggregate);
  await replaceCoverageCheckFiles(tx, check.id, COVERAGE_LANGUAGE_KEYS, merged);
  if (changedFiles !== null) await setChangedCoverageOfCheckFiles(tx, check.id, changedFiles);
  const values = [
    ...metricValuesOf("AGGREGATE", aggregate),
    ...[...perLanguage].flatMap(([key, summary]) => metricValuesOf(key, summary)),
  ];
  await writeMetricValues(
    tx,
    {
      id: check.id,
      repositoryId: check.repository_id,
      commitOid: check.commit_oid,
      onDefaultBranch: check.branch_name !== null && check.branch_name === check.default_branch,
    },
    values,
  );
}

/**
 * The quality gate of a coverage check: one reason per recorded value that misses its threshold
 * (below it for UPWARD metrics, above for DOWNWARD) when the repository enforces that metric's
 * threshold; empty when the check passes.
 */
export async function coverageGateFailures(tx: Kysely<Database>, checkId: string): Promise<string[]> {
  const rows = await tx
    .selectFrom("metric_values as v")
    .innerJoin("repository_metric_items as i", "i.id", "v.item_id")
    .innerJoin("metrics as m", "m.shortcode", "i.metric_shortcode")
    .innerJoin("repository_metric_settings as s", (join) =>
      join
        .onRef("s.repository_id", "=", "i.repository_id")
        .onRef("s.metric_shortcode", "=", "i.metric_shortcode"),
    )
    .select([
      "v.value",
      "v.threshold",
      "i.metric_shortcode",
      "i.metric_key",
      "m.positive_direction",
      "m.unit",
    ])
    .where("v.check_id", "=", checkId)
    .where("v.threshold", "is not", null)
    .where("s.is_threshold_enforced", "=", true)
    .execute();
  return rows
    .filter((row) => thresholdStatusOf(row.value, row.threshold, row.positive_direction) === "FAILING")
    .sort(
      (a, b) =>
        compareShortcodes(a.metric_shortcode, b.metric_shortcode) ||
        compareMetricKeys(a.metric_key, b.metric_key),
    )
    .map((row) => {
      const side = row.positive_direction === "UPWARD" ? "below" : "above";
      const threshold = `${row.threshold}${row.unit === "%" ? "%" : row.unit ? ` ${row.unit}` : ""}`;
      return `${row.metric_shortcode} ${row.metric_key} ${formatMetricValue(row.value, row.unit)} is ${side} the threshold ${threshold}`;
    });
}

// --- Reading the artifact -----------------------------------------------------------------------

async function collectText(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString("utf8");
}

/**
 * How the report's paths become repository-relative: the upload's workDir, and for a Go profile
 * (which names files by import path) the repository's conventional module path, the host and
 * path of its page (`github.com/acme/shop`).
 */
async function pathOptionsOf(tx: Kysely<Database>, input: ProcessInput): Promise<CoveragePathOptions> {
  const options: CoveragePathOptions = input.artifact.work_dir ? { workDir: input.artifact.work_dir } : {};
  const modulePath = modulePathOf(await repositoryPageOf(tx, input.repository));
  return modulePath ? { ...options, stripPrefixes: [modulePath] } : options;
}

async function repositoryPageOf(tx: Kysely<Database>, repository: RepositoryRow): Promise<string | null> {
  if (repository.vcs_url) return repository.vcs_url;
  const account = await tx
    .selectFrom("accounts")
    .select(["vcs_provider", "login", "vcs_url"])
    .where("id", "=", repository.account_id)
    .executeTakeFirst();
  const base = account ? accountVcsUrl(account) : null;
  return base ? `${base}/${repository.name}` : null;
}

/** `https://github.com/acme/shop.git` → `github.com/acme/shop`; null for anything but an http(s) URL. */
function modulePathOf(page: string | null): string | null {
  if (!page) return null;
  try {
    const url = new URL(page);
    if (url.protocol !== "https:" && url.protocol !== "http:") return null;
    const path = decodeURIComponent(url.pathname)
      .replace(/\/+$/, "")
      .replace(/\.git$/, "");
    return path === "" ? null : `${url.host.toLowerCase()}${path}`;
  } catch {
    return null;
  }
}

// --- coverage_files -----------------------------------------------------------------------------

/** Inserts one row per file, a batch per statement (one array per column through unnest). */
async function insertCoverageFiles(
  tx: Kysely<Database>,
  owner: { checkId: string; artifactId: string; languageKey: string },
  files: readonly FileCoverage[],
): Promise<void> {
  for (let start = 0; start < files.length; start += FILE_ROWS_PER_INSERT) {
    const batch = files.slice(start, start + FILE_ROWS_PER_INSERT).map(fileRowOf);
    const column = <T>(pick: (row: FileRowValues) => T) => batch.map(pick);
    await sql`
      INSERT INTO coverage_files (check_id, artifact_id, language_key, path, lines_total, lines_covered,
        branches_total, branches_covered, conditions_total, conditions_covered, covered_lines, uncovered_lines,
        branch_lines, branch_totals, branch_taken)
      SELECT ${owner.checkId}, ${owner.artifactId}, ${owner.languageKey}, u.path, u.lines_total, u.lines_covered,
        u.branches_total, u.branches_covered, u.conditions_total, u.conditions_covered,
        u.covered_lines::integer[], u.uncovered_lines::integer[], u.branch_lines::integer[],
        u.branch_totals::integer[], u.branch_taken::integer[]
      FROM unnest(${column((r) => r.path)}::text[], ${column((r) => r.linesTotal)}::integer[],
        ${column((r) => r.linesCovered)}::integer[], ${column((r) => r.branchesTotal)}::integer[],
        ${column((r) => r.branchesCovered)}::integer[], ${column((r) => r.conditionsTotal)}::integer[],
        ${column((r) => r.conditionsCovered)}::integer[], ${column((r) => r.coveredLines)}::text[],
        ${column((r) => r.uncoveredLines)}::text[], ${column((r) => r.branchLines)}::text[],
        ${column((r) => r.branchTotals)}::text[], ${column((r) => r.branchTaken)}::text[])
        AS u(path, lines_total, lines_covered, branches_total, branches_covered, conditions_total,
          conditions_covered, covered_lines, uncovered_lines, branch_lines, branch_totals, branch_taken)`.execute(
      tx,
    );
  }
}

/** A file's row; the line arrays as PostgreSQL array literals (`{1,2,3}`), cast on insert. */
interface FileRowValues {
  path: string;
  linesTotal: number;
  linesCovered: number;
  branchesTotal: number;
  branchesCovered: number;
  conditionsTotal: number | null;
  conditionsCovered: number | null;
  coveredLines: string;
  uncoveredLines: string;
  branchLines: string;
  branchTotals: string;
  branchTaken: string;
}

function fileRowOf(file: FileCoverage): FileRowValues {
  const covered: number[] = [];
  const uncovered: number[] = [];
  const branchLines: number[] = [];
  const branchTotals: number[] = [];
  const branchTaken: number[] = [];
  for (const line of file.lines) {
    if (line.hits !== null) (line.hits > 0 ? covered : uncovered).push(line.line);
    if (line.branches && line.branches.total > 0) {
      branchLines.push(line.line);
      branchTotals.push(line.branches.total);
      branchTaken.push(line.branches.covered);
    }
  }
  const literal = (values: number[]) => `{${values.join(",")}}`;
  return {
    path: file.path,
    linesTotal: file.totals.lines.total,
    linesCovered: file.totals.lines.covered,
    branchesTotal: file.totals.branches.total,
    branchesCovered: file.totals.branches.covered,
    conditionsTotal: file.totals.conditions?.total ?? null,
    conditionsCovered: file.totals.conditions?.covered ?? null,
    coveredLines: literal(covered),
    uncoveredLines: literal(uncovered),
    branchLines: literal(branchLines),
    branchTotals: literal(branchTotals),
    branchTaken: literal(branchTaken),
  };
}

// --- Recomputing ----------------------------------------------------------------------------------

/** Whether the check has a report to compute: a report row, coverage files, or a processed coverage artifact. */
async function hasCoverageReport(tx: Kysely<Database>, checkId: string): Promise<boolean> {
  const result = await sql<{ present: boolean }>`
    SELECT EXISTS (SELECT 1 FROM coverage_reports WHERE check_id = ${checkId})
      OR EXISTS (SELECT 1 FROM coverage_files WHERE check_id = ${checkId})
      OR EXISTS (SELECT 1 FROM artifacts WHERE check_id = ${checkId} AND kind = 'COVERAGE' AND status = 'PROCESSED')
      AS present`.execute(tx);
  return result.rows[0]?.present === true;
}

/**
 * The union of the run's CHANGES artifacts that did not fail, or null when it has none. One that
 * does not parse is left out: its own processing reports the problem.
 */
async function changedLinesOfRun(
  tx: Kysely<Database>,
  runId: string,
  maxBytes: number,
): Promise<ChangedLines | null> {
  const artifacts: Array<Pick<ArtifactRow, "id" | "compression" | "work_dir">> = await tx
    .selectFrom("artifacts")
    .select(["id", "compression", "work_dir"])
    .where("run_id", "=", runId)
    .where("kind", "=", "CHANGES")
    .where("status", "!=", "FAILED")
    .orderBy("id")
    .execute();
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

/** A `coverage_files` row as the recomputation reads it. */
interface StoredFile {
  language_key: string;
  path: string;
  lines_total: number;
  lines_covered: number;
  branches_total: number;
  branches_covered: number;
  conditions_total: number | null;
  conditions_covered: number | null;
  covered_lines: number[];
  uncovered_lines: number[];
  branch_lines: number[];
  branch_totals: number[];
  branch_taken: number[];
}

/** What {@link summariseCheck} finds: the totals, and the per-file rows the totals do not keep. */
interface CheckSummary {
  perLanguage: Map<MetricKey, CoverageSummary>;
  /** The files several reports of one language name, merged. */
  merged: MergedCoverageFile[];
  /** Each file's figures on the changed lines (files with none left out); null without changed lines. */
  changedFiles: ChangedCoverageFile[] | null;
}

/**
 * Coverage per language (by metric key) of the check. A file named by one artifact counts as
 * stored, summed in the database; a file several artifacts of one language name (unit and
 * integration reports) counts once, merged (see {@link mergeFiles}).
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
  for (const row of await singleFileTotals(tx, checkId)) add(row.language_key, tallyOfRow(row));
  const merged = mergedFiles(await repeatedFiles(tx, checkId));
  for (const { file } of merged) add(file.language_key, tallyOfRow(file));

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
  };
}

type TotalsRow = Omit<
  StoredFile,
  "path" | "covered_lines" | "uncovered_lines" | "branch_lines" | "branch_totals" | "branch_taken"
>;

/** Totals per language over the files only one artifact of the check names. */
async function singleFileTotals(tx: Kysely<Database>, checkId: string): Promise<TotalsRow[]> {
  const result = await sql<TotalsRow>`
    SELECT language_key, sum(lines_total)::int AS lines_total, sum(lines_covered)::int AS lines_covered,
      sum(branches_total)::int AS branches_total, sum(branches_covered)::int AS branches_covered,
      sum(conditions_total)::int AS conditions_total, sum(conditions_covered)::int AS conditions_covered
    FROM (
      SELECT cf.*, count(*) OVER (PARTITION BY language_key, path) AS copies
      FROM (SELECT language_key, path, lines_total, lines_covered, branches_total, branches_covered,
              conditions_total, conditions_covered
            FROM coverage_files WHERE check_id = ${checkId}) AS cf
    ) AS f
    WHERE copies = 1
    GROUP BY language_key`.execute(tx);
  return result.rows;
}

/** The rows of files several artifacts of one language name. */
async function repeatedFiles(tx: Kysely<Database>, checkId: string): Promise<StoredFile[]> {
  const result = await sql<StoredFile>`
    SELECT ${sql.raw(STORED_FILE_COLUMNS)} FROM coverage_files
    WHERE check_id = ${checkId} AND (language_key, path) IN (
      SELECT language_key, path FROM coverage_files WHERE check_id = ${checkId}
      GROUP BY language_key, path HAVING count(*) > 1)`.execute(tx);
  return result.rows;
}

const STORED_FILE_COLUMNS = `language_key, path, lines_total, lines_covered, branches_total, branches_covered,
  conditions_total, conditions_covered, covered_lines, uncovered_lines, branch_lines, branch_totals, branch_taken`;

/**
 * Coverage of the changed lines, per language: lines with a count that are changed (covered when
 * run), and the branch outcomes on changed lines. Every format that reports conditions counts
 * them per line exactly as its branches, so a file with conditions counts the same outcomes there.
 */
async function changedTallies(
  tx: Kysely<Database>,
  checkId: string,
  changed: ChangedLines,
): Promise<{ perLanguage: Map<MetricKey, CoverageTally>; files: ChangedCoverageFile[] }> {
  const perLanguage = new Map<MetricKey, CoverageTally>();
  const files: ChangedCoverageFile[] = [];
  const paths = [...changed.keys()];
  if (paths.length === 0) return { perLanguage, files };
  const result = await sql<StoredFile>`
    SELECT ${sql.raw(STORED_FILE_COLUMNS)} FROM coverage_files
    WHERE check_id = ${checkId} AND path = ANY(${paths}::text[])`.execute(tx);
  for (const { file } of mergedFiles(result.rows)) {
    const key = metricKeyOfLanguage(file.language_key);
    const tally = changedTallyOf(file, changed);
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
  return { perLanguage, files };
}

function changedTallyOf(file: StoredFile, changed: ChangedLines): CoverageTally {
  const on = (line: number) => isChanged(changed, file.path, line);
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

/**
 * Each (language, path) once: rows of one file from several artifacts merged by {@link mergeFiles},
 * with how many reports named it.
 */
function mergedFiles(rows: readonly StoredFile[]): Array<{ file: StoredFile; reports: number }> {
  const groups = new Map<string, StoredFile[]>();
  for (const row of rows) {
    const id = `${row.language_key}\u0000${row.path}`;
    groups.set(id, [...(groups.get(id) ?? []), row]);
  }
  return [...groups.values()].map((group) => ({
    file: group.length === 1 ? group[0]! : mergeFiles(group),
    reports: group.length,
  }));
}

/**
 * One file as several reports saw it: a line is covered when any report ran it; a branch line
 * keeps the most outcomes and the most taken of any report (the parsers' rule for a line seen
 * twice). A report that gave totals without line detail (LCOV `LF`/`LH` only) cannot be merged
 * line by line: then the file keeps the larger covered and total counts.
 */
function mergeFiles(rows: readonly StoredFile[]): StoredFile {
  const covered = new Set(rows.flatMap((r) => r.covered_lines));
  const uncovered = new Set(rows.flatMap((r) => r.uncovered_lines).filter((line) => !covered.has(line)));
  const branchesByLine = new Map<number, CoverageCounts>();
  for (const row of rows) {
    row.branch_lines.forEach((line, i) => {
      const seen = branchesByLine.get(line);
      const total = row.branch_totals[i] ?? 0;
      const taken = row.branch_taken[i] ?? 0;
      branchesByLine.set(line, {
        total: Math.max(seen?.total ?? 0, total),
        covered: Math.max(seen?.covered ?? 0, taken),
      });
    });
  }
  const branchLines = [...branchesByLine.keys()].sort((a, b) => a - b);
  const lineDetail = rows.every((r) => r.lines_total === r.covered_lines.length + r.uncovered_lines.length);
  const branchDetail = rows.every((r) => r.branches_total === r.branch_totals.reduce((sum, n) => sum + n, 0));
  const largest = (pick: (r: StoredFile) => number) => Math.max(...rows.map(pick));
  const lines = lineDetail
    ? { covered: covered.size, total: covered.size + uncovered.size }
    : { covered: largest((r) => r.lines_covered), total: largest((r) => r.lines_total) };
  const branches = branchDetail
    ? sumCounts([...branchesByLine.values()])
    : { covered: largest((r) => r.branches_covered), total: largest((r) => r.branches_total) };
  const hasConditions = rows.some((r) => r.conditions_total !== null);
  return {
    language_key: rows[0]!.language_key,
    path: rows[0]!.path,
    lines_total: lines.total,
    lines_covered: lines.covered,
    branches_total: branches.total,
    branches_covered: branches.covered,
    conditions_total: hasConditions ? branches.total : null,
    conditions_covered: hasConditions ? branches.covered : null,
    covered_lines: [...covered].sort((a, b) => a - b),
    uncovered_lines: [...uncovered].sort((a, b) => a - b),
    branch_lines: branchLines,
    branch_totals: branchLines.map((line) => branchesByLine.get(line)!.total),
    branch_taken: branchLines.map((line) => branchesByLine.get(line)!.covered),
  };
}

function tallyOfRow(row: TotalsRow): CoverageTally {
  return {
    lines: { covered: row.lines_covered, total: row.lines_total },
    branches: { covered: row.branches_covered, total: row.branches_total },
    conditions:
      row.conditions_total === null
        ? null
        : { covered: row.conditions_covered ?? 0, total: row.conditions_total },
  };
}

function emptyCounts(): CoverageCounts {
  return { covered: 0, total: 0 };
}

function emptyTally(withConditions = false): CoverageTally {
  return { lines: emptyCounts(), branches: emptyCounts(), conditions: withConditions ? emptyCounts() : null };
}

function sumCounts(parts: readonly CoverageCounts[]): CoverageCounts {
  return parts.reduce((sum, c) => ({ covered: sum.covered + c.covered, total: sum.total + c.total }), {
    covered: 0,
    total: 0,
  });
}

/** Adds tallies up; conditions stay null unless some part has them. */
function sumTallies(parts: readonly CoverageTally[]): CoverageTally {
  const withConditions = parts.filter((p) => p.conditions !== null).map((p) => p.conditions!);
  return {
    lines: sumCounts(parts.map((p) => p.lines)),
    branches: sumCounts(parts.map((p) => p.branches)),
    conditions: withConditions.length === 0 ? null : sumCounts(withConditions),
  };
}

/** The AGGREGATE summary: every language's counts added up. */
function sumSummaries(parts: readonly CoverageSummary[], changesKnown: boolean): CoverageSummary {
  return {
    overall: sumTallies(parts.map((p) => p.overall)),
    changed: changesKnown ? sumTallies(parts.map((p) => p.changed ?? emptyTally())) : null,
  };
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
  await tx
    .insertInto("coverage_reports")
    .values({ check_id: checkId, ...row })
    .onConflict((oc) => oc.column("check_id").doUpdateSet(row))
    .execute();
}

// --- Metric values --------------------------------------------------------------------------------

/** `covered / total` as a percentage rounded to two decimals; null when there is nothing to measure. */
const percentage = coveragePercent;

/**
 * The metric values of one key's summary. Each is a percentage (0-100, two decimals) and is left
 * out when there is nothing to measure (no lines, no branches, no conditions, no changed lines).
 * CPCV, composite coverage, is (covered lines + covered branch outcomes) / (lines + branch
 * outcomes): conditions are left out because every format that reports them counts the same
 * outcomes as its branches, which would count them twice. NCPCV is the same over changed lines.
 */
export function metricValuesOf(key: MetricKey, summary: CoverageSummary): CoverageMetricValue[] {
  const values: CoverageMetricValue[] = [];
  const record = (shortcode: MetricShortcode, value: number | null) => {
    if (value !== null) values.push({ shortcode, key, value });
  };
  const composite = (t: CoverageTally) =>
    percentage(t.lines.covered + t.branches.covered, t.lines.total + t.branches.total);
  const { overall, changed } = summary;
  record("LCV", percentage(overall.lines.covered, overall.lines.total));
  record("BCV", percentage(overall.branches.covered, overall.branches.total));
  if (overall.conditions) record("CCV", percentage(overall.conditions.covered, overall.conditions.total));
  record("CPCV", composite(overall));
  if (changed) {
    record("NLCV", percentage(changed.lines.covered, changed.lines.total));
    record("NBCV", percentage(changed.branches.covered, changed.branches.total));
    if (changed.conditions) record("NCCV", percentage(changed.conditions.covered, changed.conditions.total));
    record("NCPCV", composite(changed));
  }
  return values;
}

/**
 * Replaces the check's metric values: the repository's item of each (metric, key) is created when
 * missing, and each value stores the item's threshold as it is now (the threshold in force).
 */
async function writeMetricValues(
  tx: Kysely<Database>,
  check: { id: string; repositoryId: string; commitOid: string; onDefaultBranch: boolean },
  values: readonly CoverageMetricValue[],
): Promise<void> {
  await tx.deleteFrom("metric_values").where("check_id", "=", check.id).execute();
  if (values.length === 0) return;
  await tx
    .insertInto("repository_metric_items")
    .values(
      values.map((v) => ({
        key: newRowKey(),
        repository_id: check.repositoryId,
        metric_shortcode: v.shortcode,
        metric_key: v.key,
        threshold: null,
      })),
    )
    .onConflict((oc) => oc.columns(["repository_id", "metric_shortcode", "metric_key"]).doNothing())
    .execute();
  const items = await tx
    .selectFrom("repository_metric_items")
    .select(["id", "metric_shortcode", "metric_key", "threshold"])
    .where("repository_id", "=", check.repositoryId)
    .where("metric_shortcode", "in", [...new Set(values.map((v) => v.shortcode))])
    .execute();
  const itemOf = new Map(items.map((item) => [`${item.metric_shortcode}:${item.metric_key}`, item]));
  await tx
    .insertInto("metric_values")
    .values(
      values.map((v) => {
        const item = itemOf.get(`${v.shortcode}:${v.key}`)!;
        return {
          key: newRowKey(),
          item_id: item.id,
          check_id: check.id,
          commit_oid: check.commitOid,
          value: v.value,
          threshold: item.threshold,
          on_default_branch: check.onDefaultBranch,
        };
      }),
    )
    .execute();
}
