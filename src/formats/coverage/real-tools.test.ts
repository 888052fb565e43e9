// test-runner: execution-mode independent
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { fixtureDir, readToolFixture, readToolSummary, toolFixture } from "../fixtures.ts";
import {
  alternativesOf,
  type CoverageCounts,
  CoverageFormatError,
  type CoverageReport,
  decodeReportText,
  parseCoverage,
} from "./index.ts";

/**
 * Each real producer's report (src/formats/coverage/fixtures/, made by scripts/make-fixtures.sh)
 * gives the totals the tool itself printed: lines and branches, to the tool's precision.
 */

/** Parses `<tool>/<name>` the way an upload from the tool's directory is parsed. */
function parsed(tool: string, name: string): CoverageReport {
  const fixture = toolFixture("coverage", tool, name);
  return parseCoverage(readToolFixture("coverage", tool, name), {
    workDir: fixture.workDir,
    stripPrefixes: fixture.stripPrefixes ?? [],
    goModules: fixture.goModules ?? [],
  });
}

/** `figures.<path>` of the tool's summary. */
function figure<T>(tool: string, name: string, ...keys: string[]): T {
  let value: unknown = readToolSummary("coverage", tool, name).figures;
  for (const key of keys) value = (value as Record<string, unknown>)[key];
  assert.notEqual(value, undefined, `${tool} summary has no ${keys.join(".")}`);
  return value as T;
}

/** `{ covered, total }` from a summary entry with those two fields. */
function counts(entry: { covered: number; total: number }): CoverageCounts {
  return { covered: entry.covered, total: entry.total };
}

/** A percentage to `digits` decimals, as tools print them. */
function percent({ covered, total }: CoverageCounts, digits: number): number {
  return Number(((covered / total) * 100).toFixed(digits));
}

