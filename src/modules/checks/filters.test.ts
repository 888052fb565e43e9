import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { allOf, equalsFilter } from "../../graphql/row-filter-store.ts";
import { analyzerInFilter } from "./connection-filter-store.ts";
import { containsPattern, normaliseNames, normalisePath } from "./filters.ts";
import { splitRepositoryIssueKey } from "./repository-issue-store.ts";

describe("connection filter arguments", () => {
  test("analyzer and tag lists drop nulls and duplicates and sort, so equal sets share a key", () => {
    assert.deepEqual(normaliseNames(["go", null, "python", "go", undefined]), ["go", "python"]);
    assert.deepEqual(normaliseNames(null), []);
    assert.deepEqual(normaliseNames([null]), []);
    assert.equal(analyzerInFilter(["python", "go"])?.key, analyzerInFilter(["go", "python", "go"])?.key);
    assert.notEqual(analyzerInFilter(["go"])?.key, analyzerInFilter(["python"])?.key);
  });

  test("an empty analyzer list, like null, does not filter", () => {
    assert.equal(analyzerInFilter([]), undefined);
    assert.equal(analyzerInFilter([null]), undefined);
    assert.equal(analyzerInFilter(undefined), undefined);
  });

  test("paths lose a leading ./ or / and trailing slashes", () => {
    assert.equal(normalisePath("./src/app/"), "src/app");
    assert.equal(normalisePath("/src//"), "src");
    assert.equal(normalisePath("src/a.py"), "src/a.py");
    assert.equal(normalisePath("/"), "");
    assert.equal(normalisePath(null), "");
  });

  test("search text matches %, _ and backslash literally", () => {
    assert.equal(containsPattern("100%_done\\x"), "%100\\%\\_done\\\\x%");
    assert.equal(containsPattern("plain"), "%plain%");
  });

  test("filters combine with AND under a key naming every part, and none makes no filter", () => {
    assert.equal(allOf(undefined, undefined), undefined);
    const one = equalsFilter("severity", "MAJOR");
    assert.equal(allOf(one, undefined)?.key, JSON.stringify([one?.key]));
    assert.notEqual(
      allOf(equalsFilter("source", "AI"), equalsFilter("category", "STYLE"))?.key,
      allOf(equalsFilter("source", "AI"))?.key,
    );
    assert.equal(equalsFilter("source", null), undefined);
  });

  test("a repository issue key splits after the ten characters of the repository key", () => {
    assert.deepEqual(splitRepositoryIssueKey("abcdefghij0123456789"), {
      repositoryKey: "abcdefghij",
      issueKey: "0123456789",
    });
    assert.equal(splitRepositoryIssueKey("abcdefghij"), undefined);
  });
});
