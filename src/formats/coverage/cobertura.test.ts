// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCobertura } from "./cobertura.ts";
import { alternativesOf, alternativesPath } from "./paths.ts";
import { fileOf, hitsOf, readFixture } from "./test-fixtures.ts";
import { CoverageFormatError } from "./types.ts";

test("a coverage.py report resolves filenames through <sources> and workDir", () => {
  const report = parseCobertura(readFixture("coverage-py.cobertura.xml"), {
    workDir: "/home/runner/work/shop/shop",
  });
  assert.deepEqual(
    report.files.map((f) => f.path),
    ["src/shop/__init__.py", "src/shop/cart.py"],
  );
  const cart = fileOf(report, "src/shop/cart.py");
  assert.deepEqual(hitsOf(cart), { 1: 1, 4: 1, 5: 3, 6: 2, 7: 1, 9: 1, 10: 2, 11: 0, 12: 0 });
  assert.deepEqual(
    cart.lines.find((l) => l.line === 10),
    {
      line: 10,
      hits: 2,
      branches: { covered: 1, total: 2 },
      conditions: { covered: 1, total: 2 },
    },
  );
  assert.deepEqual(cart.totals, {
    lines: { covered: 7, total: 9 },
    branches: { covered: 3, total: 4 },
    conditions: { covered: 3, total: 4 },
  });
  assert.deepEqual(fileOf(report, "src/shop/__init__.py").lines, []);
});

test("without a workDir an absolute source is not joined, leaving the filename as written", () => {
  const report = parseCobertura(readFixture("coverage-py.cobertura.xml"));
  assert.deepEqual(
    report.files.map((f) => f.path),
    ["shop/__init__.py", "shop/cart.py"],
  );
});

test("Windows sources and filenames normalise, method line copies are skipped, inner classes merge", () => {
  const report = parseCobertura(readFixture("istanbul.cobertura.xml"), {
    workDir: "C:\\ci\\agent\\_work\\1\\s",
  });
  assert.deepEqual(
    report.files.map((f) => f.path),
    ["src/util/math.ts"],
  );
  const file = fileOf(report, "src/util/math.ts");
  // Line 1 appears only under <methods>; line 5 is in both classes, so its hits add up.
  assert.deepEqual(hitsOf(file), { 2: 3, 3: 0, 4: 3, 5: 4, 8: 1 });
  assert.deepEqual(file.totals.branches, { covered: 1, total: 2 });
  assert.deepEqual(file.totals.lines, { covered: 4, total: 5 });
});

test("bad input throws CoverageFormatError naming the problem, element and line", () => {
  const wrap = (line: string) =>
    `<coverage line-rate="1"><packages><package><classes><class filename="a.py"><lines>\n${line}\n</lines></class></classes></package></packages></coverage>`;
  const cases: [string, RegExp][] = [
    [wrap('<line number="1" hits="-2"/>'), /hits is negative: -2 \(in <line> at line 2\)/],
    [wrap('<line number="0" hits="1"/>'), /line number must be 1 or more, got 0 \(in <line> at line 2\)/],
    [wrap('<line hits="1"/>'), /line number is missing \(in <line> at line 2\)/],
    [
      wrap('<line number="1" hits="1" branch="true" condition-coverage="half"/>'),
      /condition-coverage "half"/,
    ],
    [
      wrap('<line number="1" hits="1" branch="true" condition-coverage="300% (3/1)"/>'),
      /covers more than all/,
    ],
    [
      '<coverage><packages><package><classes><class name="x"/></classes></package></packages></coverage>',
      /a class has no filename attribute \(in <class> at line 1\)/,
    ],
    ["<coverage><packages>\n<package>\n</coverage>", /^Cobertura report: invalid XML: .* \(at line 3\)$/],
    ["<report/>", /the root element is <report>, expected <coverage>/],
    ["<coverage>&xxe;</coverage>", /invalid XML/],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parseCobertura(text),
      (error: unknown) => error instanceof CoverageFormatError && message.test(error.message),
      text,
    );
  }
});

