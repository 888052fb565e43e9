// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findingsFormatOf, readFindings } from "../findings.ts";
import { FIXTURE_WORK_ROOT, readToolFixture, readToolSummary } from "../fixtures.ts";
import type { SarifEvent, SarifResult } from "../sarif/types.ts";
import { readShellcheckJson } from "../shellcheck/reader.ts";
import { producedRuleOf } from "./producers.ts";
import { CheckstyleFormatError, readCheckstyleXml } from "./reader.ts";

/**
 * The checkstyle XML reader and ShellCheck's JSON reader on what the real tools wrote
 * (fixtures/, made by `scripts/make-fixtures.sh checkstyle`), compared with each tool's own
 * output, and on each way a report can be wrong.
 */

interface Finding {
  file: string;
  line: number;
  column: number | null;
  severity: string;
  rule: string | null;
}

async function eventsOf(events: AsyncIterable<SarifEvent>): Promise<SarifEvent[]> {
  const all: SarifEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

function resultsOf(events: SarifEvent[]): SarifResult[] {
  return events.flatMap((event) => (event.type === "result" ? [event.result] : []));
}

async function readXml(text: string | string[], workDir: string | null = null): Promise<SarifEvent[]> {
  return eventsOf(readCheckstyleXml(Array.isArray(text) ? text : [text], { workDir }));
}

async function problemOf(text: string): Promise<{ problem: string; message: string }> {
  try {
    await readXml(text);
  } catch (error) {
    assert.ok(error instanceof CheckstyleFormatError, String(error));
    return { problem: error.problem, message: error.message };
  }
  assert.fail("the report was accepted");
}

/** Each byte of `text` as a chunk of its own. */
function bytesOf(text: string): Uint8Array[] {
  return [...Buffer.from(text)].map((byte) => Uint8Array.of(byte));
}

const WRAP = (inner: string) =>
  `<?xml version="1.0"?>\n<checkstyle version="4.3">\n${inner}\n</checkstyle>\n`;

describe("checkstyle XML of real tools", () => {
  for (const [tool, name, toolName] of [
    ["shellcheck", "shellcheck.xml", "shellcheck"],
    ["checkstyle", "checkstyle.xml", "checkstyle"],
    ["eslint", "eslint.xml", "eslint"],
    ["phpcs", "phpcs.xml", "phpcs"],
  ] as const) {
    it(`${tool}: one run named ${toolName}, a result per finding the tool printed, at its place`, async () => {
      const summary = readToolSummary("checkstyle", tool, name);
      const findings = (summary.figures as { findings: Finding[] }).findings;
      const events = await readXml(readToolFixture("checkstyle", tool, name), summary.workDir);
      const runs = events.flatMap((event) => (event.type === "run" ? [event.run.tool.name] : []));
      assert.deepEqual(runs, [toolName]);
      const places = resultsOf(events).map((result) => {
        const region = result.locations[0]!.region!;
        return `${result.locations[0]!.path}:${region.startLine}:${region.startColumn} ${result.ruleId}`;
      });
      const printed = findings
        .filter((finding) => finding.rule !== null)
        .map((finding) => `${finding.file}:${finding.line}:${finding.column} ${finding.rule}`);
      assert.deepEqual(places.sort(), printed.sort());
    });
  }

  it("reads the same events fed one byte at a time", async () => {
    const text = readToolFixture("checkstyle", "phpcs", "phpcs.xml");
    const workDir = `${FIXTURE_WORK_ROOT}/php-lint`;
    assert.deepEqual(
      await eventsOf(readCheckstyleXml(bytesOf(text), { workDir })),
      await readXml(text, workDir),
    );
  });

  it("keeps each tool's severity as the level and as properties.severity", async () => {
    const events = await readXml(readToolFixture("checkstyle", "checkstyle", "checkstyle.xml"));
    const levels = new Set(resultsOf(events).map((r) => `${r.properties.strings.severity}→${r.level}`));
    assert.deepEqual([...levels].sort(), ["error→error", "info→note", "warning→warning"]);
    const ignored = await readXml(
      WRAP('<file name="a.java"><error line="1" severity="ignore" message="m" source="x.y.ZCheck"/></file>'),
    );
    assert.equal(resultsOf(ignored)[0]!.level, "none");
  });

  it("files ESLint's unused eslint-disable directive (no source) as an error about its configuration", async () => {
    const events = await readXml(
      readToolFixture("checkstyle", "eslint", "eslint.xml"),
      `${FIXTURE_WORK_ROOT}/js-lint`,
    );
    const errors = events.flatMap((event) => (event.type === "toolError" ? [event.error] : []));
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.configuration, true);
    assert.equal(errors[0]!.path, "src/format.js");
    assert.match(errors[0]!.message, /^Unused eslint-disable directive/);
  });

  it("reads Checkstyle's <exception> as the tool's own error, not a finding", async () => {
    const events = await readXml(
      WRAP(
        '<file name="src/Broken.java"><exception><![CDATA[com.puppycrawl.tools.checkstyle.api.CheckstyleException: Exception was thrown while processing src/Broken.java]]></exception></file>',
      ),
    );
    assert.deepEqual(resultsOf(events), []);
    const error = events.find((event) => event.type === "toolError");
    assert.ok(error?.type === "toolError");
    assert.match(error.error.message, /^com\.puppycrawl\.tools\.checkstyle\.api\.CheckstyleException/);
    assert.equal(error.error.path, "src/Broken.java");
    const alone = await readXml(WRAP("<exception>java.lang.OutOfMemoryError</exception>"));
    assert.deepEqual(
      alone.flatMap((event) => (event.type === "toolError" ? [event.error] : [])),
      [{ runIndex: 0, message: "java.lang.OutOfMemoryError", path: null, line: null }],
    );
  });

  it("is one run of the tool checkstyle-xml when no error names its producer", async () => {
    const events = await readXml(WRAP('<file name="a.sh"></file>'));
    assert.deepEqual(events, [
      {
        type: "run",
        run: {
          index: 0,
          tool: { name: "checkstyle-xml", version: null, informationUri: null, rules: [], extensions: [] },
        },
      },
    ]);
  });
});

