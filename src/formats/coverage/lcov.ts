import { CoverageAccumulator, type FileHandle, readCount, readLineNumber } from "./accumulator.ts";
import { CoverageFormatError, type CoveragePathOptions, type CoverageReport } from "./types.ts";

/**
 * Parses an LCOV tracefile (the `geninfo` format written by lcov, Istanbul/nyc, c8, `node --test
 * --experimental-test-coverage`, coverage.py, grcov ...). Uses `SF` (file), `DA` (line hits),
 * `BRDA` (branch outcomes, `-` meaning never evaluated) and, for a record without detail, the
 * `LF`/`LH` and `BRF`/`BRH` summaries; function records and unknown keys are skipped. A file that
 * appears in several records is merged: hits add up, branch outcomes merge by id.
 */
export function parseLcov(text: string, options: CoveragePathOptions = {}): CoverageReport {
  const report = new CoverageAccumulator("lcov", options);
  let file: FileHandle | undefined;
  let summary: { lf?: number; lh?: number; brf?: number; brh?: number } = {};
  const closeRecord = () => {
    if (file !== undefined) {
      const lines = summary.lf !== undefined ? { covered: summary.lh ?? 0, total: summary.lf } : undefined;
      const branches =
        summary.brf !== undefined ? { covered: summary.brh ?? 0, total: summary.brf } : undefined;
      report.addSummary(file, { ...(lines && { lines }), ...(branches && { branches }) });
    }
    file = undefined;
    summary = {};
  };

  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const raw = lines[index]!.trim();
    const where = { line: index + 1 };
    if (raw === "" || raw.startsWith("#")) continue;
    if (raw === "end_of_record") {
      closeRecord();
      continue;
    }
    const colon = raw.indexOf(":");
    if (colon <= 0) throw new CoverageFormatError("lcov", `"${truncate(raw)}" is not an LCOV line`, where);
    const key = raw.slice(0, colon);
    const value = raw.slice(colon + 1);
    if (key === "SF") {
      closeRecord();
      file = report.file(value, where);
      continue;
    }
    if (key === "TN" || key === "VER") continue;
    if (file === undefined) {
      if (!/^[A-Z]+$/.test(key)) {
        throw new CoverageFormatError("lcov", `"${truncate(raw)}" is not an LCOV line`, where);
      }
      throw new CoverageFormatError("lcov", `${key} comes before any SF (source file) line`, where);
    }
    const fields = value.split(",");
    switch (key) {
      case "DA": {
        const line = readLineNumber("lcov", fields[0], "DA line number", where);
        report.addHits(file, line, readCount("lcov", fields[1], "DA execution count", where));
        break;
      }
      case "BRDA": {
        if (fields.length < 4) {
          throw new CoverageFormatError("lcov", "BRDA needs line,block,branch,taken", where);
        }
        const line = readLineNumber("lcov", fields[0], "BRDA line number", where);
        const takenText = fields.slice(3).join(",");
        const taken = takenText.trim() === "-" ? 0 : readCount("lcov", takenText, "BRDA taken count", where);
        report.addBranchOutcome(file, line, `${fields[1]},${fields[2]}`, taken);
        break;
      }
      case "LF":
        summary.lf = readCount("lcov", value, "LF (lines found)", where);
        break;
      case "LH":
        summary.lh = readCount("lcov", value, "LH (lines hit)", where);
        break;
      case "BRF":
        summary.brf = readCount("lcov", value, "BRF (branches found)", where);
        break;
      case "BRH":
        summary.brh = readCount("lcov", value, "BRH (branches hit)", where);
        break;
      default:
        // FN, FNDA, FNF, FNH, FNL, FNA and keys from newer lcov versions carry nothing we keep.
        break;
    }
  }
  closeRecord();
  return report.build();
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
