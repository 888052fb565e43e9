// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { test } from "node:test";
import { CoverageFormatError, detectCoverageFormat, normaliseCoveragePath, parseCoverage } from "./index.ts";
import { resolveCoveragePath } from "./paths.ts";
import { readFixture } from "./test-fixtures.ts";

test("every fixture's format is recognised from its text", () => {
  const expected: Record<string, string> = {
    "node-test-runner.lcov": "lcov",
    "coverage-py.cobertura.xml": "cobertura",
    "istanbul.cobertura.xml": "cobertura",
    "openclover.clover.xml": "clover",
    "istanbul.clover.xml": "clover",
    "jacoco.xml": "jacoco",
    "coverpkg.go.out": "go",
  };
  for (const [name, format] of Object.entries(expected)) {
    assert.equal(detectCoverageFormat(readFixture(name)), format, name);
    assert.equal(parseCoverage(readFixture(name)).format, format, name);
  }
});

test("a <coverage> root without telling attributes is told apart by its first child", () => {
  assert.equal(detectCoverageFormat("<!-- c -->\n<coverage>\n<project/></coverage>"), "clover");
  assert.equal(
    detectCoverageFormat('\uFEFF<?xml version="1.0"?><coverage><sources/></coverage>'),
    "cobertura",
  );
  assert.equal(detectCoverageFormat("<coverage><other/></coverage>"), null);
});

test("text that is no coverage report is not recognised, and parsing it says so", () => {
  for (const text of ['{"version":"2.1.0","runs":[]}', "<html></html>", "hello"]) {
    assert.equal(detectCoverageFormat(text), null, text);
    assert.throws(
      () => parseCoverage(text),
      (error: unknown) =>
        error instanceof CoverageFormatError &&
        error.format === null &&
        /not a coverage report/.test(error.message),
    );
  }
});

test("an empty report is an empty LCOV report, or an error for an XML format", () => {
  assert.deepEqual(parseCoverage("  \n"), {
    format: "lcov",
    files: [],
    totals: { lines: { covered: 0, total: 0 }, branches: { covered: 0, total: 0 }, conditions: null },
    excluded: [],
    mismatches: [],
  });
  assert.throws(() => parseCoverage("", { format: "jacoco" }), /JaCoCo report: the report is empty/);
});

test("an explicit format overrides detection and passes the path options on", () => {
  const report = parseCoverage("SF:/w/a.ts\nDA:1,1\nend_of_record\n", { format: "lcov", workDir: "/w" });
  assert.equal(report.files[0]?.path, "a.ts");
  assert.throws(() => parseCoverage("mode: set\n", { format: "lcov" }), CoverageFormatError);
});

test("paths normalise separators, URIs, dot segments and roots", () => {
  assert.equal(normaliseCoveragePath("src\\a\\b.ts"), "src/a/b.ts");
  assert.equal(normaliseCoveragePath("./src/./x/../b.ts"), "src/b.ts");
  assert.equal(
    normaliseCoveragePath("file:///C:/w/repo/src/a%20b.ts", { workDir: "c:\\w\\repo" }),
    "src/a b.ts",
  );
  assert.equal(normaliseCoveragePath("/w/repo/src/a.ts", { workDir: "/w/repo/" }), "src/a.ts");
  assert.equal(normaliseCoveragePath("/w/repository/a.ts", { workDir: "/w/repo" }), "/w/repository/a.ts");
  assert.equal(normaliseCoveragePath("/W/Repo/a.ts", { workDir: "/w/repo" }), "/W/Repo/a.ts");
  assert.equal(
    normaliseCoveragePath("example.com/m/pkg/a.go", { stripPrefixes: ["example.com/m"] }),
    "pkg/a.go",
  );
});

test("a path outside the repository is absolute under no root, or climbs above the root", () => {
  const options = { workDir: "/ci/repo", stripPrefixes: ["example.com/m"] };
  assert.deepEqual(resolveCoveragePath("/ci/repo/src/a.ts", options), {
    path: "src/a.ts",
    outside: false,
    underRoot: true,
  });
  assert.deepEqual(resolveCoveragePath("/usr/lib/python3/x.py", options), {
    path: "/usr/lib/python3/x.py",
    outside: true,
    underRoot: false,
  });
  assert.deepEqual(resolveCoveragePath("../shared/a.ts", options), {
    path: "../shared/a.ts",
    outside: true,
    underRoot: false,
  });
  assert.deepEqual(resolveCoveragePath("src/../lib/a.ts", options), {
    path: "lib/a.ts",
    outside: false,
    underRoot: false,
  });
  // Without a workDir nothing says where the repository is: an absolute path is outside.
  assert.equal(resolveCoveragePath("/ci/repo/src/a.ts").outside, true);
  assert.equal(resolveCoveragePath("C:\\w\\repo\\a.ts", { workDir: "c:/w/repo" }).outside, false);
});

test("files outside the repository are kept apart from the files and totals, in every format", () => {
  const lcov = parseCoverage(
    "SF:/ci/repo/a.ts\nDA:1,1\nend_of_record\nSF:/opt/lib/b.js\nDA:1,0\nDA:2,0\nend_of_record\n",
    {
      workDir: "/ci/repo",
    },
  );
  assert.deepEqual(
    lcov.files.map((f) => f.path),
    ["a.ts"],
  );
  assert.deepEqual(lcov.totals.lines, { covered: 1, total: 1 });
  assert.deepEqual(lcov.excluded, [
    {
      path: "/opt/lib/b.js",
      totals: { lines: { covered: 0, total: 2 }, branches: { covered: 0, total: 0 }, conditions: null },
    },
  ]);
  const clover = parseCoverage(
    '<coverage clover="4.5.2"><project><file path="../other/A.java"><line num="1" count="1" type="stmt"/></file></project></coverage>',
  );
  assert.deepEqual([clover.files, clover.excluded.map((f) => f.path)], [[], ["../other/A.java"]]);
});
