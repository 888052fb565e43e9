import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { branchNameProblem, MAX_BRANCH_NAME_LENGTH } from "./branch-name.ts";

describe("branchNameProblem", () => {
  test("ordinary branch names, nested ones included, are valid", () => {
    for (const name of [
      "main",
      "master",
      "release/2.1",
      "feature/JIRA-12_fix",
      "v1.2.3",
      "a",
      "x.lockx",
      "@a",
    ]) {
      assert.equal(branchNameProblem(name), undefined, name);
    }
  });

  test("a name of exactly the maximum length is valid and one character more is not", () => {
    assert.equal(branchNameProblem("b".repeat(MAX_BRANCH_NAME_LENGTH)), undefined);
    assert.match(branchNameProblem("b".repeat(MAX_BRANCH_NAME_LENGTH + 1)) ?? "", /longer than 255/);
  });

  test("each rule of git's ref-name format refuses the names it names", () => {
    const refused: Array<[string, RegExp]> = [
      ["", /empty/],
      ["my branch", /space/],
      ["tab\there", /control/],
      ["nul\u0000", /control/],
      ["del\u007f", /control/],
      ["a~1", /~/],
      ["a^2", /\^/],
      ["a:b", /:/],
      ["what?", /\?/],
      ["star*", /\*/],
      ["br[acket", /\[/],
      ["back\\slash", /\\/],
      ["-rf", /starts with "-"/],
      ["@", /is "@"/],
      ["a..b", /"\.\."/],
      ["a@{1}", /"@\{"/],
      ["/main", /starts or ends with "\/"/],
      ["main/", /starts or ends with "\/"/],
      ["a//b", /"\/\/"/],
      ["main.", /ends with "\."/],
      [".hidden", /starts with "\."/],
      ["feature/.x", /starts with "\."/],
      ["main.lock", /ends with "\.lock"/],
      ["refs.lock/x", /ends with "\.lock"/],
    ];
    for (const [name, reason] of refused) {
      assert.match(branchNameProblem(name) ?? "(valid)", reason, JSON.stringify(name));
    }
  });
});
