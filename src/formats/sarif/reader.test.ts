// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readSarif } from "./reader.ts";
import { type SarifEvent, SarifFormatError, type SarifResult } from "./types.ts";

/** Feeds the text in small byte chunks, so values straddle chunk boundaries. */
function* chunked(text: string, size = 7): Generator<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

async function readAll(document: unknown, workDir: string | null = "/work/repo"): Promise<SarifEvent[]> {
  const text = typeof document === "string" ? document : JSON.stringify(document);
  const events: SarifEvent[] = [];
  for await (const event of readSarif(chunked(text), { workDir })) events.push(event);
  return events;
}

function results(events: SarifEvent[]): SarifResult[] {
  return events.flatMap((event) => (event.type === "result" ? [event.result] : []));
}

async function rejection(document: unknown): Promise<SarifFormatError> {
  try {
    await readAll(document);
  } catch (error) {
    assert.ok(error instanceof SarifFormatError, `expected a SarifFormatError, got ${String(error)}`);
    return error;
  }
  assert.fail("the document was accepted");
}

const driver = {
  name: "demo",
  version: "1.2.3",
  rules: [
    {
      id: "js/xss",
      name: "Xss",
      shortDescription: { text: "Cross-site scripting" },
      fullDescription: { text: "Writing user input to a page allows XSS." },
      help: { text: "Escape it.", markdown: "**Escape** it." },
      defaultConfiguration: { level: "error" },
      properties: {
        tags: ["security", "external/cwe/cwe-079"],
        "security-severity": "6.1",
        precision: "high",
        "problem.severity": "error",
        kind: "path-problem",
        description: "x".repeat(300),
      },
      relationships: [
        { target: { id: "79", toolComponent: { name: "CWE" } }, kinds: ["superset"] },
        { target: { id: "CWE-116", index: 3 } },
        { target: { toolComponent: { name: "CWE" } } },
      ],
      messageStrings: { default: { text: "Value {0} flows to {1}." } },
    },
    { id: "style/semi" },
  ],
};

function result(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ruleId: "js/xss",
    message: { text: "XSS here" },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: "src/a.js" },
          region: { startLine: 3, startColumn: 5, endColumn: 9 },
        },
      },
    ],
    ...extra,
  };
}

