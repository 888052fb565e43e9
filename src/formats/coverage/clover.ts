import { CoverageAccumulator, readCount, readLineNumber } from "./accumulator.ts";
import { declaredCounts } from "./declared.ts";
import {
  type CoverageCounts,
  type CoverageErrorLocation,
  CoverageFormatError,
  type CoveragePathOptions,
  type CoverageReport,
} from "./types.ts";
import { readXml } from "./xml.ts";

/**
 * What a `cond` line's `truecount` and `falsecount` mean, which depends on the writer:
 * - `istanbul` (Istanbul's and c8's `clover` reporter): the branches on the line that were taken
 *   and those that were not, so the line has `truecount + falsecount` branch outcomes;
 * - `openclover` (OpenClover, Atlassian Clover): how often one boolean decision was true and how
 *   often false, so each `cond` line is 2 outcomes, each covered when its count is above zero.
 */
export type CloverReading = "istanbul" | "openclover";

/** The version Istanbul's clover reporter always writes in `<coverage clover="…">`. */
const ISTANBUL_CLOVER_VERSION = "3.2.0";

interface CloverLine {
  line: number;
  type: string;
  /** The line's `count`; undefined for OpenClover's `cond` lines, which have none. */
  count: number | undefined;
  whenTrue: number;
  whenFalse: number;
}

/** The `<metrics>` of a file or project, as declared. */
interface CloverMetrics {
  statements?: CoverageCounts;
  conditionals?: CoverageCounts;
}

/** One `<file>` element as read, before the reading of its `cond` lines is known. */
interface CloverFile {
  name: string;
  where: CoverageErrorLocation;
  lines: CloverLine[];
  metrics: CloverMetrics;
}

/** What one `<file>` element holds under a reading, line by line and in the measures `<metrics>` uses. */
interface ReadFile {
  hits: Map<number, number>;
  branches: Map<number, CoverageCounts>;
  /** Under `openclover`: each line's decisions in order, each true and then false, taken or not. */
  decisions: Map<number, boolean[]>;
  /** Lines with a count under `istanbul`, `stmt` elements under `openclover`: what `statements` counts. */
  statements: CoverageCounts;
  conditionals: CoverageCounts;
}

/**
 * Parses a Clover XML report (OpenClover, PHPUnit, Istanbul's `clover` reporter). Each `<file
 * path|name>` of the `<project>` is a file (`path` preferred: it is the full path where `name` is
 * often the base name); the `<testproject>` (OpenClover's coverage of the tests themselves) is
 * left out, as OpenClover's own totals leave it out. The lines are those the writer counts as its
 * statements (see {@link isLine}): `stmt` elements, and Istanbul's `cond` lines; a `method`
 * element marks a method's entry and OpenClover's `cond` a decision, neither a statement. A `cond`
 * line's `truecount`/`falsecount` are read per the writer (see {@link CloverReading}, chosen by
 * {@link chooseReading}) as branch (and condition) outcomes. The `<metrics>` of each file and of
 * the project are compared with what their lines hold.
 */
