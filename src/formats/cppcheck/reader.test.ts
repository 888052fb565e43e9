// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readFindings } from "../findings.ts";
import { readToolFixture, readToolSummary, toolFixture } from "../fixtures.ts";
import type { SarifEvent, SarifResult } from "../sarif/types.ts";
import { CppcheckFormatError, readCppcheckXml } from "./reader.ts";

/**
 * The cppcheck XML reader, on the report cppcheck 2.10 wrote for test/fixtures/tools/c-cppcheck
 * (scripts/make-fixtures.sh) and on the ways a report can be wrong.
 */

const FIXTURE = readToolFixture("sarif", "cppcheck", "cppcheck.xml");
const WORK_DIR = toolFixture("sarif", "cppcheck", "cppcheck.xml").workDir;

async function eventsOf(chunks: Iterable<string | Uint8Array>, workDir: string | null = WORK_DIR) {
  const events: SarifEvent[] = [];
  for await (const event of readCppcheckXml(chunks, { workDir })) events.push(event);
  return events;
}

function resultsOf(events: readonly SarifEvent[]): SarifResult[] {
  return events.flatMap((event) => (event.type === "result" ? [event.result] : []));
}

async function failure(text: string): Promise<CppcheckFormatError> {
  try {
    await eventsOf([text]);
  } catch (error) {
    assert.ok(error instanceof CppcheckFormatError, String(error));
    return error;
  }
  assert.fail(`no error for ${text.slice(0, 60)}`);
}

const HEAD =
  '<?xml version="1.0" encoding="UTF-8"?>\n<results version="2">\n<cppcheck version="2.10"/>\n<errors>\n';
const TAIL = "</errors>\n</results>\n";

