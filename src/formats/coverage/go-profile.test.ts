// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseGoProfile, statementLines } from "./go-profile.ts";
import { fileOf, hitsOf, readFixture } from "./test-fixtures.ts";
import { CoverageFormatError } from "./types.ts";

test("a -coverpkg profile merges duplicate blocks and strips the module path", () => {
  const report = parseGoProfile(readFixture("coverpkg.go.out"), { stripPrefixes: ["example.com/shop"] });
  assert.deepEqual(
    report.files.map((f) => f.path),
    ["cart/cart.go", "cart/doc.go", "internal/money/money.go"],
  );
  const cart = fileOf(report, "cart/cart.go");
  // Each block's statements sit on the lines after its opening brace and before its closing one;
  // the two copies of each block (one per test binary) add up.
  assert.deepEqual(hitsOf(cart), { 11: 4, 12: 4, 13: 1, 15: 4, 19: 0 });
  assert.deepEqual(cart.totals, {
    lines: { covered: 4, total: 5 },
    branches: { covered: 0, total: 0 },
    conditions: null,
  });
  assert.deepEqual(hitsOf(fileOf(report, "internal/money/money.go")), { 6: 4 });
  assert.deepEqual(fileOf(report, "cart/doc.go").lines, []);
});

test("in set mode duplicate blocks are covered when any copy is, without adding up", () => {
  const report = parseGoProfile("mode: set\nm/a.go:1.1,1.10 1 1\nm/a.go:1.1,1.10 1 1\nm/a.go:2.1,2.5 1 0\n");
  assert.deepEqual(hitsOf(fileOf(report, "m/a.go")), { 1: 1, 2: 0 });
});

test("concatenated count profiles repeating mode: add up", () => {
  const report = parseGoProfile("mode: count\nm/a.go:3.1,3.9 1 2\nmode: count\nm/a.go:3.1,3.9 1 5\n");
  assert.deepEqual(hitsOf(fileOf(report, "m/a.go")), { 3: 7 });
});

test("Windows paths in a GOPATH-style profile normalise against workDir", () => {
  const report = parseGoProfile("mode: set\nC:\\src\\proj\\main.go:4.13,6.2 1 1\n", {
    workDir: "C:/src/proj",
  });
  assert.deepEqual(
    report.files.map((f) => f.path),
    ["main.go"],
  );
});

test("bad input throws CoverageFormatError naming the problem and the line", () => {
  const cases: [string, RegExp][] = [
    ["m/a.go:1.1,1.2 1 1\n", /the first line must be mode: set\|count\|atomic \(at line 1\)/],
    ["mode: fast\n", /unknown mode "fast"/],
    ["mode: set\nm/a.go:1.1,1.2 1 -1\n", /execution count is negative: -1 \(at line 2\)/],
    ["mode: set\nm/a.go:0.1,1.2 1 1\n", /start line must be 1 or more, got 0 \(at line 2\)/],
    ["mode: set\nm/a.go:5.1,3.2 1 1\n", /block ends \(line 3\) before it starts \(line 5\) \(at line 2\)/],
    [
      "mode: set\nnot a block\nm/a.go:1.1,1.2 1 1\n",
      /expected file:startLine.startCol,endLine.endCol numStmts count \(at line 2\)/,
    ],
    [
      "mode: set\nm/a.go:1.1,1.2 1 1\nm/a.go:3.1,4",
      /the last line "m\/a.go:3.1,4" is cut short .*: the profile looks truncated \(at line 3\)/,
    ],
    ["mode: set\nm/a.go:1.1,1.2 1 1\nmode: count\n", /mode count mixed with mode set \(at line 3\)/],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parseGoProfile(text),
      (error: unknown) => error instanceof CoverageFormatError && message.test(error.message),
      text,
    );
  }
});

test("a block's statements sit between its braces: the opening and closing lines hold none", () => {
  assert.deepEqual(statementLines({ startLine: 16, endLine: 17, statements: 1 }), [17]);
  assert.deepEqual(statementLines({ startLine: 17, endLine: 19, statements: 1 }), [18]);
  assert.deepEqual(statementLines({ startLine: 20, endLine: 21, statements: 2 }), [20, 21]);
  assert.deepEqual(statementLines({ startLine: 7, endLine: 7, statements: 2 }), [7]);
  assert.deepEqual(statementLines({ startLine: 30, endLine: 36, statements: 2 }), [31, 32]);
});

test("with the module path known, another module's files lie outside; without it, paths are kept", () => {
  const text = "mode: set\nexample.com/m/a.go:1.1,1.9 1 1\ngolang.org/x/text/t.go:3.1,3.9 1 0\n";
  const known = parseGoProfile(text, { stripPrefixes: ["example.com/m"] });
  assert.deepEqual(
    [known.files.map((f) => f.path), known.excluded.map((f) => f.path)],
    [["a.go"], ["golang.org/x/text/t.go"]],
  );
  const unknown = parseGoProfile(text, { stripPrefixes: ["example.com/other"] });
  assert.deepEqual(
    unknown.files.map((f) => f.path),
    ["example.com/m/a.go", "golang.org/x/text/t.go"],
  );
});

test("a file lies in the directory of the longest module path it is under; other modules' files lie outside", () => {
  const profile = [
    "mode: set",
    "example.com/shop/internal/cart/cart.go:3.20,5.2 1 1",
    "example.com/shop/tools/gen/gen.go:3.20,5.2 1 0",
    "example.com/root/main.go:3.20,5.2 1 1",
    "golang.org/x/text/width.go:3.20,5.2 1 1",
    "",
  ].join("\n");
  const report = parseGoProfile(profile, {
    goModules: [
      { modulePath: "example.com/shop", directory: "backend" },
      { modulePath: "example.com/shop/tools", directory: "tools" },
      { modulePath: "example.com/root", directory: "" },
    ],
  });
  assert.deepEqual(
    report.files.map((file) => file.path),
    ["backend/internal/cart/cart.go", "main.go", "tools/gen/gen.go"],
  );
  assert.deepEqual(
    report.excluded.map((file) => file.path),
    ["golang.org/x/text/width.go"],
  );
});