describe("the producer of a checkstyle error, by its source", () => {
  it("tells ShellCheck, ESLint, Checkstyle and phpcs apart, each rule in the tool's own words", () => {
    assert.deepEqual(producedRuleOf("ShellCheck.SC2086"), {
      producer: "shellcheck",
      ruleId: "SC2086",
      properties: {},
    });
    assert.deepEqual(producedRuleOf("eslint.rules.no-var"), {
      producer: "eslint",
      ruleId: "no-var",
      properties: {},
    });
    assert.deepEqual(producedRuleOf("com.puppycrawl.tools.checkstyle.checks.naming.ConstantNameCheck"), {
      producer: "checkstyle",
      ruleId: "ConstantName",
      properties: { checkPackage: "naming" },
    });
    assert.deepEqual(producedRuleOf("com.puppycrawl.tools.checkstyle.checks.NewlineAtEndOfFileCheck"), {
      producer: "checkstyle",
      ruleId: "NewlineAtEndOfFile",
      properties: {},
    });
    assert.deepEqual(producedRuleOf("PSR12.Files.FileHeader.SpacingAfterBlock"), {
      producer: "phpcs",
      ruleId: "PSR12.Files.FileHeader.SpacingAfterBlock",
      properties: { sniffCategory: "Files" },
    });
    assert.deepEqual(producedRuleOf("ktlint:standard:indent"), {
      producer: "other",
      ruleId: "ktlint:standard:indent",
      properties: {},
    });
  });

  it("reads the tools' own failures as no rule", () => {
    assert.equal(producedRuleOf("com.puppycrawl.tools.checkstyle.TreeWalker").ruleId, null);
    assert.equal(producedRuleOf("Internal.Tokenizer.Exception").ruleId, null);
    assert.equal(producedRuleOf("").ruleId, null);
    assert.equal(producedRuleOf(undefined).ruleId, null);
  });
});

