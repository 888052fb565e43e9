// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readToolFixture, readToolSummary, toolFixture } from "../fixtures.ts";
import { type PathContext, resolveArtifactPath, workingDirectoryIn } from "./paths.ts";
import { readSarif, type SarifChunk } from "./reader.ts";
import type { SarifEvent } from "./types.ts";
import { findWorkingDirectories } from "./working-directories.ts";

/**
 * A tool run in a subdirectory (docs/ingestion-sarif.md "Paths"): Staticcheck run inside the
 * go-modules project's backend/ module (scripts/make-fixtures.sh) writes paths relative to
 * backend/ and names the directory only in `invocations[].workingDirectory`, after its results.
 */

const BACKEND = readToolFixture("sarif", "staticcheck", "backend.sarif");
const { workDir } = toolFixture("sarif", "staticcheck", "backend.sarif");
const summary = readToolSummary("sarif", "staticcheck", "backend.sarif").figures as {
  errors: number;
  byRule: Record<string, { errors: number; warnings: number }>;
  files: string[];
};

/** The document as one chunk, or cut into pieces of `size` bytes. */
function chunksOf(text: string, size?: number): () => SarifChunk[] {
  const bytes = Buffer.from(text);
  if (size === undefined) return () => [bytes];
  return () => {
    const chunks: SarifChunk[] = [];
    for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
    return chunks;
  };
}

async function pathsOf(text: string, workingDirectories?: ReadonlyMap<number, string>): Promise<string[]> {
  const paths: string[] = [];
  const events: SarifEvent[] = [];
  for await (const event of readSarif([text], { workDir, workingDirectories })) events.push(event);
  for (const event of events) {
    if (event.type === "result") paths.push(...event.result.locations.map((location) => location.path ?? ""));
  }
  return paths;
}

function log(runs: unknown[]): string {
  return JSON.stringify({ version: "2.1.0", runs });
}

function runIn(directory: string | null, uri = "internal/cart/cart.go", extra: object = {}): object {
  return {
    tool: { driver: { name: "Staticcheck" } },
    results: [
      {
        ruleId: "SA6005",
        message: { text: "x" },
        locations: [{ physicalLocation: { artifactLocation: { uri, uriBaseId: "%SRCROOT%" } } }],
      },
    ],
    ...(directory === null ? {} : { invocations: [{ workingDirectory: { uri: directory } }] }),
    ...extra,
  };
}

describe("a tool run in a subdirectory", () => {
  it("finds the working directory Staticcheck wrote after its results, relative to the workDir", async () => {
    assert.ok(BACKEND.indexOf('"workingDirectory"') > BACKEND.indexOf('"results"'));
    assert.deepEqual(await findWorkingDirectories(chunksOf(BACKEND), workDir), new Map([[0, "backend"]]));
    // The key cut by a chunk's end, and the scanner fed small pieces.
    for (const size of [1, 7, 64, 1000]) {
      assert.deepEqual(
        await findWorkingDirectories(chunksOf(BACKEND, size), workDir),
        new Map([[0, "backend"]]),
        `pieces of ${size}`,
      );
    }
  });

  it("files Staticcheck's findings where the tool's own output puts them", async () => {
    const directories = await findWorkingDirectories(chunksOf(BACKEND), workDir);
    const paths = await pathsOf(BACKEND, directories);
    assert.equal(paths.length, summary.errors);
    assert.deepEqual([...new Set(paths)], summary.files);
    assert.deepEqual([...new Set(paths)], ["backend/internal/cart/errors_test.go"]);
    // Without the working directory the paths are the module's, as before.
    assert.deepEqual([...new Set(await pathsOf(BACKEND))], ["internal/cart/errors_test.go"]);
  });

  it("finds nothing without a workDir, or when no working directory is named", async () => {
    assert.deepEqual(await findWorkingDirectories(chunksOf(BACKEND), null), new Map());
    assert.deepEqual(await findWorkingDirectories(chunksOf(log([runIn(null)])), workDir), new Map());
  });

  it("keeps the root for the root itself, a directory outside the workDir, a relative one, or invocations that disagree", async () => {
    const runs = [
      runIn(`file://${workDir}`),
      runIn("file:///elsewhere/backend"),
      runIn("backend"),
      runIn(`file://${workDir}/backend`, "a.go", {
        invocations: [
          { workingDirectory: { uri: `file://${workDir}/backend` } },
          { workingDirectory: { uri: `file://${workDir}/libs` } },
        ],
      }),
      runIn(`file://${workDir}/libs/pricing/`),
    ];
    const directories = await findWorkingDirectories(chunksOf(log(runs)), workDir);
    assert.deepEqual(directories, new Map([[4, "libs/pricing"]]));
  });

  it("answers what it found before a document stops being JSON", async () => {
    const text = `${log([runIn(`file://${workDir}/backend`)]).slice(0, -2)} ]]`;
    assert.deepEqual(await findWorkingDirectories(chunksOf(text), workDir), new Map([[0, "backend"]]));
    assert.deepEqual(
      await findWorkingDirectories(chunksOf('<results "workingDirectory"/>'), workDir),
      new Map(),
    );
  });
});