describe("readSarif", () => {
  it("finds a result's rule among a tool extension's rules (CodeQL's query packs), by index or by name", async () => {
    // The shape of CodeQL's output: the driver describes no rule, each query pack is an extension
    // of its own, and a result names its rule's pack in rule.toolComponent (SARIF §3.52.7).
    const events = await readAll({
      version: "2.1.0",
      runs: [
        {
          tool: {
            driver: { name: "CodeQL", semanticVersion: "2.19.0" },
            extensions: [
              {
                name: "codeql/javascript-queries",
                rules: [{ id: "js/unused-local-variable" }, driver.rules[0]],
              },
              {
                name: "custom/pack",
                rules: [{ id: "custom/rule", defaultConfiguration: { level: "note" } }],
              },
            ],
          },
          results: [
            result({ ruleIndex: 1, rule: { id: "js/xss", index: 1, toolComponent: { index: 0 } } }),
            result({
              ruleId: "custom/rule",
              rule: { id: "custom/rule", toolComponent: { name: "custom/pack" } },
            }),
          ],
        },
      ],
    });
    const run = events.find((event) => event.type === "run");
    assert.deepEqual(
      run?.type === "run" ? run.run.tool.extensions.map((e) => [e.name, e.rules.length]) : null,
      [
        ["codeql/javascript-queries", 2],
        ["custom/pack", 1],
      ],
    );
    const [xss, custom] = results(events);
    assert.equal(xss?.rule?.id, "js/xss");
    assert.equal(xss?.rule?.properties.securitySeverity, 6.1);
    assert.equal(xss?.level, "error", "the extension rule's default level");
    assert.equal(custom?.rule?.id, "custom/rule");
    assert.equal(custom?.level, "note");
  });

  it("yields the run's driver with its rules, then the results in order", async () => {
    const events = await readAll({
      version: "2.1.0",
      runs: [{ tool: { driver }, results: [result(), result({ ruleId: "style/semi", level: "note" })] }],
    });
    assert.deepEqual(
      events.map((event) => event.type),
      ["run", "result", "result"],
    );
    const run = events[0]?.type === "run" ? events[0].run : assert.fail("no run first");
    assert.equal(run.tool.name, "demo");
    assert.equal(run.tool.version, "1.2.3");
    assert.deepEqual(run.tool.rules[0], {
      id: "js/xss",
      index: 0,
      name: "Xss",
      shortDescription: "Cross-site scripting",
      fullDescription: "Writing user input to a page allows XSS.",
      help: "**Escape** it.",
      helpUri: null,
      defaultLevel: "error",
      properties: {
        tags: ["security", "external/cwe/cwe-079"],
        securitySeverity: 6.1,
        precision: "high",
        problemSeverity: "error",
        strings: { kind: "path-problem" },
      },
      taxa: [
        { id: "79", taxonomy: "CWE" },
        { id: "CWE-116", taxonomy: null },
      ],
      messageStrings: { default: "Value {0} flows to {1}." },
    });
    const [first, second] = results(events);
    assert.equal(first?.rule?.id, "js/xss");
    assert.equal(first?.level, "error", "the rule's default level applies");
    assert.deepEqual(first?.locations[0]?.region, {
      startLine: 3,
      startColumn: 5,
      endLine: 3,
      endColumn: 9,
      snippet: null,
    });
    assert.equal(first?.locations[0]?.path, "src/a.js");
    assert.equal(second?.level, "note");
    assert.equal(second?.rule?.index, 1);
  });

  it("reads a result's own level, kind, properties and taxa apart from its rule's", async () => {
    const events = await readAll({
      version: "2.1.0",
      runs: [
        {
          tool: { driver },
          results: [
            result(),
            result({
              level: "warning",
              kind: "review",
              properties: { tags: ["aws"], "security-severity": 9.1, issue_severity: "HIGH", count: 3 },
              taxa: [{ id: "798", toolComponent: { name: "CWE" } }, { index: 2 }],
            }),
            result({ kind: "pass" }),
            result({ kind: "whatever" }),
          ],
        },
      ],
    });
    const [inferred, own, passed, unknownKind] = results(events);
    assert.deepEqual([inferred?.level, inferred?.ownLevel, inferred?.kind], ["error", null, "fail"]);
    assert.deepEqual(inferred?.properties, {
      tags: [],
      securitySeverity: null,
      precision: null,
      problemSeverity: null,
      strings: {},
    });
    assert.deepEqual([own?.level, own?.ownLevel, own?.kind], ["warning", "warning", "review"]);
    assert.deepEqual(own?.properties, {
      tags: ["aws"],
      securitySeverity: 9.1,
      precision: null,
      problemSeverity: null,
      strings: { issue_severity: "HIGH" },
    });
    assert.deepEqual(own?.taxa, [{ id: "798", taxonomy: "CWE" }]);
    assert.deepEqual([passed?.kind, passed?.level], ["pass", "none"]);
    assert.equal(unknownKind?.kind, "fail", "an unknown kind counts as the default");
  });

  it("reads several runs, each result under its own run", async () => {
    const other = { name: "second", rules: [{ id: "B1" }] };
    const events = await readAll({
      version: "2.1.0",
      runs: [
        { tool: { driver }, results: [result()] },
        {
          tool: { driver: other },
          results: [
            { ruleId: "B1", message: { text: "b" } },
            { ruleIndex: 0, message: { text: "c" } },
          ],
        },
        { tool: { driver: other }, results: [] },
      ],
    });
    assert.deepEqual(
      events.map((event) =>
        event.type === "run"
          ? `run ${event.run.index} ${event.run.tool.name}`
          : event.type === "result"
            ? `result ${event.result.runIndex} ${event.result.ruleId}`
            : "tool error",
      ),
      ["run 0 demo", "result 0 js/xss", "run 1 second", "result 1 B1", "result 1 B1", "run 2 second"],
    );
  });

  it("reads the tool's own errors from its invocations, leaving notes and warnings; those of its configuration marked", async () => {
    const events = await readAll({
      version: "2.1.0",
      runs: [
        {
          tool: { driver: { name: "t" } },
          invocations: [
            {
              executionSuccessful: false,
              toolConfigurationNotifications: [
                {
                  level: "error",
                  message: { text: "the configuration names a rule 'x' the tool does not have" },
                  locations: [
                    {
                      physicalLocation: {
                        artifactLocation: { uri: "file:///work/repo/src/a.js" },
                        region: { startLine: 4 },
                      },
                    },
                  ],
                },
                { level: "warning", message: { text: "deprecated option" } },
              ],
              toolExecutionNotifications: [
                { level: "error", message: { text: "rule crashed" } },
                { message: { text: "a note without a level is a warning" } },
              ],
            },
          ],
          results: [],
        },
      ],
    });
    assert.deepEqual(
      events.flatMap((event) => (event.type === "toolError" ? [event.error] : [])),
      [
        {
          runIndex: 0,
          message: "the configuration names a rule 'x' the tool does not have",
          path: "src/a.js",
          line: 4,
          configuration: true,
        },
        { runIndex: 0, message: "rule crashed", path: null, line: null },
      ],
    );
  });

  it("accepts a location without a region and a result without locations", async () => {
    const events = await readAll({
      version: "2.1.0",
      runs: [
        {
          tool: { driver },
          results: [
            result({ locations: [{ physicalLocation: { artifactLocation: { uri: "README.md" } } }] }),
            result({ locations: undefined }),
          ],
        },
      ],
    });
    const [whole, none] = results(events);
    assert.equal(whole?.locations[0]?.path, "README.md");
    assert.equal(whole?.locations[0]?.region, null);
    assert.deepEqual(none?.locations, []);
  });

  it("resolves percent-encoded, file:// and base-id URIs to repository paths", async () => {
    const events = await readAll({
      version: "2.1.0",
      runs: [
        {
          tool: { driver },
          originalUriBaseIds: {
            ROOT: { uri: "file:///work/repo/" },
            SRC: { uri: "src%20dir/", uriBaseId: "ROOT" },
          },
          results: [
            result({
              locations: [
                { physicalLocation: { artifactLocation: { uri: "caf%C3%A9.js", uriBaseId: "SRC" } } },
              ],
            }),
            result({
              locations: [{ physicalLocation: { artifactLocation: { uri: "file:///work/repo/lib/x.js" } } }],
            }),
            result({
              locations: [{ physicalLocation: { artifactLocation: { uri: "file:///usr/lib/node/y.js" } } }],
            }),
          ],
        },
      ],
    });
    assert.deepEqual(
      results(events).map((r) => [r.locations[0]?.path, r.locations[0]?.outsideRepository]),
      [
        ["src dir/café.js", false],
        ["lib/x.js", false],
        ["/usr/lib/node/y.js", true],
      ],
    );
  });

  it("keeps baselineState, suppressions, fingerprints and related locations", async () => {
    const events = await readAll({
      version: "2.1.0",
      runs: [
        {
          tool: { driver },
          results: [
            result({
              baselineState: "unchanged",
              suppressions: [{ kind: "inSource", justification: "false positive" }],
              partialFingerprints: { primaryLocationLineHash: "abc:1", ignored: 3 },
              fingerprints: { "0": "f" },
              relatedLocations: [
                {
                  id: 1,
                  message: { text: "source" },
                  physicalLocation: { artifactLocation: { uri: "src/b.js" }, region: { startLine: 9 } },
                },
              ],
            }),
            result({ baselineState: "new", suppressions: [{ kind: "external", status: "underReview" }] }),
            result({ baselineState: "bogus", suppressions: [{ kind: "external", status: "rejected" }] }),
          ],
        },
      ],
    });
    const [unchanged, review, rejected] = results(events);
    assert.equal(unchanged?.baselineState, "unchanged");
    assert.deepEqual(unchanged?.suppressions, [
      { kind: "inSource", status: null, justification: "false positive" },
    ]);
    assert.equal(unchanged?.isSuppressed, true);
    assert.deepEqual(unchanged?.partialFingerprints, { primaryLocationLineHash: "abc:1" });
    assert.deepEqual(unchanged?.fingerprints, { "0": "f" });
    assert.deepEqual(unchanged?.relatedLocations, [
      {
        path: "src/b.js",
        outsideRepository: false,
        uri: "src/b.js",
        uriBaseId: null,
        region: { startLine: 9, startColumn: null, endLine: 9, endColumn: null, snippet: null },
        message: "source",
        id: 1,
      },
    ]);
    assert.equal(review?.baselineState, "new");
    assert.equal(review?.isSuppressed, false, "under review is not suppressed yet");
    assert.equal(rejected?.baselineState, null);
    assert.equal(rejected?.isSuppressed, false);
  });

  it("buffers results that come before the tool and yields them after the run header", async () => {
    const text = `{"runs":[{"results":[${JSON.stringify(result())},${JSON.stringify({ rule: { index: 1 }, message: { text: "s" } })}],"tool":${JSON.stringify({ driver })}}],"version":"2.1.0"}`;
    const events = await readAll(text);
    assert.deepEqual(
      events.map((event) => (event.type === "result" ? event.result.ruleId : event.type)),
      ["run", "js/xss", "style/semi"],
    );
  });

  it("fills message strings from the rule with the result's arguments", async () => {
    const events = await readAll({
      version: "2.1.0",
      runs: [
        { tool: { driver }, results: [result({ message: { id: "default", arguments: ["x", "html"] } })] },
      ],
    });
    assert.equal(results(events)[0]?.message, "Value x flows to html.");
  });

  it("resolves a rule id that the driver does not describe to no rule", async () => {
    const events = await readAll({
      version: "2.1.0",
      runs: [{ tool: { driver }, results: [result({ ruleId: "unknown" })] }],
    });
    assert.equal(results(events)[0]?.rule, null);
    assert.equal(results(events)[0]?.level, "warning");
  });

  it("reads a large chunk piece by piece, whole characters at every cut, turning the event loop between pieces", async () => {
    // Messages of emoji (two UTF-16 units, four bytes each) lie across the 64 Ki cuts; with and
    // without a leading space, a cut of the text falls inside a pair at least once.
    const message = `${"😀".repeat(10_000)}x`;
    const document = {
      version: "2.1.0",
      runs: [
        {
          tool: { driver },
          results: Array.from({ length: 8 }, () => result({ message: { text: message } })),
        },
      ],
    };
    const text = JSON.stringify(document);
    for (const chunk of [text, ` ${text}`, Buffer.from(text)]) {
      let turns = 0;
      const ticker = setInterval(() => {
        turns += 1;
      }, 0);
      const events: SarifEvent[] = [];
      try {
        for await (const event of readSarif([chunk], { workDir: null })) events.push(event);
      } finally {
        clearInterval(ticker);
      }
      assert.deepEqual(
        results(events).map((r) => r.message),
        Array.from({ length: 8 }, () => message),
      );
      assert.ok(turns > 0, "timers ran while one chunk was read");
    }
  });
});

