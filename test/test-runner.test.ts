// test-runner: execution-mode independent (checks the test runner itself)
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import {
  type FinishedTest,
  filesWithoutTests,
  missingTargets,
  noTestsMessage,
  readRunReport,
  slowestFiles,
} from "../scripts/test-registration.ts";

const ROOT = path.resolve(import.meta.dirname, "..");

test("a file is without tests when only its own stand-in or empty suites finished", () => {
  const finished: FinishedTest[] = [
    { file: "/r/a.test.ts", name: "adds", isSuite: false },
    { file: "/r/b.test.ts", name: "/r/b.test.ts", isSuite: false },
    { file: "/r/c.test.ts", name: "an empty suite", isSuite: true },
    { file: "/r/d.test.ts", name: "a failing test", isSuite: false },
    { file: undefined, name: "runner entry", isSuite: false },
  ];
  assert.deepEqual(
    filesWithoutTests(
      ["/r/a.test.ts", "/r/b.test.ts", "/r/c.test.ts", "/r/d.test.ts", "/r/e.test.ts"],
      finished,
    ),
    ["/r/b.test.ts", "/r/c.test.ts", "/r/e.test.ts"],
  );
});

test("relative and absolute paths of the same file are the same file", () => {
  const finished: FinishedTest[] = [{ file: path.resolve("test/x.test.ts"), name: "works", isSuite: false }];
  assert.deepEqual(filesWithoutTests(["test/x.test.ts"], finished), []);
});

test("slowest files sum each file's top-level tests and suites, not the tests inside them", () => {
  const finished: FinishedTest[] = [
    { file: "/r/a.test.ts", name: "inner", isSuite: false, nesting: 1, durationMs: 900 },
    { file: "/r/a.test.ts", name: "suite", isSuite: true, nesting: 0, durationMs: 1000 },
    { file: "/r/a.test.ts", name: "top", isSuite: false, nesting: 0, durationMs: 50 },
    { file: "/r/b.test.ts", name: "slow", isSuite: false, nesting: 0, durationMs: 2000 },
    { file: "/r/c.test.ts", name: "quick", isSuite: false, nesting: 0, durationMs: 1 },
    { file: undefined, name: "runner entry", isSuite: false, nesting: 0, durationMs: 99999 },
  ];
  assert.deepEqual(slowestFiles(finished, 2), [
    { file: "/r/b.test.ts", ms: 2000 },
    { file: "/r/a.test.ts", ms: 1050 },
  ]);
});

test("a test file or folder named on the command line that is not there is named, not skipped", () => {
  const here = path.join(ROOT, "test", "test-runner.test.ts");
  const absent = path.join(ROOT, "test", "no-such.test.ts");
  assert.deepEqual(missingTargets([here, path.join(ROOT, "src"), absent]), [absent]);
  assert.deepEqual(missingTargets([here]), []);
});

test("the message names each file without tests", () => {
  assert.match(
    noTestsMessage(["test/a.test.ts", "src/b.test.ts"]),
    /2 test file\(s\) registered no test[^\n]*\n {2}test\/a\.test\.ts\n {2}src\/b\.test\.ts\n$/,
  );
});

/** Runs `files` under node:test in `dir` with the reporter npm test uses, and reads what it wrote. */
function runWithReporter(dir: string, files: readonly string[]) {
  const out = path.join(dir, "registered.jsonl");
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const result = spawnSync(
    process.execPath,
    [
      "--test",
      `--test-reporter=${path.join(ROOT, "scripts", "registered-tests-reporter.mjs")}`,
      `--test-reporter-destination=${out}`,
      ...files,
    ],
    { cwd: dir, env, encoding: "utf8" },
  );
  return {
    status: result.status,
    stderr: result.stderr,
    report: readRunReport(fs.readFileSync(out, "utf8")),
  };
}

test("the reporter npm test uses lets a real run tell an empty file and an empty suite from a file with tests", (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-runner-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const files = {
    tested: path.join(dir, "tested.test.mjs"),
    empty: path.join(dir, "empty.test.mjs"),
    emptySuite: path.join(dir, "empty-suite.test.mjs"),
  };
  fs.writeFileSync(
    files.tested,
    'import { describe, test } from "node:test";\ndescribe("s", () => { test("t", () => {}); });\n',
  );
  fs.writeFileSync(files.empty, "export const nothing = 1;\n");
  fs.writeFileSync(
    files.emptySuite,
    'import { describe } from "node:test";\ndescribe("nothing inside", () => {});\n',
  );
  const { status, stderr, report } = runWithReporter(dir, Object.values(files));
  assert.equal(status, 0, stderr);
  const { finished, totals } = report;
  assert.deepEqual(
    filesWithoutTests(Object.values(files), finished).sort(),
    [files.empty, files.emptySuite].sort(),
  );
  const inner = finished.find((entry) => entry.name === "t");
  assert.equal(inner?.nesting, 1);
  assert.equal(typeof inner?.durationMs, "number");
  assert.ok(slowestFiles(finished, 10).some((entry) => entry.file === files.tested));
  // The totals npm test decides on, as node:test counts them: the empty file is a passing test.
  assert.equal(totals.get("pass"), 2);
  assert.equal(totals.get("fail"), 0);
  assert.equal(totals.get("suites"), 2);
});

test("the reporter's totals count failures, skips and todos, and a test's own diagnostic is not a total", (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-runner-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "mixed.test.mjs");
  fs.writeFileSync(
    file,
    [
      'import { test } from "node:test";',
      'test("passes", (t) => { t.diagnostic("fail 7"); });',
      'test("fails", () => { throw new Error("no"); });',
      'test("skipped", { skip: true }, () => {});',
      'test.todo("later");',
      "",
    ].join("\n"),
  );
  const { status, report } = runWithReporter(dir, [file]);
  assert.equal(status, 1);
  const { totals } = report;
  assert.deepEqual(Object.fromEntries(totals), {
    tests: 4,
    suites: 0,
    pass: 1,
    fail: 1,
    cancelled: 0,
    skipped: 1,
    todo: 1,
  });
});
