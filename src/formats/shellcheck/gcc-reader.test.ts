// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type FindingsFormat, findingsFormatOf, readFindings } from "../findings.ts";
import { readFixtureFile, readToolFixture, readToolSummary } from "../fixtures.ts";
import { familyRowOf } from "../sarif/tool-families.ts";
import type { SarifEvent, SarifResult } from "../sarif/types.ts";
import { readShellcheckGcc } from "./gcc-reader.ts";
import { ShellcheckFormatError } from "./reader.ts";

/**
 * ShellCheck's gcc output on what ShellCheck 0.9.0 wrote for test/fixtures/tools/shell-lint
 * (src/formats/checkstyle/fixtures/shellcheck/, `scripts/make-fixtures.sh checkstyle`): the
 * same findings as its json1 output of the same scripts, and the refusals of its tty, diff and
 * quiet outputs.
 */

interface Finding {
  file: string;
  line: number;
  column: number;
  severity: string;
  rule: string;
}

const SUMMARY = readToolSummary("checkstyle", "shellcheck", "shellcheck.gcc");
const GCC = readToolFixture("checkstyle", "shellcheck", "shellcheck.gcc");
const JSON1 = readToolFixture("checkstyle", "shellcheck", "shellcheck.json1");

async function eventsOf(events: AsyncIterable<SarifEvent>): Promise<SarifEvent[]> {
  const all: SarifEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

function resultsOf(events: SarifEvent[]): SarifResult[] {
  return events.flatMap((event) => (event.type === "result" ? [event.result] : []));
}

/** What a stored finding is made of: place, rule, level, ShellCheck's own level, message, category. */
function findingOf(result: SarifResult): string {
  const location = result.locations[0]!;
  const category = familyRowOf("shellcheck", { id: result.ruleId, properties: result.properties })?.category;
  return [
    `${location.path}:${location.region!.startLine}:${location.region!.startColumn}`,
    result.ruleId,
    result.level,
    result.properties.strings.severity,
    category,
    result.message,
  ].join(" | ");
}

async function formatRead(text: string, analyzer: string | null): Promise<FindingsFormat | Error> {
  let format: FindingsFormat | null = null;
  try {
    await eventsOf(
      readFindings([text], { workDir: SUMMARY.workDir, analyzer, onFormat: (f) => (format = f) }),
    );
  } catch (error) {
    return error as Error;
  }
  return format!;
}

describe("ShellCheck's gcc output", () => {
  it("reads a result per line ShellCheck printed, at its file, line and column, under its rule", async () => {
    const { findings } = SUMMARY.figures as { findings: Finding[] };
    const events = await eventsOf(readShellcheckGcc([GCC], { workDir: SUMMARY.workDir }));
    assert.deepEqual(
      events.flatMap((event) => (event.type === "run" ? [event.run.tool.name] : [])),
      ["shellcheck"],
    );
    const read = resultsOf(events).map((result) => {
      const region = result.locations[0]!.region!;
      return `${result.locations[0]!.path}:${region.startLine}:${region.startColumn} ${result.level} ${result.ruleId}`;
    });
    assert.deepEqual(
      read,
      findings.map((f) => `${f.file}:${f.line}:${f.column} ${f.severity} ${f.rule}`),
    );
  });

  it("gives the same findings as json1 of the same scripts: places, rules, levels, ShellCheck's levels, messages, categories", async () => {
    const gcc = resultsOf(await eventsOf(readFindings([GCC], { workDir: SUMMARY.workDir })));
    const json1 = resultsOf(await eventsOf(readFindings([JSON1], { workDir: SUMMARY.workDir })));
    assert.equal(gcc.length, 20);
    assert.deepEqual(gcc.map(findingOf).sort(), json1.map(findingOf).sort());
    // The notes are both of ShellCheck's lower levels, told apart as json1 tells them.
    assert.deepEqual([...new Set(gcc.map((result) => result.properties.strings.severity))].sort(), [
      "error",
      "info",
      "style",
      "warning",
    ]);
  });

  it("yields the same events fed one byte at a time, and with Windows line ends", async () => {
    const whole = await eventsOf(readShellcheckGcc([GCC], { workDir: SUMMARY.workDir }));
    const bytes = [...Buffer.from(GCC)].map((byte) => Uint8Array.of(byte));
    assert.deepEqual(await eventsOf(readShellcheckGcc(bytes, { workDir: SUMMARY.workDir })), whole);
    const crlf = GCC.replaceAll("\n", "\r\n");
    assert.deepEqual(await eventsOf(readShellcheckGcc([crlf], { workDir: SUMMARY.workDir })), whole);
  });

  it("is told from its first line, head cut anywhere, and GCC's own text lines are not taken for it", () => {
    const firstLine = GCC.slice(0, GCC.indexOf("\n"));
    for (let cut = 0; cut < firstLine.length; cut++) {
      assert.equal(findingsFormatOf(GCC.slice(0, cut), false), null, `at ${cut}`);
    }
    assert.equal(findingsFormatOf(GCC.slice(0, firstLine.length + 1), false), "shellcheck-gcc");
    assert.equal(findingsFormatOf(firstLine, true), "shellcheck-gcc");
    const gccWarning = "src/ledger.c:12:9: warning: unused variable 'total' [-Wunused-variable]\n";
    assert.equal(findingsFormatOf(gccWarning, true), "sarif");
  });

  it("refuses a line that is not a comment, naming it", async () => {
    const text = `${GCC}make: *** [lint] Error 1\n`;
    await assert.rejects(eventsOf(readShellcheckGcc([text], { workDir: null })), (error: unknown) => {
      assert.ok(error instanceof ShellcheckFormatError);
      assert.equal(error.problem, "INVALID_STRUCTURE");
      assert.equal(error.output, "gcc");
      assert.match(
        error.message,
        /^line 21: "make: \*\*\* \[lint\] Error 1" is not a comment of ShellCheck's gcc output/,
      );
      return true;
    });
  });

  it("refuses the tty, diff and quiet outputs naming the outputs that are read", async () => {
    const named = /-f json1`, `-f gcc` or `-f checkstyle`/;
    const tty = await formatRead(readFixtureFile("checkstyle", "shellcheck/shellcheck.tty"), null);
    assert.ok(tty instanceof ShellcheckFormatError && tty.problem === "NOT_READ", String(tty));
    assert.match(tty.message, /ShellCheck's tty output/);
    assert.match(tty.message, named);
    const diffText = readFixtureFile("checkstyle", "shellcheck/shellcheck.diff");
    const diff = await formatRead(diffText, "shellcheck");
    assert.ok(diff instanceof ShellcheckFormatError && diff.problem === "NOT_READ", String(diff));
    assert.match(diff.message, /a patch/);
    assert.match(diff.message, named);
    // A diff under another analyzer is left to the SARIF reader (and the upload's wrong-format answer).
    assert.equal(findingsFormatOf(diffText, true, "eslint"), "sarif");
    const quiet = await formatRead("", "shellcheck");
    assert.ok(quiet instanceof ShellcheckFormatError && quiet.problem === "NOT_READ", String(quiet));
    assert.match(quiet.message, /-f quiet writes nothing/);
    assert.equal(findingsFormatOf("", true, "eslint"), "sarif");
  });
});
