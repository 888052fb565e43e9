// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { test } from "node:test";
import type { DeclaredTotalsMismatch, ExcludedFile } from "../formats/coverage/index.ts";
import { mismatchWarnings, outsideWarning } from "./coverage-warnings.ts";

const NO_TOTALS = { lines: { covered: 0, total: 0 }, branches: { covered: 0, total: 0 }, conditions: null };

function excluded(...paths: string[]): ExcludedFile[] {
  return paths.map((path) => ({ path, totals: NO_TOTALS }));
}

test("the outside warning counts the files, names the first three and says how paths resolve", () => {
  assert.equal(
    outsideWarning(excluded("/usr/lib/python3/dist-packages/tabulate.py"), "/ci/repo"),
    '1 file(s) lie outside the repository and were not counted (/usr/lib/python3/dist-packages/tabulate.py); paths are made relative to the upload\'s workDir "/ci/repo".',
  );
  assert.equal(
    outsideWarning(excluded("/a.js", "/b.js", "/c.js", "/d.js"), null),
    "4 file(s) lie outside the repository and were not counted (/a.js, /b.js, /c.js, …); absolute paths are made relative to the upload's workDir, and this upload gave none.",
  );
  // A report made in a subdirectory: its paths are made relative to the checkout's root.
  assert.match(
    outsideWarning(excluded("/usr/lib/x.py"), "/ci/repo", "repositoryRoot"),
    /paths are made relative to the upload's repositoryRoot "\/ci\/repo"\.$/,
  );
});

test("declared totals that disagree are described one by one, then counted", () => {
  const mismatch = (path: string | null): DeclaredTotalsMismatch => ({
    path,
    measure: "branches",
    source: "<metrics conditionals coveredconditionals>",
    declared: { covered: 12, total: 20 },
    counted: { covered: 10, total: 20 },
  });
  assert.deepEqual(mismatchWarnings([mismatch(null), mismatch("src/a.js")]), [
    "The report as a whole: <metrics conditionals coveredconditionals> declares 12 of 20 branches covered, but its detail holds 10 of 20; the figures come from the detail.",
    "src/a.js: <metrics conditionals coveredconditionals> declares 12 of 20 branches covered, but its detail holds 10 of 20; the figures come from the detail.",
  ]);
  const many = mismatchWarnings(Array.from({ length: 8 }, (_, i) => mismatch(`src/${i}.js`)));
  assert.equal(many.length, 6);
  assert.match(many[4]!, /^src\/4\.js: /);
  assert.equal(
    many[5],
    "3 more declared total(s) disagree with the report's detail; the figures come from the detail.",
  );
  assert.deepEqual(mismatchWarnings([]), []);
});
