// test-runner: execution-mode independent
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { listToolFixtures, readToolFixture } from "../fixtures.ts";
import { readSarif } from "./reader.ts";

/**
 * The files a run lists among its `artifacts` (`listedFiles`, docs/ingestion-sarif.md "Files a run
 * lists"): what the real tools write there, ESLint's shards of js-shards (test/fixtures/shards/,
 * made by scripts/make-fixtures.sh shards), and the edge cases of the format.
 */

const ROOT = path.resolve(import.meta.dirname, "../../..");
const SHARDS = path.join(ROOT, "test/fixtures/shards");

/** What reading `text` with `listedFiles` gives: the listed files, notices, errors' places and results' files. */
async function listingOf(
  chunks: Iterable<string | Uint8Array>,
  workDir: string | null,
): Promise<{ listed: string[]; notices: string[]; unanalyzed: string[]; results: string[] }> {
  const seen = {
    listed: [] as string[],
    notices: [] as string[],
    unanalyzed: [] as string[],
    results: [] as string[],
  };
  for await (const event of readSarif(chunks, { workDir, listedFiles: true })) {
    if (event.type === "listedFile") seen.listed.push(event.file.path);
    else if (event.type === "toolNotice") seen.notices.push(event.notice.path);
    else if (event.type === "toolError" && event.error.unanalyzedPath)
      seen.unanalyzed.push(event.error.unanalyzedPath);
    else if (event.type === "result") {
      const placed = event.result.locations.find((l) => l.path !== null && !l.outsideRepository);
      if (placed?.path) seen.results.push(placed.path);
    }
  }
  return seen;
}

const unique = (paths: string[]) => [...new Set(paths)].sort();

describe("the files real tools' SARIF lists", () => {
  const fixtures = listToolFixtures("sarif").filter((fixture) => fixture.format === "sarif");

  it("ESLint's formatter lists every file ESLint linted, one it found nothing in among them", async () => {
    const eslint = fixtures.find((fixture) => fixture.tool === "eslint")!;
    const { listed, results } = await listingOf(
      [readToolFixture("sarif", "eslint", "eslint.sarif")],
      eslint.workDir,
    );
    const project = fs
      .readdirSync(path.join(ROOT, "test/fixtures/tools/js-lint/src"))
      .map((name) => `src/${name}`)
      .sort();
    assert.deepEqual(unique(listed), project);
    assert.ok(
      project.some((file) => !results.includes(file)),
      "a file without findings is listed (badge.jsx)",
    );
  });

  it("every other tool lists only the files it gave results in, or nothing", async () => {
    const others = fixtures.filter((fixture) => !["eslint", "typescript-eslint"].includes(fixture.tool));
    assert.ok(others.length >= 8);
    const listing: Record<string, number> = {};
    for (const fixture of others) {
      const name = path.basename(fixture.file);
      const { listed, results } = await listingOf(
        [readToolFixture("sarif", fixture.tool, name)],
        fixture.workDir,
      );
      assert.deepEqual(
        unique(listed).filter((file) => !results.includes(file)),
        [],
        fixture.file,
      );
      listing[fixture.file] = listed.length;
    }
    // clang, oxlint, secretlint and HTMLHint list their results' files; the others write no list.
    for (const tool of ["clang", "oxlint", "secretlint", "htmlhint"])
      assert.ok(
        Object.entries(listing).some(([file, count]) => file.startsWith(`${tool}/`) && count > 0),
        tool,
      );
    for (const tool of ["biome", "stylelint", "markdownlint", "staticcheck"])
      assert.ok(
        Object.entries(listing).every(([file, count]) => !file.startsWith(`${tool}/`) || count === 0),
        tool,
      );
  });
});

describe("ESLint's shards of js-shards", () => {
  const shard = (name: string) => {
    const summary = JSON.parse(fs.readFileSync(path.join(SHARDS, `${name}.summary.json`), "utf8")) as {
      workDir: string;
    };
    return listingOf([fs.readFileSync(path.join(SHARDS, `${name}.sarif`))], summary.workDir);
  };

  it("the app's lint lists badge.jsx, in which it found nothing, and names no file otherwise", async () => {
    const app = await shard("app");
    assert.deepEqual(unique(app.listed), ["src/badge.jsx", "src/cart.js"]);
    assert.deepEqual(unique(app.results), ["src/cart.js"]);
    assert.deepEqual([app.notices, app.unanalyzed], [[], []]);
  });

  it("the server's lint lists badge.jsx, which it could not parse: an error names it", async () => {
    const server = await shard("server");
    assert.deepEqual(unique(server.listed), ["src/badge.jsx", "src/cart.js"]);
    assert.deepEqual([server.notices, server.unanalyzed], [[], ["src/badge.jsx"]]);
  });

  it("the server's lint of files named one by one lists badge.jsx, which it ignored: a warning names it", async () => {
    const changed = await shard("server-changed");
    assert.deepEqual(unique(changed.listed), ["src/badge.jsx", "src/cart.js"]);
    assert.deepEqual([changed.notices, changed.unanalyzed], [["src/badge.jsx"], []]);
  });

  it("without `listedFiles` the reader yields neither the list nor the notices", async () => {
    const text = fs.readFileSync(path.join(SHARDS, "server-changed.sarif"));
    const types = new Set<string>();
    for await (const event of readSarif([text], { workDir: "/tmp/assay-fixtures/js-shards" }))
      types.add(event.type);
    assert.deepEqual([...types].sort(), ["result", "run"]);
  });
});

