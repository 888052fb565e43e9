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
  const out = path.join(dir, "registered.jsonl");
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const result = spawnSync(
    process.execPath,
    [
      "--test",
      `--test-reporter=${path.join(ROOT, "scripts", "registered-tests-reporter.mjs")}`,
      `--test-reporter-destination=${out}`,
      ...Object.values(files),
    ],
    { cwd: dir, env, encoding: "utf8" },
  );
  assert.equal(result.status, 0, result.stderr);
  const finished = fs
    .readFileSync(out, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as FinishedTest);
  assert.deepEqual(
    filesWithoutTests(Object.values(files), finished).sort(),
    [files.empty, files.emptySuite].sort(),
  );
  const inner = finished.find((entry) => entry.name === "t");
  assert.equal(inner?.nesting, 1);
  assert.equal(typeof inner?.durationMs, "number");
  assert.ok(slowestFiles(finished, 10).some((entry) => entry.file === files.tested));
});
