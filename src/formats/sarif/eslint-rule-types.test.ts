// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { it } from "node:test";
import { ESLINT_LAYOUT_RULES, ESLINT_PROBLEM_RULES, ESLINT_SUGGESTION_RULES } from "./eslint-rule-types.ts";

/** ESLint's own rule registry (ESLint ships no types; the SARIF formatter brings ESLint 8 with it). */
interface RuleModule {
  meta?: { type?: string };
}
const require = createRequire(import.meta.url);
const { builtinRules } = require("eslint/use-at-your-own-risk") as { builtinRules: Map<string, RuleModule> };

it("files every core rule of the installed ESLint under its own meta type", () => {
  const lists: Record<string, ReadonlySet<string>> = {
    problem: ESLINT_PROBLEM_RULES,
    suggestion: ESLINT_SUGGESTION_RULES,
    layout: ESLINT_LAYOUT_RULES,
  };
  const misfiled = [...builtinRules].flatMap(([id, rule]) => {
    const type = rule.meta?.type ?? "(none)";
    return lists[type]?.has(id) ? [] : [`${id} (${type})`];
  });
  assert.deepEqual(misfiled, []);
  assert.ok(builtinRules.size > 250, "the installed ESLint lists its core rules");
});

it("files each rule under one type only", () => {
  const all = [...ESLINT_PROBLEM_RULES, ...ESLINT_SUGGESTION_RULES, ...ESLINT_LAYOUT_RULES];
  assert.equal(new Set(all).size, all.length);
});
