import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fixtureDir } from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { aRepository } from "./helpers/builders.ts";
import { aCommitOid } from "./helpers/builders-metrics.ts";
import { dataOf, gql } from "./helpers/server.ts";
import { startUploaderScene, type UploaderScene, uploadProcessed } from "./helpers/uploads.ts";

/**
 * Coverage written by real tools outside the coverage manifest (src/formats/coverage/fixtures/other/,
 * made by `scripts/make-fixtures.sh coverage-other`): clang's source-based coverage exported as
 * LCOV by llvm-cov, read as lcov reads it (docs/ingestion-coverage.md "Declared totals"); and the
 * JSON reports of llvm-cov, c8 and coverage.py, which Assay does not read: the upload is refused
 * with the format named and the export to send instead.
 */

interface OtherFixture {
  file: string;
  format: string;
  tool: string;
  workDir: string;
}

const FOLDER = path.join(fixtureDir("coverage"), "other");
const fixtures = JSON.parse(fs.readFileSync(path.join(FOLDER, "manifest.json"), "utf8")) as OtherFixture[];
const fixture = (file: string) => {
  const found = fixtures.find((entry) => entry.file === file);
  if (found === undefined) throw new Error(`no ${file} in ${FOLDER}/manifest.json`);
  return found;
};

let scene: UploaderScene;
before(async () => {
  scene = await startUploaderScene();
});
after(() => scene?.server.stop());

/** The input of an upload of `entry` as `key`'s coverage, to a repository of its own. */
async function uploadInput(entry: OtherFixture, key: string): Promise<Record<string, unknown>> {
  const repository = await aRepository(scene.server.db, scene.account);
  return {
    repositoryId: encodeGlobalId("Repository", repository.key),
    commitOid: aCommitOid(),
    branch: repository.default_branch,
    analyzer: "test-coverage",
    key,
    workDir: entry.workDir,
    data: fs.readFileSync(path.join(FOLDER, entry.file), "utf8"),
  };
}

describe("coverage from tools outside the coverage manifest", () => {
  test("clang's source-based coverage as LCOV (llvm-cov export) gives lcov --summary's lines and branches", async () => {
    const entry = fixture("llvm.lcov");
    const summary = JSON.parse(fs.readFileSync(path.join(FOLDER, "llvm.summary.json"), "utf8")) as {
      figures: { lcovSummary: Record<"lines" | "branches", { covered: number; total: number }> };
    };
    const { server, token } = scene;
    const { artifactId } = await uploadProcessed(server, token, await uploadInput(entry, "cxx"));
    const read = dataOf(
      await gql(
        server.endpoint,
        token,
        `query($id: ID!) { node(id: $id) { ... on Artifact { status check { coverageFiles(first: 50) { edges { node {
          lines { covered total } branches { covered total } } } } } } } }`,
        { id: artifactId },
      ),
    ).node as {
      status: string;
      check: {
        coverageFiles: {
          edges: Array<{ node: Record<"lines" | "branches", { covered: number; total: number }> }>;
        };
      };
    };
    assert.equal(read.status, "PROCESSED");
    const files = read.check.coverageFiles.edges.map((edge) => edge.node);
    const sum = (measure: "lines" | "branches") =>
      files.reduce(
        (total, file) => ({
          covered: total.covered + file[measure].covered,
          total: total.total + file[measure].total,
        }),
        { covered: 0, total: 0 },
      );
    assert.deepEqual(sum("lines"), summary.figures.lcovSummary.lines);
    assert.deepEqual(sum("branches"), summary.figures.lcovSummary.branches);
  });

  for (const [file, key, named, instead] of [
    ["llvm-export.json", "cxx", "llvm-cov's JSON export", "llvm-cov export -format=lcov"],
    ["coverage-final.json", "javascript", "Istanbul's JSON coverage", "lcov, cobertura or clover reporter"],
    ["coverage.json", "python", "coverage.py's JSON report", "coverage xml"],
  ] as const) {
    test(`${fixture(file).tool}'s ${file} is refused, naming what it is and what to upload instead`, async () => {
      const answer = await gql<{ uploadArtifact: { ok: boolean; error: string } }>(
        scene.server.endpoint,
        scene.token,
        `mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok error } }`,
        { input: await uploadInput(fixture(file), key) },
      );
      const refused = dataOf(answer).uploadArtifact as { ok: boolean; error: string };
      assert.equal(refused.ok, false);
      assert.ok(refused.error.includes(`this is ${named}`), refused.error);
      assert.ok(refused.error.includes(instead), refused.error);
    });
  }
});
