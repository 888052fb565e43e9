import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AssayError } from "../../graphql/errors.ts";
import { checkIgnoreRuleShape, type IgnoreRuleShapeInput, pickIssue } from "./ignore-rule-input.ts";
import type { IssueWithAnalyzer } from "./suppression-store.ts";

/** Asserts `run` throws BAD_USER_INPUT naming `field`; answers the message. */
function refusal(run: () => unknown, field: string): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof AssayError);
    assert.equal(error.extensions.code, "BAD_USER_INPUT");
    assert.equal(error.extensions.field, field, error.message);
    return error.message;
  }
  assert.fail(`expected a refusal naming ${field}`);
}

describe("the shape of a new ignore rule", () => {
  test("accepts the four shapes the product offers, normalising absent fields to null", () => {
    const accepted: IgnoreRuleShapeInput[] = [
      { level: "REPOSITORY", type: "FOREVER" },
      { level: "REPOSITORY", type: "PATTERN", globPattern: "vendor/**" },
      { level: "REPOSITORY", type: "TEST_PATTERN" },
      { level: "REPOSITORY", type: "TEST_PATTERN", globPattern: "**/*_test.go", filePath: null },
      { level: "FILE", type: "FOREVER", filePath: "src/app.py", globPattern: null },
    ];
    for (const input of accepted) {
      assert.deepEqual(checkIgnoreRuleShape(input), {
        level: input.level,
        type: input.type,
        filePath: input.filePath ?? null,
        globPattern: input.globPattern ?? null,
      });
    }
  });

  test("a FILE rule needs a valid relative filePath, and only FILE rules take one", () => {
    assert.match(
      refusal(() => checkIgnoreRuleShape({ level: "FILE", type: "FOREVER" }), "filePath"),
      /required/,
    );
    for (const filePath of ["", "/abs.py", "../up.py", "a/./b.py", "a//b.py", "a\\b.py"]) {
      refusal(() => checkIgnoreRuleShape({ level: "FILE", type: "FOREVER", filePath }), "filePath");
    }
    refusal(
      () => checkIgnoreRuleShape({ level: "REPOSITORY", type: "FOREVER", filePath: "a.py" }),
      "filePath",
    );
  });

  test("a FILE rule is FOREVER: a glob on one file is refused naming type", () => {
    for (const type of ["PATTERN", "TEST_PATTERN"] as const) {
      refusal(
        () => checkIgnoreRuleShape({ level: "FILE", type, filePath: "a.py", globPattern: "*.py" }),
        "type",
      );
    }
  });

  test("PATTERN needs a valid glob, TEST_PATTERN may have one, and FOREVER takes none", () => {
    assert.match(
      refusal(() => checkIgnoreRuleShape({ level: "REPOSITORY", type: "PATTERN" }), "globPattern"),
      /required/,
    );
    for (const type of ["PATTERN", "TEST_PATTERN"] as const) {
      const message = refusal(
        () => checkIgnoreRuleShape({ level: "REPOSITORY", type, globPattern: "src/**.py" }),
        "globPattern",
      );
      assert.match(message, /inside a segment/);
    }
    refusal(
      () => checkIgnoreRuleShape({ level: "REPOSITORY", type: "FOREVER", globPattern: "*.py" }),
      "globPattern",
    );
  });
});

describe("which issue a shortcode names", () => {
  const issue = (id: string, analyzer: string) => ({ id, analyzer_shortcode: analyzer }) as IssueWithAnalyzer;

  test("an unknown shortcode is refused naming issueShortcode", () => {
    refusal(() => pickIssue([], "PYL-X", null), "issueShortcode");
  });

  test("one issue with the shortcode is the one, unless another analyzer is named", () => {
    assert.equal(pickIssue([issue("1", "python")], "PYL-X", undefined).id, "1");
    assert.equal(pickIssue([issue("1", "python")], "PYL-X", "python").id, "1");
    refusal(() => pickIssue([issue("1", "python")], "PYL-X", "go"), "analyzerShortcode");
  });

  test("a shortcode of several analyzers needs analyzerShortcode", () => {
    const both = [issue("1", "javascript"), issue("2", "python")];
    assert.match(
      refusal(() => pickIssue(both, "X-1", null), "analyzerShortcode"),
      /"javascript", "python"/,
    );
    assert.equal(pickIssue(both, "X-1", "python").id, "2");
  });
});