describe("real coverage tools: our totals are the tool's own", () => {
  test("c8: LCOV, Cobertura and Clover of one run give its json-summary totals, file by file alike", () => {
    const total = figure<Record<string, { covered: number; total: number }>>(
      "c8",
      "lcov.info",
      "jsonSummaryTotal",
    );
    const reports = ["lcov.info", "cobertura-coverage.xml", "clover.xml"].map((name) => parsed("c8", name));
    for (const report of reports) {
      assert.deepEqual(report.totals.lines, counts(total.lines!), report.format);
      assert.deepEqual(report.totals.branches, counts(total.branches!), report.format);
      assert.deepEqual(report.excluded, [], report.format);
      assert.deepEqual(report.mismatches, [], `${report.format}: the report's own totals agree`);
    }
    const perFile = (report: CoverageReport) =>
      report.files.map((f) => [f.path, f.totals.lines, f.totals.branches]);
    assert.deepEqual(perFile(reports[1]!), perFile(reports[0]!));
    assert.deepEqual(perFile(reports[2]!), perFile(reports[0]!));
  });

  test("c8's Clover: truecount/falsecount are taken and untaken branches, as its <metrics> say", () => {
    const report = parsed("c8", "clover.xml");
    const metrics = figure<Record<string, number>>("c8", "clover.xml", "cloverProjectMetrics");
    assert.deepEqual(report.totals.branches, {
      covered: metrics.coveredconditionals,
      total: metrics.conditionals,
    });
    // Read as condition outcomes (OpenClover's meaning), the same lines would say otherwise.
    const text = readToolFixture("coverage", "c8", "clover.xml");
    const condLines = [...text.matchAll(/truecount="(\d+)" falsecount="(\d+)"/g)].map((m) => [
      Number(m[1]),
      Number(m[2]),
    ]);
    const asOutcomes = condLines.reduce((sum, [t, f]) => sum + (t! > 0 ? 1 : 0) + (f! > 0 ? 1 : 0), 0);
    assert.notDeepEqual(
      { covered: asOutcomes, total: 2 * condLines.length },
      report.totals.branches,
      "the fixture tells the two readings apart",
    );
  });

  test("node --test: its LCOV gives the lines and branches of its own summary", () => {
    const report = parsed("node-test", "lcov.info");
    const lcov = figure<Record<string, { covered: number; total: number }>>(
      "node-test",
      "lcov.info",
      "lcovSummaryOfLcovInfo",
    );
    const printed = figure<{ linePercent: number; branchPercent: number }>(
      "node-test",
      "lcov.info",
      "allFiles",
    );
    assert.deepEqual(report.totals.lines, counts(lcov.lines!));
    assert.deepEqual(report.totals.branches, counts(lcov.branches!));
    assert.equal(percent(report.totals.lines, 2), printed.linePercent);
    assert.equal(percent(report.totals.branches, 2), printed.branchPercent);
    assert.deepEqual(report.mismatches, []);
  });

  test("coverage.py: the file outside the project is excluded; the rest gives the project's own totals", () => {
    const report = parsed("coverage-py", "coverage.xml");
    const project = figure<Record<string, number>>("coverage-py", "coverage.xml", "projectFilesOnly");
    assert.deepEqual(report.totals.lines, { covered: project.covered_lines, total: project.num_statements });
    assert.deepEqual(report.totals.branches, {
      covered: project.covered_branches,
      total: project.num_branches,
    });
    assert.deepEqual(
      report.excluded.map((f) => f.path),
      ["/usr/lib/python3/dist-packages/tabulate.py"],
    );
    // Cobertura's root totals cover every measured file, the excluded one too: they agree.
    assert.deepEqual(report.mismatches, []);
    // File by file, the `coverage report --include=<project>` table: statements, missed, branches.
    const output = fs.readFileSync(
      path.join(fixtureDir("coverage"), toolFixture("coverage", "coverage-py", "coverage.xml").toolOutput),
      "utf8",
    );
    const table = output.slice(output.lastIndexOf("$ python3 -m coverage report --include"));
    const rows = [...table.matchAll(/^(\S+\.py)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+%$/gm)].map((m) => [
      m[1],
      { covered: Number(m[2]) - Number(m[3]), total: Number(m[2]) },
      Number(m[4]),
    ]);
    assert.deepEqual(
      report.files.map((f) => [f.path, f.totals.lines, f.totals.branches.total]),
      rows,
    );
  });

  test("coverage.py with two sources: each file is in one of them, as the tool's own table lists it, and the totals are the tool's", () => {
    const report = parsed("coverage-py", "coverage-sources.xml");
    const sources = figure<string[]>("coverage-py", "coverage-sources.xml", "coberturaSources");
    assert.equal(sources.length, 2, "the report names two sources");
    const all = figure<Record<string, number>>("coverage-py", "coverage-sources.xml", "allFiles");
    assert.deepEqual(report.totals.lines, { covered: all.covered_lines, total: all.num_statements });
    assert.deepEqual(report.totals.branches, { covered: all.covered_branches, total: all.num_branches });
    assert.deepEqual(report.mismatches, []);
    // coverage.py's own files (repository paths): each is one place of exactly one file, with its figures.
    const own = figure<Record<string, Record<string, number>>>(
      "coverage-py",
      "coverage-sources.xml",
      "coveragePyFiles",
    );
    for (const [path, figures] of Object.entries(own)) {
      const files = report.files.filter((f) => alternativesOf(f.path)?.includes(path));
      assert.equal(
        files.length,
        1,
        `${path} is one file's place (${report.files.map((f) => f.path).join(", ")})`,
      );
      assert.deepEqual(
        [files[0]!.totals.lines, files[0]!.totals.branches],
        [
          { covered: figures.covered_lines, total: figures.num_statements },
          { covered: figures.covered_branches, total: figures.num_branches },
        ],
        path,
      );
    }
    assert.deepEqual(
      report.files.map((f) => f.path),
      [
        "{invoices,tests}/__init__.py",
        "{invoices,tests}/report.py",
        "{invoices,tests}/test_totals.py",
        "{invoices,tests}/totals.py",
      ],
      "coverage.py writes one element for both __init__.py files",
    );
  });

  test("gcc + lcov: the tracefile gives lcov --summary", () => {
    const report = parsed("gcc-lcov", "ring.lcov");
    const summary = figure<Record<string, { covered: number; total: number }>>(
      "gcc-lcov",
      "ring.lcov",
      "lcovSummary",
    );
    assert.deepEqual(report.totals.lines, counts(summary.lines!));
    assert.deepEqual(report.totals.branches, counts(summary.branches!));
    assert.deepEqual(report.mismatches, []);
  });

  test("gcovr: the Cobertura report gives its JSON summary, in total and file by file", () => {
    const report = parsed("gcovr", "cobertura.xml");
    const total = figure<Record<string, number>>("gcovr", "cobertura.xml", "total");
    const files = figure<Array<Record<string, number | string>>>("gcovr", "cobertura.xml", "files");
    assert.deepEqual(report.totals.lines, { covered: total.line_covered, total: total.line_total });
    assert.deepEqual(report.totals.branches, { covered: total.branch_covered, total: total.branch_total });
    assert.deepEqual(
      report.files.map((f) => [f.path, f.totals.lines, f.totals.branches]),
      files.map((f) => [
        f.filename,
        { covered: f.line_covered, total: f.line_total },
        { covered: f.branch_covered, total: f.branch_total },
      ]),
    );
    assert.deepEqual(report.mismatches, []);
  });

  test("lcov on a directory named in Latin-1 letters: its files are those gcovr names from the same run, in total and file by file", () => {
    const fixture = toolFixture("coverage", "gcc-lcov-paths", "fares.lcov");
    // lcov 1.16 writes src/données/ in Latin-1: the bytes as the tool wrote them, decoded as an upload is.
    const { text, latin1Lines } = decodeReportText(
      fs.readFileSync(path.join(fixtureDir("coverage"), fixture.file)),
    );
    assert.notDeepEqual(latin1Lines, [], "the fixture has a line that is not UTF-8");
    const report = parseCoverage(text, { workDir: fixture.workDir });
    const lcov = figure<Record<string, { covered: number; total: number }>>(
      "gcc-lcov-paths",
      "fares.lcov",
      "lcovSummary",
    );
    const files = figure<Array<Record<string, number | string>>>("gcc-lcov-paths", "fares.lcov", "files");
    assert.deepEqual(report.totals.lines, counts(lcov.lines!));
    assert.deepEqual(report.totals.branches, counts(lcov.branches!));
    assert.deepEqual(
      report.files.map((f) => [f.path, f.totals.lines, f.totals.branches]),
      files.map((f) => [
        f.filename,
        { covered: f.line_covered, total: f.line_total },
        { covered: f.branch_covered, total: f.branch_total },
      ]),
    );
    assert.deepEqual(report.mismatches, []);
  });

  test("JaCoCo: the report gives its own LINE and BRANCH counters, and its CSV class by class", () => {
    const report = parsed("jacoco", "jacoco.xml");
    const counters = figure<Record<string, { missed: number; covered: number }>>(
      "jacoco",
      "jacoco.xml",
      "reportCounters",
    );
    const of = (c: { missed: number; covered: number }) => ({
      covered: c.covered,
      total: c.covered + c.missed,
    });
    assert.deepEqual(report.totals.lines, of(counters.LINE!));
    assert.deepEqual(report.totals.branches, of(counters.BRANCH!));
    assert.deepEqual(report.mismatches, []);
    // The CSV has a row per class; a file's lines are its classes' (Cart and its inner Cart.Line).
    const csv = figure<Array<Record<string, string | number>>>("jacoco", "jacoco.xml", "csv");
    const byFile = new Map<string, CoverageCounts>();
    for (const row of csv) {
      const file = `${String(row.PACKAGE).replaceAll(".", "/")}/${String(row.CLASS).split(".")[0]}.java`;
      const seen = byFile.get(file) ?? { covered: 0, total: 0 };
      const covered = Number(row.LINE_COVERED);
      byFile.set(file, {
        covered: seen.covered + covered,
        total: seen.total + covered + Number(row.LINE_MISSED),
      });
    }
    assert.deepEqual(
      report.files.map((f) => [f.path, f.totals.lines]),
      [...byFile].sort(([a], [b]) => a.localeCompare(b)),
    );
  });

  test("PHPUnit: its Clover's stmt lines are the lines of its own text summary, method lines none", () => {
    for (const name of ["clover.xml", "clover-path-coverage.xml"]) {
      const report = parsed("phpunit", name);
      const lines = figure<{ covered: number; total: number; percent: number }>(
        "phpunit",
        name,
        "coverageTextSummary",
        "lines",
      );
      assert.deepEqual(report.totals.lines, counts(lines), name);
      assert.equal(percent(report.totals.lines, 2), lines.percent, name);
      assert.deepEqual(
        report.files.map((f) => f.path),
        ["src/Cart.php", "src/Coupon.php"],
      );
      // No line is a method's entry: each method line of the report is missing from the detail.
      const methodLines = [
        ...readToolFixture("coverage", "phpunit", name).matchAll(/<line num="(\d+)" type="method"/g),
      ].map((m) => Number(m[1]));
      assert.ok(methodLines.length > 0, "the fixture has method lines");
      const cart = report.files[0]!.lines.map((l) => l.line);
      assert.equal(
        cart.some((line) => methodLines.includes(line)),
        false,
        name,
      );
    }
    // Measured by PCOV, lines only: the declared statements and (zero) conditionals agree.
    assert.deepEqual(parsed("phpunit", "clover.xml").mismatches, []);
  });

  test("PHPUnit with Xdebug's path coverage declares its branches in <metrics> only: none are read, and the mismatch says so", () => {
    const report = parsed("phpunit", "clover-path-coverage.xml");
    const branches = figure<{ covered: number; total: number }>(
      "phpunit",
      "clover-path-coverage.xml",
      "coverageTextSummary",
      "branches",
    );
    assert.deepEqual(report.totals.branches, { covered: 0, total: 0 });
    const project = report.mismatches.find((m) => m.path === null);
    assert.deepEqual(project, {
      path: null,
      measure: "branches",
      source: "<metrics conditionals coveredconditionals>",
      declared: counts(branches),
      counted: { covered: 0, total: 0 },
    });
    assert.deepEqual(
      report.mismatches.map((m) => [m.path, m.measure]),
      [
        ["src/Cart.php", "branches"],
        ["src/Coupon.php", "branches"],
        [null, "branches"],
      ],
      "only the branches disagree; the statements are the lines",
    );
  });

  test("Go: set and count profiles give go tool cover's statement coverage", () => {
    for (const name of ["set.out", "count.out"]) {
      const report = parsed("go", name);
      const mode = name.replace(".out", "");
      const printed = figure<number>("go", name, mode, "statementsPercent");
      assert.equal(percent(report.totals.lines, 1), printed, name);
      assert.deepEqual(
        report.files.map((f) => f.path),
        ["stock/stock.go"],
        "the module path is stripped",
      );
    }
  });

  test("Go modules in subdirectories: each profile gives go tool cover's coverage, its files where go list puts them", () => {
    for (const name of ["backend.out", "pricing.out", "coverpkg.out", "workspace.out"]) {
      const report = parsed("go-modules", name);
      const summary = readToolSummary("coverage", "go-modules", name).figures;
      const mode = /^mode: (\w+)/.exec(readToolFixture("coverage", "go-modules", name))![1]!;
      assert.equal(
        percent(report.totals.lines, 1),
        figure<number>("go-modules", name, mode, "statementsPercent"),
        name,
      );
      // Each file the profile names, in the directory `go list` gives its package.
      const packages = summary.packages as Record<string, string>;
      const named = new Set(
        readToolFixture("coverage", "go-modules", name)
          .split("\n")
          .slice(1)
          .filter((line) => line.trim() !== "")
          .map((line) => line.slice(0, line.indexOf(":"))),
      );
      const expected = [...named].map(
        (file) => `${packages[path.posix.dirname(file)]}/${path.posix.basename(file)}`,
      );
      assert.deepEqual(
        report.files.map((f) => f.path),
        expected.sort(),
        `${name}: the repository's paths`,
      );
      assert.deepEqual(report.excluded, [], name);
    }
  });

  test("every real report cut short is refused as truncated, naming where it ends", () => {
    const cuts: Array<[tool: string, name: string, cut: (text: string) => string, message: RegExp]> = [
      // Mid-record: the text stops inside the last file's record, before its end_of_record.
      [
        "c8",
        "lcov.info",
        (t) => t.slice(0, t.lastIndexOf("end_of_record") - 20),
        /^LCOV report: the report ends inside the record for src\/pricing\.js \(no end_of_record\): it looks truncated/,
      ],
      [
        "gcc-lcov",
        "ring.lcov",
        (t) => t.slice(0, Math.floor(t.length / 2)),
        /^LCOV report: the report ends inside the record for \/tmp\/assay-fixtures\/c-coverage\/.* \(no end_of_record\): it looks truncated/,
      ],
      // Mid-document: the XML stops inside a file, a tag or a root's children.
      [
        "c8",
        "clover.xml",
        (t) => t.slice(0, Math.floor(t.length * 0.6)),
        /^Clover report: the document ends before <coverage> is closed.*: it looks truncated/,
      ],
      [
        "coverage-py",
        "coverage.xml",
        (t) => t.slice(0, Math.floor(t.length * 0.3)),
        /^Cobertura report: the document ends before <coverage> is closed.*: it looks truncated/,
      ],
      [
        "jacoco",
        "jacoco.xml",
        (t) => t.slice(0, t.length - 30),
        /^JaCoCo report: the document ends before <report> is closed.*: it looks truncated/,
      ],
      // The last block's line cut in the middle.
      [
        "go",
        "count.out",
        (t) => t.trimEnd().slice(0, -12),
        /^Go cover profile: the last line ".*" is cut short .*: the profile looks truncated/,
      ],
    ];
    for (const [tool, name, cut, message] of cuts) {
      const fixture = toolFixture("coverage", tool, name);
      const text = cut(readToolFixture("coverage", tool, name));
      assert.throws(
        () => parseCoverage(text, { workDir: fixture.workDir, stripPrefixes: fixture.stripPrefixes ?? [] }),
        (error: unknown) => error instanceof CoverageFormatError && message.test(error.message),
        `${tool}/${name}`,
      );
    }
  });
});
