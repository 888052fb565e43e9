import { CoverageAccumulator, type FileHandle, readCount, readLineNumber } from "./accumulator.ts";
import { CoverageFormatError, type CoveragePathOptions, type CoverageReport } from "./types.ts";

/** What one record (`SF` … `end_of_record`) declares and holds, to compare its summary with its detail. */
interface RecordState {
  file: FileHandle;
  lf?: number;
  lh?: number;
  brf?: number;
  brh?: number;
  /** `DA` lines of this record: line → hits. */
  hits: Map<number, number>;
  /** `BRDA` outcomes of this record: `line,block,branch` → taken. */
  outcomes: Map<string, number>;
}

/**
 * Parses an LCOV tracefile (the `geninfo` format written by lcov, Istanbul/nyc, c8, `node --test
 * --experimental-test-coverage`, coverage.py, grcov ...). Uses `SF` (file), `DA` (line hits),
 * `BRDA` (branch outcomes, `-` meaning never evaluated) and, for a record without detail, the
 * `LF`/`LH` and `BRF`/`BRH` summaries; function records and unknown keys are skipped. A file that
 * appears in several records is merged: hits add up, branch outcomes merge by id. A record whose
 * summary disagrees with its own `DA`/`BRDA` lines is reported as a mismatch. A text whose last
 * record has no `end_of_record` is refused as truncated.
 */
export function parseLcov(text: string, options: CoveragePathOptions = {}): CoverageReport {
  const report = new CoverageAccumulator("lcov", options);
  const lines = text.split(/\r?\n/);
  refuseTruncated(lines);
  let record: RecordState | undefined;
  const closeRecord = () => {
    if (record !== undefined) finishRecord(report, record);
    record = undefined;
  };

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
      record = { file: report.file(value, where), hits: new Map(), outcomes: new Map() };
      continue;
    }
    if (key === "TN" || key === "VER") continue;
    if (record === undefined) {
      if (!/^[A-Z]+$/.test(key)) {
        throw new CoverageFormatError("lcov", `"${truncate(raw)}" is not an LCOV line`, where);
      }
      throw new CoverageFormatError("lcov", `${key} comes before any SF (source file) line`, where);
    }
    readRecordLine(report, record, key, value, where);
  }
  closeRecord();
  return report.build();
}

function readRecordLine(
  report: CoverageAccumulator,
  record: RecordState,
  key: string,
  value: string,
  where: { line: number },
): void {
  const fields = value.split(",");
  switch (key) {
    case "DA": {
      const line = readLineNumber("lcov", fields[0], "DA line number", where);
      const hits = readCount("lcov", fields[1], "DA execution count", where);
      report.addHits(record.file, line, hits);
      record.hits.set(line, (record.hits.get(line) ?? 0) + hits);
      break;
    }
    case "BRDA": {
      if (fields.length < 4) {
        throw new CoverageFormatError("lcov", "BRDA needs line,block,branch,taken", where);
      }
      // Line 0 is a branch of the file on no line: coverage.py (6.x) writes its exits from a
      // function so. lcov counts it like the others.
      const line =
        fields[0]?.trim() === "0" ? 0 : readLineNumber("lcov", fields[0], "BRDA line number", where);
      const takenText = fields.slice(3).join(",");
      const taken = takenText.trim() === "-" ? 0 : readCount("lcov", takenText, "BRDA taken count", where);
      if (line === 0) report.addFileBranchOutcome(record.file, `0,${fields[1]},${fields[2]}`, taken);
      else report.addBranchOutcome(record.file, line, `${fields[1]},${fields[2]}`, taken);
      const id = `${line},${fields[1]},${fields[2]}`;
      record.outcomes.set(id, (record.outcomes.get(id) ?? 0) + taken);
      break;
    }
    case "LF":
      record.lf = readCount("lcov", value, "LF (lines found)", where);
      break;
    case "LH":
      record.lh = readCount("lcov", value, "LH (lines hit)", where);
      break;
    case "BRF":
      record.brf = readCount("lcov", value, "BRF (branches found)", where);
      break;
    case "BRH":
      record.brh = readCount("lcov", value, "BRH (branches hit)", where);
      break;
    default:
      // FN, FNDA, FNF, FNH, FNL, FNA and keys from newer lcov versions carry nothing we keep.
      break;
  }
}

/**
 * Ends a record: its summary is the file's totals when it has no detail; when it has detail, a
 * summary that disagrees with it is recorded as a mismatch.
 */
function finishRecord(report: CoverageAccumulator, record: RecordState): void {
  const { file, lf, lh, brf, brh } = record;
  const lines = lf !== undefined ? { covered: lh ?? 0, total: lf } : undefined;
  const branches = brf !== undefined ? { covered: brh ?? 0, total: brf } : undefined;
  report.addSummary(file, { ...(lines && { lines }), ...(branches && { branches }) });
  if (lines && record.hits.size > 0) {
    report.compareDeclared(file.path, "lines", "LF/LH", lines, countTaken(record.hits.values()));
  }
  if (branches && record.outcomes.size > 0) {
    report.compareDeclared(file.path, "branches", "BRF/BRH", branches, countTaken(record.outcomes.values()));
  }
}

function countTaken(counts: Iterable<number>): { covered: number; total: number } {
  let covered = 0;
  let total = 0;
  for (const count of counts) {
    total += 1;
    if (count > 0) covered += 1;
  }
  return { covered, total };
}

/**
 * Refuses a tracefile whose last record is not closed by `end_of_record`: every LCOV writer ends
 * each record with one, so a text that stops inside a record was cut short, and its totals would
 * be silently low.
 */
function refuseTruncated(lines: readonly string[]): void {
  let last = lines.length - 1;
  while (last >= 0 && isBlankOrComment(lines[last]!)) last -= 1;
  if (last < 0 || lines[last]!.trim() === "end_of_record") return;
  for (let index = last; index >= 0; index--) {
    const line = lines[index]!.trim();
    if (line === "end_of_record") return;
    if (line.startsWith("SF:")) {
      throw new CoverageFormatError(
        "lcov",
        `the report ends inside the record for ${truncate(line.slice(3), 200)} (no end_of_record): it looks truncated`,
        { line: last + 1 },
      );
    }
  }
}

function isBlankOrComment(line: string): boolean {
  const trimmed = line.trim();
  return trimmed === "" || trimmed.startsWith("#");
}

function truncate(text: string, length = 60): string {
  return text.length > length ? `${text.slice(0, length - 3)}...` : text;
}
