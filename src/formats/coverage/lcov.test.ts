// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseLcov } from "./lcov.ts";
import { fileOf, hitsOf, readFixture } from "./test-fixtures.ts";
import { CoverageFormatError } from "./types.ts";

test("a report from node's own test runner gives per-line hits, branch outcomes and totals", () => {
  const report = parseLcov(readFixture("node-test-runner.lcov"));
  assert.equal(report.format, "lcov");
  assert.deepEqual(
    report.files.map((f) => f.path),
    ["m.mjs", "m.test.mjs"],
  );
  const file = fileOf(report, "m.mjs");
  assert.deepEqual(hitsOf(file), { 1: 1, 2: 2, 3: 1, 4: 1, 5: 2, 6: 2 });
  assert.deepEqual(file.lines.find((l) => l.line === 1)?.branches, { covered: 2, total: 2 });
  assert.deepEqual(file.lines.find((l) => l.line === 5)?.branches, { covered: 1, total: 2 });
  assert.equal(file.lines[0]?.conditions, undefined);
  assert.deepEqual(file.totals, {
    lines: { covered: 6, total: 6 },
    branches: { covered: 5, total: 6 },
    conditions: null,
  });
  assert.deepEqual(report.totals.lines, { covered: 9, total: 9 });
  assert.deepEqual(report.totals.branches, { covered: 7, total: 8 });
});

test("the same file in several records merges: hits add up and branch outcomes merge by id", () => {
  const text = [
    "TN:unit",
    "SF:/ci/repo/src/a.ts",
    "DA:1,1",
    "DA:2,0",
    "BRDA:2,0,0,0",
    "BRDA:2,0,1,-",
    "end_of_record",
    "TN:integration",
    "SF:/ci/repo/src/a.ts",
    "DA:2,5",
    "DA:3,0",
    "BRDA:2,0,1,2",
    "end_of_record",
  ].join("\n");
  const report = parseLcov(text, { workDir: "/ci/repo" });
  assert.equal(report.files.length, 1);
  const file = fileOf(report, "src/a.ts");
  assert.deepEqual(hitsOf(file), { 1: 1, 2: 5, 3: 0 });
  assert.deepEqual(file.lines[1]?.branches, { covered: 1, total: 2 });
  assert.deepEqual(file.totals.lines, { covered: 2, total: 3 });
});

test("branch data for a line without a DA line keeps hits null and counts only toward branches", () => {
  const report = parseLcov("SF:a.c\nDA:1,1\nBRDA:7,0,0,1\nBRDA:7,0,1,0\nend_of_record\n");
  const file = fileOf(report, "a.c");
  assert.deepEqual(file.lines[1], {
    line: 7,
    hits: null,
    branches: { covered: 1, total: 2 },
    outcomes: [true, false],
  });
  assert.deepEqual(file.totals.lines, { covered: 1, total: 1 });
  assert.deepEqual(file.totals.branches, { covered: 1, total: 2 });
});

test("a line's outcomes are listed in the order of their block,branch ids, numbers as numbers", () => {
  const report = parseLcov(
    "SF:a.c\nBRDA:4,10,1,0\nBRDA:4,2,0,3\nBRDA:4,10,0,-\nBRDA:4,2,1,0\nend_of_record\nSF:a.c\nBRDA:4,10,0,1\nend_of_record\n",
  );
  // Ids 2,0 2,1 10,0 10,1; the second record takes 10,0, which the first never evaluated.
  assert.deepEqual(fileOf(report, "a.c").lines[0]?.outcomes, [true, false, true, false]);
  assert.deepEqual(fileOf(report, "a.c").totals.branches, { covered: 2, total: 4 });
});

test("a branch on line 0 (coverage.py's exits from a function) counts in the file's branches, on no line", () => {
  const text = "SF:a.py\nDA:3,1\nBRDA:4,0,0,1\nBRDA:0,0,1,-\nBRDA:0,1,0,1\nBRF:3\nBRH:2\nend_of_record\n";
  const report = parseLcov(`${text}${text}`);
  const file = fileOf(report, "a.py");
  assert.deepEqual(
    file.lines.map((line) => line.line),
    [3, 4],
  );
  assert.deepEqual(file.totals.branches, { covered: 2, total: 3 }, "a repeated record merges them by id");
  assert.deepEqual(report.mismatches, []);
  assert.throws(() => parseLcov("SF:a.py\nBRDA:-1,0,0,1\nend_of_record\n"), /BRDA line number/);
});

test("a record with only LF/LH and BRF/BRH summaries keeps those totals", () => {
  const report = parseLcov("SF:gen.c\nLF:10\nLH:4\nBRF:6\nBRH:3\nend_of_record");
  const file = fileOf(report, "gen.c");
  assert.deepEqual(file.lines, []);
  assert.deepEqual(file.totals.lines, { covered: 4, total: 10 });
  assert.deepEqual(file.totals.branches, { covered: 3, total: 6 });
});

test("a file with no lines is kept with zero totals", () => {
  const report = parseLcov("TN:\nSF:empty.ts\nLF:0\nLH:0\nend_of_record\n");
  assert.deepEqual(fileOf(report, "empty.ts").totals.lines, { covered: 0, total: 0 });
});

test("Windows paths with CRLF line endings become forward-slash paths relative to workDir", () => {
  const text = "TN:\r\nSF:C:\\agent\\_work\\1\\s\\src\\App.ts\r\nDA:1,1\r\nend_of_record\r\n";
  const report = parseLcov(text, { workDir: "c:\\agent\\_work\\1\\s\\" });
  assert.deepEqual(
    report.files.map((f) => f.path),
    ["src/App.ts"],
  );
});

test("bad input throws CoverageFormatError naming the problem and the line", () => {
  const cases: [string, RegExp][] = [
    ["SF:a.ts\nDA:3,-1\nend_of_record", /DA execution count is negative: -1 \(at line 2\)/],
    ["SF:a.ts\nDA:0,1\nend_of_record", /DA line number must be 1 or more, got 0 \(at line 2\)/],
    ["SF:a.ts\nDA:x,1\nend_of_record", /DA line number is not a whole number: "x" \(at line 2\)/],
    ["DA:1,1\n", /DA comes before any SF \(source file\) line \(at line 1\)/],
    ["SF:a.ts\nBRDA:1,0\nend_of_record\n", /BRDA needs line,block,branch,taken \(at line 2\)/],
    ["SF:a.ts\nthis is prose\nend_of_record\n", /"this is prose" is not an LCOV line \(at line 2\)/],
    [
      "SF:a.ts\nDA:1,1\nend_of_record\nSF:src/b.js\nDA:1,1\nDA:2\n\n",
      /^LCOV report: the report ends inside the record for src\/b.js \(no end_of_record\): it looks truncated \(at line 6\)$/,
    ],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parseLcov(text),
      (error: unknown) => error instanceof CoverageFormatError && message.test(error.message),
      text,
    );
  }
});

test("a file outside the repository is not counted, nor are its own totals compared with its lines", () => {
  // LLVM's LCOV declares per-function totals that differ from its lines (a vendored header here).
  const record = (file: string) => [`SF:${file}`, "DA:1,1", "DA:2,0", "LF:3", "LH:2", "end_of_record"];
  const report = parseLcov([...record("/ci/repo/src/a.c"), ...record("/opt/vendor/b.h")].join("\n"), {
    workDir: "/ci/repo",
  });
  assert.deepEqual(
    report.excluded.map((file) => file.path),
    ["/opt/vendor/b.h"],
  );
  assert.deepEqual(
    report.mismatches.map((mismatch) => mismatch.path),
    ["src/a.c"],
  );
});
