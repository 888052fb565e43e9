import type { ArtifactKind } from "../db/types-ingestion.ts";
import { BanditFormatError } from "../formats/bandit/reader.ts";
import { CheckstyleFormatError } from "../formats/checkstyle/reader.ts";
import { CoverageFormatError } from "../formats/coverage/index.ts";
import { CppcheckFormatError } from "../formats/cppcheck/reader.ts";
import { EslintFormatError } from "../formats/eslint/reader.ts";
import { GccFormatError } from "../formats/gcc/reader.ts";
import { GoVetFormatError } from "../formats/govet/reader.ts";
import { PylintFormatError } from "../formats/pylint/reader.ts";
import { SarifFormatError } from "../formats/sarif/types.ts";
import { SbomFormatError } from "../formats/sbom/types.ts";
import { ShellcheckFormatError } from "../formats/shellcheck/reader.ts";
import type { Sniffed } from "../formats/sniff.ts";
import { ChangedLinesFormatError } from "./changes.ts";

/**
 * Why an upload was refused, as `createArtifact` / `uploadArtifact` answer it (`ok: false` and the
 * message as `error`). Every refusal happens before anything is stored.
 */
export type UploadProblem =
  /** The DSN token names no repository (or an old generation of its DSN). */
  | "INVALID_DSN"
  /** The repository exists but is not activated. */
  | "REPOSITORY_INACTIVE"
  /** `commitOid` is not 7 to 64 hexadecimal characters. */
  | "INVALID_COMMIT"
  /** `analyzer` is neither in the catalog nor a community analyzer (`analyzerType: community`). */
  | "UNKNOWN_ANALYZER"
  /** A coverage upload's `key` is not a language the contract's CLI knows. */
  | "UNKNOWN_LANGUAGE"
  /** `data` is not base64 when compressed, or does not decompress. */
  | "INVALID_ENCODING"
  /** The report is larger than the configured cap. */
  | "TOO_LARGE"
  /** The report is not valid in its format (JSON, SARIF 2.1.0, a coverage format, a diff, an SBOM). */
  | "INVALID_REPORT"
  /** The report is of another kind than the analyzer takes (LCOV sent as SARIF, an SBOM...). */
  | "WRONG_FORMAT"
  /** Every SARIF result lies outside the repository (or names no file): nothing would be stored. */
  | "OUTSIDE_REPOSITORY"
  /** Another input field is missing or malformed (its name is in the message). */
  | "INVALID_INPUT"
  /** The configuration (`.deepsource.toml`) is too large, not TOML, or not of the documented shape. */
  | "INVALID_CONFIG"
  /** The run already has another configuration than the one this upload carries. */
  | "CONFIG_CONFLICT";

/** An upload refused for a reason the uploader can fix; the message names the problem. */
export class UploadError extends Error {
  override name = "UploadError";
  constructor(
    readonly problem: UploadProblem,
    message: string,
  ) {
    super(message);
  }
}

/**
 * What is wrong with a report, when `error` says its text is invalid in its format (SARIF, a
 * coverage format, changed lines); undefined for any other error. The upload answers it as
 * INVALID_REPORT; processing fails the artifact with it instead of retrying.
 */
export function invalidReportMessage(error: unknown): string | undefined {
  if (error instanceof SarifFormatError) return `the SARIF report is invalid: ${error.message}`;
  if (error instanceof CppcheckFormatError) {
    return error.problem === "NOT_CPPCHECK"
      ? `the report is invalid: ${error.message}`
      : `the cppcheck XML report is invalid: ${error.message}`;
  }
  if (error instanceof GoVetFormatError) {
    return error.problem === "NOT_GO_VET"
      ? `the report is invalid: ${error.message}`
      : `the go vet JSON report is invalid: ${error.message}`;
  }
  if (error instanceof GccFormatError) {
    return error.problem === "NOT_GCC"
      ? `the report is invalid: ${error.message}`
      : `the GCC JSON report is invalid: ${error.message}`;
  }
  if (error instanceof CheckstyleFormatError) {
    return error.problem === "NOT_CHECKSTYLE"
      ? `the report is invalid: ${error.message}`
      : `the checkstyle XML report is invalid: ${error.message}`;
  }
  if (error instanceof ShellcheckFormatError) {
    if (error.problem === "NOT_READ") return `the report is not read: ${error.message}`;
    return error.output === "gcc"
      ? `the ShellCheck gcc report is invalid: ${error.message}`
      : `the ShellCheck JSON report is invalid: ${error.message}`;
  }
  if (error instanceof PylintFormatError) {
    return error.problem === "NOT_PYLINT"
      ? `the report is invalid: ${error.message}`
      : `the pylint JSON report is invalid: ${error.message}`;
  }
  if (error instanceof EslintFormatError) {
    return error.problem === "NOT_ESLINT"
      ? `the report is invalid: ${error.message}`
      : `the ESLint JSON report is invalid: ${error.message}`;
  }
  if (error instanceof BanditFormatError) {
    return error.problem === "NOT_BANDIT"
      ? `the report is invalid: ${error.message}`
      : `the Bandit JSON report is invalid: ${error.message}`;
  }
  if (error instanceof CoverageFormatError) return `the coverage report is invalid: ${error.message}`;
  if (error instanceof ChangedLinesFormatError) return `the changed lines are invalid: ${error.message}`;
  if (error instanceof SbomFormatError) return `the SBOM is invalid: ${error.message}`;
  return undefined;
}

/** What an upload of each kind is called in a sentence ("..., not SARIF"). */
const KIND_NAMES: Record<ArtifactKind, string> = {
  SARIF: "SARIF",
  COVERAGE: "a coverage report",
  CHANGES: "changed lines",
  SBOM: "an SBOM",
};

/** How to upload a report of each family, for the sentence that follows "not SARIF: ". */
const HOW_TO_UPLOAD: Record<Sniffed["family"], string | undefined> = {
  findings:
    "upload it with the shortcode of the analyzer that wrote it (with analyzerType community for one outside the catalog)",
  coverage: "upload it with analyzer test-coverage and a language key (`key`; `--key` for assay upload)",
  changes: "upload it with analyzer changes",
  sbom: "upload it with analyzer sca",
  other: undefined,
};

/** The family of reports each artifact kind reads. */
const FAMILY_OF_KIND: Record<ArtifactKind, Sniffed["family"]> = {
  SARIF: "findings",
  COVERAGE: "coverage",
  CHANGES: "changes",
  SBOM: "sbom",
};

/**
 * The refusal of a report that did not parse as `kind` when it looks like another kind of
 * report, naming what it looks like and how to upload that ("this looks like an LCOV coverage
 * report, not SARIF: upload it with analyzer test-coverage ..."); undefined when it looks like
 * the expected kind or like nothing known, so the parser's own message stands.
 */
export function wrongFormatMessage(kind: ArtifactKind, sniffed: Sniffed): string | undefined {
  const how = HOW_TO_UPLOAD[sniffed.family];
  if (how === undefined || sniffed.family === FAMILY_OF_KIND[kind]) return undefined;
  return `this looks like ${sniffed.description}, not ${KIND_NAMES[kind]}: ${how}`;
}
