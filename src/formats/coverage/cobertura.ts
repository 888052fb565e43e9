import { CoverageAccumulator, type FileHandle, readCount, readLineNumber } from "./accumulator.ts";
import { declaredCounts } from "./declared.ts";
import { alternativesPath, joinCoveragePath, resolveCoveragePath } from "./paths.ts";
import {
  type CoverageCounts,
  CoverageFormatError,
  type CoveragePathOptions,
  type CoverageReport,
} from "./types.ts";
import { readXml } from "./xml.ts";

const CONDITION_COVERAGE = /\((\d+)\/(\d+)\)/;

/**
 * Parses a Cobertura XML report (coverage.py, Istanbul, gcovr, pytest-cov, coverlet, cobertura
 * itself). Each `<class filename>` names a file, relative to one of the `<sources>` when not
 * absolute (see {@link resolveFilename}); its `<lines><line number hits>` give line hits, and `branch="true"` lines carry
 * `condition-coverage="50% (1/2)"`, read as branch and condition outcomes covered / total. The
 * copies of the lines under `<methods>` are skipped; classes sharing a file (inner classes)
 * merge. The root's `lines-valid`/`lines-covered` and `branches-valid`/`branches-covered` are
 * compared with the lines and branches of every file read.
 */
export function parseCobertura(text: string, options: CoveragePathOptions = {}): CoverageReport {
  const report = new CoverageAccumulator("cobertura", options);
  const sources: string[] = [];
  const declared: { lines?: CoverageCounts; branches?: CoverageCounts } = {};
  let file: FileHandle | undefined;
  readXml("cobertura", text, "coverage", {
    text(content, open) {
      if (open.at(-1) === "source" && open.at(-2) === "sources" && content.trim() !== "") {
        sources.push(content.trim());
      }
    },
    open(element, ancestors) {
      const where = { element: element.name, line: element.line };
      if (element.name === "coverage" && ancestors.length === 0) {
        declared.lines = declaredCounts(element.attributes, "lines-covered", "lines-valid");
        declared.branches = declaredCounts(element.attributes, "branches-covered", "branches-valid");
        return;
      }
      if (element.name === "class" && ancestors.at(-1) === "classes") {
        const filename = element.attributes.filename;
        if (filename === undefined || filename.trim() === "") {
          throw new CoverageFormatError("cobertura", "a class has no filename attribute", where);
        }
        const placed = placeFilename(filename, sources, options);
        file = placed === null ? report.file(filename, where) : report.placedFile(placed, where, false);
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
  const counted = report.totalsOfAll();
  const source = (measure: string) => `<coverage ${measure}-valid ${measure}-covered>`;
  if (declared.lines) report.compareDeclared(null, "lines", source("lines"), declared.lines, counted.lines);
  if (declared.branches) {
    report.compareDeclared(null, "branches", source("branches"), declared.branches, counted.branches);
  }
  return report.build();
}

/**
 * A relative filename is joined with each `<source>` under which it lies in the repository (a
 * source under workDir, or a relative source). One such place is the file's path. Several are
 * alternatives the report does not choose between (coverage.py writes each file relative to the
 * source it lies in, and names the sources, but not which one holds which file): the file is
 * `{invoices,tests}/totals.py` (see {@link alternativesPath}). When none lies in the repository
 * (the report was made in another directory, or names no source) the filename is null, and the
 * caller places it as any report's path (relative to the directory the report was made in); an
 * absolute filename is kept as written too. Either is then
 * outside the repository when it is absolute and not under workDir, or climbs above the root.
 */
function placeFilename(
  filename: string,
  sources: readonly string[],
  options: CoveragePathOptions,
): string | null {
  const places: string[] = [];
  for (const source of sources) {
    const resolved = resolveCoveragePath(joinCoveragePath(source, filename), options);
    if (!resolved.outside && !places.includes(resolved.path)) places.push(resolved.path);
  }
  if (places.length === 0) return null;
  return places.length === 1 ? places[0]! : alternativesPath(places);
}
