// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readSarif, type SarifChunk } from "./reader.ts";
import { readSarifWithStreamparser } from "./reference-reader.ts";
import { type SarifEvent, SarifFormatError } from "./types.ts";

/**
 * readSarif against the reader it replaced (reference-reader.ts, on @streamparser/json): random
 * SARIF logs, valid and corrupted, fed in random cuts as bytes, as text and as both, must give
 * the same events and the same error, message for message. Seeded, so a failure repeats.
 */

/** A small seeded generator (mulberry32). */
class Random {
  constructor(private state: number) {}

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  below(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }
}

/**
 * JSON as the generator writes it: objects as lists of members (so keys can repeat and keep their
 * order), numbers as their text.
 */
type Json = null | boolean | string | { number: string } | Json[] | { members: Array<[string, Json]> };

const obj = (...members: Array<[string, Json] | null>): Json => ({
  members: members.filter((m): m is [string, Json] => m !== null),
});
const num = (value: number | string): Json => ({ number: String(value) });

const WORDS = [
  "a",
  "src",
  "é",
  "漢字",
  "😀",
  "x y",
  "tab\there",
  'quote"d',
  "back\\slash",
  "\u0001",
  "\ud800",
  "/",
];

function randomText(random: Random, words = 3): string {
  return Array.from({ length: random.below(words + 1) }, () => random.pick(WORDS)).join(
    random.pick(["", " ", "/"]),
  );
}

function randomNumber(random: Random): Json {
  return num(
    random.pick([
      "0",
      "-0",
      "7",
      "-12",
      "3.25",
      "1e3",
      "2E-2",
      "-0.5e+10",
      "123456789012345678901234567890",
      "1e400",
    ]),
  );
}

/** Anything, for the parts of a log the reader skips (or reads and must treat as it did). */
function randomValue(random: Random, depth: number): Json {
  const kind = random.below(depth > 3 ? 5 : 7);
  if (kind === 0) return null;
  if (kind === 1) return random.chance(0.5);
  if (kind === 2) return randomText(random);
  if (kind === 3 || kind === 4) return randomNumber(random);
  if (kind === 5) return Array.from({ length: random.below(4) }, () => randomValue(random, depth + 1));
  const keys = ["k", "__proto__", "uri", "text", "results", "tool", "version", "runs", "é"];
  return obj(
    ...Array.from({ length: random.below(4) }, (): [string, Json] => [
      random.pick(keys),
      randomValue(random, depth + 1),
    ]),
  );
}

/** Mostly what the key should hold; now and then something else, so the reader's checks are met. */
function sometimes(random: Random, value: () => Json, p = 0.04): Json {
  return random.chance(p) ? randomValue(random, 2) : value();
}

function randomRule(random: Random, index: number): Json {
  return obj(
    ["id", sometimes(random, () => `rule-${index}`, 0.01)],
    random.chance(0.3) ? ["name", randomText(random)] : null,
    random.chance(0.4) ? ["shortDescription", obj(["text", randomText(random)])] : null,
    random.chance(0.4)
      ? ["defaultConfiguration", obj(["level", random.pick(["error", "warning", "note", "none", "x"])])]
      : null,
    random.chance(0.4)
      ? [
          "properties",
          obj(
            ["tags", [random.pick(["security", "external/cwe/cwe-79", "style"]), randomText(random)]],
            random.chance(0.5) ? ["security-severity", random.pick<Json>(["6.1", num(9.5), "x"])] : null,
            random.chance(0.3) ? ["precision", "high"] : null,
          ),
        ]
      : null,
    random.chance(0.2)
      ? ["messageStrings", obj(["default", obj(["text", "Value {0} flows to {1}."])])]
      : null,
    random.chance(0.2)
      ? ["relationships", [obj(["target", obj(["id", "79"], ["toolComponent", obj(["name", "CWE"])])])]]
      : null,
  );
}

function randomLocation(random: Random): Json {
  const uri = random.pick([
    "src/a.js",
    "caf%C3%A9.js",
    "file:///work/repo/lib/x.js",
    "/usr/y.js",
    "../up.js",
    "a%ZZ",
  ]);
  return obj(
    [
      "physicalLocation",
      obj(
        [
          "artifactLocation",
          obj(
            ["uri", uri],
            random.chance(0.5) ? ["uriBaseId", random.pick(["SRC", "ROOT", "%SRCROOT%"])] : null,
          ),
        ],
        random.chance(0.8)
          ? [
              "region",
              obj(
                ["startLine", sometimes(random, () => num(1 + random.below(500)))],
                random.chance(0.5) ? ["startColumn", num(1 + random.below(80))] : null,
                random.chance(0.3) ? ["snippet", obj(["text", randomText(random)])] : null,
              ),
            ]
          : null,
      ),
    ],
    random.chance(0.2) ? ["message", obj(["text", randomText(random)])] : null,
    random.chance(0.1) ? ["id", randomNumber(random)] : null,
  );
}

