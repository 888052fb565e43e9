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
 * The pylint JSON reader, on what pylint 2.16 (`--output-format=json`) and pylint 4.1
 * (`--output-format=json2`) wrote for test/fixtures/tools/python-lint (scripts/make-fixtures.sh
 * python-lint), compared with pylint's own text output, and on the ways a report can be wrong.
 */

interface PylintSummary {
  workDir: string;
  version: string;
  figures: {
    messages: number;
    byCategory: Record<string, number>;
    byRule: Record<string, { symbol: string; count: number; places: string[] }>;
  };
}

const FOLDER = path.join(fixtureDir("sarif"), "python-lint");
const read = (file: string) => fs.readFileSync(path.join(FOLDER, file), "utf8");
/** Both outputs: pylint 2.16's list, and pylint 4's json2 object. */
const OUTPUTS = [
  {
    name: "json",
    text: read("pylint.json"),
    summary: JSON.parse(read("pylint.summary.json")) as PylintSummary,
  },
  {
    name: "json2",
    text: read("pylint4.json2"),
    summary: JSON.parse(read("pylint4.summary.json")) as PylintSummary,
  },
];
const FIXTURE = OUTPUTS[0]!.text;
const SUMMARY = OUTPUTS[0]!.summary;

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
  for (const { name, text, summary } of OUTPUTS) {
    it(`${name} (${summary.version}): reads every message pylint printed, by message id and place, with the symbol as the rule's name`, async () => {
      const events = await eventsOf([text]);
      assert.equal(events[0]?.type === "run" && events[0].run.tool.name, "pylint");
      const byRule: Record<string, { symbol: string; count: number; places: string[] }> = {};
      for (const result of resultsOf(events)) {
        const rule = byRule[result.ruleId] ?? { symbol: result.rule?.name ?? "", count: 0, places: [] };
        byRule[result.ruleId] = rule;
        rule.count += 1;
        rule.places.push(`${result.locations[0]?.path}:${result.locations[0]?.region?.startLine}`);
      }
      for (const rule of Object.values(byRule)) rule.places.sort();
      const { E0001, ...findings } = summary.figures.byRule;
      assert.deepEqual(byRule, findings);
      // The file that does not parse: pylint analyzed nothing in it.
      assert.deepEqual(
        toolErrorsOf(events).map((error) => `${error.path}:${error.line}`),
        E0001?.places,
      );
    });
  }

  it("json2 of pylint 4 gives the findings and errors json of pylint 2.16 gives, rule, level and place", async () => {
    // The messages' wording changed between the versions ("an f-string"); nothing else did here.
    const placed = (events: SarifEvent[]) =>
      events.map((event) =>
        event.type === "result"
          ? [event.result.ruleId, event.result.level, event.result.rule?.name, event.result.locations]
          : event.type === "toolError"
            ? [event.error.path, event.error.line, event.error.unanalyzedPath]
            : event,
      );
    const [json = [], json2 = []] = await Promise.all(OUTPUTS.map(({ text }) => eventsOf([text])));
    assert.equal(json2.length, json.length);
    assert.deepEqual(placed(json2), placed(json));
  });

  it("reads json2's messages one at a time, whatever the chunks", async () => {
    const json2 = OUTPUTS[1]!.text;
    let format = "";
    const events: SarifEvent[] = [];
    const bytes = [...Buffer.from(json2)].map((byte) => Uint8Array.of(byte));
    const options = { workDir: SUMMARY.workDir, onFormat: (name: string) => (format = name) };
    for await (const event of readFindings(bytes, options)) events.push(event);
    assert.equal(format, "pylint-json");
    assert.deepEqual(events, await eventsOf([json2]));
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
    const scalar = await failure('"messages"');
    assert.deepEqual(
      [
        scalar.problem,
        /^line 1: it is neither a JSON list of messages nor an object of them: /.test(scalar.message),
      ],
      ["NOT_PYLINT", true],
    );
    // json2's object: its messages must be pylint's, in a list, and the object must end.
    assert.deepEqual(await eventsOf(['{"messages": [], "statistics": {}}']), await eventsOf(["[]"]));
    const oldId = await failure(
      '{"messages": [{"type": "warning", "message": "m", "path": "a.py", "message-id": "W0611"}]}',
    );
    assert.deepEqual(
      [
        oldId.problem,
        /^line 1: its "messages" are not pylint's \(objects with a "messageId"\)/.test(oldId.message),
      ],
      ["NOT_PYLINT", true],
    );
    const notAList = await failure('{"messages": {"type": "warning"}, "statistics": {}}');
    assert.equal(notAList.problem, "INVALID_STRUCTURE");
    assert.match(notAList.message, /the report's "messages" is not a list/);
    assert.deepEqual(
      [(await failure('{"messages": [\n')).message],
      ["line 2: the report is not closed: the report looks truncated."],
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
