import type { Kysely } from "kysely";
import type { Database, RepositoryRow } from "../../db/types.ts";
import {
  type CoveragePathOptions,
  type FileCoverage,
  latin1Warning,
  parseCoverage,
} from "../../formats/coverage/index.ts";
import { rootField, storedPlacement } from "../../formats/report-placement.ts";
import { findAccountsByIds } from "../../modules/accounts/account-store.ts";
import { accountVcsUrl } from "../../modules/accounts/vcs.ts";
import {
  type CoverageFileValues,
  deleteCoverageFilesOfArtifact,
  ensureCoverageReport,
  insertCoverageFiles,
} from "../../modules/coverage/coverage-report-store.ts";
import { countChangedLines, parseChangedLines, parseRenamedFiles } from "../changes.ts";
import {
  alternativesWarning,
  ambiguousPathWarnings,
  mismatchWarnings,
  outsideWarning,
} from "../coverage-warnings.ts";
import { type ProcessInput, type ProcessResult, ProcessTally } from "../types.ts";
import { recomputeRunCoverage } from "./recompute.ts";
import { collectDecodedText, collectText, metricKeyOfLanguage, placementOptions } from "./validate.ts";

/**
 * Coverage processing (docs/ingestion-coverage.md "Coverage metrics and new-code coverage"): a
 * coverage artifact becomes per-file rows (`coverage_files`), and the run's coverage check gets
 * its report (`coverage_reports`) and metric values (LCV, BCV, CCV, CPCV and the new-code NLCV,
 * NBCV, NCCV, NCPCV per language and AGGREGATE), recomputed from every coverage file of the check
 * and the run's changed lines whenever either arrives. Everything runs in the caller's transaction.
 *
 * This file reads an artifact and stores its files; recompute.ts sums the check up, tallies.ts
 * holds the counting and merging, metrics.ts the metric values and the quality gate, validate.ts
 * what the intake checks.
 */

/**
 * The cap on a CHANGES artifact's text when the caller does not pass one: the default of
 * `ASSAY_ARTIFACT_MAX_BYTES`. Stored artifacts were already held to the configured cap at upload.
 */
export const DEFAULT_CHANGES_MAX_BYTES = 268_435_456;

/** Rows per `coverage_files` INSERT: each row carries its line arrays. */
const FILE_ROWS_PER_INSERT = 2000;

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
  const { text, latin1Lines } = await collectDecodedText(input.text());
  const report = parseCoverage(text, await pathOptionsOf(tx, input));
  await deleteCoverageFilesOfArtifact(tx, artifact.id);
  await storeCoverageFiles(tx, { checkId: check.id, artifactId: artifact.id, languageKey }, report.files);
  // The check has a report from now on, even when this one named no files.
  await ensureCoverageReport(tx, check.id);
  const { ambiguous } = await recomputeRunCoverage(tx, input.run.id, maxBytes);
  const { lines, branches } = report.totals;
  const tally = new ProcessTally();
  tally.store(report.files.length);
  if (report.excluded.length > 0) {
    const placement = storedPlacement(artifact.work_dir, artifact.repository_root);
    tally.skip("OUTSIDE_REPOSITORY", report.excluded.length);
    tally.warn(outsideWarning(report.excluded, placement.root, rootField(placement)));
  }
  const latin1 = latin1Warning(latin1Lines);
  if (latin1 !== null) tally.warn(latin1);
  const alternatives = alternativesWarning(report);
  if (alternatives !== null) tally.warn(alternatives);
  for (const warning of mismatchWarnings(report.mismatches)) tally.warn(warning);
  // The run's other reports' ambiguous files were said when they, or the changes, were processed.
  const own = ambiguous.filter((file) => file.artifactIds.includes(artifact.id));
  for (const warning of ambiguousPathWarnings(own)) tally.warn(warning);
  return tally.result({
    linesTotal: lines.total,
    linesCovered: lines.covered,
    branchesTotal: branches.total,
    branchesCovered: branches.covered,
  });
}

