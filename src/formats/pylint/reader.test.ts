// test-runner: execution-mode independent
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { readFindings } from "../findings.ts";
import { fixtureDir } from "../fixtures.ts";
import type { SarifEvent, SarifResult, SarifToolError } from "../sarif/types.ts";
import { PylintFormatError, readPylintJson } from "./reader.ts";

/**
 * The pylint JSON reader, on what pylint 2.16 wrote for test/fixtures/tools/python-lint
 * (scripts/make-fixtures.sh python-lint), compared with pylint's own text output, and on the ways
 * a report can be wrong.
 */

const FOLDER = path.join(fixtureDir("sarif"), "python-lint");
const FIXTURE = fs.readFileSync(path.join(FOLDER, "pylint.json"), "utf8");
const SUMMARY = JSON.parse(fs.readFileSync(path.join(FOLDER, "pylint.summary.json"), "utf8")) as {
  workDir: string;
  figures: {
    messages: number;
    byCategory: Record<string, number>;
    byRule: Record<string, { symbol: string; count: number; places: string[] }>;
  };
};

async function eventsOf(chunks: Iterable<string | Uint8Array>): Promise<SarifEvent[]> {
  const events: SarifEvent[] = [];
  for await (const event of readPylintJson(chunks, { workDir: SUMMARY.workDir })) events.push(event);
  return events;
}

const resultsOf = (events: readonly SarifEvent[]): SarifResult[] =>
  events.flatMap((event) => (event.type === "result" ? [event.result] : []));
const toolErrorsOf = (events: readonly SarifEvent[]): SarifToolError[] =>
  events.flatMap((event) => (event.type === "toolError" ? [event.error] : []));

async function failure(text: string): Promise<PylintFormatError> {
  try {
    await eventsOf([text]);
  } catch (error) {
    assert.ok(error instanceof PylintFormatError, String(error));
    return error;
  }
  assert.fail(`no error for ${text.slice(0, 60)}`);
}

describe("pylint JSON reader", () => {
  it("reads every message pylint printed, by message id and place, with the symbol as the rule's name", async () => {
    const events = await eventsOf([FIXTURE]);
    assert.equal(events[0]?.type === "run" && events[0].run.tool.name, "pylint");
    const byRule: Record<string, { symbol: string; count: number; places: string[] }> = {};
    for (const result of resultsOf(events)) {
      const rule = byRule[result.ruleId] ?? { symbol: result.rule?.name ?? "", count: 0, places: [] };
      byRule[result.ruleId] = rule;
      rule.count += 1;
      rule.places.push(`${result.locations[0]?.path}:${result.locations[0]?.region?.startLine}`);
    }
    for (const rule of Object.values(byRule)) rule.places.sort();
    const { E0001, ...findings } = SUMMARY.figures.byRule;
    assert.deepEqual(byRule, findings);
    // The file that does not parse: pylint analyzed nothing in it.
    assert.deepEqual(
      toolErrorsOf(events).map((error) => `${error.path}:${error.line}`),
      E0001?.places,
    );
  });

  it("gives each message type its level, and counts columns from 1 where pylint counts from 0", async () => {
    const results = resultsOf(await eventsOf([FIXTURE]));
    const levels: Record<string, number> = {};
    for (const result of results) levels[result.level] = (levels[result.level] ?? 0) + 1;
    const { convention = 0, refactor = 0, warning = 0, error = 0 } = SUMMARY.figures.byCategory;
    assert.deepEqual(levels, { note: convention + refactor, warning, error: error - 1 });
    // pylint's text output prints `shop/orders.py:49:24: E0602`; the JSON's endColumn 31 is exclusive.
    const undefinedName = results.find((result) => result.ruleId === "E0602");
    assert.deepEqual(undefinedName?.locations[0]?.region, {
      startLine: 49,
      startColumn: 25,
      endLine: 49,
      endColumn: 32,
      snippet: null,
    });
    assert.equal(undefinedName?.rule?.defaultLevel, "error");
  });

  it("is told from GCC's list by the findings reader, even one byte at a time", async () => {
    let format = "";
    const events: SarifEvent[] = [];
    const bytes = [...Buffer.from(FIXTURE)].map((byte) => Uint8Array.of(byte));
    const options = { workDir: SUMMARY.workDir, onFormat: (name: string) => (format = name) };
    for await (const event of readFindings(bytes, options)) events.push(event);
    assert.equal(format, "pylint-json");
    assert.equal(resultsOf(events).length, resultsOf(await eventsOf([FIXTURE])).length);
  });

  it("takes a fatal message (a file pylint could not read) as its own error, not a finding", async () => {
    // What pylint 2.16 writes for `pylint --output-format=json nope.py` when there is no nope.py.
    const fatal =
      '[{"type": "fatal", "module": "nope.py", "obj": "", "line": 1, "column": 0, "endLine": null, "endColumn": null, "path": "nope.py", "symbol": "fatal", "message": "No module named nope.py", "message-id": "F0001"}]';
    const events = await eventsOf([fatal]);
    assert.deepEqual(resultsOf(events), []);
    assert.deepEqual(toolErrorsOf(events), [
      {
        runIndex: 0,
        message: "No module named nope.py (F0001 fatal)",
        path: "nope.py",
        line: 1,
        unanalyzedPath: "nope.py",
      },
    ]);
  });

  it("refuses what is not pylint's JSON, naming the problem and its line", async () => {
    assert.deepEqual(
      [(await failure('[\n  {"type": 1,')).problem, (await failure('[\n  {"type": 1,')).message],
      ["INVALID_JSON", "line 2: the list of messages is not closed: the report looks truncated."],
    );
    assert.equal((await failure("[1, 2]")).problem, "NOT_PYLINT");
    const json2 = await failure('{"messages": [], "statistics": {}}');
    assert.deepEqual(
      [json2.problem, /pylint 3's json2 output, an object, is not read\.$/.test(json2.message)],
      ["NOT_PYLINT", true],
    );
    assert.equal((await failure("[]\n]")).problem, "INVALID_JSON");
    const badType = await failure(
      '[{"type": "notice", "message": "m", "path": "a.py", "message-id": "W0611"}]',
    );
    assert.deepEqual(
      [badType.problem, badType.message],
      ["INVALID_STRUCTURE", 'line 1: message W0611 has the type "notice", which pylint does not write.'],
    );
    const noPath = await failure('[{"type": "warning", "message": "m", "message-id": "W0611"}]');
    assert.deepEqual(
      [noPath.problem, noPath.message],
      ["INVALID_STRUCTURE", 'line 1: message W0611 has no "path".'],
    );
  });
});