function randomResult(random: Random, rules: number): Json {
  if (random.chance(0.003)) return randomValue(random, 3);
  const rule = random.below(rules + 1);
  return obj(
    random.chance(0.99) ? ["ruleId", `rule-${rule}`] : null,
    rules > 0 && random.chance(0.3)
      ? ["ruleIndex", num(random.chance(0.99) ? Math.min(rule, rules - 1) : 99)]
      : null,
    random.chance(0.1) ? ["rule", obj(["id", `rule-${rule}`], ["index", num(0)])] : null,
    random.chance(0.5) ? ["level", random.pick(["error", "warning", "note", "none", "bogus"])] : null,
    random.chance(0.1) ? ["kind", random.pick(["pass", "review", "fail", "x"])] : null,
    [
      "message",
      random.chance(0.9)
        ? obj(["text", randomText(random, 6)])
        : obj(["id", random.pick(["default", "default", "other", "__proto__"])], ["arguments", ["x", "y"]]),
    ],
    random.chance(0.9) ? ["locations", sometimes(random, () => [randomLocation(random)], 0.01)] : null,
    random.chance(0.1) ? ["relatedLocations", [randomLocation(random), randomLocation(random)]] : null,
    random.chance(0.1)
      ? ["suppressions", [obj(["kind", "external"], ["status", random.pick(["accepted", "underReview"])])]]
      : null,
    random.chance(0.2)
      ? ["partialFingerprints", obj(["primaryLocationLineHash", `${random.below(1e6)}:1`], ["n", num(3)])]
      : null,
    random.chance(0.1) ? ["properties", randomValue(random, 2)] : null,
    random.chance(0.1) ? ["codeFlows", randomValue(random, 1)] : null,
  );
}

function randomRun(random: Random, results: number): Json {
  const rules = random.below(4);
  const members: Array<[string, Json]> = [];
  if (random.chance(0.97)) {
    const driver = obj(
      ["name", sometimes(random, () => random.pick(["ESLint", "CodeQL", "demo"]), 0.02)],
      random.chance(0.5) ? ["version", "1.2.3"] : null,
      ["rules", Array.from({ length: rules }, (_, i) => randomRule(random, i))],
    );
    const extensions = random.chance(0.1)
      ? [["extensions", [obj(["name", "pack"], ["rules", [randomRule(random, 0)]])]] as [string, Json]]
      : [];
    members.push(["tool", sometimes(random, () => obj(["driver", driver], ...extensions), 0.02)]);
  }
  const resultsValue = random.chance(0.02)
    ? random.pick<Json>([null, "none", num(0), obj()])
    : Array.from({ length: results }, () => randomResult(random, rules));
  if (random.chance(0.95)) members.push(["results", resultsValue]);
  if (random.chance(0.3)) {
    members.push([
      "originalUriBaseIds",
      sometimes(random, () =>
        obj(
          ["ROOT", obj(["uri", "file:///work/repo/"])],
          ["SRC", obj(["uri", "src/"], ["uriBaseId", "ROOT"])],
        ),
      ),
    ]);
  }
  if (random.chance(0.3)) {
    const notification = () =>
      obj(
        ["level", random.pick(["error", "warning", "note"])],
        ["message", obj(["text", randomText(random)])],
        random.chance(0.5) ? ["locations", [randomLocation(random)]] : null,
      );
    const invocation = obj(
      ["executionSuccessful", random.chance(0.5)],
      ["toolExecutionNotifications", Array.from({ length: random.below(3) }, notification)],
      random.chance(0.5) ? ["toolConfigurationNotifications", [notification()]] : null,
    );
    members.push(["invocations", random.chance(0.9) ? [invocation] : obj(["only", invocation])]);
  }
  if (random.chance(0.3)) members.push(["artifacts", [randomValue(random, 1), randomValue(random, 1)]]);
  if (random.chance(0.2)) members.push(["properties", randomValue(random, 1)]);
  // Writers differ in key order: `results` before `tool` is buffered, not refused.
  for (let i = members.length - 1; i > 0; i -= 1) {
    const j = random.below(i + 1);
    [members[i], members[j]] = [members[j]!, members[i]!];
  }
  if (random.chance(0.03) && members.length > 0) members.push(random.pick(members));
  return { members };
}

