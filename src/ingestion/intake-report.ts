import type { CoverageFormat, CoverageReport } from "../formats/coverage/index.ts";
import { alternativesWarning } from "./coverage-warnings.ts";
import { UploadError } from "./errors.ts";
import type { SarifSummary } from "./sarif-validate.ts";

/**
 * What the intake tells the uploader about a report it validated (docs/ingestion.md "What an
 * upload stored"): the name of the format it recognised, recorded on the artifact, and the SARIF
 * results or coverage files that will not be stored, said in the upload's answer, or the refusal
 * when none could be.
 */

/** The format recorded for a coverage artifact, by the parser that read it. */
export const COVERAGE_FORMAT_NAMES: Record<CoverageFormat, string> = {
  lcov: "LCOV",
  cobertura: "Cobertura",
  clover: "Clover",
  jacoco: "JaCoCo",
  go: "Go cover profile",
};

/** The format recorded for a CHANGES artifact, by how `parseChangedLines` reads its text. */
export function changesFormatName(text: string): string {
  const body = text.replace(/^\uFEFF/, "").trimStart();
  if (body === "") return "empty";
  return body.startsWith("{") ? "line ranges" : "unified diff";
}

/** The verb agreeing with `count` ("1 lies", "3 lie"): the counts in these messages are often 1. */
function verb(count: number, singular: string, plural: string): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

/**
 * What to do about paths outside the repository, for the upload's root (`workDir`, or
 * `repositoryRoot`). When some of the report's paths were placed (`partly`), the root is likely
 * right and the rest a dependency's or the system's (a vendored crate, a header under /usr), which
 * are left out as they should be: the advice is then only for paths that are the repository's.
 */
function outsideFix(
  workDir: string | null,
  field: "workDir" | "repositoryRoot" = "workDir",
  partly = false,
): string {
  const send =
    "send the directory the analyzer ran in as workDir (`metadata.workDir`; `--work-dir` for assay upload), or write paths relative to the repository root";
  if (workDir === null)
    return `absolute paths are made relative to the upload's workDir and this upload gave none: ${send}`;
  const where = `they are not under the upload's ${field} "${workDir}"`;
  return partly
    ? `${where}, as a dependency's or the system's files are not; if they are the repository's, ${send}`
    : `${where}: ${send}`;
}

/**
 * The sentences an accepted SARIF upload answers about results that will not be stored (outside
 * the repository, naming no file, or holding text that cannot be stored); empty when every result has a place. Throws
 * OUTSIDE_REPOSITORY when some result lies outside the repository and none has a place: storing
 * such a report would make a check that only looks empty.
 */
export function sarifPlacementWarnings(
  summary: SarifSummary,
  workDir: string | null,
  field: "workDir" | "repositoryRoot" = "workDir",
): string[] {
  const outside = summary.unplaced.OUTSIDE_REPOSITORY ?? 0;
  const noLocation = summary.unplaced.NO_LOCATION ?? 0;
  const first = summary.firstOutside ?? "";
  if (outside > 0 && summary.placed === 0) {
    const parts = [`${verb(outside, "lies", "lie")} outside the repository (first: ${first})`];
    if (noLocation > 0) parts.push(`${verb(noLocation, "names", "name")} no file`);
    const absent = summary.unplaced.ABSENT ?? 0;
    if (absent > 0) parts.push(`${verb(absent, "is", "are")} marked absent by the tool`);
    const none =
      summary.results === 1
        ? "the report's only result cannot be stored"
        : `none of the report's ${summary.results} results can be stored`;
    throw new UploadError(
      "OUTSIDE_REPOSITORY",
      `${none}: ${parts.join(", ")}; ${outsideFix(workDir, field)}`,
    );
  }
  const warnings: string[] = [];
  if (outside > 0) {
    warnings.push(
      `${outside} of ${summary.results} results ${outside === 1 ? "lies" : "lie"} outside the repository and will not be stored (first: ${first}); ${outsideFix(workDir, field, true)}.`,
    );
  }
  if (noLocation > 0) {
    warnings.push(
      `${noLocation} of ${summary.results} results ${noLocation === 1 ? "names" : "name"} no file (no location, or only logical ones) and will not be stored (first: ${summary.firstNoLocation ?? "?"}).`,
    );
  }
  warnings.push(...summary.toolErrors.warnings());
  const unstorable = summary.unplaced.UNSTORABLE_TEXT ?? 0;
  if (unstorable > 0) {
    warnings.push(
      `${unstorable} of ${summary.results} results ${unstorable === 1 ? "holds" : "hold"} a NUL character or an unpaired surrogate (in a rule id, message, path or fingerprint) and will not be stored.`,
    );
  }
  return warnings;
}

/**
 * The sentences an accepted coverage upload answers about files that will not be counted (outside
 * the repository) and files the report places in one of several sources without saying which;
 * empty when every file is inside and has one place. Throws OUTSIDE_REPOSITORY when the report names
 * files and every one lies outside: its metrics would be an empty report's, which says nothing.
 */
export function coveragePlacementWarnings(
  report: CoverageReport,
  workDir: string | null,
  field: "workDir" | "repositoryRoot" = "workDir",
): string[] {
  const outside = report.excluded.length;
  const alternatives = alternativesWarning(report);
  if (outside === 0) return alternatives === null ? [] : [alternatives];
  const first = report.excluded[0]!.path;
  if (report.files.length === 0) {
    const none =
      outside === 1
        ? "the report's only file cannot be counted"
        : `none of the report's ${outside} files can be counted`;
    throw new UploadError(
      "OUTSIDE_REPOSITORY",
      `${none}: ${verb(outside, "lies", "lie")} outside the repository (first: ${first}); ${outsideFix(workDir, field)}`,
    );
  }
  const read = outside + report.files.length;
  return [
    `${outside} of ${read} files ${outside === 1 ? "lies" : "lie"} outside the repository and will not be counted (first: ${first}); ${outsideFix(workDir, field, true)}.`,
    ...(alternatives === null ? [] : [alternatives]),
  ];
}
