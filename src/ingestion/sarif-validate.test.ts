// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { readFixtureFile, readToolFixture, toolFixture } from "../formats/fixtures.ts";
import { SarifFormatError } from "../formats/sarif/types.ts";
import { MAX_UNANALYZED_PATHS, quotedResult, ToolErrors, validateSarif } from "./sarif-validate.ts";

/**
 * The real ESLint report (src/formats/sarif/fixtures/eslint/), altered in one place per test: a
 * structure where the spec has an array, or text PostgreSQL cannot store.
 */
type Log = { runs: Array<{ results: Array<Record<string, unknown>> } & Record<string, unknown>> };

const fixture = toolFixture("sarif", "eslint", "eslint.sarif");

function eslintLog(): Log {
  return JSON.parse(readToolFixture("sarif", "eslint", "eslint.sarif")) as Log;
}

async function* bytes(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text);
}

function validate(log: unknown) {
  return validateSarif(bytes(JSON.stringify(log)), { root: fixture.workDir, directory: null });
}

async function refusal(log: unknown): Promise<SarifFormatError> {
  try {
    await validate(log);
  } catch (error) {
    assert.ok(error instanceof SarifFormatError, String(error));
    return error;
  }
  assert.fail("the report was accepted");
}

describe("validateSarif refuses a structure that is not an array where the spec has one", () => {
  test('"results": {} names the run', async () => {
    const log = eslintLog();
    (log.runs[0] as Record<string, unknown>).results = {};
    const error = await refusal(log);
    assert.equal(error.problem, "INVALID_STRUCTURE");
    assert.equal(error.message, "runs[0].results is not an array.");
  });

  test('"results" as a string, after results of an earlier run, names the second run', async () => {
    const log = eslintLog();
    const second = structuredClone(log.runs[0]) as Record<string, unknown>;
    second.results = "none";
    log.runs.push(second as Log["runs"][number]);
    assert.equal((await refusal(log)).message, "runs[1].results is not an array.");
  });

  test('"results": null is a run that produced none', async () => {
    const log = eslintLog();
    (log.runs[0] as Record<string, unknown>).results = null;
    assert.equal((await validate(log)).results, 0);
  });

  test('"runs": {} is refused', async () => {
    const log = eslintLog() as unknown as Record<string, unknown>;
    log.runs = { 0: (log.runs as unknown[])[0] };
    assert.equal((await refusal(log)).problem, "MISSING_RUNS");
  });

  test('a result\'s "locations": {} names the result', async () => {
    const log = eslintLog();
    log.runs[0]!.results[3]!.locations = {};
    assert.equal((await refusal(log)).message, "runs[0].results[3].locations is not an array.");
  });

  test('"rules": {} names the driver', async () => {
    const log = eslintLog() as unknown as { runs: Array<{ tool: { driver: Record<string, unknown> } }> };
    log.runs[0]!.tool.driver.rules = {};
    assert.match((await refusal(log)).message, /rules is not an array\.$/);
  });
});

describe("validateSarif counts results with unstorable text as skips", () => {
  test("a NUL in a message, a path or a rule id, or a lone surrogate, skips that result only", async () => {
    const untouched = await validate(eslintLog());
    const log = eslintLog();
    const results = log.runs[0]!.results;
    (results[0]!.message as { text: string }).text = "assigned to \u0000itself";
    const location = (
      results[1]!.locations as Array<{ physicalLocation: { artifactLocation: { uri: string } } }>
    )[0]!;
    location.physicalLocation.artifactLocation.uri = location.physicalLocation.artifactLocation.uri.replace(
      ".js",
      "\u0000.js",
    );
    results[2]!.ruleId = "no-\u0000self-assign";
    (results[4]!.message as { text: string }).text = "half a pair \ud800";
    const summary = await validate(log);
    assert.equal(summary.results, untouched.results);
    assert.equal(summary.unplaced.UNSTORABLE_TEXT, 4);
    assert.equal(summary.placed, untouched.placed - 4);
  });
});

