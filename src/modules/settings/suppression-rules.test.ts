import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  type IgnoreRuleTerms,
  ignoreRuleMatches,
  isFindingSuppressed,
  suppressionOf,
  suppressionRules,
} from "./suppression-rules.ts";

/** An ignore rule of issue "1" unless told otherwise. */
function rule(fields: Partial<IgnoreRuleTerms>): IgnoreRuleTerms {
  return {
    key: "rule",
    issue_id: "1",
    level: "REPOSITORY",
    type: "FOREVER",
    file_path: null,
    glob_pattern: null,
    ...fields,
  };
}

describe("whether an ignore rule matches a finding", () => {
  test("a repository-wide FOREVER rule matches its issue everywhere, and no other issue", () => {
    const forever = rule({});
    assert.ok(ignoreRuleMatches(forever, { issueId: "1", path: "a.py" }));
    assert.ok(ignoreRuleMatches(forever, { issueId: "1", path: "deep/down/b.py" }));
    assert.ok(!ignoreRuleMatches(forever, { issueId: "2", path: "a.py" }));
  });

  test("a FILE rule matches its file exactly: no prefix, no other file", () => {
    const file = rule({ level: "FILE", file_path: "src/app.py" });
    assert.ok(ignoreRuleMatches(file, { issueId: "1", path: "src/app.py" }));
    assert.ok(!ignoreRuleMatches(file, { issueId: "1", path: "src/app.py.orig" }));
    assert.ok(!ignoreRuleMatches(file, { issueId: "1", path: "src/app" }));
    assert.ok(!ignoreRuleMatches(file, { issueId: "1", path: "lib/src/app.py" }));
    assert.ok(!ignoreRuleMatches(file, { issueId: "2", path: "src/app.py" }));
  });

  test("PATTERN and TEST_PATTERN rules match the paths their glob matches", () => {
    for (const type of ["PATTERN", "TEST_PATTERN"] as const) {
      const glob = rule({ type, glob_pattern: "tests/**" });
      assert.ok(ignoreRuleMatches(glob, { issueId: "1", path: "tests/unit/test_a.py" }), type);
      assert.ok(!ignoreRuleMatches(glob, { issueId: "1", path: "src/tests.py" }), type);
      assert.ok(!ignoreRuleMatches(glob, { issueId: "2", path: "tests/a.py" }), type);
    }
  });

  test("a FILE rule with a glob needs both its file and its glob", () => {
    const both = rule({
      level: "FILE",
      file_path: "src/a_test.go",
      type: "PATTERN",
      glob_pattern: "**/*_test.go",
    });
    assert.ok(ignoreRuleMatches(both, { issueId: "1", path: "src/a_test.go" }));
    assert.ok(!ignoreRuleMatches(both, { issueId: "1", path: "src/b_test.go" }));
    const disjoint = rule({
      level: "FILE",
      file_path: "src/a.go",
      type: "PATTERN",
      glob_pattern: "**/*_test.go",
    });
    assert.ok(!ignoreRuleMatches(disjoint, { issueId: "1", path: "src/a.go" }));
  });

  test("a TEST_PATTERN rule without a glob matches the files the configuration names as tests", () => {
    const tests = rule({ type: "TEST_PATTERN" });
    const isTestFile = (path: string) => path.startsWith("tests/");
    assert.ok(ignoreRuleMatches(tests, { issueId: "1", path: "tests/test_a.py" }, isTestFile));
    assert.ok(!ignoreRuleMatches(tests, { issueId: "1", path: "src/a.py" }, isTestFile));
    assert.ok(!ignoreRuleMatches(tests, { issueId: "2", path: "tests/test_a.py" }, isTestFile));
    // Without a configuration that names test files, it matches nothing.
    assert.ok(!ignoreRuleMatches(tests, { issueId: "1", path: "tests/test_a.py" }));
  });

  test("a TEST_PATTERN rule with a glob of its own keeps to its glob, whatever the configuration says", () => {
    const own = rule({ type: "TEST_PATTERN", glob_pattern: "**/__tests__/**" });
    const isTestFile = (path: string) => path.startsWith("tests/");
    assert.ok(ignoreRuleMatches(own, { issueId: "1", path: "src/__tests__/a.js" }, isTestFile));
    assert.ok(!ignoreRuleMatches(own, { issueId: "1", path: "tests/a.js" }, isTestFile));
  });

  test("a rule whose glob does not compile matches nothing", () => {
    const broken = rule({ type: "PATTERN", glob_pattern: "src/**.py" });
    assert.ok(!ignoreRuleMatches(broken, { issueId: "1", path: "src/a.py" }));
  });
});

describe("which findings are suppressed", () => {
  const rules = suppressionRules(
    ["10"],
    [
      rule({ key: "forever", issue_id: "20" }),
      rule({ key: "file", issue_id: "30", level: "FILE", file_path: "src/legacy.js" }),
      rule({ key: "tests", issue_id: "30", type: "TEST_PATTERN", glob_pattern: "**/__tests__/**" }),
      rule({ key: "vendor", issue_id: "40", type: "PATTERN", glob_pattern: "vendor/**" }),
    ],
  );

  test("a team-suppressed issue is suppressed in every file, and says so first", () => {
    assert.deepEqual(suppressionOf(rules, { issueId: "10", path: "any/where.js" }), { by: "TEAM" });
    const both = suppressionRules(["20"], [rule({ key: "forever", issue_id: "20" })]);
    assert.deepEqual(suppressionOf(both, { issueId: "20", path: "a.js" }), { by: "TEAM" });
  });

  test("an ignore rule suppresses what it matches and names itself", () => {
    assert.deepEqual(suppressionOf(rules, { issueId: "20", path: "x.js" }), {
      by: "IGNORE_RULE",
      ruleKey: "forever",
    });
    assert.deepEqual(suppressionOf(rules, { issueId: "30", path: "src/legacy.js" }), {
      by: "IGNORE_RULE",
      ruleKey: "file",
    });
    assert.deepEqual(suppressionOf(rules, { issueId: "30", path: "src/__tests__/a.js" }), {
      by: "IGNORE_RULE",
      ruleKey: "tests",
    });
  });

  test("findings no rule matches are not suppressed", () => {
    assert.equal(suppressionOf(rules, { issueId: "30", path: "src/app.js" }), null);
    assert.equal(suppressionOf(rules, { issueId: "40", path: "src/vendor/x.js" }), null);
    assert.equal(suppressionOf(rules, { issueId: "50", path: "vendor/x.js" }), null);
    assert.equal(isFindingSuppressed(rules, { issueId: "50", path: "vendor/x.js" }), false);
    assert.equal(isFindingSuppressed(rules, { issueId: "40", path: "vendor/x.js" }), true);
  });

  test("the rules count those that read the configuration's test_patterns", () => {
    assert.equal(rules.rulesOnTestPatterns, 0);
    const onConfig = suppressionRules(
      [],
      [rule({ key: "a", type: "TEST_PATTERN" }), rule({ key: "b", issue_id: "2", type: "TEST_PATTERN" })],
      (path) => path.endsWith("_test.go"),
    );
    assert.equal(onConfig.rulesOnTestPatterns, 2);
    assert.deepEqual(suppressionOf(onConfig, { issueId: "2", path: "pkg/a_test.go" }), {
      by: "IGNORE_RULE",
      ruleKey: "b",
    });
    assert.equal(suppressionOf(onConfig, { issueId: "2", path: "pkg/a.go" }), null);
  });

  test("no rules suppress nothing", () => {
    assert.equal(isFindingSuppressed(suppressionRules([], []), { issueId: "1", path: "a" }), false);
  });
});
