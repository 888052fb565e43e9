import { readSarif } from "../formats/sarif/reader.ts";

/** What a valid SARIF report holds, counted while it was checked. */
export interface SarifSummary {
  runs: number;
  results: number;
  /** Rules the runs' drivers describe (a rule described by two runs counts twice). */
  rules: number;
}

/**
 * Reads a whole SARIF report with the streaming reader (bounded memory) so the upload intake can
 * refuse a bad one before storing it. Throws the reader's `SarifFormatError` unchanged; its
 * message names the problem and where it is.
 */
export async function validateSarif(
  text: AsyncIterable<Uint8Array>,
  workDir: string | null,
): Promise<SarifSummary> {
  const summary: SarifSummary = { runs: 0, results: 0, rules: 0 };
  for await (const event of readSarif(text, { workDir })) {
    if (event.type === "run") {
      summary.runs += 1;
      summary.rules += event.run.tool.rules.length;
    } else summary.results += 1;
  }
  return summary;
}