describe("paths in a run's working directory", () => {
  const context: PathContext = {
    workDir: "/ci/repo",
    originalUriBaseIds: {
      ABSOLUTE: { uri: "file:///ci/repo/" },
      LIB: { uri: "lib/", uriBaseId: "%SRCROOT%" },
    },
    workingDirectory: "backend",
  };

  it("reads a relative path with an undefined or absent base against it", () => {
    assert.deepEqual(resolveArtifactPath("internal/a.go", "%SRCROOT%", context), {
      path: "backend/internal/a.go",
      outsideRepository: false,
    });
    assert.deepEqual(resolveArtifactPath("a.go", undefined, context).path, "backend/a.go");
    assert.deepEqual(resolveArtifactPath("x.go", "LIB", context).path, "backend/lib/x.go");
  });

  it("lets the report's own bases and absolute paths win", () => {
    assert.deepEqual(resolveArtifactPath("src/a.ts", "ABSOLUTE", context).path, "src/a.ts");
    assert.deepEqual(resolveArtifactPath("file:///ci/repo/src/a.ts", undefined, context).path, "src/a.ts");
    assert.deepEqual(
      resolveArtifactPath("https://example.com/a.ts", undefined, context),
      resolveArtifactPath("https://example.com/a.ts", undefined, { ...context, workingDirectory: null }),
    );
  });

  it("places a path that climbs out of the working directory in the repository, and one above the root outside", () => {
    assert.deepEqual(resolveArtifactPath("../libs/pricing/p.go", undefined, context), {
      path: "libs/pricing/p.go",
      outsideRepository: false,
    });
    assert.equal(resolveArtifactPath("../../p.go", undefined, context).outsideRepository, true);
  });

  it("takes a working directory only when it is absolute and under the workDir", () => {
    assert.equal(workingDirectoryIn("file:///ci/repo/backend", "/ci/repo"), "backend");
    assert.equal(workingDirectoryIn("file:///ci/repo/my%20module/", "/ci/repo"), "my module");
    assert.equal(workingDirectoryIn("file:///C:/ci/repo/backend", "C:\\ci\\repo"), "backend");
    assert.equal(workingDirectoryIn("file:///ci/repo", "/ci/repo"), null);
    assert.equal(workingDirectoryIn("file:///ci/repo/", "/ci/repo"), null);
    assert.equal(workingDirectoryIn("file:///ci/other", "/ci/repo"), null);
    assert.equal(workingDirectoryIn("backend", "/ci/repo"), null);
    assert.equal(workingDirectoryIn("file:///ci/repo/backend", null), null);
  });
});
