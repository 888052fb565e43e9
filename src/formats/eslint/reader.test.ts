// test-runner: execution-mode independent
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { findingsFormatOf, readFindings } from "../findings.ts";
import { fixtureDir } from "../fixtures.ts";
import { classifySarifRule } from "../sarif/mapping.ts";
import type { SarifEvent, SarifResult, SarifRule } from "../sarif/types.ts";
import { sniffFormat } from "../sniff.ts";
import { findEslintRules } from "./metadata.ts";
import { EslintFormatError, readEslintJson } from "./reader.ts";

/**
 * The ESLint JSON reader, on what ESLint 10 wrote with `--format json` and `--format
 * json-with-metadata` in the same runs as its SARIF formatter (scripts/make-fixtures.sh eslint,
 * suppressions, shards): compared with ESLint's own summary and with the SARIF of the same run,
 * and on the ways a report can be wrong.
 */

interface EslintSummary {
  workDir: string;
  figures: {
    problems: number;
    errors: number;
    warnings: number;
    byRule: Record<string, { errors: number; warnings: number }>;
    withoutRule: { file: string; line: number; level: string; message: string }[];
  };
}

const LINT = path.join(fixtureDir("sarif"), "eslint");
/** test/fixtures/, whose suppressions/ and shards/ hold ESLint's reports beside their SARIF. */
const REPO_FIXTURES = path.join(fixtureDir("sarif"), "..", "..", "..", "..", "test", "fixtures");
const read = (folder: string, file: string) => fs.readFileSync(path.join(folder, file), "utf8");
const SUMMARY = JSON.parse(read(LINT, "eslint.summary.json")) as EslintSummary;
/** Both outputs of the js-lint run. */
const OUTPUTS = [
  { name: "json", text: read(LINT, "eslint.json") },
  { name: "json-with-metadata", text: read(LINT, "eslint-metadata.json") },
];

async function eventsOf(
  chunks: Iterable<string | Uint8Array>,
  workDir = SUMMARY.workDir,
  listedFiles = true,
): Promise<SarifEvent[]> {
  const events: SarifEvent[] = [];
  for await (const event of readFindings(chunks, { workDir, listedFiles })) events.push(event);
  return events;
}

const resultsOf = (events: readonly SarifEvent[]): SarifResult[] =>
  events.flatMap((event) => (event.type === "result" ? [event.result] : []));

/** What makes a finding the same in both formats: its rule, level, message, place and suppression. */
function findingsOf(events: readonly SarifEvent[]): string[] {
  return resultsOf(events)
    .map((result) => {
      const location = result.locations[0];
      const region = location?.region;
      const suppressions = result.suppressions.map((s) => `${s.kind}:${s.justification}`).join(",");
      return [
        result.ruleId,
        result.level,
        result.ownLevel,
        result.message,
        location?.path,
        location?.outsideRepository,
        region && `${region.startLine}:${region.startColumn}-${region.endLine}:${region.endColumn}`,
        result.isSuppressed,
        suppressions,
      ].join(" | ");
    })
    .sort();
}

/** The tool's errors, notices and listed files, as the ingestion reads them. */
function ownWordsOf(events: readonly SarifEvent[]): string[] {
  return events
    .flatMap((event) => {
      if (event.type === "toolError") {
        const { runIndex, ...error } = event.error;
        return [`error ${JSON.stringify(error)}`];
      }
      if (event.type === "toolNotice") return [`notice ${event.notice.path}`];
      if (event.type === "listedFile") return [`listed ${event.file.path}`];
      return [];
    })
    .sort();
}

async function failure(text: string): Promise<EslintFormatError> {
  try {
    for await (const _ of readEslintJson([text], { workDir: SUMMARY.workDir })) {
      // read to the end
    }
  } catch (error) {
    assert.ok(error instanceof EslintFormatError, String(error));
    return error;
  }
  assert.fail(`no error for ${text.slice(0, 60)}`);
}