function randomLog(random: Random, results: number): Json {
  const members: Array<[string, Json]> = [];
  if (random.chance(0.5)) members.push(["$schema", "https://json.schemastore.org/sarif-2.1.0.json"]);
  if (random.chance(0.98)) members.push(["version", sometimes(random, () => "2.1.0", 0.03)]);
  const runs = Array.from({ length: random.below(3) + (random.chance(0.9) ? 1 : 0) }, () =>
    randomRun(random, random.below(results + 1)),
  );
  if (random.chance(0.97))
    members.push([
      "runs",
      random.chance(0.97) ? runs : random.pick<Json>([obj(["0", runs[0] ?? null]), null, "runs"]),
    ]);
  if (random.chance(0.02)) members.push(["runs", runs]);
  if (random.chance(0.3)) members.reverse();
  if (random.chance(0.01)) return random.pick<Json>([runs, "text", num(5), null]);
  return { members };
}

/** Writes `value` as JSON: compact or spaced at random, strings now and then with needless escapes. */
function write(value: Json, random: Random): string {
  const space = () => (random.chance(0.85) ? "" : random.pick([" ", "\n", "\t", "\r\n  ", "  "]));
  const text = (s: string) => {
    const escaped = JSON.stringify(s);
    if (!random.chance(0.1)) return escaped;
    // Escapes stay as they are; some letters, "é" and "/" get one they do not need.
    return escaped.replace(/\\u[0-9a-f]{4}|\\.|[a-z/é]/g, (c) =>
      c.length > 1 || !random.chance(0.3)
        ? c
        : c === "/"
          ? "\\/"
          : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
  };
  const go = (v: Json): string => {
    if (v === null || typeof v === "boolean") return String(v);
    if (typeof v === "string") return text(v);
    if (Array.isArray(v)) return `[${space()}${v.map((e) => go(e)).join(`${space()},${space()}`)}${space()}]`;
    if ("number" in v) return v.number;
    return `{${space()}${v.members.map(([k, m]) => `${text(k)}${space()}:${space()}${go(m)}`).join(`${space()},${space()}`)}${space()}}`;
  };
  return `${space()}${go(value)}${space()}`;
}

/** Bytes a corruption may bring in: JSON's own punctuation, control bytes, and broken UTF-8. */
const STRAY_BYTES = [
  ..."{}[],:\"\\0-.eE+tnf ux'Uv\n",
  ...[0x00, 0x1f, 0x7f, 0x80, 0xbf, 0xc0, 0xc3, 0xe2, 0xed, 0xf0, 0xf4, 0xf5, 0xff],
].map((b) => (typeof b === "string" ? b.charCodeAt(0) : b));

/** `bytes` with one random corruption: a cut, a byte lost, added or changed, a stray BOM. */
function corrupt(bytes: Uint8Array, random: Random): Uint8Array {
  const at = random.below(bytes.length + 1);
  const stray = () => random.pick(STRAY_BYTES);
  switch (random.below(7)) {
    case 0:
      return bytes.subarray(0, at);
    case 1:
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1 + random.below(3))]);
    case 2:
      return Buffer.concat([bytes.subarray(0, at), Buffer.from([stray()]), bytes.subarray(at)]);
    case 3:
      return Buffer.concat([bytes.subarray(0, at), Buffer.from([stray()]), bytes.subarray(at + 1)]);
    case 4:
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf].slice(0, 1 + random.below(3))), bytes]);
    case 5:
      return Buffer.concat([bytes, Buffer.from(random.pick([" x", "\n", "{}", "5", "\u00e9"]))]);
    default:
      return Buffer.concat([
        bytes.subarray(0, at),
        Buffer.from(random.pick(["\\u12", "\\ud83d", '"', "\ud83d\ude00"])),
        bytes.subarray(at),
      ]);
  }
}

/** Cut sizes: mostly small, now and then one byte at a time or everything at once. */
function cutSize(random: Random, length: number): number {
  const style = random.below(10);
  if (style === 0) return 1;
  if (style === 1) return length + 1;
  return 1 + random.below(style < 6 ? 16 : 400);
}