describe("ToolErrors says how many errors the tool reported of its own, quoting the first", () => {
  test("none, one, several; a long message cut", () => {
    const errors = new ToolErrors();
    assert.deepEqual(errors.warnings(), []);
    errors.add({
      runIndex: 0,
      message: "undefined: x (package example.com/a)",
      path: "a/a.go",
      line: 3,
      unanalyzedPath: "a/",
    });
    assert.deepEqual(errors.warnings(), [
      'The tool reported 1 error of its own, which is not a finding ("undefined: x (package example.com/a)" at a/a.go:3): what it could not analyze is not in this report.',
      "Not analyzed by the tool: a/. The base's findings there are kept as EXISTING (not resolved), and the check is judged on the rest of the report.",
    ]);
    assert.deepEqual(errors.unanalyzedPaths(), ["a/"]);
    errors.add({ runIndex: 0, message: "second", path: null, line: null });
    errors.add({ runIndex: 0, message: "third", path: null, line: null });
    assert.match(
      errors.warnings()[0] ?? "",
      /^The tool reported 3 errors of its own, which are not findings \(first: "undefined: x/,
    );
    // One error names no file: what went unanalyzed is no longer known, and the sentence quotes it.
    assert.equal(
      errors.warnings()[1],
      'What the tool did not analyze is not known (an error of its own names no file of the repository: "second"): the check is NEUTRAL, neither passing nor failing, and resolves nothing.',
    );
    assert.equal(errors.unanalyzedPaths(), null);
    const unstorable = new ToolErrors();
    unstorable.add({ runIndex: 0, message: "bad \u0000 verb \ud800", path: "src/\u0000a.go", line: 2 });
    assert.deepEqual(
      unstorable.warnings(),
      [
        'The tool reported 1 error of its own, which is not a finding ("bad \ufffd verb \ufffd" at src/\ufffda.go:2): what it could not analyze is not in this report.',
        "What the tool did not analyze is not known (an error of its own names no file of the repository): the check is NEUTRAL, neither passing nor failing, and resolves nothing.",
      ],
      "a NUL or a lone surrogate in the tool's words becomes U+FFFD",
    );
    const long = new ToolErrors();
    long.add({ runIndex: 0, message: "x".repeat(500), path: null, line: null });
    assert.match(long.warnings()[0] ?? "", /\("x{199}…"\): what it could not analyze/);
  });

  test("an error about the tool's configuration is said apart, without saying that something went unanalyzed", () => {
    const errors = new ToolErrors();
    const directive = "Unused eslint-disable directive (no problems were reported from 'no-console').";
    errors.add({ runIndex: 0, message: directive, path: "src/a.js", line: 2, configuration: true });
    assert.deepEqual(errors.warnings(), [
      `The tool reported 1 error about its configuration, which is not a finding ("${directive}" at src/a.js:2): a notification about how it was set up or directed, not about code it could not analyze.`,
    ]);
    assert.deepEqual(
      errors.unanalyzedPaths(),
      [],
      "a notification about its configuration leaves nothing unanalyzed",
    );
    errors.add({
      runIndex: 0,
      message: "Parsing error: Unexpected token (",
      path: "src/b.js",
      line: 1,
      unanalyzedPath: "src/b.js",
    });
    errors.add({ runIndex: 0, message: "second", path: null, line: null, configuration: true });
    assert.deepEqual(errors.warnings(), [
      'The tool reported 1 error of its own, which is not a finding ("Parsing error: Unexpected token (" at src/b.js:1): what it could not analyze is not in this report.',
      "Not analyzed by the tool: src/b.js. The base's findings there are kept as EXISTING (not resolved), and the check is judged on the rest of the report.",
      `The tool reported 2 errors about its configuration, which are not findings (first: "${directive}" at src/a.js:2): notifications about how it was set up or directed, not about code it could not analyze.`,
    ]);
    assert.equal(errors.count, 3);
  });

  test("the other files an error left unanalyzed are kept with its own place; one that cannot be stored is left out", () => {
    const errors = new ToolErrors();
    errors.add({
      runIndex: 0,
      message: "‘rounding_cents’ undeclared (first use in this function)",
      path: "src/pricing.h",
      line: 10,
      unanalyzedPath: "src/pricing.h",
      alsoUnanalyzed: ["src/receipt.c", "src/bad\u0000.c"],
    });
    assert.deepEqual(errors.unanalyzedPaths(), ["src/pricing.h", "src/receipt.c"]);
    assert.equal(errors.unanalyzed, 1);
  });

  test("the places not analyzed: each once, the first five named; beyond the bound none is kept", () => {
    const errors = new ToolErrors();
    for (const name of ["a", "b", "a", "c", "d", "e", "f"]) {
      errors.add({ runIndex: 0, message: "x", path: `${name}.c`, line: 1, unanalyzedPath: `${name}.c` });
    }
    assert.deepEqual(errors.unanalyzedPaths(), ["a.c", "b.c", "c.c", "d.c", "e.c", "f.c"]);
    assert.equal(
      errors.warnings()[1],
      "Not analyzed by the tool: 6 paths, first: a.c, b.c, c.c, d.c, e.c. The base's findings there are kept as EXISTING (not resolved), and the check is judged on the rest of the report.",
    );
    const many = new ToolErrors();
    for (let i = 0; i <= MAX_UNANALYZED_PATHS; i += 1) {
      many.add({ runIndex: 0, message: "x", path: `f${i}.c`, line: 1, unanalyzedPath: `f${i}.c` });
    }
    assert.equal(many.unanalyzedPaths(), null);
    assert.match(
      many.warnings()[1] ?? "",
      /^What the tool did not analyze is not known \(more than 1000 files/,
    );
  });
});

describe("quotedResult quotes a result not stored as a tool error is quoted", () => {
  test("its message and rule, each cut to a bounded length, unstorable text replaced", () => {
    assert.equal(quotedResult({ message: "whole repository", ruleId: "R" }), '"whole repository" of rule R');
    assert.equal(
      quotedResult({ message: "x".repeat(500), ruleId: "r".repeat(300) }),
      `"${"x".repeat(199)}…" of rule ${"r".repeat(199)}…`,
    );
    assert.equal(
      quotedResult({ message: "bad \u0000 text", ruleId: "R\ud800" }),
      '"bad \ufffd text" of rule R\ufffd',
    );
  });
});

describe("validateSarif of ESLint's JSON", () => {
  test("json-with-metadata is one run of the rules it describes, though its header comes again after the results", async () => {
    const text = readFixtureFile("sarif", "eslint/eslint-metadata.json");
    const summary = await validateSarif(bytes(text), { root: fixture.workDir, directory: null });
    const sarif = await validate(eslintLog());
    assert.equal(summary.format, "eslint-json");
    assert.deepEqual(
      [summary.runs, summary.rules, summary.results, summary.placed],
      [sarif.runs, sarif.rules, sarif.results, sarif.placed],
    );
    assert.equal(summary.runs, 1);
  });
});
