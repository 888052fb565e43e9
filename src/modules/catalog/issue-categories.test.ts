// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { IssueCategory } from "../../db/types.ts";
import { escapeLike } from "./catalog-store.ts";
import { distributionOf, ISSUE_CATEGORIES, ISSUE_CATEGORY_TITLES } from "./issue-categories.ts";

describe("issue category distributions", () => {
  test("every category of the contract's enum has a title, in the enum's order", () => {
    assert.deepEqual(ISSUE_CATEGORIES, [
      "ANTI_PATTERN",
      "BUG_RISK",
      "PERFORMANCE",
      "SECURITY",
      "COVERAGE",
      "TYPECHECK",
      "STYLE",
      "DOCUMENTATION",
      "SECRETS",
    ]);
    for (const category of ISSUE_CATEGORIES) assert.ok(ISSUE_CATEGORY_TITLES[category].length > 0, category);
  });

  test("a distribution lists the categories with issues in display order, whatever order the counts came in", () => {
    const counts = new Map<IssueCategory, number>([
      ["STYLE", 4],
      ["COVERAGE", 0],
      ["BUG_RISK", 2],
    ]);
    assert.deepEqual(distributionOf(counts), [
      { category: "BUG_RISK", title: "Bug Risk", count: 2 },
      { category: "STYLE", title: "Style", count: 4 },
    ]);
    assert.deepEqual(distributionOf(new Map()), []);
  });
});

describe("escapeLike", () => {
  test("escapes the LIKE wildcards and the escape character, and nothing else", () => {
    assert.equal(escapeLike("50%_off\\now"), "50\\%\\_off\\\\now");
    assert.equal(escapeLike("plain text [x] *"), "plain text [x] *");
  });
});