/**
 * Processes a CHANGES artifact: checks it parses, then recomputes the run's coverage so new-code
 * coverage appears whether the coverage or the changed lines arrived first. One sent for its
 * renamed files alone changes no coverage: it counts the files it renames.
 */
export async function processChanges(
  input: ProcessInput,
  maxBytes: number = DEFAULT_CHANGES_MAX_BYTES,
): Promise<ProcessResult> {
  const text = await collectText(input.text());
  const changed = parseChangedLines(text, input.artifact.work_dir);
  if (input.artifact.renames_base_oid !== null) {
    const tally = new ProcessTally();
    const renamed = parseRenamedFiles(text, input.artifact.work_dir).size;
    tally.store(renamed);
    return tally.result({ renamedFiles: renamed });
  }
  const { ambiguous } = await recomputeRunCoverage(input.tx, input.run.id, maxBytes);
  const tally = new ProcessTally();
  tally.store(changed.size);
  for (const warning of ambiguousPathWarnings(ambiguous)) tally.warn(warning);
  return tally.result({ changedLines: countChangedLines(changed) });
}

/**
 * How the report's paths become repository-relative: where the upload placed it (its workDir,
 * and the checkout's root when workDir is a subdirectory), and for a Go profile
 * (which names files by import path) the modules the upload named with their directories, then
 * the repository's conventional module path, the host and path of its page (`github.com/acme/shop`).
 */
async function pathOptionsOf(tx: Kysely<Database>, input: ProcessInput): Promise<CoveragePathOptions> {
  const { work_dir: workDir, repository_root: repositoryRoot, go_modules: goModules } = input.artifact;
  const options: CoveragePathOptions = {
    ...placementOptions(storedPlacement(workDir, repositoryRoot)),
    ...(goModules ? { goModules } : {}),
  };
  const modulePath = modulePathOf(await repositoryPageOf(tx, input.repository));
  return modulePath ? { ...options, stripPrefixes: [modulePath] } : options;
}

async function repositoryPageOf(tx: Kysely<Database>, repository: RepositoryRow): Promise<string | null> {
  if (repository.vcs_url) return repository.vcs_url;
  const [account] = await findAccountsByIds(tx, [repository.account_id]);
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

/** Inserts one row per file, {@link FILE_ROWS_PER_INSERT} per statement. */
async function storeCoverageFiles(
  tx: Kysely<Database>,
  owner: { checkId: string; artifactId: string; languageKey: string },
  files: readonly FileCoverage[],
): Promise<void> {
  for (let start = 0; start < files.length; start += FILE_ROWS_PER_INSERT) {
    await insertCoverageFiles(tx, owner, files.slice(start, start + FILE_ROWS_PER_INSERT).map(fileRowOf));
  }
}

/**
 * A file's row; the line arrays as PostgreSQL array literals (`{1,2,3}`), cast on insert. A line
 * whose outcomes the format tells apart gets one branch entry per outcome, in the report's id
 * order (1 outcome, taken or not), so that another report of the file merges with it outcome by
 * outcome; any other branch line one entry with its counts (tallies.ts, `mergeFiles`).
 */
function fileRowOf(file: FileCoverage): CoverageFileValues {
  const covered: number[] = [];
  const uncovered: number[] = [];
  const branchLines: number[] = [];
  const branchTotals: number[] = [];
  const branchTaken: number[] = [];
  for (const line of file.lines) {
    if (line.hits !== null) (line.hits > 0 ? covered : uncovered).push(line.line);
    if (line.outcomes && line.outcomes.length > 0) {
      for (const taken of line.outcomes) {
        branchLines.push(line.line);
        branchTotals.push(1);
        branchTaken.push(taken ? 1 : 0);
      }
    } else if (line.branches && line.branches.total > 0) {
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
