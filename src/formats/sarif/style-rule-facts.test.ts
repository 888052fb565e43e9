// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { it } from "node:test";
import { readToolFixture, readToolSummary } from "../fixtures.ts";
import { SHELLCHECK_STYLE_CODES } from "../shellcheck/style-codes.ts";
import {
  HTMLHINT_DEFECT_RULES,
  HTMLHINT_PERFORMANCE_RULES,
  HTMLHINT_PRACTICE_RULES,
  HTMLHINT_STYLE_RULES,
} from "./htmlhint-rule-kinds.ts";
import { isStylelintBuiltInRule, STYLELINT_ERROR_RULES } from "./stylelint-rule-kinds.ts";
import {
  TYPESCRIPT_ESLINT_PROBLEM_RULES,
  TYPESCRIPT_ESLINT_STYLISTIC_RULES,
  TYPESCRIPT_ESLINT_SUGGESTION_RULES,
} from "./typescript-eslint-rule-types.ts";

/**
 * The rule lists of the style families (tool-families.ts) against what the tools themselves said
 * when scripts/make-fixtures.sh ran them (their fixtures' summaries record it): a new
 * tool version there shows here which rules moved.
 */

interface TypescriptEslintFacts {
  types: Record<string, string>;
  stylistic: string[];
}

interface StylelintFacts {
  coreRules: string[];
  recommendedRules: string[];
}

function factsOf<T>(name: string): T {
  const figures = readToolSummary("sarif", name.replace(/\.sarif$/, ""), name).figures as { ruleFacts?: T };
  assert.ok(figures.ruleFacts, `${name}'s summary records the tool's rule facts`);
  return figures.ruleFacts;
}

it("lists typescript-eslint's stylistic rules, then each other rule under its own meta type", () => {
  const facts = factsOf<TypescriptEslintFacts>("typescript-eslint.sarif");
  const stylistic = new Set(facts.stylistic);
  const expected = { stylistic: [] as string[], problem: [] as string[], suggestion: [] as string[] };
  for (const [rule, type] of Object.entries(facts.types)) {
    if (stylistic.has(rule)) expected.stylistic.push(rule);
    else if (type === "problem" || type === "suggestion") expected[type].push(rule);
    else assert.fail(`${rule}: a type (${type}) no row reads`);
  }
  assert.deepEqual([...TYPESCRIPT_ESLINT_STYLISTIC_RULES].sort(), expected.stylistic.sort());
  assert.deepEqual([...TYPESCRIPT_ESLINT_PROBLEM_RULES].sort(), expected.problem.sort());
  assert.deepEqual([...TYPESCRIPT_ESLINT_SUGGESTION_RULES].sort(), expected.suggestion.sort());
  assert.ok(Object.keys(facts.types).length > 100, "the summary lists typescript-eslint's rules");
});

it("lists the rules stylelint's recommended config turns on, all of them built-in rules", () => {
  const facts = factsOf<StylelintFacts>("stylelint.sarif");
  assert.deepEqual([...STYLELINT_ERROR_RULES].sort(), [...facts.recommendedRules].sort());
  const core = new Set(facts.coreRules);
  assert.deepEqual(
    facts.recommendedRules.filter((rule) => !core.has(rule)),
    [],
  );
  assert.deepEqual(
    facts.coreRules.filter((rule) => !isStylelintBuiltInRule(rule)),
    [],
    "built-in rule names have no namespace",
  );
  assert.ok(core.size > 100, "the summary lists stylelint's rules");
});

it("files each rule HTMLHint lists under exactly one of its rows", () => {
  const { rules } = factsOf<{ rules: string[] }>("htmlhint.sarif");
  assert.ok(rules.length > 40, "the summary lists HTMLHint's rules");
  const listed = [
    HTMLHINT_DEFECT_RULES,
    HTMLHINT_PRACTICE_RULES,
    HTMLHINT_PERFORMANCE_RULES,
    HTMLHINT_STYLE_RULES,
  ]
    .flatMap((list) => [...list])
    .sort();
  assert.deepEqual(listed, [...rules].sort(), "every rule once, and no rule HTMLHint does not have");
});

it("knows which of ShellCheck's notes are style comments: the levels its json1 output gave", () => {
  const { comments } = JSON.parse(readToolFixture("checkstyle", "shellcheck", "shellcheck.json1")) as {
    comments: Array<{ code: number; level: string }>;
  };
  const notes = comments.filter((comment) => comment.level === "info" || comment.level === "style");
  assert.ok(
    notes.some((comment) => comment.level === "style") && notes.some((comment) => comment.level === "info"),
  );
  for (const { code, level } of notes) {
    assert.equal(SHELLCHECK_STYLE_CODES.has(code) ? "style" : "info", level, `SC${code}`);
  }
});
