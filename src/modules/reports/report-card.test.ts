import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { gradeOf, reportCardOf, scoreOfPenalty } from "./report-card.ts";

describe("report card", () => {
  test("grades at 90, 75 and 50", () => {
    assert.deepEqual([100, 90, 89, 75, 74, 50, 49, 0].map(gradeOf), ["A", "A", "B", "B", "C", "C", "D", "D"]);
  });

  test("a score halves every 25 penalty points", () => {
    assert.equal(scoreOfPenalty(0), 100);
    assert.equal(scoreOfPenalty(25), 50);
    assert.equal(scoreOfPenalty(50), 25);
  });

  test("a leaked secret caps the aggregate at a C even when the mean is higher", () => {
    const card = reportCardOf([{ category: "SECRETS", severity: "MINOR", open: 1 }], null);
    assert.equal(card.dimensions.SECURITY.score, 97);
    assert.deepEqual(card.aggregate, { grade: "C", score: 74 });
    assert.equal(card.focusArea?.dimension, "SECURITY");
  });

  test("coverage is the mean of the values known, and null when none is", () => {
    assert.equal(reportCardOf([], { lcv: 80, bcv: null }).coverage.score, 80);
    assert.deepEqual(reportCardOf([], null).coverage, {
      grade: null,
      score: null,
      lineCoverage: null,
      branchCoverage: null,
    });
  });
});