describe("checkstyle XML that is refused", () => {
  it("names malformed XML, and the line", async () => {
    const { problem, message } = await problemOf(
      WRAP('<file name="a"><error line="1" severity="error"</file>'),
    );
    assert.equal(problem, "INVALID_XML");
    assert.match(message, /^line 3: invalid XML/);
  });

  it("names the root of XML that is not checkstyle", async () => {
    const { problem, message } = await problemOf('<?xml version="1.0"?><project><file/></project>');
    assert.equal(problem, "NOT_CHECKSTYLE");
    assert.match(message, /root element <project>, not a checkstyle report/);
  });

  it("refuses a DOCTYPE that declares entities (billion laughs) before expanding anything", async () => {
    const lol = [
      '<!ENTITY lol "lol">',
      ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ""};`.repeat(10)}">`),
    ].join("\n");
    const text = `<?xml version="1.0"?>\n<!DOCTYPE checkstyle [\n${lol}\n]>\n<checkstyle><file name="a"><error line="1" severity="error" message="&lol9;" source="x"/></file></checkstyle>`;
    const { problem, message } = await problemOf(text);
    assert.equal(problem, "INVALID_XML");
    assert.match(message, /DOCTYPE with an internal subset/);
    // The format is still told apart from cppcheck's by its root, past the DOCTYPE.
    assert.equal(findingsFormatOf(text, false), "checkstyle-xml");
  });

  it("refuses an entity the document does not define", async () => {
    const { problem } = await problemOf(
      WRAP('<file name="a"><error line="1" severity="error" message="&x;"/></file>'),
    );
    assert.equal(problem, "INVALID_XML");
  });

  it("names a truncated report, an empty one and text after the root", async () => {
    assert.equal((await problemOf('<checkstyle><file name="a">')).problem, "TRUNCATED");
    assert.equal((await problemOf("")).problem, "INVALID_XML");
    assert.equal((await problemOf("<checkstyle/><checkstyle/>")).problem, "INVALID_XML");
  });

  it("names an unknown severity, an error outside a file and a file without a name", async () => {
    const severity = await problemOf(
      WRAP('<file name="a"><error line="1" severity="fatal" message="m"/></file>'),
    );
    assert.equal(severity.problem, "INVALID_STRUCTURE");
    assert.match(
      severity.message,
      /severity "fatal"; the format's severities are error, warning, info and ignore/,
    );
    assert.equal(
      (await problemOf(WRAP('<error line="1" severity="error" message="m"/>'))).problem,
      "INVALID_STRUCTURE",
    );
    assert.equal((await problemOf(WRAP("<file></file>"))).problem, "INVALID_STRUCTURE");
  });

  it("refuses text that is not UTF-8", async () => {
    await assert.rejects(
      eventsOf(
        readCheckstyleXml(
          [Buffer.from("<checkstyle>"), Uint8Array.of(0xff, 0xfe), Buffer.from("</checkstyle>")],
          { workDir: null },
        ),
      ),
      { problem: "INVALID_XML", message: "the report is not valid UTF-8 text." },
    );
  });

  it("reads a large report as a stream, yielding results before the end", async () => {
    const error = '<error line="3" column="1" severity="warning" message="m" source="ShellCheck.SC2086"/>';
    async function* chunks(): AsyncGenerator<string> {
      yield '<?xml version="1.0"?><checkstyle version="4.3">';
      for (let i = 0; i < 2000; i++) yield `<file name="f${i}.sh">${error.repeat(50)}</file>`;
      yield "</checkstyle>";
    }
    let results = 0;
    let firstAfterChunks = -1;
    let fed = 0;
    const counted = (async function* () {
      for await (const chunk of chunks()) {
        fed += 1;
        yield chunk;
      }
    })();
    for await (const event of readCheckstyleXml(counted, { workDir: null })) {
      if (event.type !== "result") continue;
      if (results === 0) firstAfterChunks = fed;
      results += 1;
    }
    assert.equal(results, 100_000);
    assert.ok(firstAfterChunks < 5, `the first result came after ${firstAfterChunks} chunks`);
  });
});

