import { once } from "node:events";
import fs from "node:fs";

/**
 * A large SARIF log made piece by piece, for the ingestion memory test and benchmark: never held
 * whole. Each result looks like a linter's (a rule, a message, a path, a region with a snippet;
 * every fourth one with a `primaryLocationLineHash`) and is about 420 bytes, so 500,000 results
 * make about 200 MiB. Every result is a distinct finding.
 */

/** How big a log to make. */
export interface GeneratedSarifShape {
  results: number;
  /** Distinct rules, default 60. */
  rules?: number;
  /** Distinct files the results are spread over, default 2,000. */
  files?: number;
  /**
   * An absolute directory the run names as its working directory, after its results (as
   * Staticcheck writes it): its paths are then relative to that directory.
   */
  workingDirectory?: string;
  /**
   * The number of the first result, default 0: a log from `results` on holds as many other
   * findings, in other files (another shard of the same build).
   */
  first?: number;
}

const CHUNK_CHARS = 256 * 1024;

function ruleId(index: number): string {
  return `generated/rule-${String(index).padStart(3, "0")}`;
}

/** The `n`-th result, as JSON text: files in turn, each with its findings in line order, as linters write them. */
function resultText(n: number, rules: number, perFile: number): string {
  const file = Math.floor(n / perFile);
  const line = (n % perFile) * 2 + 1;
  const rule = (n * 7) % rules;
  const result = {
    ruleId: ruleId(rule),
    ruleIndex: rule,
    level: n % 7 === 0 ? "error" : "warning",
    message: {
      text: `'value${n}' is assigned a value but never used (finding ${n}).`,
    },
    locations: [
      {
        physicalLocation: {
          artifactLocation: {
            uri: `pkg-${file % 40}/src/module-${file}/handler.ts`,
            uriBaseId: "%SRCROOT%",
          },
          region: {
            startLine: line,
            startColumn: 7,
            endLine: line,
            endColumn: 19,
            snippet: { text: `  const value${n} = compute(input);` },
          },
        },
      },
    ],
    ...(n % 4 === 0
      ? { partialFingerprints: { primaryLocationLineHash: `${n.toString(16).padStart(16, "0")}:1` } }
      : {}),
  };
  return JSON.stringify(result);
}

/** The log's text in chunks of about 256 KiB. */
export function* generatedSarifChunks(shape: GeneratedSarifShape): Generator<string> {
  const rules = shape.rules ?? 60;
  const perFile = Math.max(1, Math.ceil(shape.results / (shape.files ?? 2000)));
  const descriptors = Array.from({ length: rules }, (_, i) => ({
    id: ruleId(i),
    shortDescription: { text: `Generated rule ${i}` },
    defaultConfiguration: { level: i % 5 === 0 ? "error" : "warning" },
    properties: { tags: [i % 3 === 0 ? "security" : "maintainability"] },
  }));
  let chunk = `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"generated","rules":${JSON.stringify(descriptors)}}},"results":[`;
  const first = shape.first ?? 0;
  for (let n = first; n < first + shape.results; n += 1) {
    chunk += `${n === first ? "" : ","}${resultText(n, rules, perFile)}`;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = "";
    }
  }
  const invocations =
    shape.workingDirectory === undefined
      ? ""
      : `,"invocations":[{"executionSuccessful":true,"workingDirectory":{"uri":${JSON.stringify(`file://${shape.workingDirectory}`)}}}]`;
  yield `${chunk}]${invocations}}]}`;
}

/** Writes the log to `file` (streamed, with back-pressure); answers its size in bytes. */
export async function writeGeneratedSarif(file: string, shape: GeneratedSarifShape): Promise<number> {
  const out = fs.createWriteStream(file);
  let bytes = 0;
  for (const chunk of generatedSarifChunks(shape)) {
    bytes += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  return bytes;
}
