// test-runner: execution-mode independent
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fixtureDir } from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { aRepository } from "./helpers/builders.ts";
import { aCommitOid } from "./helpers/builders-metrics.ts";
import { dataOf, gql } from "./helpers/server.ts";
import { startUploaderScene, type UploaderScene, uploadProcessed } from "./helpers/uploads.ts";

/**
 * Files whose names a URI would escape (`sp ace/a b.js`, `a%20b.js`, `100%.js`, `é-ü.js`), reported
 * by every tool that reads their language, each writing names its own way: ESLint's formatter and
 * clang as encoded `file:` URIs, Staticcheck as encoded `%SRCROOT%` references, Biome, oxlint,
 * GCC, cppcheck and go vet as the names themselves (src/formats/sarif/fixtures/file-names/, made
 * by `scripts/make-fixtures.sh file-names` from test/fixtures/tools/file-names/). Every file has a
 * finding of each tool, so each report's findings must lie in exactly the project's files of its
 * language, under their own names (docs/ingestion-sarif.md "Paths").
 */

interface NamesFixture {
  tool: string;
  file: string;
  format: string;
  language: "js" | "c" | "go";
  workDir: string;
}

const FOLDER = path.join(fixtureDir("sarif"), "file-names");
const fixtures = JSON.parse(fs.readFileSync(path.join(FOLDER, "manifest.json"), "utf8")) as NamesFixture[];
const projectFiles = JSON.parse(fs.readFileSync(path.join(FOLDER, "files.json"), "utf8")) as string[];
const EXTENSION = { js: ".js", c: ".c", go: ".go" } as const;

let scene: UploaderScene;
before(async () => {
  scene = await startUploaderScene();
});
after(() => scene?.server.stop());

const READ = `query($id: ID!) { node(id: $id) { ... on Artifact {
  status error skipped { reason count }
  check { occurrences(first: 100) { edges { node { path } } } }
} } }`;

interface ArtifactOut {
  status: string;
  error: string | null;
  skipped: Array<{ reason: string; count: number }>;
  check: { occurrences: { edges: Array<{ node: { path: string } }> } };
}

/** Uploads the reports of one tool into one run of a repository of their own; answers their artifacts, processed. */
async function uploadTool(tool: string): Promise<ArtifactOut[]> {
  const { server, token, account } = scene;
  const repository = await aRepository(server.db, account);
  const commitOid = aCommitOid();
  const artifacts: ArtifactOut[] = [];
  for (const fixture of fixtures.filter((entry) => entry.tool === tool)) {
    const { artifactId } = await uploadProcessed(server, token, {
      repositoryId: encodeGlobalId("Repository", repository.key),
      commitOid,
      branch: repository.default_branch,
      analyzer: fixture.tool,
      analyzerType: "community",
      workDir: fixture.workDir,
      data: fs.readFileSync(path.join(FOLDER, fixture.file), "utf8"),
    });
    artifacts.push(dataOf(await gql(server.endpoint, token, READ, { id: artifactId })).node as ArtifactOut);
  }
  return artifacts;
}

describe("files whose names a URI would escape, as each real tool reports them", () => {
  it("the fixtures cover every way of writing names, and a file of each kind per language", () => {
    assert.deepEqual([...new Set(fixtures.map((fixture) => fixture.tool))].sort(), [
      "biome",
      "clang",
      "cppcheck",
      "eslint",
      "gcc",
      "govet",
      "oxlint",
      "staticcheck",
    ]);
    for (const extension of Object.values(EXTENSION)) {
      const names = projectFiles
        .filter((file) => file.endsWith(extension))
        .map((file) => path.basename(file));
      assert.ok(
        names.some((name) => name.includes("%20")),
        `a ${extension} file named with %20`,
      );
      assert.ok(
        names.some((name) => name.includes(" ")),
        `a ${extension} file named with a space`,
      );
      assert.ok(
        names.some((name) => /[^\x20-\x7e]/.test(name)),
        `a ${extension} file named outside ASCII`,
      );
    }
  });

  for (const tool of [...new Set(fixtures.map((fixture) => fixture.tool))]) {
    it(`${tool}: every finding lies in one of the project's files, under its own name, and each file has its findings`, async () => {
      const language = fixtures.find((fixture) => fixture.tool === tool)!.language;
      const expected = projectFiles.filter((file) => file.endsWith(EXTENSION[language]));
      const artifacts = await uploadTool(tool);
      const paths = new Set<string>();
      for (const artifact of artifacts) {
        assert.equal(artifact.status, "PROCESSED", artifact.error ?? "");
        // Nothing was left out as outside the repository (cppcheck's one finding without a file aside).
        assert.deepEqual(
          artifact.skipped.filter((skip) => skip.reason === "OUTSIDE_REPOSITORY"),
          [],
        );
        for (const edge of artifact.check.occurrences.edges) paths.add(edge.node.path);
      }
      assert.deepEqual([...paths].sort(), expected);
    });
  }
});
