// test-runner: execution-mode independent
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { readFindings } from "../findings.ts";
import { fixtureDir } from "../fixtures.ts";
import type { SarifEvent, SarifResult, SarifToolError } from "../sarif/types.ts";
import { BanditFormatError, readBanditJson } from "./reader.ts";

/**
 * The Bandit JSON reader, on what Bandit 1.6.2 wrote for test/fixtures/tools/python-lint
 * (scripts/make-fixtures.sh python-lint), compared with Bandit's own screen output, and on the
 * ways a report can be wrong.
 */

const FOLDER = path.join(fixtureDir("sarif"), "python-lint");
const FIXTURE = fs.readFileSync(path.join(FOLDER, "bandit.json"), "utf8");
const SUMMARY = JSON.parse(fs.readFileSync(path.join(FOLDER, "bandit.summary.json"), "utf8")) as {
  workDir: string;
  figures: {
    issues: number;
    bySeverity: Record<string, number>;
    byRule: Record<string, { name: string; count: number; severities: string[]; places: string[] }>;
    skipped: Array<{ path: string; reason: string }>;
  };
};

async function eventsOf(chunks: Iterable<string | Uint8Array>): Promise<SarifEvent[]> {
  const events: SarifEvent[] = [];
  for await (const event of readBanditJson(chunks, { workDir: SUMMARY.workDir })) events.push(event);
  return events;
}

const resultsOf = (events: readonly SarifEvent[]): SarifResult[] =>
  events.flatMap((event) => (event.type === "result" ? [event.result] : []));
const toolErrorsOf = (events: readonly SarifEvent[]): SarifToolError[] =>
  events.flatMap((event) => (event.type === "toolError" ? [event.error] : []));

async function failure(text: string): Promise<BanditFormatError> {
  try {
    await eventsOf([text]);
  } catch (error) {
    assert.ok(error instanceof BanditFormatError, String(error));
    return error;
  }
  assert.fail(`no error for ${text.slice(0, 60)}`);
}

/** Bandit's severities as its screen output writes them, and the levels its SARIF writer gives them. */
const LEVEL: Record<string, string> = { High: "error", Medium: "warning", Low: "note" };

describe("Bandit JSON reader", () => {
  it("reads every issue Bandit printed, by test id, place and severity; a skipped file is its own error", async () => {
    const events = await eventsOf([FIXTURE]);
    assert.equal(events[0]?.type === "run" && events[0].run.tool.name, "bandit");
    const byRule: Record<string, { name: string; count: number; levels: string[]; places: string[] }> = {};
    for (const result of resultsOf(events)) {
      const rule = byRule[result.ruleId] ?? {
        name: result.rule?.name ?? "",
        count: 0,
        levels: [],
        places: [],
      };
      byRule[result.ruleId] = rule;
      rule.count += 1;
      if (!rule.levels.includes(result.level)) rule.levels.push(result.level);
      rule.places.push(`${result.locations[0]?.path}:${result.locations[0]?.region?.startLine}`);
    }
    for (const rule of Object.values(byRule)) rule.places.sort();
    assert.deepEqual(
      byRule,
      Object.fromEntries(
        Object.entries(SUMMARY.figures.byRule).map(([id, { severities, ...rule }]) => [
          id,
          {
            name: rule.name,
            count: rule.count,
            levels: severities.map((severity) => LEVEL[severity]),
            places: rule.places,
          },
        ]),
      ),
    );
    assert.deepEqual(
      toolErrorsOf(events).map((error) => ({ path: error.path, reason: error.message })),
      SUMMARY.figures.skipped,
    );
  });

  it("ends an issue's region on the last line of its line_range, and keeps its confidence", async () => {
    const results = resultsOf(await eventsOf([FIXTURE]));
    const password = results.find((result) => result.ruleId === "B107");
    assert.deepEqual(
      [password?.locations[0]?.region?.startLine, password?.locations[0]?.region?.endLine],
      [17, 23],
    );
    assert.deepEqual(password?.properties.strings, { issue_severity: "LOW", issue_confidence: "MEDIUM" });
    assert.equal(password?.rule?.helpUri?.startsWith("https://bandit.readthedocs.io/"), true);
  });

  it("reads the column and CWE that later Bandit versions add to each issue", async () => {
    // Bandit 1.6.2 writes neither; 1.7.5 adds `col_offset`, `end_col_offset` and `issue_cwe`.
    const report = JSON.parse(FIXTURE) as { results: Array<Record<string, unknown>> };
    report.results = report.results.slice(0, 1).map((issue) => ({
      ...issue,
      col_offset: 0,
      end_col_offset: 13,
      issue_cwe: { id: 502, link: "https://cwe.mitre.org/data/definitions/502.html" },
    }));
    const [result] = resultsOf(await eventsOf([JSON.stringify(report)]));
    assert.deepEqual(result?.taxa, [{ id: "502", taxonomy: "CWE" }]);
    assert.deepEqual(
      [result?.locations[0]?.region?.startColumn, result?.locations[0]?.region?.endColumn],
      [1, 14],
    );
  });

  it("is told from SARIF by the findings reader, even one byte at a time", async () => {
    let format = "";
    const bytes = [...Buffer.from(FIXTURE)].map((byte) => Uint8Array.of(byte));
    const options = { workDir: SUMMARY.workDir, onFormat: (name: string) => (format = name) };
    let results = 0;
    for await (const event of readFindings(bytes, options)) if (event.type === "result") results += 1;
    assert.equal(format, "bandit-json");
    assert.equal(results, SUMMARY.figures.issues);
  });

  it("refuses what is not Bandit's JSON, naming the problem and its line", async () => {
    assert.equal((await failure('{"errors": [], "metrics": {}}')).problem, "NOT_BANDIT");
    assert.equal((await failure('{"errors": [], "results": {}}')).problem, "NOT_BANDIT");
    const truncated = await failure('{"errors": [],\n "results": [\n');
    assert.deepEqual(
      [truncated.problem, truncated.message],
      ["INVALID_JSON", "line 3: the report's object is not closed: the report looks truncated."],
    );
    const noSeverity = await failure(
      '{"errors": [], "results": [{"test_id": "B101", "filename": "a.py", "issue_text": "t"}]}',
    );
    assert.deepEqual(
      [noSeverity.problem, noSeverity.message],
      ["INVALID_STRUCTURE", 'line 1: issue B101 has no "issue_severity" of LOW, MEDIUM or HIGH.'],
    );
    assert.equal((await failure('{"errors": [1], "results": []}')).problem, "INVALID_STRUCTURE");
  });
});
