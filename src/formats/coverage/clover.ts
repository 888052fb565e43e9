import { CoverageAccumulator, type FileHandle, readCount, readLineNumber } from "./accumulator.ts";
import { CoverageFormatError, type CoveragePathOptions, type CoverageReport } from "./types.ts";
import { readXml } from "./xml.ts";

/**
 * Parses a Clover XML report (OpenClover, PHPUnit, Istanbul's `clover` reporter). Each
 * `<file path|name>` is a file (`path` preferred: it is the full path where `name` is often the
 * base name); `<line num type count>` gives hits for `stmt`, `method` and `cond` lines, and a
 * `cond` line's `truecount`/`falsecount` give two branch (and condition) outcomes, each covered
 * when its count is above zero. A `cond` line without `count` takes truecount + falsecount as
 * its hits.
 */
export function parseClover(text: string, options: CoveragePathOptions = {}): CoverageReport {
  const report = new CoverageAccumulator("clover", options);
  let file: FileHandle | undefined;
  readXml("clover", text, "coverage", {
    open(element, ancestors) {
      const where = { element: element.name, line: element.line };
      if (element.name === "file") {
        const name = element.attributes.path ?? element.attributes.name;
        if (name === undefined || name.trim() === "") {
          throw new CoverageFormatError("clover", "a file has neither a path nor a name attribute", where);
        }
        file = report.file(name, where);
        return;
      }
      if (element.name !== "line" || ancestors.at(-1) !== "file") return;
      if (file === undefined) throw new CoverageFormatError("clover", "a line outside a file", where);
      const { num, type, count, truecount, falsecount } = element.attributes;
      const line = readLineNumber("clover", num, "num", where);
      if (type === "cond") {
        const whenTrue = readCount("clover", truecount ?? "0", "truecount", where);
        const whenFalse = readCount("clover", falsecount ?? "0", "falsecount", where);
        const counts = { covered: (whenTrue > 0 ? 1 : 0) + (whenFalse > 0 ? 1 : 0), total: 2 };
        const hits = count === undefined ? whenTrue + whenFalse : readCount("clover", count, "count", where);
        report.addHits(file, line, hits);
        report.addBranches(file, line, counts);
        report.addConditions(file, line, counts);
        return;
      }
      report.addHits(file, line, readCount("clover", count, "count", where));
    },
    close(element) {
      if (element.name === "file") file = undefined;
    },
  });
  return report.build();
}
