import {
  alternativesOf,
  type CoverageCounts,
  type CoverageReport,
  type DeclaredTotalsMismatch,
  type ExcludedFile,
} from "../formats/coverage/index.ts";
import type { AmbiguousPath } from "./coverage/path-pairing.ts";

/**
 * The sentences a coverage artifact's result carries (docs/ingestion-coverage.md "What an upload
 * reports"): files left out for their paths, totals the report declares that its detail does
 * not bear out, and files whose changed lines could not be told. Each says what was found and
 * where, so the uploader can act on it.
 */

/** Excluded paths named in the outside-the-repository warning. */
const PATHS_NAMED = 3;
/** Mismatches (and ambiguous paths) described one by one; the rest are counted in one more sentence. */
const MISMATCHES_DESCRIBED = 5;
/** Candidates named for an ambiguous path. */
const CANDIDATES_NAMED = 3;

/** The warning for files outside the repository: how many, the first few, and how paths are resolved. */
export function outsideWarning(
  excluded: readonly ExcludedFile[],
  workDir: string | null,
  field: "workDir" | "repositoryRoot" = "workDir",
): string {
  const named = excluded
    .slice(0, PATHS_NAMED)
    .map((file) => file.path)
    .join(", ");
  const more = excluded.length > PATHS_NAMED ? ", …" : "";
  const what = `${excluded.length} file(s) lie outside the repository and were not counted (${named}${more})`;
  return workDir === null
    ? `${what}; absolute paths are made relative to the upload's workDir, and this upload gave none.`
    : `${what}; paths are made relative to the upload's ${field} "${workDir}".`;
}

/**
 * One warning per declared total that disagrees with the detail (the first
 * {@link MISMATCHES_DESCRIBED}), then one counting the rest. The figures stored are the detail's.
 */
export function mismatchWarnings(mismatches: readonly DeclaredTotalsMismatch[]): string[] {
  const warnings = mismatches.slice(0, MISMATCHES_DESCRIBED).map(describeMismatch);
  const rest = mismatches.length - MISMATCHES_DESCRIBED;
  if (rest > 0) {
    warnings.push(
      `${rest} more declared total(s) disagree with the report's detail; the figures come from the detail.`,
    );
  }
  return warnings;
}

function describeMismatch(mismatch: DeclaredTotalsMismatch): string {
  const { path, measure, source, declared, counted } = mismatch;
  const subject = path === null ? "The report as a whole" : path;
  return `${subject}: ${source} declares ${ratio(declared)} ${measure} covered, but its detail holds ${ratio(counted)}; the figures come from the detail.`;
}

function ratio(counts: CoverageCounts): string {
  return `${counts.covered} of ${counts.total}`;
}

/**
 * One warning per file several of the run's changed files could be (a JaCoCo package path that
 * more than one changed path ends in, a file under one of several Cobertura sources whose places
 * all changed), the first {@link MISMATCHES_DESCRIBED}, then one counting the rest: none of its
 * lines counts as changed.
 */
export function ambiguousPathWarnings(ambiguous: readonly AmbiguousPath[]): string[] {
  const warnings = ambiguous.slice(0, MISMATCHES_DESCRIBED).map(({ path, candidates }) => {
    const named = candidates.slice(0, CANDIDATES_NAMED).join(", ");
    const more = candidates.length > CANDIDATES_NAMED ? ", …" : "";
    return `${path} could be any of ${candidates.length} changed files (${named}${more}); the report does not say which, so none of its lines counts as changed.`;
  });
  const rest = ambiguous.length - MISMATCHES_DESCRIBED;
  if (rest > 0) {
    warnings.push(
      `${rest} more file(s) could each be several changed files; none of their lines counts as changed.`,
    );
  }
  return warnings;
}

/**
 * The warning for a Cobertura report that names several source directories in the repository and
 * writes each file relative to one of them without saying which: how many files, the sources, the
 * first few paths, and what follows. Null when every file has one place.
 */
export function alternativesWarning(report: CoverageReport): string | null {
  if (report.format !== "cobertura") return null;
  const placed = report.files.filter((file) => alternativesOf(file.path) !== null).map((file) => file.path);
  if (placed.length === 0) return null;
  const sources = /^\{([^{}]*)\}/.exec(placed[0]!)?.[1]?.split(",").join(", ");
  const named = placed.slice(0, PATHS_NAMED).join(", ");
  const more = placed.length > PATHS_NAMED ? ", …" : "";
  return `${placed.length} file(s) lie in one of the report's <source> directories (${sources}) and the report does not say which: they are listed with their places in braces (${named}${more}), and a file's changed lines count only when one of its places, and only one, changed. Reports that name files from the repository root (coverage.py's LCOV report, or a single source) avoid this.`;
}
