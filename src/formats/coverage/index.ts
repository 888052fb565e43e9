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
    const known = "LCOV, Cobertura, Clover, JaCoCo or Go cover profile";
    const other = OTHER_FORMATS.find((candidate) => candidate.pattern.test(text.slice(0, 4096)));
    throw new CoverageFormatError(
      null,
      other === undefined
        ? `not a coverage report in a known format (${known})`
        : `this is ${other.name}, which Assay does not read (it reads ${known}): ${other.instead}`,
    );
  }
  const { format: _ignored, ...pathOptions } = options;
  return PARSERS[format](text, pathOptions);
}

/**
 * Coverage formats a tool writes beside one Assay reads, recognised from the start of the text, so
 * the refusal can say which export to upload instead.
 */
const OTHER_FORMATS: ReadonlyArray<{ name: string; pattern: RegExp; instead: string }> = [
  {
    name: "llvm-cov's JSON export",
    // It names itself last (`"type": "llvm.coverage.json.export"`), after the data.
    pattern: /^\s*\{\s*"data"\s*:\s*\[\s*\{\s*"files"\s*:|"type"\s*:\s*"llvm\.coverage\.json\.export"/,
    instead: "export LCOV instead (llvm-cov export -format=lcov)",
  },
  {
    name: "coverage.py's JSON report",
    pattern: /^\s*\{\s*"meta"\s*:\s*\{[^{}]*"(?:version|format)"[^{}]*\}\s*,\s*"files"\s*:/,
    instead: "upload coverage xml (Cobertura) or coverage lcov instead",
  },
  {
    name: "Istanbul's JSON coverage (coverage-final.json)",
    pattern: /"statementMap"\s*:\s*\{/,
    instead: "add the lcov, cobertura or clover reporter and upload that report",
  },
  {
    name: "gcov's JSON format",
    pattern: /"format_version"\s*:\s*"[^"]*"[\s\S]*"gcc_version"|"gcc_version"[\s\S]*"format_version"/,
    instead: "capture LCOV with lcov or gcovr --lcov, or Cobertura with gcovr --cobertura",
  },
];

function emptyTotals(): CoverageReport["totals"] {
  return { lines: { covered: 0, total: 0 }, branches: { covered: 0, total: 0 }, conditions: null };
}
