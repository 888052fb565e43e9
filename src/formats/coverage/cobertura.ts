import { CoverageAccumulator, type FileHandle, readCount, readLineNumber } from "./accumulator.ts";
import { isAbsolute, joinCoveragePath, normaliseCoveragePath } from "./paths.ts";
import { CoverageFormatError, type CoveragePathOptions, type CoverageReport } from "./types.ts";
import { readXml } from "./xml.ts";

const CONDITION_COVERAGE = /\((\d+)\/(\d+)\)/;

/**
 * Parses a Cobertura XML report (coverage.py, Istanbul, gcovr, pytest-cov, coverlet, cobertura
 * itself). Each `<class filename>` names a file, relative to one of the `<sources>` when not
 * absolute; its `<lines><line number hits>` give line hits, and `branch="true"` lines carry
 * `condition-coverage="50% (1/2)"`, read as branch and condition outcomes covered / total. The
 * copies of the lines under `<methods>` are skipped; classes sharing a file (inner classes)
 * merge.
 */
export function parseCobertura(text: string, options: CoveragePathOptions = {}): CoverageReport {
  const report = new CoverageAccumulator("cobertura", options);
  const sources: string[] = [];
  let file: FileHandle | undefined;
  readXml("cobertura", text, "coverage", {
    text(content, open) {
      if (open.at(-1) === "source" && open.at(-2) === "sources" && content.trim() !== "") {
        sources.push(content.trim());
      }
    },
    open(element, ancestors) {
      const where = { element: element.name, line: element.line };
      if (element.name === "class" && ancestors.at(-1) === "classes") {
        const filename = element.attributes.filename;
        if (filename === undefined || filename.trim() === "") {
          throw new CoverageFormatError("cobertura", "a class has no filename attribute", where);
        }
        file = report.file(resolveFilename(filename, sources, options), where);
        return;
      }
      if (element.name !== "line" || ancestors.at(-1) !== "lines" || ancestors.at(-2) !== "class") return;
      if (file === undefined) throw new CoverageFormatError("cobertura", "a line outside a class", where);
      const { number, hits } = element.attributes;
      const line = readLineNumber("cobertura", number, "line number", where);
      report.addHits(file, line, readCount("cobertura", hits, "hits", where));
      const conditionCoverage = element.attributes["condition-coverage"];
      if (element.attributes.branch === "true" && conditionCoverage !== undefined) {
        const match = CONDITION_COVERAGE.exec(conditionCoverage);
        if (match === null) {
          throw new CoverageFormatError(
            "cobertura",
            `condition-coverage "${conditionCoverage}" is not like "50% (1/2)"`,
            where,
          );
        }
        const counts = {
          covered: readCount("cobertura", match[1], "covered conditions", where),
          total: readCount("cobertura", match[2], "total conditions", where),
        };
        if (counts.covered > counts.total) {
          throw new CoverageFormatError(
            "cobertura",
            `condition-coverage covers more than all: ${conditionCoverage}`,
            where,
          );
        }
        report.addBranches(file, line, counts);
        report.addConditions(file, line, counts);
      }
    },
    close(element) {
      if (element.name === "class") file = undefined;
    },
  });
  return report.build();
}

/**
 * A relative filename is joined with the first source under which it becomes
 * repository-relative (a source under workDir, or a relative source); otherwise kept as written.
 */
function resolveFilename(filename: string, sources: readonly string[], options: CoveragePathOptions): string {
  for (const source of sources) {
    const joined = joinCoveragePath(source, filename);
    if (!isAbsolute(normaliseCoveragePath(joined, options))) return joined;
  }
  return filename;
}