export function parseClover(text: string, options: CoveragePathOptions = {}): CoverageReport {
  const files: CloverFile[] = [];
  let cloverVersion: string | undefined;
  let projectMetrics: CloverMetrics | undefined;
  let file: CloverFile | undefined;
  readXml("clover", text, "coverage", {
    open(element, ancestors) {
      const where = { element: element.name, line: element.line };
      if (ancestors.length === 0) cloverVersion = element.attributes.clover;
      if (ancestors.includes("testproject")) return;
      if (element.name === "metrics") {
        if (ancestors.at(-1) === "file" && file !== undefined) file.metrics = metricsOf(element.attributes);
        if (ancestors.at(-1) === "project" && ancestors.length === 2)
          projectMetrics = metricsOf(element.attributes);
        return;
      }
      if (element.name === "file") {
        const name = element.attributes.path ?? element.attributes.name;
        if (name === undefined || name.trim() === "") {
          throw new CoverageFormatError("clover", "a file has neither a path nor a name attribute", where);
        }
        file = { name, where, lines: [], metrics: {} };
        files.push(file);
        return;
      }
      if (element.name !== "line" || ancestors.at(-1) !== "file") return;
      if (file === undefined) throw new CoverageFormatError("clover", "a line outside a file", where);
      file.lines.push(lineOf(element.attributes, where));
    },
    close(element) {
      if (element.name === "file") file = undefined;
    },
  });

  const reading = chooseReading(files, projectMetrics, cloverVersion);
  const report = new CoverageAccumulator("clover", options);
  const all: ReadFile[] = [];
  for (const element of files) {
    const handle = report.file(element.name, element.where);
    const read = readFile(element, reading);
    all.push(read);
    for (const [line, hits] of read.hits) report.addHits(handle, line, hits);
    for (const [line, counts] of read.branches) {
      // OpenClover tells each outcome apart (a decision's true, its false): they merge one by one.
      const decisions = read.decisions.get(line);
      if (decisions === undefined) report.addBranches(handle, line, counts);
      else {
        for (const [i, taken] of decisions.entries()) {
          report.addBranchOutcome(handle, line, String(i), taken ? 1 : 0);
        }
      }
      report.addConditions(handle, line, counts);
    }
    compareMetrics(report, handle.path, element.metrics, read, reading);
  }
  if (projectMetrics) {
    const sum = (pick: (r: ReadFile) => CoverageCounts) => sumCounts(all.map(pick));
    const project = { statements: sum((r) => r.statements), conditionals: sum((r) => r.conditionals) };
    compareMetrics(report, null, projectMetrics, project, reading);
  }
  return report.build();
}

/**
 * Which writer's meaning the `cond` lines have. The report's own `<metrics>` decide when they
 * can: the reading whose branch outcomes agree with `conditionals`/`coveredconditionals` on more
 * files (and the project) wins. Otherwise (no `cond` lines, no metrics, a tie) the writer's
 * signature decides: Istanbul writes `clover="3.2.0"` and a `count` on every `cond` line, which
 * OpenClover never does.
 */
function chooseReading(
  files: readonly CloverFile[],
  projectMetrics: CloverMetrics | undefined,
  cloverVersion: string | undefined,
): CloverReading {
  const votes = { istanbul: 0, openclover: 0 };
  const vote = (lines: readonly CloverLine[], declared: CoverageCounts | undefined) => {
    if (declared === undefined || !lines.some((l) => l.type === "cond")) return;
    for (const reading of ["istanbul", "openclover"] as const) {
      const counted = sumCounts(lines.filter((l) => l.type === "cond").map((l) => outcomesOf(l, reading)));
      if (counted.covered === declared.covered && counted.total === declared.total) votes[reading] += 1;
    }
  };
  for (const file of files) vote(file.lines, file.metrics.conditionals);
  vote(
    files.flatMap((f) => f.lines),
    projectMetrics?.conditionals,
  );
  if (votes.istanbul !== votes.openclover)
    return votes.istanbul > votes.openclover ? "istanbul" : "openclover";
  const condLines = files.flatMap((f) => f.lines).filter((l) => l.type === "cond");
  const istanbulSigned =
    cloverVersion === ISTANBUL_CLOVER_VERSION && condLines.every((l) => l.count !== undefined);
  return istanbulSigned ? "istanbul" : "openclover";
}

/** A `cond` line's branch outcomes under `reading`. */
function outcomesOf(line: CloverLine, reading: CloverReading): CoverageCounts {
  if (reading === "istanbul") return { covered: line.whenTrue, total: line.whenTrue + line.whenFalse };
  return { covered: (line.whenTrue > 0 ? 1 : 0) + (line.whenFalse > 0 ? 1 : 0), total: 2 };
}

/**
 * Whether an element is one of the writer's statements, and so a line with hits: a `stmt` element,
 * and a `cond` line that has its own `count` (Istanbul writes one element per line, a line with
 * branches as `cond` with the line's count). A `method` element marks where a method starts
 * (PHPUnit and OpenClover count it in `methods`, never in `statements`), and OpenClover's `cond`
 * element, which has no `count`, is a decision, counted in `conditionals` only.
 */
