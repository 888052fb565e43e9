import { CoverageAccumulator, type FileHandle, readCount, readLineNumber } from "./accumulator.ts";
import { declaredCounts } from "./declared.ts";
import {
  type CoverageCounts,
  CoverageFormatError,
  type CoveragePathOptions,
  type CoverageReport,
} from "./types.ts";
import { readXml } from "./xml.ts";

/** JaCoCo's counter types that match a measure of ours: LINE counts lines, BRANCH branch outcomes. */
const COUNTER_MEASURES: Readonly<Record<string, "lines" | "branches">> = {
  LINE: "lines",
  BRANCH: "branches",
};

/** Lines and branches counted from one `<sourcefile>` element's `<line>`s. */
interface SourcefileTally {
  lines: CoverageCounts;
  branches: CoverageCounts;
}

/**
 * Parses a JaCoCo XML report. Each `<package name="com/example"><sourcefile name="A.java">` is the
 * file `com/example/A.java` (relative to a source root such as `src/main/java`, which the report
 * does not name); each `<line nr mi ci mb cb>` is a line with missed / covered instructions and
 * branches. JaCoCo counts no executions, so a line's hits are 1 when any instruction on it ran
 * and 0 otherwise; `mb`/`cb` (outcomes of each bytecode condition) are the branch and condition
 * counts. Lines with no instructions and no branches are skipped. The LINE and BRANCH counters of
 * each `<sourcefile>` and of the `<report>` are compared with the lines read.
 */
export function parseJacoco(text: string, options: CoveragePathOptions = {}): CoverageReport {
  const report = new CoverageAccumulator("jacoco", options);
  let packageName = "";
  let file: FileHandle | undefined;
  let tally: SourcefileTally = emptyTally();
  const reportCounters: Array<{ measure: "lines" | "branches"; type: string; declared: CoverageCounts }> = [];
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
        tally = emptyTally();
        return;
      }
      if (element.name === "counter") {
        const type = element.attributes.type ?? "";
        const measure = COUNTER_MEASURES[type];
        const declared = declaredCounter(element.attributes);
        if (measure === undefined || declared === undefined) return;
        if (ancestors.at(-1) === "sourcefile" && file !== undefined) {
          report.compareDeclared(file.path, measure, `<counter type="${type}">`, declared, tally[measure]);
        } else if (ancestors.length === 1) {
          reportCounters.push({ measure, type, declared });
        }
        return;
      }
      if (element.name !== "line" || ancestors.at(-1) !== "sourcefile") return;
      if (file === undefined) throw new CoverageFormatError("jacoco", "a line outside a sourcefile", where);
      readLine(report, file, tally, element.attributes, where);
    },
    close(element) {
      if (element.name === "sourcefile") file = undefined;
      if (element.name === "package") packageName = "";
    },
  });
  const counted = report.totalsOfAll();
  for (const { measure, type, declared } of reportCounters) {
    report.compareDeclared(null, measure, `<report><counter type="${type}">`, declared, counted[measure]);
  }
  return report.build();
}

function readLine(
  report: CoverageAccumulator,
  file: FileHandle,
  tally: SourcefileTally,
  attributes: Readonly<Record<string, string | undefined>>,
  where: { element: string; line: number },
): void {
  const { nr, mi, ci, mb, cb } = attributes;
  const line = readLineNumber("jacoco", nr, "nr", where);
  const missedInstructions = readCount("jacoco", mi ?? "0", "mi", where);
  const coveredInstructions = readCount("jacoco", ci ?? "0", "ci", where);
  const missedBranches = readCount("jacoco", mb ?? "0", "mb", where);
  const coveredBranches = readCount("jacoco", cb ?? "0", "cb", where);
  if (missedInstructions + coveredInstructions > 0) {
    report.addHits(file, line, coveredInstructions > 0 ? 1 : 0);
    tally.lines.total += 1;
    if (coveredInstructions > 0) tally.lines.covered += 1;
  }
  if (missedBranches + coveredBranches > 0) {
    const counts = { covered: coveredBranches, total: missedBranches + coveredBranches };
    report.addBranches(file, line, counts);
    report.addConditions(file, line, counts);
    tally.branches.total += counts.total;
    tally.branches.covered += counts.covered;
  }
}

/** A counter's `covered` and `missed` as covered / total. */
function declaredCounter(attributes: Readonly<Record<string, string>>): CoverageCounts | undefined {
  const counts = declaredCounts(attributes, "covered", "missed");
  return counts && { covered: counts.covered, total: counts.covered + counts.total };
}

function emptyTally(): SourcefileTally {
  return { lines: { covered: 0, total: 0 }, branches: { covered: 0, total: 0 } };
}
