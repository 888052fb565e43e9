import fs from "node:fs";
import path from "node:path";
import type { CoverageReport, FileCoverage } from "./types.ts";

const FIXTURES = path.resolve(import.meta.dirname, "../../../test/fixtures/coverage");

/** The text of a coverage fixture under test/fixtures/coverage/ (tests only). */
export function readFixture(name: string): string {
  return fs.readFileSync(path.join(FIXTURES, name), "utf8");
}

/** The file of a report with this path, failing the test when there is none (tests only). */
export function fileOf(report: CoverageReport, filePath: string): FileCoverage {
  const file = report.files.find((f) => f.path === filePath);
  if (file === undefined) {
    throw new Error(`no file ${filePath} in report; files: ${report.files.map((f) => f.path).join(", ")}`);
  }
  return file;
}

/** Line number → hits, for compact assertions (tests only). */
export function hitsOf(file: FileCoverage): Record<number, number | null> {
  return Object.fromEntries(file.lines.map((l) => [l.line, l.hits]));
}