/** A log of one run with `artifacts` and, optionally, notifications. */
function aLog(artifacts: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    version: "2.1.0",
    runs: [{ tool: { driver: { name: "demo" } }, artifacts, results: [], ...extra }],
  });
}

describe("a run's artifacts", () => {
  it("lists an entry with no roles, or the role analysisTarget or resultFile; not a directory, a configuration file or an artifact in another", async () => {
    const text = aLog([
      { location: { uri: "src/a.js" } },
      { location: { uri: "src/b.js" }, roles: ["analysisTarget"] },
      { location: { uri: "src/c.js" }, roles: ["resultFile"], parentIndex: -1 },
      { location: { uri: "eslint.config.js" }, roles: ["userSpecifiedConfiguration"] },
      { location: { uri: "src/" }, roles: ["directory", "analysisTarget"] },
      { location: { uri: "inner.js" }, parentIndex: 7 },
      { location: { uri: "src/d.js" }, roles: [] },
      { contents: { text: "no location" } },
      { location: { index: 0 } },
    ]);
    const { listed } = await listingOf([text], "/ci/repo");
    assert.deepEqual(listed, ["src/a.js", "src/b.js", "src/c.js", "src/d.js"]);
  });

  it("resolves a listed URI as a result's: base ids, file URIs against the workDir; a file outside the repository is not listed", async () => {
    const text = aLog(
      [
        { location: { uri: "lib/x.ts", uriBaseId: "SRC" } },
        { location: { uri: "file:///ci/repo/src/caf%C3%A9.js" } },
        { location: { uri: "file:///usr/lib/node_modules/dep/index.js" } },
        { location: { uri: "../outside.js" } },
      ],
      { originalUriBaseIds: { SRC: { uri: "packages/web/" } } },
    );
    // originalUriBaseIds comes after the list here: as for results, a base applies to what follows it.
    const { listed } = await listingOf([text], "/ci/repo");
    assert.deepEqual(listed, ["lib/x.ts", "src/café.js"]);
    const withBases = JSON.stringify({
      version: "2.1.0",
      runs: [
        {
          tool: { driver: { name: "demo" } },
          originalUriBaseIds: { SRC: { uri: "packages/web/" } },
          artifacts: [{ location: { uri: "lib/x.ts", uriBaseId: "SRC" } }],
        },
      ],
    });
    assert.deepEqual((await listingOf([withBases], "/ci/repo")).listed, ["packages/web/lib/x.ts"]);
  });

  it("reads the list whatever the key order and wherever the chunks cut it, without building the artifacts' contents", async () => {
    const text = JSON.stringify({
      runs: [
        {
          artifacts: [
            { contents: { text: "x".repeat(5000) }, location: { uri: "src/a.js" }, hashes: { sha256: "00" } },
            { roles: ["resultFile"], location: { uri: "src/b.js" } },
          ],
          invocations: [
            {
              toolExecutionNotifications: [
                {
                  level: "warning",
                  message: { text: "skipped" },
                  locations: [{ physicalLocation: { artifactLocation: { uri: "src/a.js" } } }],
                },
                { level: "note", message: { text: "no place" } },
              ],
            },
          ],
          tool: { driver: { name: "demo" } },
        },
      ],
      version: "2.1.0",
    });
    const whole = await listingOf([text], null);
    assert.deepEqual(whole, {
      listed: ["src/a.js", "src/b.js"],
      notices: ["src/a.js"],
      unanalyzed: [],
      results: [],
    });
    const bytes = Buffer.from(text);
    for (let cut = 1; cut < bytes.length; cut += 97) {
      assert.deepEqual(
        await listingOf([bytes.subarray(0, cut), bytes.subarray(cut)], null),
        whole,
        `cut at ${cut}`,
      );
    }
  });

  it("a notification about the tool's configuration names no file the tool skipped", async () => {
    const notice = (text: string) => ({
      level: "warning",
      message: { text },
      locations: [{ physicalLocation: { artifactLocation: { uri: "src/a.js" } } }],
    });
    const text = aLog([{ location: { uri: "src/a.js" } }], {
      invocations: [
        { toolConfigurationNotifications: [notice("Rule 'x' was removed and replaced by 'y'.")] },
      ],
    });
    assert.deepEqual((await listingOf([text], null)).notices, []);
    // ESLint's formatter files every message without a rule there: only its directive problems are configuration.
    const eslint = (message: string) =>
      JSON.stringify({
        version: "2.1.0",
        runs: [
          {
            tool: { driver: { name: "ESLint" } },
            invocations: [{ toolConfigurationNotifications: [notice(message)] }],
          },
        ],
      });
    assert.deepEqual(
      (await listingOf([eslint("Unused eslint-disable directive (no problems were reported).")], null))
        .notices,
      [],
    );
    assert.deepEqual(
      (await listingOf([eslint("File ignored because of a matching ignore pattern.")], null)).notices,
      ["src/a.js"],
    );
  });
});
