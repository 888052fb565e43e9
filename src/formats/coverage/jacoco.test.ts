// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { test } from "node:test";
import { readToolFixture, readToolSummary } from "../fixtures.ts";
import { parseJacoco } from "./jacoco.ts";
import { fileOf, hitsOf, readFixture } from "./test-fixtures.ts";
import { CoverageFormatError } from "./types.ts";

test("a JaCoCo report with its DOCTYPE gives package-relative files, covered lines and branch counters", () => {
  const report = parseJacoco(readFixture("jacoco.xml"));
  assert.equal(report.format, "jacoco");
  assert.deepEqual(
    report.files.map((f) => f.path),
    ["com/example/shop/Cart.java", "com/example/shop/util/Interface.java"],
  );
  const cart = fileOf(report, "com/example/shop/Cart.java");
  assert.deepEqual(hitsOf(cart), { 5: 1, 8: 1, 9: 1, 11: 0 });
  assert.deepEqual(
    cart.lines.find((l) => l.line === 8),
    {
      line: 8,
      hits: 1,
      branches: { covered: 3, total: 4 },
      conditions: { covered: 3, total: 4 },
    },
  );
  assert.deepEqual(cart.totals, {
    lines: { covered: 3, total: 4 },
    branches: { covered: 3, total: 4 },
    conditions: { covered: 3, total: 4 },
  });
  assert.deepEqual(fileOf(report, "com/example/shop/util/Interface.java").lines, []);
  assert.deepEqual(report.totals.lines, { covered: 3, total: 4 });
});

test("a line with no instructions and no branches is not a line of code", () => {
  const report = parseJacoco(
    '<report name="r"><package name="p"><sourcefile name="A.java"><line nr="3" mi="0" ci="0" mb="0" cb="0"/></sourcefile></package></report>',
  );
  assert.deepEqual(fileOf(report, "p/A.java").lines, []);
});

test("bad input throws CoverageFormatError naming the problem, element and line", () => {
  const wrap = (line: string) =>
    `<report name="r"><package name="p"><sourcefile name="A.java">\n${line}\n</sourcefile></package></report>`;
  const cases: [string, RegExp][] = [
    [wrap('<line nr="1" mi="0" ci="-4" mb="0" cb="0"/>'), /ci is negative: -4 \(in <line> at line 2\)/],
    [wrap('<line nr="0" mi="0" ci="1"/>'), /nr must be 1 or more, got 0 \(in <line> at line 2\)/],
    ['<report><package name="p"><sourcefile/></package></report>', /a sourcefile has no name attribute/],
    ["<coverage/>", /the root element is <coverage>, expected <report>/],
    ["<report><package></report>", /invalid XML/],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parseJacoco(text),
      (error: unknown) => error instanceof CoverageFormatError && message.test(error.message),
      text,
    );
  }
});

test("the report's and each sourcefile's LINE and BRANCH counters are compared with the lines", () => {
  const text = `<report name="r"><package name="p"><sourcefile name="A.java">
<line nr="1" mi="0" ci="2" mb="1" cb="1"/><line nr="2" mi="3" ci="0" mb="0" cb="0"/>
<counter type="LINE" missed="1" covered="1"/><counter type="BRANCH" missed="0" covered="2"/></sourcefile>
<counter type="LINE" missed="1" covered="1"/></package>
<counter type="INSTRUCTION" missed="3" covered="2"/><counter type="LINE" missed="2" covered="1"/><counter type="BRANCH" missed="1" covered="1"/></report>`;
  const report = parseJacoco(text);
  assert.deepEqual(report.mismatches, [
    {
      path: "p/A.java",
      measure: "branches",
      source: '<counter type="BRANCH">',
      declared: { covered: 2, total: 2 },
      counted: { covered: 1, total: 2 },
    },
    {
      path: null,
      measure: "lines",
      source: '<report><counter type="LINE">',
      declared: { covered: 1, total: 3 },
      counted: { covered: 1, total: 2 },
    },
  ]);
});

test("JaCoCo's report grouped by module (<group>) gives the same files as the flat one, and each group's counters hold", () => {
  // Both written by JaCoCo 0.8.6 from one run of test/fixtures/tools/java-coverage (build.xml).
  const flat = parseJacoco(readToolFixture("coverage", "jacoco", "jacoco.xml"));
  const grouped = parseJacoco(readToolFixture("coverage", "jacoco", "jacoco-groups.xml"));
  assert.deepEqual(grouped.files, flat.files);
  assert.deepEqual(grouped.totals, flat.totals);
  assert.deepEqual(grouped.mismatches, [], "the report's and each file's counters agree with its lines");
  const { groupCounters } = readToolSummary("coverage", "jacoco", "jacoco-groups.xml").figures as {
    groupCounters: Record<string, Record<string, { missed: number; covered: number }>>;
  };
  // cart holds Cart.java, coupons Coupon.java: each group's LINE and BRANCH counters are its file's.
  for (const [group, file] of [
    ["cart", "com/example/shop/Cart.java"],
    ["coupons", "com/example/shop/Coupon.java"],
  ] as const) {
    const counters = groupCounters[group]!;
    const totals = fileOf(grouped, file).totals;
    assert.deepEqual(
      { lines: totals.lines, branches: totals.branches },
      {
        lines: { covered: counters.LINE!.covered, total: counters.LINE!.covered + counters.LINE!.missed },
        branches: {
          covered: counters.BRANCH!.covered,
          total: counters.BRANCH!.covered + counters.BRANCH!.missed,
        },
      },
      group,
    );
  }
});