test("a relative filename under no source in the repository is kept as written; an absolute one outside is excluded", () => {
  const text = (filename: string) =>
    `<coverage lines-valid="2" lines-covered="1"><sources><source>/app</source><source></source></sources><packages><package><classes><class filename="${filename}"><lines><line number="1" hits="1"/><line number="2" hits="0"/></lines></class></classes></package></packages></coverage>`;
  // Made in a container at /app, uploaded from the checkout: the name is taken as repository-relative.
  assert.deepEqual(
    parseCobertura(text("shop/cart.py"), { workDir: "/ci/repo" }).files.map((f) => f.path),
    ["shop/cart.py"],
  );
  const outside = parseCobertura(text("/usr/lib/python3/dist-packages/tabulate.py"), { workDir: "/ci/repo" });
  assert.deepEqual(outside.files, []);
  assert.deepEqual(
    outside.excluded.map((f) => f.path),
    ["/usr/lib/python3/dist-packages/tabulate.py"],
  );
  // The root's totals count every file read, the excluded one too: no mismatch.
  assert.deepEqual(outside.mismatches, []);
});

test("a filename under several sources in the repository lists its places in braces; one place in the repository is the path", () => {
  const text = (sources: string[], filenames: string[]) =>
    `<coverage><sources>${sources.map((s) => `<source>${s}</source>`).join("")}</sources><packages><package><classes>${filenames
      .map((f) => `<class filename="${f}"><lines><line number="1" hits="1"/></lines></class>`)
      .join("")}</classes></package></packages></coverage>`;
  const paths = (sources: string[], filenames: string[]) =>
    parseCobertura(text(sources, filenames), { workDir: "/ci/repo" }).files.map((f) => f.path);
  // coverage.py with two sources: each filename is relative to the one it lies in, unsaid.
  assert.deepEqual(paths(["/ci/repo/app", "/ci/repo/tests"], ["cart.py", "sub/util.py"]), [
    "{app,tests}/cart.py",
    "{app,tests}/sub/util.py",
  ]);
  // The repository root as one of them is `.`; relative sources count as in the repository.
  assert.deepEqual(paths(["/ci/repo", "tests"], ["conftest.py"]), ["{.,tests}/conftest.py"]);
  // A source outside the repository is no place for it; two that give one path are one place.
  assert.deepEqual(paths(["/usr/lib/python3", "/ci/repo/app"], ["cart.py"]), ["app/cart.py"]);
  assert.deepEqual(paths(["/ci/repo/app", "/ci/repo/app/"], ["cart.py"]), ["app/cart.py"]);
  // Files of the same name under different sources stay apart only as far as the report keeps them.
  assert.deepEqual(paths(["/ci/repo/app", "/ci/repo/tests"], ["__init__.py", "__init__.py"]), [
    "{app,tests}/__init__.py",
  ]);
});

test("alternatives paths read back as their places", () => {
  assert.deepEqual(alternativesOf("{app,tests}/sub/util.py"), ["app/sub/util.py", "tests/sub/util.py"]);
  assert.deepEqual(alternativesOf("{.,tests}/conftest.py"), ["conftest.py", "tests/conftest.py"]);
  assert.equal(alternativesOf("app/cart.py"), null);
  assert.equal(alternativesPath(["a/b/x.py", "c/x.py"]), "{a/b,c}/x.py");
});

test("root totals that disagree with the lines are reported, the figures staying the lines'", () => {
  const report = parseCobertura(
    '<coverage lines-valid="3" lines-covered="2" branches-valid="2" branches-covered="1"><packages><package><classes><class filename="a.py"><lines><line number="1" hits="1"/><line number="2" hits="0"/></lines></class></classes></package></packages></coverage>',
  );
  assert.deepEqual(report.totals.lines, { covered: 1, total: 2 });
  assert.deepEqual(report.mismatches, [
    {
      path: null,
      measure: "lines",
      source: "<coverage lines-valid lines-covered>",
      declared: { covered: 2, total: 3 },
      counted: { covered: 1, total: 2 },
    },
    {
      path: null,
      measure: "branches",
      source: "<coverage branches-valid branches-covered>",
      declared: { covered: 1, total: 2 },
      counted: { covered: 0, total: 0 },
    },
  ]);
});
