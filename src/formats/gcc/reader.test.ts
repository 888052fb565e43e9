// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readFindings } from "../findings.ts";
import { readFixtureFile, readToolFixture, readToolSummary, toolFixture } from "../fixtures.ts";
import type { SarifEvent, SarifResult, SarifToolError } from "../sarif/types.ts";
import { GccFormatError, readGccJson } from "./reader.ts";

/**
 * The GCC JSON reader, on what GCC 12 wrote with -fdiagnostics-format=json for
 * test/fixtures/tools/c-gcc (scripts/make-fixtures.sh), and on the ways a report can be wrong.
 */

const FIXTURE = readToolFixture("sarif", "gcc", "gcc.json");
const WORK_DIR = toolFixture("sarif", "gcc", "gcc.json").workDir;

/** GCC's text output: the distinct `file:line:col:` lines (`sort -u`), and all lines as printed. */
interface GccFigures {
  warnings: number;
  errors: number;
  notCompiled: number;
  byRule: Record<string, { errors: number; warnings: number }>;
  printed: { warnings: number; errors: number; notCompiled: number };
}

const FIGURES = readToolSummary("sarif", "gcc", "gcc.json").figures as unknown as GccFigures;

async function eventsOf(chunks: Iterable<string | Uint8Array>, workDir: string | null = WORK_DIR) {
  const events: SarifEvent[] = [];
  for await (const event of readGccJson(chunks, { workDir })) events.push(event);
  return events;
}

function resultsOf(events: readonly SarifEvent[]): SarifResult[] {
  return events.flatMap((event) => (event.type === "result" ? [event.result] : []));
}

function toolErrorsOf(events: readonly SarifEvent[]): SarifToolError[] {
  return events.flatMap((event) => (event.type === "toolError" ? [event.error] : []));
}

async function failure(text: string | Uint8Array): Promise<GccFormatError> {
  try {
    await eventsOf([text]);
  } catch (error) {
    assert.ok(error instanceof GccFormatError, String(error));
    return error;
  }
  assert.fail(`no error for ${String(text).slice(0, 60)}`);
}

/** One diagnostic as GCC writes it, with the fields a test changes. */
function diagnostic(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    kind: "warning",
    message: "m",
    option: "-Wformat=",
    locations: [{ caret: { file: "src/a.c", line: 3, column: 5 } }],
    ...fields,
  };
}

