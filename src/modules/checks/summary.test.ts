import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { EMPTY_SUMMARY, summariseByParent, summariseOccurrences } from "./summary.ts";

describe("occurrence summaries", () => {
  test("totals add up every group and distributions keep only what was introduced", () => {
    const summary = summariseOccurrences([
      {
        category: "SECURITY",
        severity: "CRITICAL",
        analyzerShortcode: "python",
        introduced: 2,
        resolved: 1,
        suppressed: 0,
      },
      {
        category: "BUG_RISK",
        severity: "MINOR",
        analyzerShortcode: "python",
        introduced: 1,
        resolved: 0,
        suppressed: 3,
      },
      {
        category: "SECURITY",
        severity: "MINOR",
        analyzerShortcode: "go",
        introduced: 4,
        resolved: 0,
        suppressed: 1,
      },
      {
        category: "STYLE",
        severity: "MAJOR",
        analyzerShortcode: "javascript",
        introduced: 0,
        resolved: 5,
        suppressed: 2,
      },
    ]);
    assert.deepEqual(summary, {
      introduced: 7,
      resolved: 6,
      suppressed: 6,
      byCategory: [
        { category: "BUG_RISK", introduced: 1 },
        { category: "SECURITY", introduced: 6 },
      ],
      bySeverity: [
        { severity: "CRITICAL", introduced: 2 },
        { severity: "MINOR", introduced: 5 },
      ],
      byAnalyzer: [
        { analyzerShortcode: "go", introduced: 4 },
        { analyzerShortcode: "python", introduced: 3 },
      ],
    });
  });

  test("categories follow the enum's order, not the count or the name", () => {
    const summary = summariseOccurrences(
      (["SECRETS", "ANTI_PATTERN", "PERFORMANCE", "DOCUMENTATION"] as const).map((category, i) => ({
        category,
        severity: "MINOR" as const,
        introduced: 10 - i,
        resolved: 0,
        suppressed: 0,
      })),
    );
    assert.deepEqual(
      summary.byCategory.map((d) => d.category),
      ["ANTI_PATTERN", "PERFORMANCE", "DOCUMENTATION", "SECRETS"],
    );
    assert.deepEqual(summary.byAnalyzer, [], "rows without an analyzer make no analyzer entries");
  });

  test("each parent gets its own rows' summary, and the empty one without rows", () => {
    const rows = [
      {
        parent: "2",
        category: "STYLE" as const,
        severity: "MINOR" as const,
        introduced: 1,
        resolved: 0,
        suppressed: 0,
      },
      {
        parent: "1",
        category: "STYLE" as const,
        severity: "MINOR" as const,
        introduced: 0,
        resolved: 2,
        suppressed: 0,
      },
      {
        parent: "2",
        category: "STYLE" as const,
        severity: "MAJOR" as const,
        introduced: 3,
        resolved: 0,
        suppressed: 1,
      },
    ];
    const [one, two, three] = summariseByParent(["1", "2", "3"], rows, (row) => row.parent);
    assert.equal(one?.resolved, 2);
    assert.deepEqual(two?.byCategory, [{ category: "STYLE", introduced: 4 }]);
    assert.deepEqual(two?.bySeverity, [
      { severity: "MAJOR", introduced: 3 },
      { severity: "MINOR", introduced: 1 },
    ]);
    assert.equal(two?.suppressed, 1);
    assert.equal(three, EMPTY_SUMMARY);
  });
});
