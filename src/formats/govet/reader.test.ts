// test-runner: execution-mode independent
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { readFindings } from "../findings.ts";
import { readToolFixture, readToolSummary, toolFixture } from "../fixtures.ts";
import type { SarifEvent, SarifResult, SarifToolError } from "../sarif/types.ts";
import { GoVetFormatError, readGoVetJson } from "./reader.ts";

/**
 * The go vet reader, on what `go vet -json ./...` (Go 1.19) wrote for
 * test/fixtures/tools/go-vet (scripts/make-fixtures.sh), and on the ways an output can be wrong.
 */

const FIXTURE = readToolFixture("sarif", "govet", "vet.json");
const WORK_DIR = toolFixture("sarif", "govet", "vet.json").workDir;

async function eventsOf(chunks: Iterable<string | Uint8Array>, workDir: string | null = WORK_DIR) {
  const events: SarifEvent[] = [];
  for await (const event of readGoVetJson(chunks, { workDir })) events.push(event);
  return events;
}

function resultsOf(events: readonly SarifEvent[]): SarifResult[] {
  return events.flatMap((event) => (event.type === "result" ? [event.result] : []));
}

function toolErrorsOf(events: readonly SarifEvent[]): SarifToolError[] {
  return events.flatMap((event) => (event.type === "toolError" ? [event.error] : []));
}

async function failure(text: string): Promise<GoVetFormatError> {
  try {
    await eventsOf([text]);
  } catch (error) {
    assert.ok(error instanceof GoVetFormatError, String(error));
    return error;
  }
  assert.fail(`no error for ${text.slice(0, 60)}`);
}

/** One package's output as vet writes it: the package line and its indented object. */
function vetOutput(packageId: string, analyzers: Record<string, unknown>): string {
  return `# ${packageId}\n${JSON.stringify({ [packageId]: analyzers }, null, "\t")}\n`;
}