describe("cppcheck XML reader", () => {
  it("reads every finding cppcheck printed, one run first, with cppcheck's severities and checks", async () => {
    const events = await eventsOf([FIXTURE]);
    assert.equal(events[0]?.type, "run");
    assert.equal(events.filter((event) => event.type === "run").length, 1);
    const run = events[0]?.type === "run" ? events[0].run : undefined;
    assert.deepEqual(
      { name: run?.tool.name, version: run?.tool.version, rules: run?.tool.rules },
      { name: "cppcheck", version: "2.10", rules: [] },
    );
    type RuleFigures = { severity: string; count: number; inconclusive: number; withoutFile: number };
    const summary = readToolSummary("sarif", "cppcheck", "cppcheck.xml").figures as {
      problems: number;
      byRule: Record<string, RuleFigures>;
    };
    const results = resultsOf(events);
    assert.equal(results.length, summary.problems);
    const byRule: Record<string, RuleFigures> = {};
    for (const result of results) {
      const entry = byRule[result.ruleId] ?? {
        severity: result.properties.strings.severity ?? "",
        count: 0,
        inconclusive: 0,
        withoutFile: 0,
      };
      byRule[result.ruleId] = entry;
      entry.count += 1;
      if (result.properties.precision === "low") entry.inconclusive += 1;
      if (result.locations.length === 0) entry.withoutFile += 1;
    }
    assert.deepEqual(byRule, summary.byRule);
  });

  it("puts a finding where cppcheck reports it, keeps the path that led there, and reads levels, CWEs and inconclusive", async () => {
    const results = resultsOf(await eventsOf([FIXTURE]));
    const bounds = results.find((result) => result.ruleId === "arrayIndexOutOfBounds");
    assert.ok(bounds);
    assert.deepEqual(
      {
        level: bounds.level,
        ownLevel: bounds.ownLevel,
        kind: bounds.kind,
        taxa: bounds.taxa,
        cwe: bounds.properties.strings.cwe,
        precision: bounds.properties.precision,
        message: bounds.message,
        primary: [bounds.locations.length, bounds.locations[0]?.path, bounds.locations[0]?.region?.startLine],
        related: bounds.relatedLocations.map(
          (l) => `${l.path}:${l.region?.startLine}:${l.region?.startColumn} ${l.message}`,
        ),
      },
      {
        level: "error",
        ownLevel: "error",
        kind: "fail",
        taxa: [{ id: "788", taxonomy: "CWE" }],
        cwe: "788",
        precision: null,
        message: "Array 'amounts[4]' accessed at index 4, which is out of bounds.",
        primary: [1, "src/ledger.c", 22],
        related: ["src/ledger.c:22:21 Assuming that condition 'i<=4' is not redundant"],
      },
    );
    const levels = Object.fromEntries(
      results.map((result) => [result.properties.strings.severity, result.level]),
    );
    assert.deepEqual(levels, {
      error: "error",
      warning: "warning",
      style: "note",
      performance: "note",
      portability: "note",
      information: "note",
    });
    const duplicate = results.find((result) => result.ruleId === "duplicateBranch");
    assert.equal(duplicate?.properties.precision, "low", "inconclusive");
    // unusedFunction is reported at column 0, cppcheck's "no column".
    const unused = results.find((result) => result.ruleId === "unusedFunction");
    assert.equal(unused?.locations[0]?.region?.startColumn, null);
    const include = results.find((result) => result.ruleId === "missingIncludeSystem");
    assert.deepEqual(include?.locations, [], "a finding cppcheck printed as nofile has no location");
  });

  it("yields the same events whatever the chunks, even one byte at a time", async () => {
    const whole = await eventsOf([FIXTURE]);
    const bytes = Buffer.from(FIXTURE);
    const single = Array.from(bytes, (byte) => Uint8Array.of(byte));
    assert.deepEqual(await eventsOf(single), whole);
  });

  it("resolves absolute paths against the workDir, and marks the rest outside the repository", async () => {
    const report = `${HEAD}<error id="nullPointer" severity="error" msg="m">
      <location file="${WORK_DIR}/src/a.c" line="3" column="5"/></error>
      <error id="nullPointer" severity="error" msg="m"><location file="/usr/include/stdio.h" line="1"/></error>${TAIL}`;
    const [inside, outside] = resultsOf(await eventsOf([report]));
    assert.deepEqual(
      [inside?.locations[0]?.path, inside?.locations[0]?.outsideRepository],
      ["src/a.c", false],
    );
    assert.equal(outside?.locations[0]?.outsideRepository, true);
  });

  it("is chosen for a report that starts with '<', after a byte order mark and whitespace", async () => {
    const formats: string[] = [];
    const events: SarifEvent[] = [];
    const source = [Buffer.from([0xef, 0xbb, 0xbf]), "\n  ", FIXTURE];
    for await (const event of readFindings(source, { workDir: WORK_DIR, onFormat: (f) => formats.push(f) }))
      events.push(event);
    assert.deepEqual(formats, ["cppcheck-xml"]);
    assert.equal(resultsOf(events).length, resultsOf(await eventsOf([FIXTURE])).length);
  });

  it("answers a report without errors with its run and no results", async () => {
    const events = await eventsOf([`<results version="2"><cppcheck version="2.10"/><errors/></results>`]);
    assert.deepEqual(
      events.map((event) => event.type),
      ["run"],
    );
  });

  it("refuses what is not a cppcheck version 2 report, naming the problem and the line", async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['<report name="x"/>', "NOT_CPPCHECK", /root element <report>.*cppcheck --xml/],
      [
        '<results><error file="a.c" line="1" id="x" severity="error" msg="m"/></results>',
        "UNSUPPORTED_VERSION",
        /no version attribute/,
      ],
      ['<results version="1"/>', "UNSUPPORTED_VERSION", /"1"; only version 2/],
      [
        `${HEAD}<error id="x" severity="error" msg="m">`,
        "TRUNCATED",
        /ends before <results> is closed \(inside <error>\): it looks truncated/,
      ],
      [`${HEAD}<error id="x" severity="error" msg="m"></errors>`, "INVALID_XML", /^line 5: invalid XML/],
      [
        `${HEAD}<error severity="error" msg="m"/>${TAIL}`,
        "INVALID_STRUCTURE",
        /^line 5: an <error> has no id/,
      ],
      [`${HEAD}<error id="x" severity="fatal" msg="m"/>${TAIL}`, "INVALID_STRUCTURE", /severity "fatal"/],
      [
        `${HEAD}<error id="x" severity="error" msg="m"><location line="2"/></error>${TAIL}`,
        "INVALID_STRUCTURE",
        /<location> has no file/,
      ],
      [`${HEAD}${TAIL}<results version="2"/>`, "INVALID_XML", /invalid XML/],
      ["", "INVALID_XML", /empty/],
    ];
    for (const [text, problem, message] of cases) {
      const error = await failure(text);
      assert.equal(error.problem, problem, text);
      assert.match(error.message, message, text);
    }
  });

  it("refuses bytes that are not UTF-8", async () => {
    await assert.rejects(
      eventsOf([
        Buffer.from('<results version="2"><errors><error id="x" severity="error" msg="\xff"/>', "latin1"),
      ]),
      (error: unknown) => error instanceof CppcheckFormatError && /not valid UTF-8/.test(error.message),
    );
  });
});
