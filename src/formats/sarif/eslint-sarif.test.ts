// test-runner: execution-mode independent
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, before, it } from "node:test";
import { classifySarifRule, severityOfResult } from "./mapping.ts";
import { readSarif } from "./reader.ts";
import type { SarifEvent, SarifResult, SarifRun } from "./types.ts";

/** The part of ESLint 8's API the test drives (ESLint ships no types; it comes with the SARIF formatter). */
interface ESLintApi {
  lintFiles(patterns: string[]): Promise<unknown[]>;
  getRulesMetaForResults(results: unknown[]): unknown;
}
type ESLintClass = new (options: Record<string, unknown>) => ESLintApi;
type SarifFormatter = (results: unknown[], data: { cwd: string; rulesMeta: unknown }) => string;

const require = createRequire(import.meta.url);
const { ESLint } = require("eslint") as { ESLint: ESLintClass };
const formatSarif = require("@microsoft/eslint-formatter-sarif") as SarifFormatter;

let workDir = "";
let sarif = "";

before(async () => {
  workDir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "assay-eslint-")));
  await fs.mkdir(path.join(workDir, "src"));
  await fs.writeFile(
    path.join(workDir, "src", "app.js"),
    "const unused = 1;\nif (x == null) {\n  eval('1');\n}\n",
  );
  await fs.writeFile(path.join(workDir, "src", "my file.js"), "debugger;\n");
  sarif = await lint({
    "no-unused-vars": "error",
    "no-undef": "error",
    eqeqeq: "warn",
    "no-eval": "error",
    "no-debugger": "warn",
  });
});

/** ESLint over the checkout's `src` (or `patterns`) with these rule settings, as SARIF. */
async function lint(rules: Record<string, string>, patterns = ["src"]): Promise<string> {
  const eslint = new ESLint({
    cwd: workDir,
    useEslintrc: false,
    overrideConfig: { parserOptions: { ecmaVersion: 2022 }, rules },
  });
  const results = await eslint.lintFiles(patterns);
  return formatSarif(results, { cwd: workDir, rulesMeta: eslint.getRulesMetaForResults(results) });
}

after(async () => {
  await fs.rm(workDir, { recursive: true, force: true });
});

async function read(text: string): Promise<{ runs: SarifRun[]; results: SarifResult[] }> {
  const events: SarifEvent[] = [];
  // ESLint's formatter writes one JSON text; feed it in 100-byte slices as an upload would arrive.
  const slices = Array.from({ length: Math.ceil(text.length / 100) }, (_, i) =>
    text.slice(i * 100, i * 100 + 100),
  );
  for await (const event of readSarif(slices, { workDir })) events.push(event);
  return {
    runs: events.flatMap((event) => (event.type === "run" ? [event.run] : [])),
    results: events.flatMap((event) => (event.type === "result" ? [event.result] : [])),
  };
}

it("reads the SARIF that ESLint's formatter writes", async () => {
  const { runs, results } = await read(sarif);
  assert.equal(runs.length, 1);
  assert.equal(runs[0]?.tool.name, "ESLint");
  const summary = results
    .map(
      (r) =>
        `${r.ruleId} ${r.level} ${r.locations[0]?.path}:${r.locations[0]?.region?.startLine}:${r.locations[0]?.region?.startColumn}`,
    )
    .sort();
  assert.deepEqual(summary, [
    "eqeqeq warning src/app.js:2:7",
    "no-debugger warning src/my file.js:1:1",
    "no-eval error src/app.js:3:3",
    "no-undef error src/app.js:2:5",
    "no-unused-vars error src/app.js:1:7",
  ]);
  assert.ok(
    results.every((r) => r.rule !== null && r.message.length > 0 && !r.locations[0]?.outsideRepository),
  );
  const eval_ = results.find((r) => r.ruleId === "no-eval");
  assert.equal(eval_?.rule?.helpUri, "https://eslint.org/docs/latest/rules/no-eval");
  assert.ok(eval_?.rule?.shortDescription);
});

it("files ESLint's core rules by their type, each finding graded by its configured level", async () => {
  const { runs, results } = await read(sarif);
  const tool = runs[0]!.tool;
  const byRule = new Map(
    results.map((r) => [
      r.ruleId,
      `${r.rule ? classifySarifRule(tool, r.rule).category : "-"} ${severityOfResult(tool, r)}`,
    ]),
  );
  assert.deepEqual(Object.fromEntries(byRule), {
    "no-unused-vars": "BUG_RISK MAJOR",
    "no-undef": "BUG_RISK MAJOR",
    eqeqeq: "ANTI_PATTERN MINOR",
    "no-eval": "SECURITY MAJOR",
    "no-debugger": "BUG_RISK MINOR",
  });
});

it("grades the same rule MAJOR where it is set to error and MINOR where it is set to warn", async () => {
  const graded = async (setting: string) => {
    const { runs, results } = await read(await lint({ "no-unused-vars": setting, "no-undef": setting }));
    return results.map((r) => `${r.ruleId} ${r.level} ${severityOfResult(runs[0]!.tool, r)}`).sort();
  };
  assert.deepEqual(await graded("error"), ["no-undef error MAJOR", "no-unused-vars error MAJOR"]);
  assert.deepEqual(await graded("warn"), ["no-undef warning MINOR", "no-unused-vars warning MINOR"]);
});

it("reads a file ESLint could not parse as the tool's own error, apart from the findings", async () => {
  await fs.mkdir(path.join(workDir, "broken"));
  await fs.writeFile(path.join(workDir, "broken", "half.js"), "function (\n");
  await fs.writeFile(path.join(workDir, "broken", "whole.js"), "if (a == 1) {}\n");
  const text = await lint({ eqeqeq: "warn" }, ["broken"]);
  const events: SarifEvent[] = [];
  for await (const event of readSarif([text], { workDir })) events.push(event);
  assert.deepEqual(
    events.flatMap((event) => (event.type === "toolError" ? [event.error] : [])),
    [
      {
        runIndex: 0,
        message: "Parsing error: Unexpected token (",
        path: "broken/half.js",
        line: 1,
        unanalyzedPath: "broken/half.js",
      },
    ],
  );
  assert.deepEqual(
    events.flatMap((event) => (event.type === "result" ? [event.result.ruleId] : [])),
    ["eqeqeq"],
  );
});
