// test-runner: execution-mode independent (pure parser, no GraphQL)
import assert from "node:assert/strict";
import { test } from "node:test";
import { readToolFixture, readToolSummary, toolFixture } from "../formats/fixtures.ts";
import { countChangedLines, parseChangedLines } from "./changes.ts";

test("a real git diff gives, per file, as many changed lines as git's --numstat counts added", () => {
  const fixture = toolFixture("coverage", "git-diff", "changes.diff");
  const changed = parseChangedLines(readToolFixture("coverage", "git-diff", "changes.diff"), fixture.workDir);
  const numstat = readToolSummary("coverage", "git-diff", "changes.diff").figures.files as Record<
    string,
    { added: number; deleted: number }
  >;
  assert.deepEqual([...changed.keys()].sort(), Object.keys(numstat).sort());
  for (const [file, counts] of Object.entries(numstat)) {
    assert.equal(countChangedLines(new Map([[file, changed.get(file) ?? []]])), counts.added, file);
  }
});
