// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { it } from "node:test";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { readSarif } from "./reader.ts";

const TARGET_BYTES = 50 * 1024 * 1024;

/** A handle on V8's collector, so retained memory can be told from garbage not yet collected. */
function collector(): () => void {
  v8.setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

/** A SARIF log of about `TARGET_BYTES`, made chunk by chunk as it is read and never held whole. */
async function* generatedSarif(stats: { bytes: number; results: number }): AsyncGenerator<string> {
  const rules = Array.from({ length: 50 }, (_, i) => ({
    id: `rule-${i}`,
    properties: { tags: ["security", `external/cwe/cwe-${i}`] },
  }));
  let chunk = `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"generated","rules":${JSON.stringify(rules)}}},"results":[`;
  while (stats.bytes < TARGET_BYTES) {
    const n = stats.results;
    const result = {
      ruleId: `rule-${n % 50}`,
      level: "warning",
      message: { text: `Finding number ${n} with a message long enough to look like a real one.` },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: `src/module-${n % 997}/file%20${n % 31}.ts`, uriBaseId: "%SRCROOT%" },
            region: { startLine: (n % 500) + 1, startColumn: 3, endLine: (n % 500) + 2, endColumn: 9 },
          },
        },
      ],
      partialFingerprints: { primaryLocationLineHash: `${n.toString(16)}:1` },
    };
    chunk += `${n === 0 ? "" : ","}${JSON.stringify(result)}`;
    stats.results += 1;
    if (chunk.length >= 64 * 1024) {
      stats.bytes += chunk.length;
      yield chunk;
      chunk = "";
    }
  }
  yield `${chunk}]}]}`;
}

it("streams a 50 MB SARIF log with bounded heap growth", async () => {
  const gc = collector();
  const stats = { bytes: 0, results: 0 };
  gc();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  let retained = baseline;
  let seen = 0;
  const started = performance.now();
  for await (const event of readSarif(generatedSarif(stats), { workDir: "/ci/repo" })) {
    if (event.type !== "result") continue;
    seen += 1;
    if (seen % 5000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
    if (seen % 25000 === 0) {
      gc();
      retained = Math.max(retained, process.memoryUsage().heapUsed);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  console.log(
    `sarif memory: ${mb(stats.bytes)} MB, ${seen} results in ${seconds.toFixed(1)} s; heap growth retained ` +
      `${mb(retained - baseline)} MB, peak with garbage ${mb(peak - baseline)} MB, rss ${mb(process.memoryUsage().rss)} MB`,
  );
  assert.equal(seen, stats.results);
  assert.ok(stats.bytes >= TARGET_BYTES);
  // Holding the results would retain several times the file's size; streaming retains only the
  // result in hand and the chunk being parsed.
  assert.ok(retained - baseline < 16 * 1024 * 1024, `the heap retained ${mb(retained - baseline)} MB more`);
  assert.ok(peak - baseline < 128 * 1024 * 1024, `the heap peaked ${mb(peak - baseline)} MB higher`);
});

const LISTED_FILES = 100_000;

/** A run listing {@link LISTED_FILES} artifacts, each with its contents embedded (ESLint's `SARIF_ESLINT_EMBED`). */
async function* generatedListing(stats: { bytes: number }): AsyncGenerator<string> {
  let chunk = `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"ESLint"}},"artifacts":[`;
  for (let n = 0; n < LISTED_FILES; n += 1) {
    const artifact = {
      location: { uri: `file:///ci/repo/packages/pkg-${n % 97}/src/module-${n}.js` },
      length: 420,
      contents: { text: `export const value${n} = ${"compute(input) + ".repeat(24)}0;\n` },
      encoding: "UTF-8",
    };
    chunk += `${n === 0 ? "" : ","}${JSON.stringify(artifact)}`;
    if (chunk.length >= 64 * 1024) {
      stats.bytes += chunk.length;
      yield chunk;
      chunk = "";
    }
  }
  yield `${chunk}],"results":[]}]}`;
}

it(`reads a run listing ${LISTED_FILES.toLocaleString("en")} files with their contents with bounded heap growth`, async () => {
  const gc = collector();
  const stats = { bytes: 0 };
  gc();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  let retained = baseline;
  let listed = 0;
  for await (const event of readSarif(generatedListing(stats), { workDir: "/ci/repo", listedFiles: true })) {
    if (event.type !== "listedFile") continue;
    listed += 1;
    if (listed % 5000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
    if (listed % 25000 === 0) {
      gc();
      retained = Math.max(retained, process.memoryUsage().heapUsed);
    }
  }
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  console.log(
    `sarif listing memory: ${mb(stats.bytes)} MB, ${listed} files; heap growth retained ${mb(retained - baseline)} MB, peak with garbage ${mb(peak - baseline)} MB`,
  );
  assert.equal(listed, LISTED_FILES);
  // The list is never built, nor an artifact's contents: only the location in hand.
  assert.ok(retained - baseline < 16 * 1024 * 1024, `the heap retained ${mb(retained - baseline)} MB more`);
  assert.ok(peak - baseline < 128 * 1024 * 1024, `the heap peaked ${mb(peak - baseline)} MB higher`);
});
