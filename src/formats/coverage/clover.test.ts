// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseClover } from "./clover.ts";
import { fileOf, hitsOf, readFixture } from "./test-fixtures.ts";
import { CoverageFormatError } from "./types.ts";

// No OpenClover can be installed here (test/fixtures/tools/README.md, "Not available here"):
// openclover.clover.xml is written by hand in the shape OpenClover's documentation and XML
// reporter give, a `cond` element per decision with no `count`. PHPUnit's real Clover is tested in
// real-tools.test.ts.
test("an OpenClover report: stmt elements are the lines, cond outcomes the branches, method entries neither", () => {
  const report = parseClover(readFixture("openclover.clover.xml"), {
    workDir: "/home/runner/work/shop/shop",
  });
  assert.deepEqual(
    report.files.map((f) => f.path),
    ["src/main/java/com/example/shop/Cart.java", "src/main/java/com/example/shop/Empty.java"],
  );
  const cart = fileOf(report, "src/main/java/com/example/shop/Cart.java");
  // Lines 8 and 15 hold only a method's entry, line 9 only a decision: OpenClover counts none of
  // them among its statements. Line 9's outcomes are branches on a line without hits.
  assert.deepEqual(hitsOf(cart), { 9: null, 10: 3, 12: 1, 16: 2, 17: 0 });
  assert.deepEqual(
    cart.lines.find((l) => l.line === 9),
    {
      line: 9,
      hits: null,
      branches: { covered: 1, total: 2 },
      conditions: { covered: 1, total: 2 },
      outcomes: [true, false],
    },
  );
  assert.equal(
    cart.lines.some((l) => l.line === 8 || l.line === 15),
    false,
  );
  assert.deepEqual(cart.totals, {
    lines: { covered: 3, total: 4 },
    branches: { covered: 1, total: 2 },
    conditions: { covered: 1, total: 2 },
  });
  assert.deepEqual(fileOf(report, "src/main/java/com/example/shop/Empty.java").totals.lines, {
    covered: 0,
    total: 0,
  });
});

test("an Istanbul clover report uses the cond line's own count", () => {
  const report = parseClover(readFixture("istanbul.clover.xml"), { workDir: "/tmp/project/" });
  const file = fileOf(report, "m.mjs");
  assert.deepEqual(hitsOf(file), { 1: 2, 2: 2, 3: 1, 5: 1, 6: 0 });
  assert.deepEqual(file.lines[1]?.conditions, { covered: 2, total: 2 });
  assert.deepEqual(report.totals.lines, { covered: 4, total: 5 });
});

test("bad input throws CoverageFormatError naming the problem, element and line", () => {
  const wrap = (line: string) =>
    `<coverage clover="4"><project><file path="a.php">\n${line}\n</file></project></coverage>`;
  const cases: [string, RegExp][] = [
    [wrap('<line num="1" count="-1" type="stmt"/>'), /count is negative: -1 \(in <line> at line 2\)/],
    [wrap('<line num="-3" count="1" type="stmt"/>'), /num is negative: -3 \(in <line> at line 2\)/],
    [wrap('<line num="1" type="cond" truecount="x"/>'), /truecount is not a whole number/],
    [
      wrap('<line num="1" count="1" type="statement"/>'),
      /line type "statement" is none of the Clover format's stmt, cond and method \(in <line> at line 2\)/,
    ],
    ['<coverage clover="4"><project><file/></project></coverage>', /a file has neither a path nor a name/],
    ['<coverage clover="4"><project></file></project></coverage>', /invalid XML: unexpected close tag/],
    [
      '<coverage clover="4"><project>\n<file path="a.php">\n<line num="1" cou',
      /^Clover report: the document ends before <coverage> is closed \(inside <file>\): it looks truncated \(at line 3\)$/,
    ],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parseClover(text),
      (error: unknown) => error instanceof CoverageFormatError && message.test(error.message),
      text,
    );
  }
});

test("OpenClover: several elements on one line add up, <testproject> is left out, metrics are compared", () => {
  const text = `<coverage clover="4.5.2"><project><metrics statements="2" coveredstatements="1" conditionals="4" coveredconditionals="3"/>
<file path="/w/A.java"><metrics statements="2" coveredstatements="1" conditionals="4" coveredconditionals="3"/>
<line num="3" count="2" type="stmt"/><line num="3" truecount="2" falsecount="0" type="cond"/><line num="3" truecount="1" falsecount="1" type="cond"/>
<line num="4" count="0" type="stmt"/></file></project>
<testproject><file path="/w/ATest.java"><line num="1" count="1" type="stmt"/></file></testproject></coverage>`;
  const report = parseClover(text, { workDir: "/w" });
  assert.deepEqual(
    report.files.map((f) => f.path),
    ["A.java"],
  );
  // Each decision is 2 outcomes, its true and then its false, in the order of the elements.
  assert.deepEqual(report.files[0]!.lines[0], {
    line: 3,
    hits: 2,
    branches: { covered: 3, total: 4 },
    conditions: { covered: 3, total: 4 },
    outcomes: [true, false, true, true],
  });
  assert.deepEqual(report.mismatches, []);
});

test("Istanbul: truecount/falsecount are taken and untaken branches; disagreeing metrics are reported", () => {
  const text = `<coverage generated="1" clover="3.2.0"><project name="All files">
<file name="a.js" path="/w/a.js"><metrics statements="2" coveredstatements="2" conditionals="5" coveredconditionals="3"/>
<line num="1" count="4" type="cond" truecount="3" falsecount="1"/><line num="2" count="1" type="stmt"/></file></project></coverage>`;
  const report = parseClover(text, { workDir: "/w" });
  assert.deepEqual(report.totals.branches, { covered: 3, total: 4 });
  assert.deepEqual(report.mismatches, [
    {
      path: "a.js",
      measure: "branches",
      source: "<metrics conditionals coveredconditionals>",
      declared: { covered: 3, total: 5 },
      counted: { covered: 3, total: 4 },
    },
  ]);
});
