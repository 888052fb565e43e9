// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { StoredCoverageFile } from "../../modules/coverage/coverage-report-store.ts";
import { mergedFiles } from "./tallies.ts";

/** A stored row of src/a.c with line 7 run and these branch entries (line, total, taken). */
function aRow(entries: Array<[line: number, total: number, taken: number]>): StoredCoverageFile {
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  const taken = entries.reduce((sum, [, , n]) => sum + n, 0);
  return {
    language_key: "cxx",
    path: "src/a.c",
    lines_total: 1,
    lines_covered: 1,
    branches_total: total,
    branches_covered: taken,
    conditions_total: null,
    conditions_covered: null,
    covered_lines: [7],
    uncovered_lines: [],
    branch_lines: entries.map(([line]) => line),
    branch_totals: entries.map(([, n]) => n),
    branch_taken: entries.map(([, , n]) => n),
  };
}

function branchesOf(rows: StoredCoverageFile[]) {
  const [merged] = mergedFiles(rows);
  const file = merged!.file;
  return {
    covered: file.branches_covered,
    total: file.branches_total,
    entries: file.branch_lines.map((line, i) => [line, file.branch_totals[i], file.branch_taken[i]]),
  };
}

describe("merging the branches of one file several reports name", () => {
  test("outcomes told apart in both reports merge one by one: taken when either took it", () => {
    const first = aRow([
      [7, 1, 1],
      [7, 1, 0],
      [9, 1, 0],
      [9, 1, 0],
    ]);
    const second = aRow([
      [7, 1, 0],
      [7, 1, 1],
      [9, 1, 0],
      [9, 1, 0],
    ]);
    assert.deepEqual(branchesOf([first, second]), {
      covered: 2,
      total: 4,
      entries: [
        [7, 1, 1],
        [7, 1, 1],
        [9, 1, 0],
        [9, 1, 0],
      ],
    });
  });

  test("a line one report only counts (Cobertura, JaCoCo, or a row stored before outcomes were) keeps the most known to have run", () => {
    const outcomes = aRow([
      [7, 1, 0],
      [7, 1, 1],
    ]);
    const counted = aRow([[7, 2, 1]]);
    assert.deepEqual(branchesOf([outcomes, counted]), { covered: 1, total: 2, entries: [[7, 2, 1]] });
    assert.deepEqual(branchesOf([counted, aRow([[7, 2, 1]])]), {
      covered: 1,
      total: 2,
      entries: [[7, 2, 1]],
    });
  });

  test("reports that count a line's outcomes differently keep the larger counts; a line only one has keeps its outcomes", () => {
    const two = aRow([
      [7, 1, 1],
      [7, 1, 0],
    ]);
    const four = aRow([
      [7, 1, 0],
      [7, 1, 0],
      [7, 1, 0],
      [7, 1, 1],
      [8, 1, 1],
      [8, 1, 0],
    ]);
    assert.deepEqual(branchesOf([two, four]), {
      covered: 2,
      total: 6,
      entries: [
        [7, 4, 1],
        [8, 1, 1],
        [8, 1, 0],
      ],
    });
  });
});