/** The document as the source gives it: byte chunks, text chunks, or a mix of both. */
function chunksOf(bytes: Uint8Array, random: Random): SarifChunk[] {
  const mode = random.below(3);
  const chunks: SarifChunk[] = [];
  if (mode === 0) {
    for (let at = 0; at < bytes.length; ) {
      const size = cutSize(random, bytes.length);
      chunks.push(bytes.subarray(at, at + size));
      at += size;
    }
    return chunks;
  }
  // Text: any cut, also between the halves of a surrogate pair.
  const text = Buffer.from(bytes).toString("utf8");
  for (let at = 0; at < text.length; ) {
    let size = cutSize(random, text.length);
    const pair = text.slice(at, at + size + 40).search(/[\ud800-\udbff]/);
    if (pair >= 0 && random.chance(0.3)) size = pair + 1;
    const piece = text.slice(at, at + size);
    chunks.push(mode === 2 && random.chance(0.5) ? Buffer.from(piece) : piece);
    at += size;
  }
  return chunks;
}

interface Outcome {
  events: SarifEvent[];
  error: { problem: string; message: string } | null;
}

async function outcomeOf(events: AsyncGenerator<SarifEvent>): Promise<Outcome> {
  const seen: SarifEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
    return { events: seen, error: null };
  } catch (error) {
    if (!(error instanceof SarifFormatError)) throw error;
    return { events: seen, error: { problem: error.problem, message: error.message } };
  }
}

/** Reads `chunks` with both readers and fails on any difference; answers the outcome. */
async function compare(chunks: SarifChunk[], label: string): Promise<Outcome> {
  const workDir = "/work/repo";
  const actual = await outcomeOf(readSarif(chunks, { workDir }));
  const expected = await outcomeOf(readSarifWithStreamparser(chunks, { workDir }));
  const cuts = chunks.map((c) => (typeof c === "string" ? `t${c.length}` : `b${c.length}`)).join(" ");
  assert.deepStrictEqual(actual, expected, `${label}\nchunks: ${cuts}`);
  return actual;
}

/** Tallies what the cases came to, so a generator that stopped making some kind of case is noticed. */
class Tally {
  readonly counts = new Map<string, number>();

