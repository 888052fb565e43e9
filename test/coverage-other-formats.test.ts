import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { AccountRow } from "../src/db/types.ts";
import { fixtureDir } from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { aCommitOid } from "./helpers/builders-metrics.ts";
import { waitFor } from "./helpers/instance.ts";
import { gql, startTestServer, type TestServer } from "./helpers/server.ts";

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

let server: TestServer;
let account: AccountRow;
let token: string;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, {}, [{ user, role: "MEMBER" }]);
  token = await aToken(server.db, server.config.tokenPepper, user);
});
after(() => server?.stop());

const UPLOAD = `mutation($input: UploadArtifactInput!) {
  uploadArtifact(input: $input) { ok error warnings artifact { id } }
}`;

async function upload(
  entry: OtherFixture,
  key: string,
): Promise<{ ok: boolean; error: string; warnings: string[]; artifact: { id: string } | null }> {
  const repository = await aRepository(server.db, account);
  const answer = await gql<{
    uploadArtifact: { ok: boolean; error: string; warnings: string[]; artifact: { id: string } | null };
  }>(server.endpoint, token, UPLOAD, {
    input: {
      repositoryId: encodeGlobalId("Repository", repository.key),
      commitOid: aCommitOid(),
      branch: repository.default_branch,
      analyzer: "test-coverage",
      key,
      workDir: entry.workDir,
      data: fs.readFileSync(path.join(FOLDER, entry.file), "utf8"),
    },
  });
  assert.deepEqual(answer.body.errors, undefined, JSON.stringify(answer.body.errors));
  return answer.body.data!.uploadArtifact;
}

describe("coverage from tools outside the coverage manifest", () => {
  test("clang's source-based coverage as LCOV (llvm-cov export) gives lcov --summary's lines and branches", async () => {
    const entry = fixture("llvm.lcov");
    const summary = JSON.parse(fs.readFileSync(path.join(FOLDER, "llvm.summary.json"), "utf8")) as {
      figures: { lcovSummary: Record<"lines" | "branches", { covered: number; total: number }> };
    };
    const uploaded = await upload(entry, "cxx");
    assert.equal(uploaded.error, "");
    const id = uploaded.artifact!.id;
    let files: Array<{
      lines: { covered: number; total: number };
      branches: { covered: number; total: number };
    }> = [];
    await waitFor(
      "the report to be processed",
      async () => {
        const read = await gql<{
          node: {
            status: string;
            check: { coverageFiles: { edges: Array<{ node: (typeof files)[number] }> } };
          };
        }>(
          server.endpoint,
          token,
          `query($id: ID!) { node(id: $id) { ... on Artifact { status check { coverageFiles(first: 50) { edges { node {
            lines { covered total } branches { covered total } } } } } } } }`,
          { id },
        );
        files = read.body.data!.node.check.coverageFiles.edges.map((edge) => edge.node);
        return read.body.data!.node.status === "PROCESSED";
      },
      30_000,
    );
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
      const refused = await upload(fixture(file), key);
      assert.equal(refused.ok, false);
      assert.ok(refused.error.includes(`this is ${named}`), refused.error);
      assert.ok(refused.error.includes(instead), refused.error);
    });
  }
});