describe("ESLint JSON reader", () => {
  for (const { name, text } of OUTPUTS) {
    it(`${name}: reads every problem ESLint counted, by rule and severity, under the tool ESLint`, async () => {
      const events = await eventsOf([text]);
      assert.equal(events[0]?.type === "run" && events[0].run.tool.name, "ESLint");
      const byRule: Record<string, { errors: number; warnings: number }> = {};
      for (const result of resultsOf(events)) {
        const rule = byRule[result.ruleId] ?? { errors: 0, warnings: 0 };
        byRule[result.ruleId] = rule;
        if (result.level === "error") rule.errors += 1;
        else rule.warnings += 1;
      }
      assert.deepEqual(byRule, SUMMARY.figures.byRule);
      const errors = events.filter((event) => event.type === "toolError");
      // ESLint's problems: its findings and its own messages (the unused directive).
      assert.equal(resultsOf(events).length + errors.length, SUMMARY.figures.problems);
      const errorFindings = resultsOf(events).filter((result) => result.level === "error").length;
      assert.equal(errorFindings + errors.length, SUMMARY.figures.errors);
      assert.equal(resultsOf(events).length - errorFindings, SUMMARY.figures.warnings);
    });

    it(`${name}: gives the findings, errors and listed files the SARIF formatter gave of the same run`, async () => {
      const json = await eventsOf([text]);
      const sarif = await eventsOf([read(LINT, "eslint.sarif")]);
      assert.equal(findingsOf(json).length, 15);
      assert.deepEqual(findingsOf(json), findingsOf(sarif));
      assert.deepEqual(ownWordsOf(json), ownWordsOf(sarif));
    });
  }

  it("the unused eslint-disable directive is an error about ESLint's configuration, which leaves nothing unanalyzed", async () => {
    const errors = (await eventsOf([OUTPUTS[0]!.text])).flatMap((event) =>
      event.type === "toolError" ? [event.error] : [],
    );
    const [directive] = SUMMARY.figures.withoutRule;
    assert.deepEqual(errors, [
      {
        runIndex: 0,
        message: `${directive!.message}`,
        path: directive!.file,
        line: directive!.line,
        configuration: true,
      },
    ]);
  });

  it("a file ESLint could not parse (fatal) is its error naming the file unanalyzed, as the SARIF's notification", async () => {
    const shards = path.join(REPO_FIXTURES, "shards");
    const workDir = (JSON.parse(read(shards, "server.summary.json")) as { workDir: string }).workDir;
    const json = await eventsOf([read(shards, "server.json")], workDir);
    const errors = json.flatMap((event) => (event.type === "toolError" ? [event.error] : []));
    assert.deepEqual(errors, [
      {
        runIndex: 0,
        message: "Parsing error: Unexpected token <",
        path: "src/badge.jsx",
        line: 5,
        unanalyzedPath: "src/badge.jsx",
      },
    ]);
    for (const name of ["base", "app", "server", "server-changed"]) {
      const sarif = await eventsOf([read(shards, `${name}.sarif`)], workDir);
      const ofJson = await eventsOf([read(shards, `${name}.json`)], workDir);
      assert.deepEqual(findingsOf(ofJson), findingsOf(sarif), name);
      assert.deepEqual(ownWordsOf(ofJson), ownWordsOf(sarif), name);
    }
  });

  it("a file ESLint was given but ignored is a notice that it was not linted", async () => {
    const shards = path.join(REPO_FIXTURES, "shards");
    const workDir = (JSON.parse(read(shards, "server-changed.summary.json")) as { workDir: string }).workDir;
    const words = ownWordsOf(await eventsOf([read(shards, "server-changed.json")], workDir));
    assert.deepEqual(words, ["listed src/badge.jsx", "listed src/cart.js", "notice src/badge.jsx"]);
  });

  it("reads suppressedMessages as findings suppressed in the source, with their justification", async () => {
    const folder = path.join(REPO_FIXTURES, "suppressions");
    const summary = JSON.parse(read(folder, "eslint.summary.json")) as {
      workDir: string;
      figures: { findings: unknown[]; suppressed: { path: string; rule: string; line: number }[] };
    };
    const json = await eventsOf([read(folder, "eslint.json")], summary.workDir);
    const suppressed = resultsOf(json).filter((result) => result.isSuppressed);
    assert.deepEqual(
      suppressed.map((result) => ({
        path: result.locations[0]?.path,
        rule: result.ruleId,
        line: result.locations[0]?.region?.startLine,
      })),
      summary.figures.suppressed,
    );
    assert.deepEqual(
      suppressed.map((result) => result.suppressions),
      [
        [{ kind: "inSource", status: null, justification: "kept while the printer driver is debugged" }],
        [{ kind: "inSource", status: null, justification: "a null or undefined list counts as empty" }],
      ],
    );
    assert.equal(resultsOf(json).length - suppressed.length, summary.figures.findings.length);
    const sarif = await eventsOf([read(folder, "eslint.sarif")], summary.workDir);
    assert.deepEqual(findingsOf(json), findingsOf(sarif));
  });

  it("json-with-metadata describes its rules at the end as the SARIF formatter does, with their meta.type", async () => {
    const events = await eventsOf([OUTPUTS[1]!.text]);
    const last = events.at(-1);
    assert.ok(last?.type === "run", "the run's header comes again after the results");
    const sarifRun = (await eventsOf([read(LINT, "eslint.sarif")])).find((event) => event.type === "run");
    assert.ok(sarifRun?.type === "run");
    const described = (rules: readonly SarifRule[]) =>
      rules.map((rule) => [rule.id, rule.shortDescription, rule.helpUri].join(" | ")).sort();
    assert.deepEqual(described(last.run.tool.rules), described(sarifRun.run.tool.rules));
    const types = Object.fromEntries(
      last.run.tool.rules.map((rule) => [rule.id, rule.properties.strings.type]),
    );
    assert.equal(types["no-unused-vars"], "problem");
    assert.equal(types.eqeqeq, "suggestion");
    // The plain list describes no rule: its run's header is the only one.
    assert.equal((await eventsOf([OUTPUTS[0]!.text])).filter((event) => event.type === "run").length, 1);
  });

  it("findEslintRules reads json-with-metadata's rules before its results, as the reader reads them after", async () => {
    const plugin = path.join(REPO_FIXTURES, "local-plugin");
    for (const [folder, file] of [
      [LINT, "eslint-metadata.json"],
      [plugin, "eslint-metadata.json"],
    ] as const) {
      const text = read(folder, file);
      const last = (await eventsOf([text])).at(-1);
      assert.ok(last?.type === "run");
      assert.deepEqual(await findEslintRules(() => [text]), last.run.tool.rules, file);
      // Whatever the chunks: a key or a rule's meta cut by a chunk's end.
      const bytes = Buffer.from(text);
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < bytes.length; at += 13) chunks.push(bytes.subarray(at, at + 13));
      assert.deepEqual(await findEslintRules(() => chunks), last.run.tool.rules, file);
    }
    // The plugin's rules and the core rule, each with the meta.type ESLint gave it.
    const pluginSummary = JSON.parse(read(plugin, "eslint.summary.json")) as {
      figures: { byRule: Record<string, { type: string }> };
    };
    const rules = await findEslintRules(() => [read(plugin, "eslint-metadata.json")]);
    assert.deepEqual(
      Object.fromEntries((rules ?? []).map((rule) => [rule.id, rule.properties.strings.type])),
      Object.fromEntries(Object.entries(pluginSummary.figures.byRule).map(([id, rule]) => [id, rule.type])),
    );
    assert.equal(await findEslintRules(() => [OUTPUTS[0]!.text]), null);
    assert.equal(await findEslintRules(() => ['{"results": [], "errors": []}']), null);
  });

  it("findEslintRules reads no further than the first member of a document that is not json-with-metadata", async () => {
    const sarif = Buffer.from(read(LINT, "eslint.sarif"));
    let pulled = 0;
    function* chunks(): Generator<Uint8Array> {
      for (let at = 0; at < sarif.length; at += 1024) {
        pulled += 1;
        yield sarif.subarray(at, at + 1024);
      }
    }
    assert.equal(await findEslintRules(chunks), null);
    assert.equal(pulled, 1);
  });

  it("given its rules first, the reader describes them in the run's only header, before the same results", async () => {
    const text = OUTPUTS[1]!.text;
    const rules = await findEslintRules(() => [text]);
    const events: SarifEvent[] = [];
    for await (const event of readFindings([text], {
      workDir: SUMMARY.workDir,
      listedFiles: true,
      eslintRules: rules,
    }))
      events.push(event);
    const headers = events.filter((event) => event.type === "run");
    assert.equal(headers.length, 1);
    assert.ok(events[0]?.type === "run");
    assert.deepEqual(events[0].run.tool.rules, rules);
    const inOrder = await eventsOf([text]);
    assert.deepEqual(
      events.filter((event) => event.type !== "run"),
      inOrder.filter((event) => event.type !== "run"),
    );
  });

  it("a plugin's rule is classified by its meta.type", async () => {
    const tool = { name: "ESLint" };
    const rule = (type: string): SarifRule => ({
      id: "plugin/some-rule",
      index: 0,
      name: null,
      shortDescription: null,
      fullDescription: null,
      help: null,
      helpUri: null,
      defaultLevel: null,
      properties: {
        tags: [],
        securitySeverity: null,
        precision: null,
        problemSeverity: null,
        strings: { type },
      },
      taxa: [],
      messageStrings: {},
    });
    assert.equal(classifySarifRule(tool, rule("layout"), "error").category, "STYLE");
    assert.equal(classifySarifRule(tool, rule("problem"), "warning").category, "BUG_RISK");
    assert.equal(classifySarifRule(tool, rule("suggestion"), "error").category, "ANTI_PATTERN");
  });

  it("reads the same events whatever the chunks", async () => {
    const whole = await eventsOf([OUTPUTS[1]!.text]);
    const bytes = Buffer.from(OUTPUTS[1]!.text);
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; at += 7) chunks.push(bytes.subarray(at, at + 7));
    assert.deepEqual(await eventsOf(chunks), whole);
  });

  it("places a relative filePath from the report's directory, and one outside the root as outside", async () => {
    const report = JSON.stringify([
      {
        filePath: "/elsewhere/a.js",
        messages: [{ ruleId: "no-var", severity: 1, message: "m", line: 1, column: 1 }],
      },
    ]);
    const [result] = resultsOf(await eventsOf([report]));
    assert.equal(result?.locations[0]?.outsideRepository, true);
  });

  it("tells ESLint's outputs from the other JSON reports by their head", () => {
    assert.equal(findingsFormatOf(OUTPUTS[0]!.text.slice(0, 40), false), "eslint-json");
    assert.equal(findingsFormatOf(OUTPUTS[1]!.text.slice(0, 40), false), "eslint-json");
    assert.equal(
      findingsFormatOf('{"results":[],"metadata":{"cwd":"/w","rulesMeta":{}}}', true),
      "eslint-json",
    );
    // Bandit's report whose first member is its results is still Bandit's.
    assert.equal(findingsFormatOf('{"results": [], "errors": []}', true), "bandit-json");
    assert.equal(
      findingsFormatOf('{\n  "results": [\n    {\n      "code": "1 import os\\n",', true),
      "bandit-json",
    );
    // Too short to tell yet.
    assert.equal(findingsFormatOf('{"results":[', false), null);
    assert.equal(findingsFormatOf("[]", true, "eslint"), "eslint-json");
    assert.equal(findingsFormatOf("[]", true, "javascript"), "eslint-json");
    for (const { text } of OUTPUTS) {
      assert.deepEqual(sniffFormat(text), {
        format: "eslint-json",
        family: "findings",
        description: "ESLint's JSON output",
      });
    }
  });

  it("refuses what is not ESLint's JSON, or is broken, naming the line", async () => {
    const notEslint = await failure('[{"path": "a.js"}]');
    assert.equal(notEslint.problem, "NOT_ESLINT");
    assert.match(
      notEslint.message,
      /^line 1: its items are not ESLint's linted files \(objects with a "filePath"\)/,
    );
    assert.equal((await failure('{"results": {}, "metadata": {}}')).problem, "NOT_ESLINT");
    const truncated = await failure(OUTPUTS[0]!.text.slice(0, 400));
    assert.equal(truncated.problem, "INVALID_JSON");
    assert.match(truncated.message, /the list of files is not closed: the report looks truncated/);
    const noMessages = await failure('[{"filePath": "/a.js"},\n{"filePath": "/b.js"}]');
    assert.equal(noMessages.problem, "INVALID_STRUCTURE");
    assert.equal(noMessages.message, 'line 1: the file /a.js has no list of "messages".');
    const severity = await failure(
      '[{"filePath": "/a.js", "messages": [{"ruleId": "no-var", "severity": 0, "message": "m"}]}]',
    );
    assert.equal(severity.message, 'line 1: a message in /a.js has no "severity" 1 or 2.');
    const secondFile = await failure('[{"filePath": "/a.js", "messages": []},\n{"messages": []}]');
    assert.equal(secondFile.message, 'line 2: a file has no "filePath".');
  });
});
