import type { MetricKey } from "../../db/types.ts";
import type { GoModuleRow } from "../../db/types-ingestion.ts";
import {
  type CoveragePathOptions,
  type CoverageReport,
  type DecodedReportText,
  decodeReportText,
  parseCoverage,
} from "../../formats/coverage/index.ts";
import type { ReportPlacement } from "../../formats/report-placement.ts";
import { type ChangedLines, parseChangedLines } from "../changes.ts";
import { UploadError } from "../errors.ts";
import { COVERAGE_LANGUAGE_KEYS } from "../types.ts";

/** What the intake checks of a coverage or CHANGES report, and what processing shares with it. */

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
 * Parses a whole coverage report for the intake, its paths placed where the upload says
 * (src/formats/report-placement.ts) and by its Go modules: throws CoverageFormatError for an unreadable report and UploadError
 * (UNKNOWN_LANGUAGE) for an unknown language key.
 */
export function validateCoverage(
  text: string,
  languageKey: string,
  placement: ReportPlacement,
  goModules: readonly GoModuleRow[] | null = null,
): CoverageReport {
  metricKeyOfLanguage(languageKey);
  return parseCoverage(text, { ...placementOptions(placement), ...(goModules ? { goModules } : {}) });
}

/** A report's placement as the coverage readers take it. */
export function placementOptions(
  placement: ReportPlacement,
): Pick<CoveragePathOptions, "workDir" | "directory"> {
  return {
    ...(placement.root ? { workDir: placement.root } : {}),
    ...(placement.directory ? { directory: placement.directory } : {}),
  };
}

/** Parses a CHANGES artifact for the intake; throws ChangedLinesFormatError. */
export function validateChanges(text: string, workDir: string | null): ChangedLines {
  return parseChangedLines(text, workDir);
}

/**
 * Collects a text stream (bounded by the size cap upstream) into a string, each line read as
 * UTF-8, or as Latin-1 when it is not UTF-8 (`decodeReportText`).
 */
export async function collectText(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  return (await collectDecodedText(chunks)).text;
}

/** {@link collectText}, also answering which lines were read as Latin-1. */
export async function collectDecodedText(chunks: AsyncIterable<Uint8Array>): Promise<DecodedReportText> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return decodeReportText(Buffer.concat(parts));
}