describe("go vet JSON reader", () => {
  it("reads every finding vet printed, as many per analyzer as vet alone printed, one run first", async () => {
    const events = await eventsOf([FIXTURE]);
    assert.equal(events[0]?.type, "run");
    assert.equal(events.filter((event) => event.type === "run").length, 1);
    const run = events[0]?.type === "run" ? events[0].run : undefined;
    assert.deepEqual({ name: run?.tool.name, rules: run?.tool.rules }, { name: "go vet", rules: [] });
    const summary = readToolSummary("sarif", "govet", "vet.json").figures as {
      findings: number;
      toolErrors: number;
      byRule: Record<string, number>;
    };
    const results = resultsOf(events);
    assert.equal(results.length, summary.findings);
    const byRule: Record<string, number> = {};
    for (const result of results) byRule[result.ruleId] = (byRule[result.ruleId] ?? 0) + 1;
    assert.deepEqual(byRule, summary.byRule);
    assert.equal(toolErrorsOf(events).length, summary.toolErrors);
  });

  it("puts a finding at vet's position, relative to the directory vet ran in, with no level of its own", async () => {
    const results = resultsOf(await eventsOf([FIXTURE]));
    const printf = results.find((result) => result.ruleId === "printf");
    assert.ok(printf);
    assert.deepEqual(
      {
        level: printf.level,
        ownLevel: printf.ownLevel,
        kind: printf.kind,
        message: printf.message,
        path: printf.locations[0]?.path,
        outside: printf.locations[0]?.outsideRepository,
        region: printf.locations[0]?.region,
      },
      {
        level: "warning",
        ownLevel: null,
        kind: "fail",
        message: "fmt.Sprintf format %d has arg p.Weight of wrong type float64",
        path: "shipping/shipping.go",
        outside: false,
        region: { startLine: 37, startColumn: 9, endLine: 37, endColumn: 9, snippet: null },
      },
    );
    const test = results.find((result) => result.ruleId === "tests");
    assert.equal(test?.locations[0]?.path, "shipping/shipping_test.go", "test files are vet's too");
  });

  it("says a package vet could not type-check as the tool's own error, with its file and line, and the package's directory as what went unanalyzed", async () => {
    const [error, ...others] = toolErrorsOf(await eventsOf([FIXTURE]));
    assert.deepEqual(others, []);
    assert.deepEqual(error, {
      runIndex: 0,
      message:
        'cannot use "three" (untyped string constant) as int value in return statement (package example.com/parcels/broken)',
      path: "broken/broken.go",
      line: 6,
      unanalyzedPath: "broken/",
    });
  });

  it("places a vet: line of a module in a subdirectory where its findings are: vet wrote it relative to where it ran", async () => {
    // The go-vet project as the go-vet/ directory of a repository whose root is one level up:
    // vet ran in go-vet/ (the upload's workDir), so `broken/broken.go` is go-vet/broken/broken.go,
    // as vet's absolute paths put its findings under go-vet/.
    const root = path.dirname(WORK_DIR);
    const directory = path.basename(WORK_DIR);
    const events: SarifEvent[] = [];
    for await (const event of readGoVetJson([FIXTURE], { workDir: root, directory })) events.push(event);
    assert.deepEqual(
      toolErrorsOf(events).map((error) => [error.path, error.line, error.unanalyzedPath]),
      [[`${directory}/broken/broken.go`, 6, `${directory}/broken/`]],
    );
    assert.ok(
      resultsOf(events).every((result) => result.locations[0]?.path?.startsWith(`${directory}/shipping/`)),
    );
  });

  it("yields the same events whatever the chunks, one byte at a time included", async () => {
    const whole = await eventsOf([FIXTURE]);
    const bytes = Buffer.from(FIXTURE);
    const oneByOne = await eventsOf(Array.from(bytes, (byte) => Uint8Array.of(byte)));
    assert.deepEqual(oneByOne, whole);
    const crlf = await eventsOf([FIXTURE.replaceAll("\n", "\r\n")]);
    assert.deepEqual(crlf, whole, "Windows line endings");
  });

  it("is what readFindings picks for a text that starts with the package line", async () => {
    let format: string | undefined;
    const events: SarifEvent[] = [];
    for await (const event of readFindings([FIXTURE], { workDir: WORK_DIR, onFormat: (f) => (format = f) }))
      events.push(event);
    assert.equal(format, "go-vet-json");
    assert.deepEqual(events, await eventsOf([FIXTURE]));
  });

  it("reads what newer analyzers add: an end, related places, a category; and positions without a column or file", async () => {
    const text = vetOutput("example.com/a", {
      loopclosure: [
        {
          category: "capture",
          posn: "/w/a/a.go:10:4",
          end: "/w/a/a.go:12:2",
          message: "loop variable v captured by func literal",
          related: [{ posn: "/w/a/a.go:8:6", end: "/w/a/a.go:8:7", message: "v declared here" }],
          suggested_fixes: [{ message: "copy it", edits: [] }],
        },
        { posn: "/w/a/b.go:7", message: "no column" },
        { posn: "-", message: "no position" },
      ],
    });
    const results = resultsOf(await eventsOf([text], "/w"));
    assert.deepEqual(
      results.map((result) => ({
        path: result.locations[0]?.path ?? null,
        region: result.locations[0]?.region ?? null,
        related: result.relatedLocations.map((place) => [place.path, place.region?.startLine, place.message]),
        strings: result.properties.strings,
      })),
      [
        {
          path: "a/a.go",
          region: { startLine: 10, startColumn: 4, endLine: 12, endColumn: 2, snippet: null },
          related: [["a/a.go", 8, "v declared here"]],
          strings: { diagnosticCategory: "capture" },
        },
        {
          path: "a/b.go",
          region: { startLine: 7, startColumn: null, endLine: 7, endColumn: null, snippet: null },
          related: [],
          strings: {},
        },
        { path: null, region: null, related: [], strings: {} },
      ],
    );
  });

  it("says an analyzer's own error, and a test variant's package line, without a finding", async () => {
    const text =
      "# example.com/a [example.com/a.test]\n" +
      JSON.stringify({ "example.com/a": { cgocall: { error: "cgo is not enabled" } } }, null, "\t") +
      "\n# example.com/b\n{}\n";
    const events = await eventsOf([text], "/w");
    assert.deepEqual(resultsOf(events), []);
    assert.deepEqual(toolErrorsOf(events), [
      { runIndex: 0, message: "cgocall: cgo is not enabled", path: null, line: null },
    ]);
  });

  it("keeps a compiler error's continuation lines with it", async () => {
    const text =
      "# example.com/a\nvet: a/a.go:3:9: cannot use x (variable of type int) as string value\n\thave int\n\twant string\n# example.com/b\n{}\n";
    const [error] = toolErrorsOf(await eventsOf([text], "/w"));
    assert.equal(
      error?.message,
      "cannot use x (variable of type int) as string value (package example.com/a)\nhave int\nwant string",
    );
  });

  it("refuses what is not vet's output, naming the line", async () => {
    const markdown = await failure("# Notes\n\nEverything changed.\n");
    assert.equal(markdown.problem, "NOT_GO_VET");
    // vet's text output (no -json) names no analyzer: refused, even with a `vet:` line in it.
    const text = await failure(
      "# example.com/a\nvet: a/a.go:3:9: undefined: x\n# example.com/b\nb/b.go:5:26: fmt.Sprintf format %d has arg x of wrong type string\n",
    );
    assert.equal(text.problem, "NOT_GO_VET");
    assert.match(
      text.message,
      /^it has no JSON object: .*vet's text output, which names no analyzer, is not read\.$/,
    );
    const title = await failure("# Release notes, part one\nText.\n");
    assert.equal(title.problem, "NOT_GO_VET");
    assert.match(title.message, /^line 1: it does not start with a line "# <package>"/);
  });

  it("refuses malformed JSON, a truncated object and the wrong shapes, naming the line", async () => {
    const cases: Array<[string, string, RegExp]> = [
      [
        '# a\n{\n\t"a": {\n\t\t"printf": [ {,} ]\n\t}\n}\n',
        "INVALID_JSON",
        /^line 4: the JSON object that starts on line 2 is not valid JSON\.$/,
      ],
      [
        '# a\n{\n\t"a": {\n\t\t"printf": [\n',
        "INVALID_JSON",
        /starts on line 2 is not closed: the report looks truncated\.$/,
      ],
      ['# a\n{"a": 5}\n', "INVALID_STRUCTURE", /^line 2: a package's value is not an object of analyzers\.$/],
      ['# a\n{"a": {"printf": "x"}}\n', "INVALID_STRUCTURE", /an analyzer's value is neither a list/],
      [
        '# a\n{"a": {"printf": [{"message": "m"}]}}\n',
        "INVALID_STRUCTURE",
        /a diagnostic of analyzer "printf" of package "a" has no "posn"\.$/,
      ],
      ['# a\n{"a": {"printf": [{"posn": "a.go:1:1"}]}}\n', "INVALID_STRUCTURE", /has no "message"\.$/],
      [
        '# a\n{"a": {"printf": ["a.go:1:1"]}}\n',
        "INVALID_STRUCTURE",
        /a diagnostic of analyzer "printf" of package "a" is not an object\.$/,
      ],
      [
        '# a\n{"a": {"printf": {"reason": "x"}}}\n',
        "INVALID_STRUCTURE",
        /has neither a list of diagnostics nor an "error"\.$/,
      ],
    ];
    for (const [text, problem, message] of cases) {
      const error = await failure(text);
      assert.equal(error.problem, problem, text);
      assert.match(error.message, message, text);
    }
    const latin1 = Buffer.concat([Buffer.from("# a\n"), Buffer.from([0xe9]), Buffer.from("\n{}\n")]);
    await assert.rejects(eventsOf([latin1]), (error: unknown) => {
      assert.ok(error instanceof GoVetFormatError);
      assert.equal(error.problem, "INVALID_TEXT");
      return true;
    });
  });
});