describe("GCC JSON reader", () => {
  it("reads every warning GCC printed, the distinct ones per option and level, one run first", async () => {
    const events = await eventsOf([FIXTURE]);
    assert.equal(events[0]?.type, "run");
    assert.equal(events.filter((event) => event.type === "run").length, 1);
    const run = events[0]?.type === "run" ? events[0].run : undefined;
    assert.deepEqual({ name: run?.tool.name, rules: run?.tool.rules }, { name: "gcc", rules: [] });
    const summary = FIGURES;
    assert.equal(resultsOf(events).length, summary.printed.warnings + summary.printed.errors);
    const results = resultsOf(events).filter((result) => result.repeatOf === undefined);
    assert.equal(results.length, summary.warnings + summary.errors);
    // GCC prints a warning made an error as [-Werror=<name>]: its rule is the warning, -W<name>.
    const expected = Object.fromEntries(
      Object.entries(summary.byRule).map(([option, counts]) => [option.replace(/^-Werror=/, "-W"), counts]),
    );
    const byRule: Record<string, { errors: number; warnings: number }> = {};
    for (const result of results) {
      const counts = byRule[result.ruleId] ?? { errors: 0, warnings: 0 };
      byRule[result.ruleId] = counts;
      if (result.level === "error") counts.errors += 1;
      if (result.level === "warning") counts.warnings += 1;
    }
    assert.deepEqual(byRule, expected);
  });

  it("puts a finding at GCC's caret, relative to where it ran, with its CWE and notes", async () => {
    const results = resultsOf(await eventsOf([FIXTURE]));
    const free = results.find((result) => result.ruleId === "-Wanalyzer-use-after-free");
    assert.ok(free);
    assert.deepEqual(
      {
        level: free.level,
        message: free.message,
        path: free.locations[0]?.path,
        line: free.locations[0]?.region?.startLine,
        taxa: free.taxa,
      },
      {
        level: "warning",
        message: "use after ‘free’ of ‘order’",
        path: "src/orders.c",
        line: 35,
        taxa: [{ id: "416", taxonomy: "CWE" }],
      },
    );
    const format = results.find((result) => result.ruleId === "-Wformat=");
    // The caret, as GCC's text output prints the place (src/orders.c:29:12); the argument it
    // names, with its label, is a related place.
    assert.deepEqual(format?.locations[0]?.region, {
      startLine: 29,
      startColumn: 12,
      endLine: 29,
      endColumn: 12,
      snippet: null,
    });
    assert.deepEqual(
      format?.relatedLocations.map((place) => [
        place.path,
        place.region?.startColumn,
        place.region?.endColumn,
        place.message,
      ]),
      [["src/orders.c", 25, 29, "unsigned int"]],
    );
  });

  it("marks a header's warning printed again for another file as a repeat of the first", async () => {
    const results = resultsOf(await eventsOf([FIXTURE]));
    const inHeader = results.filter((result) => result.locations[0]?.path === "src/pricing.h");
    // invoice.c and receipt.c both include pricing.h: GCC printed its two warnings for each.
    assert.equal(FIGURES.printed.warnings - FIGURES.warnings, 2);
    assert.deepEqual(
      inHeader.map((result) => [result.ruleId, result.locations[0]?.region?.startLine, result.repeatOf]),
      [
        ["-Wtype-limits", 8, undefined],
        ["-Wanalyzer-possible-null-dereference", 13, undefined],
        ["-Wtype-limits", 8, inHeader[0]?.index],
        ["-Wanalyzer-possible-null-dereference", 13, inHeader[1]?.index],
      ],
    );
    // Each file's report alone repeats nothing.
    for (const name of ["invoice", "receipt"]) {
      const alone = resultsOf(await eventsOf([readFixtureFile("sarif", `gcc/by-file/${name}.json`)]));
      assert.ok(alone.length >= 2 && alone.every((result) => result.repeatOf === undefined), name);
    }
  });

  it("marks a repeat by rule, message, file, line and column; another column or message is another finding", async () => {
    const place = (column: number) => [{ caret: { file: "src/a.h", line: 3, column } }];
    const list = (items: Record<string, unknown>[]) => JSON.stringify(items.map(diagnostic));
    const text = [
      list([{ locations: place(5) }, { locations: place(6) }]),
      list([
        { locations: place(5) },
        { locations: place(5), message: "other" },
        { locations: place(5), option: "-Wall" },
      ]),
      // The same header reached through another include path is the same place.
      list([
        {
          locations: [{ caret: { file: "src/../src/a.h", line: 3, column: 5 } }],
          kind: "error",
          option: "-Werror=format=",
        },
      ]),
    ].join("\n");
    const results = resultsOf(await eventsOf([text]));
    assert.deepEqual(
      results.map((result) => result.repeatOf),
      [undefined, undefined, 0, undefined, undefined, 0],
    );
  });

  it("says a file that does not compile as the tool's own error, with its place", async () => {
    const summary = readToolSummary("sarif", "gcc", "gcc.json").figures as unknown as GccFigures;
    const errors = toolErrorsOf(await eventsOf([FIXTURE]));
    assert.equal(errors.length, summary.notCompiled);
    assert.deepEqual(errors[0], {
      runIndex: 0,
      message: "‘rate_percent’ undeclared (first use in this function)",
      path: "src/legacy.c",
      line: 3,
      unanalyzedPath: "src/legacy.c",
    });
  });

  it("says a header that does not compile leaves unanalyzed the other files its compilation's list names, and no more", async () => {
    // pricing.h does not compile with -DPRICING_ROUNDING: GCC's text says it stopped receipt.c's
    // and invoice.c's compilations. receipt.c's list names receipt.c (an unused parameter);
    // invoice.c's names only the header, so nothing in it says which file was being compiled.
    const broken = toolErrorsOf(
      await eventsOf([readFixtureFile("sarif", "gcc-history/rounding-broken.json")]),
    );
    assert.deepEqual(
      broken.map((error) => [error.unanalyzedPath, error.alsoUnanalyzed]),
      [
        ["src/pricing.h", undefined],
        ["src/pricing.h", ["src/receipt.c"]],
      ],
    );
    // The same build without the option, whose lists follow, compiled receipt.c: it is left out.
    const both = await eventsOf([
      readFixtureFile("sarif", "gcc-history/shard-rounding.json"),
      readFixtureFile("sarif", "gcc-history/shard-plain.json"),
    ]);
    assert.deepEqual(
      toolErrorsOf(both).map((error) => [error.unanalyzedPath, error.alsoUnanalyzed]),
      [
        ["src/pricing.h", undefined],
        ["src/pricing.h", undefined],
      ],
    );
  });

  it("takes a note GCC writes as an item of its own after a warning as that warning's related place, not a finding", async () => {
    // GCC 12 writes -Wuse-after-free's "call to 'free' here" as a top-level item after it.
    const text = readFixtureFile("sarif", "gcc-history/rounding.json");
    const results = resultsOf(await eventsOf([text]));
    assert.deepEqual(
      results.filter((result) => result.ruleId === "note"),
      [],
    );
    const useAfterFree = results.find((result) => result.ruleId === "-Wuse-after-free");
    assert.deepEqual(
      useAfterFree?.relatedLocations.map((place) => [place.path, place.region?.startLine, place.message]),
      [["src/receipt.c", 6, "call to ‘free’ here"]],
    );
    // What GCC printed as its findings: each distinct place and option of a
    // `file:line:col: warning|error: … [-W…]` line (a header's are printed once per includer).
    const printed = new Set(
      readFixtureFile("sarif", "gcc-history/rounding.tool-output.txt")
        .split("\n")
        .filter((line) => /^\S+:\d+:\d+: (warning|error): .*\[-W[^\]]*\]$/.test(line))
        .map((line) => `${line.split(": ")[0]} ${line.slice(line.lastIndexOf("[-W"))}`),
    );
    assert.equal(results.filter((result) => result.repeatOf === undefined).length, printed.size);
  });

  it("takes a note right after the compiler's own error as part of it, and a list's first note as a finding", async () => {
    const list = [
      diagnostic({ kind: "error", option: undefined, message: "expected ';'" }),
      diagnostic({ kind: "note", option: undefined, message: "to match this '('" }),
    ];
    const events = await eventsOf([`${JSON.stringify(list)}\n`]);
    assert.deepEqual(resultsOf(events), []);
    assert.equal(toolErrorsOf(events).length, 1);
    const alone = resultsOf(
      await eventsOf([`${JSON.stringify([diagnostic({ kind: "note", option: undefined })])}\n`]),
    );
    assert.deepEqual(
      alone.map((result) => [result.ruleId, result.level]),
      [["note", "note"]],
    );
  });

  it("yields the same events whatever the chunks, one byte at a time included", async () => {
    const whole = await eventsOf([FIXTURE]);
    const oneByOne = await eventsOf(Array.from(Buffer.from(FIXTURE), (byte) => Uint8Array.of(byte)));
    assert.deepEqual(oneByOne, whole);
  });

  it("is what readFindings picks for a text that starts with a list; an empty list is a clean file", async () => {
    let format: string | undefined;
    const events: SarifEvent[] = [];
    for await (const event of readFindings([FIXTURE], { workDir: WORK_DIR, onFormat: (f) => (format = f) }))
      events.push(event);
    assert.equal(format, "gcc-json");
    assert.deepEqual(events, await eventsOf([FIXTURE]));
    assert.deepEqual(resultsOf(await eventsOf(["[]\n[]\n"])), []);
  });

  it("reads an option-less warning by its kind, a fatal error as the tool's, and a caret without a file as no place", async () => {
    const text = JSON.stringify([
      diagnostic({ option: null, message: "comparison between pointer and integer" }),
      diagnostic({ kind: "fatal error", option: undefined, message: "stdio.h: No such file or directory" }),
      diagnostic({ locations: [{ caret: { line: 2, column: 1 } }] }),
      diagnostic({
        option: "-Wanalyzer-double-free",
        children: [
          {
            kind: "note",
            message: "first free here",
            locations: [{ caret: { file: "src/a.c", line: 1, column: 3 } }],
          },
        ],
      }),
    ]);
    const events = await eventsOf([text], "/w");
    assert.deepEqual(
      resultsOf(events).map((result) => [result.ruleId, result.locations.length]),
      [
        ["warning", 1],
        ["-Wformat=", 0],
        ["-Wanalyzer-double-free", 1],
      ],
    );
    const [, , doubleFree] = resultsOf(events);
    assert.deepEqual(
      doubleFree?.relatedLocations.map((place) => [place.path, place.region?.startLine, place.message]),
      [["src/a.c", 1, "first free here"]],
      "a child note is a related place with its message",
    );
    assert.deepEqual(toolErrorsOf(events), [
      {
        runIndex: 0,
        message: "stdio.h: No such file or directory",
        path: "src/a.c",
        line: 3,
        unanalyzedPath: "src/a.c",
      },
    ]);
  });

  it("keeps a line of text between the lists, such as make's, as the tool's own error", async () => {
    const text = `[]\nmake: *** [Makefile:3: legacy.o] Error 1\n${JSON.stringify([diagnostic({})])}\n`;
    for (const chunks of [[text], Array.from(text)]) {
      const events = await eventsOf(chunks, "/w");
      assert.deepEqual(
        resultsOf(events).map((result) => result.ruleId),
        ["-Wformat="],
      );
      assert.deepEqual(toolErrorsOf(events), [
        { runIndex: 0, message: "make: *** [Makefile:3: legacy.o] Error 1", path: null, line: null },
      ]);
    }
  });

  it("refuses what is not GCC's, malformed or truncated JSON and the wrong shapes, naming the line", async () => {
    const cases: Array<[string, string, RegExp]> = [
      ["", "NOT_GCC", /^it has no list of diagnostics: GCC writes a JSON list for each file it compiles/],
      ["make: Nothing to be done for 'all'.\n", "NOT_GCC", /^it has no list of diagnostics/],
      ['[{"kind": "warning", "message": "m"}\n', "INVALID_JSON", /^line 2: the text ends inside a list/],
      ["[]\n[{,}]\n", "INVALID_JSON", /^line 2: not valid JSON\.$/],
      ["[5]", "NOT_GCC", /^line 1: it is a JSON list whose items are not GCC's diagnostics/],
      ['[{"message": "m"}]', "NOT_GCC", /^line 1: it is a JSON list whose items are not GCC's diagnostics/],
      [
        '[{"kind": "warning", "message": "m"}, 5]',
        "INVALID_STRUCTURE",
        /^line 1: a diagnostic is not an object\.$/,
      ],
      [
        '[{"kind": "warning", "message": "m"}]\n[{"message": "m"}]',
        "INVALID_STRUCTURE",
        /^line 2: a diagnostic has no "kind"\.$/,
      ],
      ['[{"kind": "warning"}]', "INVALID_STRUCTURE", /a diagnostic \(warning\) has no "message"\.$/],
      // After a diagnostic that is the tool's own error, a wrong item is GCC's text gone wrong.
      [
        '[{"kind": "error", "message": "x undeclared"}]\n[5]',
        "INVALID_STRUCTURE",
        /^line 2: a diagnostic is not an object\.$/,
      ],
    ];
    for (const [text, problem, message] of cases) {
      const error = await failure(text);
      assert.equal(error.problem, problem, text);
      assert.match(error.message, message, text);
    }
    const latin1 = await failure(
      Buffer.concat([
        Buffer.from('[{"kind": "warning", "message": "'),
        Buffer.from([0xe9]),
        Buffer.from('"}]'),
      ]),
    );
    assert.equal(latin1.problem, "INVALID_TEXT");
  });
});