describe("ShellCheck's json1 and json", () => {
  const summary = readToolSummary("checkstyle", "shellcheck", "shellcheck.json1");
  const findings = (summary.figures as { findings: Finding[] }).findings;

  it("json1: a result per comment ShellCheck printed, at its line and column, with its level", async () => {
    const text = readToolFixture("checkstyle", "shellcheck", "shellcheck.json1");
    const events = await eventsOf(readShellcheckJson([text], { form: "json1", workDir: summary.workDir }));
    const level = { error: "error", warning: "warning", note: "note" } as Record<string, string>;
    const read = resultsOf(events).map((r) => {
      const region = r.locations[0]!.region!;
      return `${r.locations[0]!.path}:${region.startLine}:${region.startColumn} ${r.ruleId} ${r.level}`;
    });
    const printed = findings.map((f) => `${f.file}:${f.line}:${f.column} ${f.rule} ${level[f.severity]}`);
    assert.deepEqual(read.sort(), printed.sort());
    const severities = new Set(resultsOf(events).map((r) => r.properties.strings.severity));
    assert.deepEqual([...severities].sort(), ["error", "info", "style", "warning"]);
  });

  it("json: the same comments at their lines, without json's tab-expanded columns", async () => {
    const text = readToolFixture("checkstyle", "shellcheck", "shellcheck.json");
    const events = await eventsOf(
      readShellcheckJson(bytesOf(text), { form: "json", workDir: summary.workDir }),
    );
    const read = resultsOf(events).map((r) => {
      const region = r.locations[0]!.region!;
      return `${r.locations[0]!.path}:${region.startLine}:${region.startColumn} ${r.ruleId}`;
    });
    assert.deepEqual(read.sort(), findings.map((f) => `${f.file}:${f.line}:null ${f.rule}`).sort());
  });

  it("is told apart from SARIF and GCC's list by its head, however it is cut", () => {
    const json1 = readToolFixture("checkstyle", "shellcheck", "shellcheck.json1");
    const json = readToolFixture("checkstyle", "shellcheck", "shellcheck.json");
    for (let cut = 0; cut < 20; cut++) {
      assert.ok(
        [null, "shellcheck-json1"].includes(findingsFormatOf(json1.slice(0, cut), false)),
        `json1 at ${cut}`,
      );
      assert.ok(
        [null, "shellcheck-json"].includes(findingsFormatOf(json.slice(0, cut), false)),
        `json at ${cut}`,
      );
    }
    assert.equal(findingsFormatOf('{"comments":[]}', true), "shellcheck-json1");
    assert.equal(findingsFormatOf('{"version":"2.1.0","runs":[]}', true), "sarif");
    assert.equal(findingsFormatOf('[{"kind":"warning"}]', true), "gcc-json");
    // An empty list: several in a row are GCC's; one alone is the tool's the upload names, else no tool's.
    assert.equal(findingsFormatOf("[]\n[]\n", true), "gcc-json");
    assert.equal(findingsFormatOf("[]", true), "empty-list");
    assert.equal(findingsFormatOf("[]\n", false), null, "a list may follow");
    assert.equal(findingsFormatOf("[]", true, "shellcheck"), "shellcheck-json");
    assert.equal(findingsFormatOf("[]", true, "pylint"), "pylint-json");
    assert.equal(findingsFormatOf("[]", true, "gcc"), "gcc-json");
  });

  it("reads an empty report (no comments) as a run without results", async () => {
    const events = await eventsOf(readFindings(['{"comments":[]}\n'], { workDir: null }));
    assert.deepEqual(
      events.map((event) => event.type),
      ["run"],
    );
  });

  it("refuses JSON that is invalid, truncated, or not ShellCheck's comments, naming the comment", async () => {
    const read = (text: string, form: "json1" | "json" = "json1") =>
      eventsOf(readShellcheckJson([text], { form, workDir: null }));
    await assert.rejects(read('{"comments":[{"file":"a.sh",'), { problem: "INVALID_JSON" });
    await assert.rejects(read('{"comments":[}'), { problem: "INVALID_JSON" });
    await assert.rejects(read('{"comments":{}}'), { problem: "INVALID_STRUCTURE" });
    await assert.rejects(read('{"other":[]}'), { problem: "INVALID_STRUCTURE" });
    await assert.rejects(
      read('{"comments":[{"file":"a.sh","line":1,"column":1,"level":"fatal","code":1,"message":"m"}]}'),
      {
        problem: "INVALID_STRUCTURE",
        message: 'comment 1: its level "fatal" is not error, warning, info or style.',
      },
    );
    await assert.rejects(read('[{"file":"a.sh","line":1,"level":"info","message":"m"}]', "json"), {
      problem: "INVALID_STRUCTURE",
      message: 'comment 1: it has no numeric "code".',
    });
  });
});
