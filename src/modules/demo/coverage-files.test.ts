import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  apportion,
  type CoverageSourceFile,
  coverageSourceFiles,
  type LanguageCounts,
  planCoverageFiles,
  uncoveredLinesOf,
} from "./coverage-files.ts";
import type { PlannedCoverageFile } from "./plan-types.ts";
import { Random } from "./random.ts";
import { sourceFiles } from "./vocabulary.ts";

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

function sources(seed: number, count: number): CoverageSourceFile[] {
  const rand = new Random(seed);
  return coverageSourceFiles(rand, "java", "billing-service", [], count * 200);
}

/** Each of the 12 counts of `files`, summed: lines, branches, conditions × total, covered, new, new covered. */
function sums(files: readonly PlannedCoverageFile[]) {
  const of = (pick: (f: PlannedCoverageFile) => readonly number[] | null) =>
    [0, 1, 2, 3].map((i) => sum(files.map((f) => pick(f)?.[i] ?? 0)));
  return { lines: of((f) => f.lines), branches: of((f) => f.branches), conditions: of((f) => f.conditions) };
}

describe("apportion", () => {
  test("splits a total exactly, within each item's bounds, in proportion to the weights", () => {
    assert.deepEqual(apportion(10, [1, 1, 2], [10, 10, 10]), [3, 2, 5]);
    const split = apportion(1000, [5, 1, 0, 3], [100, 1000, 1000, 1000])!;
    assert.equal(sum(split), 1000);
    assert.equal(split[0], 100, "the first item is full at its bound");
    assert.equal(split[2], 0, "an item of weight 0 gets nothing while others have room");
    assert.ok(Math.abs(split[3]! - 3 * split[1]!) <= 3, `${split}`);
  });

  test("gives items of weight 0 the rest once the weighted ones are full", () => {
    assert.deepEqual(apportion(7, [1, 0, 0], [2, 3, 2]), [2, 3, 2]);
    assert.deepEqual(apportion(4, [0, 0], [2, 6]), [1, 3]);
  });

  test("keeps lower bounds, and answers null when no split fits the bounds", () => {
    assert.deepEqual(apportion(3, [0, 9, 0], [5, 5, 5], [1, 0, 1]), [1, 1, 1]);
    assert.equal(apportion(11, [1, 1], [5, 5]), null);
    assert.equal(apportion(1, [1, 1], [5, 5], [1, 1]), null);
  });
});

describe("a coverage check's files", () => {
  const counts: LanguageCounts = {
    key: "JAVA",
    lines: [12_345, 8_001, 311, 200],
    branches: [2_901, 1_700, 77, 40],
    conditions: [2_901, 1_700, 77, 40],
  };

  test("add up exactly to the check's counts, each measure overall and on the changed lines", () => {
    const files = planCoverageFiles(new Random(1), sources(1, 60), counts);
    assert.deepEqual(sums(files), {
      lines: counts.lines,
      branches: counts.branches,
      conditions: counts.conditions,
    });
    assert.ok(
      files.every((f) => JSON.stringify(f.conditions) === JSON.stringify(f.branches)),
      "each file's condition outcomes are its branch outcomes, as every real format counts them",
    );
    assert.ok(files.every((f) => f.metricKey === "JAVA"));
    const changed = files.filter((f) => f.lines[2] > 0).length;
    assert.ok(changed > 0 && changed < files.length, `${changed} of ${files.length} files changed`);
  });

  test("are each possible: covered within total, changed within total, uncovered lines listed once, ascending", () => {
    for (const seed of [2, 3, 4]) {
      for (const file of planCoverageFiles(new Random(seed), sources(seed, 40), counts)) {
        for (const [total, covered, fresh, freshCovered] of [file.lines, file.branches, file.conditions!]) {
          assert.ok(covered >= 0 && covered <= total, file.path);
          assert.ok(fresh >= 0 && fresh <= total, file.path);
          assert.ok(freshCovered >= 0 && freshCovered <= covered && freshCovered <= fresh, file.path);
          assert.ok(fresh - freshCovered <= total - covered, `${file.path}: changed uncovered are uncovered`);
        }
        if (file.branches[2] > 0)
          assert.ok(file.lines[2] > 0, `${file.path}: changed branches on changed lines`);
        const lines = file.uncoveredLines;
        assert.equal(lines.length, file.lines[0] - file.lines[1], file.path);
        assert.ok(
          lines.every((line, i) => line >= 1 && (i === 0 || line > lines[i - 1]!)),
          file.path,
        );
      }
    }
  });

  test("leave conditions null for a language without them", () => {
    const files = planCoverageFiles(new Random(5), sources(5, 20), {
      ...counts,
      key: "GO",
      conditions: null,
    });
    assert.ok(files.every((f) => f.conditions === null && f.metricKey === "GO"));
    assert.deepEqual(sums(files).lines, counts.lines);
  });

  test("are the same for the same stream, and differ for another", () => {
    const files = sources(6, 30);
    assert.deepEqual(
      planCoverageFiles(new Random(6), files, counts),
      planCoverageFiles(new Random(6), files, counts),
    );
    assert.notDeepEqual(
      planCoverageFiles(new Random(6), files, counts),
      planCoverageFiles(new Random(7), files, counts),
    );
  });

  test("cannot be planned when more changed lines are uncovered than lines are, and the error says so", () => {
    assert.throws(
      () =>
        planCoverageFiles(new Random(8), sources(8, 10), {
          ...counts,
          lines: [1_000, 990, 300, 100],
        }),
      /the JAVA coverage counts cannot be split over \d+ files/,
    );
  });
});

describe("the files coverage counts", () => {
  test("are the source files the findings name, tests left out, and more of the same shapes for more code", () => {
    const named = sourceFiles(new Random(9), "python", "open-sdk-python", 40);
    const tests = named.filter((f) => f.path.startsWith("tests/"));
    assert.ok(tests.length > 0, "the named files include tests");
    const files = coverageSourceFiles(new Random(10), "python", "open-sdk-python", named, 30_000);
    const paths = new Set(files.map((f) => f.path));
    for (const file of named) assert.equal(paths.has(file.path), !file.path.startsWith("tests/"), file.path);
    assert.ok(files.length >= 100, `${files.length} files for 30,000 lines`);
    assert.ok(files.every((f) => f.path.endsWith(".py") && !f.path.startsWith("tests/")));
    assert.deepEqual(
      files.map((f) => f.path),
      [...paths].sort(),
    );
  });

  test("list a file's uncovered lines within it, in runs", () => {
    const lines = uncoveredLinesOf(new Random(11), 400, 250, 60);
    assert.equal(lines.length, 60);
    assert.ok(lines.at(-1)! <= 400);
    assert.deepEqual(uncoveredLinesOf(new Random(11), 400, 250, 0), []);
    assert.equal(uncoveredLinesOf(new Random(12), 10, 10, 10).length, 10);
  });
});
