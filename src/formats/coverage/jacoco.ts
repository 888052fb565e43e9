import { CoverageAccumulator, type FileHandle, readCount, readLineNumber } from "./accumulator.ts";
import { CoverageFormatError, type CoveragePathOptions, type CoverageReport } from "./types.ts";
import { readXml } from "./xml.ts";

/**
 * Parses a JaCoCo XML report. Each `<package name="com/example"><sourcefile name="A.java">` is the
 * file `com/example/A.java` (relative to a source root such as `src/main/java`, which the report
 * does not name); each `<line nr mi ci mb cb>` is a line with missed / covered instructions and
 * branches. JaCoCo counts no executions, so a line's hits are 1 when any instruction on it ran
 * and 0 otherwise; `mb`/`cb` (outcomes of each bytecode condition) are the branch and condition
 * counts. Lines with no instructions and no branches are skipped.
 */
export function parseJacoco(text: string, options: CoveragePathOptions = {}): CoverageReport {
  const report = new CoverageAccumulator("jacoco", options);
  let packageName = "";
  let file: FileHandle | undefined;
  readXml("jacoco", text, "report", {
    open(element, ancestors) {
      const where = { element: element.name, line: element.line };
      if (element.name === "package") {
        packageName = element.attributes.name ?? "";
        return;
      }
      if (element.name === "sourcefile") {
        const name = element.attributes.name;
        if (name === undefined || name.trim() === "") {
          throw new CoverageFormatError("jacoco", "a sourcefile has no name attribute", where);
        }
        file = report.file(packageName === "" ? name : `${packageName}/${name}`, where);
        return;
      }
      if (element.name !== "line" || ancestors.at(-1) !== "sourcefile") return;
      if (file === undefined) throw new CoverageFormatError("jacoco", "a line outside a sourcefile", where);
      const { nr, mi, ci, mb, cb } = element.attributes;
      const line = readLineNumber("jacoco", nr, "nr", where);
      const missedInstructions = readCount("jacoco", mi ?? "0", "mi", where);
      const coveredInstructions = readCount("jacoco", ci ?? "0", "ci", where);
      const missedBranches = readCount("jacoco", mb ?? "0", "mb", where);
      const coveredBranches = readCount("jacoco", cb ?? "0", "cb", where);
      if (missedInstructions + coveredInstructions > 0) {
        report.addHits(file, line, coveredInstructions > 0 ? 1 : 0);
      }
      if (missedBranches + coveredBranches > 0) {
        const counts = { covered: coveredBranches, total: missedBranches + coveredBranches };
        report.addBranches(file, line, counts);
        report.addConditions(file, line, counts);
      }
    },
    close(element) {
      if (element.name === "sourcefile") file = undefined;
      if (element.name === "package") packageName = "";
    },
  });
  return report.build();
}