describe("readSarif rejects", () => {
  it("another version, naming it", async () => {
    const error = await rejection({ version: "2.0.0", runs: [] });
    assert.equal(error.problem, "UNSUPPORTED_VERSION");
    assert.match(error.message, /"2\.0\.0"/);
  });

  it("a version that comes after the runs", async () => {
    const error = await rejection(
      `{"runs":[{"tool":${JSON.stringify({ driver })},"results":[]}],"version":"1.0.0"}`,
    );
    assert.equal(error.problem, "UNSUPPORTED_VERSION");
  });

  it("a log without version", async () => {
    assert.equal((await rejection({ runs: [] })).problem, "MISSING_VERSION");
  });

  it("a log without runs", async () => {
    const error = await rejection({ version: "2.1.0" });
    assert.equal(error.problem, "MISSING_RUNS");
    assert.match(error.message, /"runs"/);
  });

  it("invalid JSON, with the byte where reading stopped", async () => {
    const error = await rejection('{"version":"2.1.0","runs":[tru]}');
    assert.equal(error.problem, "INVALID_JSON");
    assert.equal(error.message, 'Invalid JSON at byte 30: unexpected "]".');
    const cut = await rejection('{"version":"2.1.0","runs":[');
    assert.equal(cut.problem, "INVALID_JSON");
    assert.match(cut.message, /ends at byte 27 before its value is complete/);
    assert.equal((await rejection("")).problem, "INVALID_JSON");
  });

  it("a text that is not JSON at all is refused at byte 0, not at its end", async () => {
    const error = await rejection("TN:\nSF:/repo/src/a.js\nDA:1,1\nend_of_record\n".repeat(500));
    assert.equal(error.message, 'Invalid JSON at byte 0: unexpected "T".');
  });

  it("an error in the middle of a large document names its byte, whatever the chunking", async () => {
    const log = JSON.stringify({
      version: "2.1.0",
      runs: [
        {
          tool: { driver },
          results: Array.from({ length: 20_000 }, (_, i) => result({ message: { text: `finding ${i}` } })),
        },
      ],
    });
    const at = log.indexOf('"finding 12345"');
    assert.ok(at > 1_000_000, "the error lies past the first megabyte");
    const broken = `${log.slice(0, at)}@${log.slice(at)}`;
    for (const size of [997, 65_536, 1_000_003]) {
      await assert.rejects(
        (async () => {
          for await (const _ of readSarif(chunked(broken, size))) {
            // Results before the error are yielded; the error comes at byte `at`.
          }
        })(),
        {
          name: "SarifFormatError",
          problem: "INVALID_JSON",
          message: `Invalid JSON at byte ${at}: unexpected "@".`,
        },
      );
    }
    // A token out of place: its first byte is named.
    const misplaced = `${log.slice(0, at)}"x",${log.slice(at)}`;
    await assert.rejects(
      (async () => {
        for await (const _ of readSarif(chunked(misplaced, 65_536))) {
          // Drains the reader.
        }
      })(),
      (error: unknown) => {
        assert.ok(error instanceof SarifFormatError);
        const byte = Number(/at byte (\d+)/.exec(error.message)?.[1]);
        assert.ok(byte > at && byte < at + 40, `${error.message} points just after byte ${at}`);
        return true;
      },
    );
  });

  it("a result without ruleId and rule, naming the result", async () => {
    const error = await rejection({
      version: "2.1.0",
      runs: [{ tool: { driver }, results: [result(), { message: { text: "?" } }] }],
    });
    assert.equal(error.problem, "MISSING_RULE");
    assert.match(error.message, /runs\[0\]\.results\[1\]/);
  });

  it("a result naming a tool extension the tool does not have", async () => {
    const error = await rejection({
      version: "2.1.0",
      runs: [
        {
          tool: { driver: { name: "CodeQL" } },
          results: [result({ rule: { id: "js/xss", index: 0, toolComponent: { index: 1 } } })],
        },
      ],
    });
    assert.equal(error.problem, "MISSING_RULE");
    assert.match(error.message, /refers to tool extension 1, but the tool has 0 extensions/);
  });

  it("a rule index past the driver's rules", async () => {
    const error = await rejection({
      version: "2.1.0",
      runs: [{ tool: { driver }, results: [{ ruleIndex: 5, message: { text: "?" } }] }],
    });
    assert.equal(error.problem, "MISSING_RULE");
  });

  it("a run without tool", async () => {
    const error = await rejection({
      version: "2.1.0",
      runs: [{ tool: { driver }, results: [] }, { results: [result()] }],
    });
    assert.equal(error.problem, "MISSING_TOOL");
    assert.match(error.message, /runs\[1\]/);
  });
});
