import { CoverageFormatError } from "../formats/coverage/index.ts";
import { SarifFormatError } from "../formats/sarif/types.ts";
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
  /** The report is not valid in its format (JSON, SARIF 2.1.0, a coverage format, a diff). */
  | "INVALID_REPORT"
  /** Another input field is missing or malformed (its name is in the message). */
  | "INVALID_INPUT";

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
  if (error instanceof CoverageFormatError) return `the coverage report is invalid: ${error.message}`;
  if (error instanceof ChangedLinesFormatError) return `the changed lines are invalid: ${error.message}`;
  return undefined;
}
