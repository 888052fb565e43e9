/**
 * Coverage report parsing: LCOV, Cobertura, Clover, JaCoCo and Go cover profiles into one shape
 * (./types.ts). Pure: no database, no I/O.
 */
import { parseClover } from "./clover.ts";
import { parseCobertura } from "./cobertura.ts";
import { detectCoverageFormat } from "./detect.ts";
import { parseGoProfile } from "./go-profile.ts";
import { parseJacoco } from "./jacoco.ts";
import { parseLcov } from "./lcov.ts";
import {
  type CoverageFormat,
  CoverageFormatError,
  type CoveragePathOptions,
  type CoverageReport,
  type ParseCoverageOptions,
} from "./types.ts";

export { detectCoverageFormat } from "./detect.ts";
export { alternativesOf, normaliseCoveragePath } from "./paths.ts";
export { type DecodedReportText, decodeReportText, latin1Warning } from "./text.ts";
export * from "./types.ts";
export { parseClover, parseCobertura, parseGoProfile, parseJacoco, parseLcov };

const PARSERS: Record<CoverageFormat, (text: string, options: CoveragePathOptions) => CoverageReport> = {
  lcov: parseLcov,
  cobertura: parseCobertura,
  clover: parseClover,
  jacoco: parseJacoco,
  go: parseGoProfile,
};

/**
 * Parses a coverage report of the given or detected format. An empty (or blank) text is an empty
 * report of the given format, or of LCOV when none is given, since coverage tools write an empty
 * LCOV file when no source was loaded. Throws CoverageFormatError for anything unreadable.
 */
export function parseCoverage(text: string, options: ParseCoverageOptions = {}): CoverageReport {
  if (text.trim() === "" || text.trim() === "\uFEFF") {
    const format = options.format ?? "lcov";
    if (format === "lcov" || format === "go") {
      return { format, files: [], totals: emptyTotals(), excluded: [], mismatches: [] };
    }
    throw new CoverageFormatError(format, "the report is empty");
  }
  const format = options.format ?? detectCoverageFormat(text);
  if (format === null) {
    throw new CoverageFormatError(
      null,
      "not a coverage report in a known format (LCOV, Cobertura, Clover, JaCoCo or Go cover profile)",
    );
  }
  const { format: _ignored, ...pathOptions } = options;
  return PARSERS[format](text, pathOptions);
}

function emptyTotals(): CoverageReport["totals"] {
  return { lines: { covered: 0, total: 0 }, branches: { covered: 0, total: 0 }, conditions: null };
}