function isLine(line: CloverLine): boolean {
  return line.type === "stmt" || (line.type === "cond" && line.count !== undefined);
}

/** One `<file>` element under `reading`: elements on one line add up (OpenClover writes several). */
function readFile(file: CloverFile, reading: CloverReading): ReadFile {
  const hits = new Map<number, number>();
  const branches = new Map<number, CoverageCounts>();
  const decisions = new Map<number, boolean[]>();
  const statements = { covered: 0, total: 0 };
  for (const line of file.lines) {
    const count = line.count ?? 0;
    if (isLine(line)) hits.set(line.line, (hits.get(line.line) ?? 0) + count);
    if (line.type === "cond" && reading === "openclover") {
      decisions.set(line.line, [...(decisions.get(line.line) ?? []), line.whenTrue > 0, line.whenFalse > 0]);
    }
    if (line.type === "cond") {
      const outcomes = outcomesOf(line, reading);
      const seen = branches.get(line.line) ?? { covered: 0, total: 0 };
      branches.set(line.line, {
        covered: seen.covered + outcomes.covered,
        total: seen.total + outcomes.total,
      });
    }
    if (reading === "openclover" && line.type === "stmt") {
      statements.total += 1;
      if (count > 0) statements.covered += 1;
    }
  }
  if (reading === "istanbul") {
    // Istanbul's `statements` are its lines: one `<line>` per line, `count` the line's hits.
    for (const count of hits.values()) {
      statements.total += 1;
      if (count > 0) statements.covered += 1;
    }
  }
  return { hits, branches, decisions, statements, conditionals: sumCounts([...branches.values()]) };
}

/** Compares a file's (or, with `path` null, the project's) `<metrics>` with what its lines hold. */
function compareMetrics(
  report: CoverageAccumulator,
  path: string | null,
  declared: CloverMetrics,
  read: Pick<ReadFile, "statements" | "conditionals">,
  reading: CloverReading,
): void {
  if (declared.statements) {
    const measure = reading === "istanbul" ? "lines" : "statements";
    report.compareDeclared(
      path,
      measure,
      "<metrics statements coveredstatements>",
      declared.statements,
      read.statements,
    );
  }
  if (declared.conditionals) {
    report.compareDeclared(
      path,
      "branches",
      "<metrics conditionals coveredconditionals>",
      declared.conditionals,
      read.conditionals,
    );
  }
}

function metricsOf(attributes: Readonly<Record<string, string>>): CloverMetrics {
  const statements = declaredCounts(attributes, "coveredstatements", "statements");
  const conditionals = declaredCounts(attributes, "coveredconditionals", "conditionals");
  return { ...(statements && { statements }), ...(conditionals && { conditionals }) };
}

function lineOf(
  attributes: Readonly<Record<string, string | undefined>>,
  where: CoverageErrorLocation,
): CloverLine {
  const { num, type, count, truecount, falsecount } = attributes;
  const line = readLineNumber("clover", num, "num", where);
  if (type === "cond") {
    return {
      line,
      type,
      count: count === undefined ? undefined : readCount("clover", count, "count", where),
      whenTrue: readCount("clover", truecount ?? "0", "truecount", where),
      whenFalse: readCount("clover", falsecount ?? "0", "falsecount", where),
    };
  }
  if (type !== undefined && type !== "stmt" && type !== "method") {
    throw new CoverageFormatError(
      "clover",
      `line type "${type}" is none of the Clover format's stmt, cond and method`,
      where,
    );
  }
  return {
    line,
    type: type ?? "stmt",
    count: readCount("clover", count, "count", where),
    whenTrue: 0,
    whenFalse: 0,
  };
}

function sumCounts(parts: readonly CoverageCounts[]): CoverageCounts {
  return parts.reduce((sum, c) => ({ covered: sum.covered + c.covered, total: sum.total + c.total }), {
    covered: 0,
    total: 0,
  });
}
