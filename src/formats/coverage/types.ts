/**
 * The common in-memory shape every coverage format is parsed into. A parser reads one report and
 * answers one {@link CoverageReport}: files with repository-relative paths, per-line detail and
 * totals computed from that detail. Nothing here knows about the database or the API; the
 * ingestion step turns a report into metrics (LCV, BCV, CCV ...) and per-file rows.
 *
 * See docs/ingestion-coverage.md for how each format maps onto this shape.
 */

/** The report formats Assay reads. */
export type CoverageFormat = "lcov" | "cobertura" | "clover" | "jacoco" | "go";

/** Every format name, in the order detection tries them. */
export const COVERAGE_FORMATS: readonly CoverageFormat[] = ["lcov", "cobertura", "clover", "jacoco", "go"];

/** A covered / total pair: covered lines, covered branch outcomes or covered condition outcomes. */
export interface CoverageCounts {
  covered: number;
  total: number;
}

/** What one report says about one source line. */
export interface LineCoverage {
  /** 1-based line number in the source file. */
  line: number;
  /**
   * How many times the line ran, or null when the report has branch data for the line but no line
   * count (such a line does not count toward line totals). Formats without execution counts
   * (JaCoCo) give 1 for a covered line and 0 for a missed one.
   */
  hits: number | null;
  /** Branch outcomes on this line, when the format reports branches. */
  branches?: CoverageCounts;
  /**
   * The same outcomes one by one, taken or not, in the order of the ids the report gives them,
   * when the format tells each outcome apart: LCOV's `block,branch`, OpenClover's decisions in
   * their order on the line, each true and then false. Reports of one file merge outcome by
   * outcome through them; formats that only count a line's outcomes (Cobertura, JaCoCo,
   * Istanbul's Clover) leave it out.
   */
  outcomes?: boolean[];
  /**
   * Outcomes of the individual boolean conditions on this line, when the format reports them
   * (Cobertura `condition-coverage`, JaCoCo branch counters, Clover `cond` lines).
   */
  conditions?: CoverageCounts;
}

/** Covered / total counts for a file or a whole report. */
export interface CoverageTotals {
  lines: CoverageCounts;
  branches: CoverageCounts;
  /** Null when the format has no condition data for any line in scope. */
  conditions: CoverageCounts | null;
}

/** One source file's coverage. */
export interface FileCoverage {
  /** Repository-relative path with `/` separators (see {@link CoveragePathOptions}). */
  path: string;
  /** Lines the report mentions, ordered by line number, one entry per line. */
  lines: LineCoverage[];
  /** Totals over `lines`; from the report's own summary only when it gives no line detail. */
  totals: CoverageTotals;
}

/**
 * A file the report names that lies outside the repository (an absolute path not under `workDir`,
 * any absolute path without a `workDir`, a relative path climbing above the root). It is read but
 * counted in no total.
 */
export interface ExcludedFile {
  /** The path as resolved (normalised, absolute or climbing with `../`), for the uploader to see. */
  path: string;
  /** What the report holds for it, for the record; not part of the report's totals. */
  totals: CoverageTotals;
}

/** What a declared total counts: lines, statements (Clover elements) or branch outcomes. */
export type DeclaredMeasure = "lines" | "statements" | "branches";

/**
 * A total the report declares about itself (Clover `<metrics>`, Cobertura `lines-valid`, JaCoCo
 * counters, LCOV `LF`/`LH`) that disagrees with the same measure counted from its detail.
 */
export interface DeclaredTotalsMismatch {
  /** The file the declaration is about, or null for the whole report (every file it names). */
  path: string | null;
  measure: DeclaredMeasure;
  /** Where the declaration is written, e.g. `<metrics conditionals coveredconditionals>`. */
  source: string;
  declared: CoverageCounts;
  counted: CoverageCounts;
}

/** A parsed coverage report. */
export interface CoverageReport {
  format: CoverageFormat;
  /** Files in the repository, ordered by path; a file the report lists more than once appears once, merged. */
  files: FileCoverage[];
  /** Sum of the totals of `files` (files outside the repository are not in it). */
  totals: CoverageTotals;
  /** Files outside the repository, ordered by path: read, not counted. */
  excluded: ExcludedFile[];
  /** Declared totals that disagree with the detail, in the order the report declares them. */
  mismatches: DeclaredTotalsMismatch[];
}

/** How report paths become repository-relative paths. */
export interface CoveragePathOptions {
  /**
   * The directory the report was produced in (the upload's `metadata.workDir`, normally the
   * repository root in CI). Paths under it lose this prefix; `\` and `/` are both accepted. An
   * absolute path under neither it nor a strip prefix lies outside the repository.
   */
  workDir?: string;
  /**
   * Further prefixes to remove when a path starts with one, tried after `workDir`: e.g. the Go
   * module path (`example.com/project`), whose profiles name files by import path.
   */
  stripPrefixes?: string[];
  /**
   * The repository-relative directory the report was made in, when not the root
   * (src/formats/report-placement.ts; `workDir` is then the checkout's root): a relative path under
   * no strip prefix is read from it, so `src/a.js` made in `web` is `web/src/a.js`.
   */
  directory?: string;
  /**
   * Go profiles only: the repository's Go modules, each module path with its directory. A file
   * under a module's path (the longest that fits) lies in that module's directory:
   * `example.com/shop/internal/cart/cart.go` of a module `example.com/shop` in `backend` is
   * `backend/internal/cart/cart.go`. Tried before `workDir` and `stripPrefixes`.
   */
  goModules?: readonly GoModule[];
}

/** A Go module of the repository (docs/ingestion-coverage.md "Go modules in subdirectories"). */
export interface GoModule {
  /** The module path its go.mod declares (`module example.com/shop`). */
  modulePath: string;
  /** Its directory, relative to the repository root, `/`-separated; "" for the root. */
  directory: string;
}

/** Options for {@link parseCoverage}. */
export interface ParseCoverageOptions extends CoveragePathOptions {
  /** Parse as this format instead of detecting it. */
  format?: CoverageFormat;
}

/** Where in the report a problem is: a text line, an XML element, or both. */
export interface CoverageErrorLocation {
  /** 1-based line of the report text. */
  line?: number;
  /** The XML element the problem is in. */
  element?: string;
}

/**
 * A report that cannot be read: not well-formed, not a coverage report, or holding impossible
 * values (negative counts, line numbers below 1). The message names the problem and where it is,
 * so it can be shown to the uploader as is.
 */
export class CoverageFormatError extends Error {
  override readonly name = "CoverageFormatError";
  readonly format: CoverageFormat | null;
  readonly location: CoverageErrorLocation;

  constructor(format: CoverageFormat | null, problem: string, location: CoverageErrorLocation = {}) {
    super(`${describeFormat(format)}: ${problem}${describeLocation(location)}`);
    this.format = format;
    this.location = location;
  }
}

function describeFormat(format: CoverageFormat | null): string {
  switch (format) {
    case null:
      return "coverage report";
    case "lcov":
      return "LCOV report";
    case "cobertura":
      return "Cobertura report";
    case "clover":
      return "Clover report";
    case "jacoco":
      return "JaCoCo report";
    case "go":
      return "Go cover profile";
  }
}

function describeLocation({ line, element }: CoverageErrorLocation): string {
  const parts: string[] = [];
  if (element !== undefined) parts.push(`in <${element}>`);
  if (line !== undefined) parts.push(`at line ${line}`);
  return parts.length > 0 ? ` (${parts.join(" ")})` : "";
}