  add(outcome: Outcome): void {
    const key = outcome.error?.problem ?? (outcome.events.length > 0 ? "EVENTS" : "NO_EVENTS");
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  atLeast(key: string, n: number): void {
    assert.ok(
      (this.counts.get(key) ?? 0) >= n,
      `${key} came up ${this.counts.get(key) ?? 0} times: ${JSON.stringify([...this.counts])}`,
    );
  }
}

describe("readSarif against the @streamparser/json reader", () => {
  it("gives the same events and errors on random logs, cut at random, as bytes, text or both", async () => {
    const random = new Random(0x5a21f);
    const tally = new Tally();
    for (let n = 0; n < 400; n += 1) {
      const text = write(randomLog(random, 6), random);
      const chunks = chunksOf(Buffer.from(text), random);
      tally.add(await compare(chunks, `log ${n}: ${text}`));
    }
    tally.atLeast("EVENTS", 200);
    for (const problem of ["MISSING_RULE", "MISSING_TOOL", "INVALID_STRUCTURE", "UNSUPPORTED_VERSION"])
      tally.atLeast(problem, 3);
  });

  it("gives the same events and the same INVALID_JSON message on corrupted logs", async () => {
    const random = new Random(0xc0de);
    const tally = new Tally();
    for (let n = 0; n < 1200; n += 1) {
      let bytes: Uint8Array = Buffer.from(write(randomLog(random, 4), random));
      for (let k = random.below(2); k >= 0; k -= 1) bytes = corrupt(bytes, random);
      const label = `corrupted log ${n}: ${Buffer.from(bytes).toString("latin1")}`;
      tally.add(await compare(chunksOf(bytes, random), label));
    }
    tally.atLeast("INVALID_JSON", 500);
    tally.atLeast("EVENTS", 100);
  });

  it("agrees on odd documents: empty, whitespace, a byte order mark, scalars, trailing bytes", async () => {
    const documents = [
      "",
      " ",
      "\ufeff",
      "\ufeff{}",
      "\ufeff[1 2]",
      "\ufeff\ufeff{}",
      "{}",
      "[]",
      "5",
      "-",
      "1.",
      "1e",
      '"x"',
      '"\\ud800"',
      "nul",
      "tru e",
      '{"version":"2.1.0","runs":[]} x',
      '{"version":"2.1.0","runs":[]}\n\n',
      '{"version":2',
      '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"t"}},"results":[5',
      '{"version":"2.1.0","runs":[{"results":}]}',
      '{"version":"2.1.0","runs":[{"results":"x"}]}',
      '{"version":"2.1.0","runs":[[1],{"tool":{"driver":{"name":"t"}}}]}',
      '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"t"}}}],"runs":[{"results":[]}]}',
      '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"t"}}}],"runs":[{"tool":{"driver":{"name":"u"}}},{"tool":{"driver":{"name":"v"}}}]}',
      '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"t"}}}],"runs":{}}',
      '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"t"}}}],"runs":null}',
      '{"runs":{"a":{"tool":{"driver":{"name":"t"}}}},"version":"2.1.0"}',
      '[1 "\xff"]',
      '"\xff"',
      '{"a" "\xff"}',
      "[\ufeff1]",
      "[1,\ufeff2]",
      '{\ufeff"a":1}',
      "[\ufeff\ufeff]",
      "[1 23]",
      '{"a":1 23.5e-7}',
      '[12 "\xff"]',
      '["\\x"]',
      '["\\\'"]',
      '["\\u12G4"]',
      '["\\U0041"]',
      '["\\ud83d\\ude00\\ud800x\\udc00"]',
      "[-01]",
      "[1.5.2]",
      "[1e+]",
      "[1e5e3]",
      "[0.5E+2E]",
      "[truex]",
      "[nulll]",
      '{"version":"2.1.0"  , "runs" : [ ] }',
      '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"t","rules":[{"id":"r","messageStrings":{}}]}},"results":[{"ruleId":"r","message":{"id":"__proto__"}}]}]}',
    ];
    for (const document of documents) {
      // Latin-1 where the document holds a byte no UTF-8 text can (the lone "\xff").
      const bytes = document.includes("\xff") ? Buffer.from(document, "latin1") : Buffer.from(document);
      const label = JSON.stringify(document);
      for (let cut = 0; cut <= bytes.length; cut += 1)
        await compare([bytes.subarray(0, cut), bytes.subarray(cut)], `${label} cut at byte ${cut}`);
      const bytewise = Array.from(bytes, (byte) => Uint8Array.of(byte));
      await compare(bytewise, `${label} one byte at a time`);
      for (let cut = 0; cut <= document.length; cut += 1)
        await compare([document.slice(0, cut), document.slice(cut)], `${label} as text cut at ${cut}`);
    }
  });

  it("agrees on broken and whole UTF-8 in strings, cut at every byte around it", async () => {
    const sequences = [
      [0xc3],
      [0xc3, 0x28],
      [0xe2, 0x82],
      [0xe2, 0x28, 0xa1],
      [0xed, 0xa0, 0x80],
      [0xe0, 0x80, 0xaf],
      [0xf0, 0x9f, 0x98],
      [0xf4, 0x90, 0x80, 0x80],
      [0xc0, 0x80],
      [0x80],
      [0xff],
      [0xf5, 0x80, 0x80, 0x80],
      [0xc3, 0xa9],
      [0xe2, 0x82, 0xac],
      [0xf0, 0x9f, 0x98, 0x80],
    ];
    const places = [
      (s: string) =>
        `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"t"}},"results":[{"ruleId":"r","message":{"text":"a${s}b"}}]}]}`,
      (s: string) => `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"t"}},"a${s}":[],"results":[]}]}`,
      (s: string) =>
        `{"version":"2.1.0","runs":[{"artifacts":[{"x":"${s}"}],"tool":{"driver":{"name":"t"}}}]}`,
      (s: string) =>
        `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"t"}},"results":[{"ruleId":"r"} "${s}"]}]}`,
    ];
    for (const sequence of sequences) {
      for (const place of places) {
        const [before, after] = place("\u0000").split("\u0000") as [string, string];
        const bytes = Buffer.concat([Buffer.from(before), Buffer.from(sequence), Buffer.from(after)]);
        const at = Buffer.byteLength(before);
        for (let cut = at - 1; cut <= at + sequence.length + 1; cut += 1) {
          const label = `${Buffer.from(sequence).toString("hex")} in ${before}…, cut at ${cut}`;
          await compare([bytes.subarray(0, cut), bytes.subarray(cut)], label);
          await compare(
            [bytes.subarray(0, cut), bytes.subarray(cut, cut + 1), bytes.subarray(cut + 1)],
            label,
          );
        }
      }
    }
  });

  it("agrees on large logs read in one chunk, cut into 64 KiB pieces inside tokens", async () => {
    const random = new Random(0xb16);
    for (let n = 0; n < 12; n += 1) {
      const text = write(randomLog(random, 300), random);
      let bytes: Uint8Array = Buffer.from(text);
      if (n % 2 === 1) bytes = corrupt(bytes, random);
      await compare([bytes], `large log ${n} as bytes`);
      await compare([Buffer.from(bytes).toString("utf8")], `large log ${n} as text`);
    }
  });
});
