import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { AccountRow } from "../src/db/types.ts";
import { fixtureDir, readToolFixture, readToolSummary, toolFixture } from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { dsnToken } from "../src/modules/repositories/dsn.ts";
import { aRepository } from "./helpers/builders.ts";
import { artifactsProcessed } from "./helpers/builders-artifacts.ts";
import { aCommitOid } from "./helpers/builders-metrics.ts";
import { createArtifact, dataOf, gql, type TestServer } from "./helpers/server.ts";
import { startUploaderScene, uploadProcessed } from "./helpers/uploads.ts";

/**
 * SARIF written in a subdirectory (docs/ingestion-sarif.md "Paths"): the real report of
 * Staticcheck run inside go-modules/backend (`cd backend && go-staticcheck -f sarif ./...`) names
 * `internal/cart/errors_test.go` and, after its results, the working directory backend/. Uploaded
 * with the project's root as workDir, through `uploadArtifact` and through the DeepSource-compatible
 * `createArtifact`, and processed by the worker, its findings are listed where the tool's own
 * output puts them: `backend/internal/cart/errors_test.go`, at the lines it printed.
 */

const REPORT = readToolFixture("sarif", "staticcheck", "backend.sarif");
const { workDir, toolOutput } = toolFixture("sarif", "staticcheck", "backend.sarif");
const summary = readToolSummary("sarif", "staticcheck", "backend.sarif").figures as {
  errors: number;
  files: string[];
};

/**
 * What the tool printed (`internal/cart/errors_test.go:12:5: … (SA6005)`, relative to backend/),
 * each file put where its JSON output's absolute path says (the summary's `files`).
 */
function toolFindings(): string[] {
  const printed = fs
    .readFileSync(path.join(fixtureDir("sarif"), toolOutput), "utf8")
    .trim()
    .split("\n");
  return printed
    .map((line) => {
      const [, file, row] = /^(.+?):(\d+):\d+: /.exec(line) ?? [];
      const placed = summary.files.filter((path) => path.endsWith(`/${file}`));
      assert.equal(placed.length, 1, `where the tool put ${line}`);
      return `${placed[0]}:${row}`;
    })
    .sort();
}

const OCCURRENCES = `query($id: ID!) { node(id: $id) { ... on Artifact {
  status error storedCount
  check { occurrences(first: 50) { edges { node { path beginLine } } } }
} } }`;

interface ArtifactOut {
  status: string;
  error: string | null;
  storedCount: number;
  check: { occurrences: { edges: Array<{ node: { path: string; beginLine: number } }> } };
}

let server: TestServer;
let account: AccountRow;
let token: string;

before(async () => {
  ({ server, account, token } = await startUploaderScene());
});
after(() => server?.stop());

async function listedFindings(artifactId: string): Promise<string[]> {
  const { node } = dataOf(await gql(server.endpoint, token, OCCURRENCES, { id: artifactId })) as {
    node: ArtifactOut;
  };
  assert.equal(node.status, "PROCESSED", node.error ?? "");
  assert.equal(node.storedCount, summary.errors);
  return node.check.occurrences.edges.map(({ node: { path, beginLine } }) => `${path}:${beginLine}`).sort();
}

describe("Staticcheck run inside a Go module in a subdirectory", () => {
  test("uploadArtifact files its findings under the module's directory, as the tool's output places them", async () => {
    const repository = await aRepository(server.db, account);
    const { artifactId } = await uploadProcessed(server, token, {
      repositoryId: encodeGlobalId("Repository", repository.key),
      commitOid: aCommitOid(),
      branch: "main",
      analyzer: "staticcheck",
      analyzerType: "community",
      workDir,
      data: REPORT,
    });
    const listed = await listedFindings(artifactId);
    assert.deepEqual(listed, toolFindings());
    assert.ok(
      listed.every((place) => place.startsWith("backend/internal/cart/")),
      listed.join(", "),
    );
  });

  test("createArtifact, the DeepSource-compatible upload, files them there too", async () => {
    const repository = await aRepository(server.db, account);
    const answer = await createArtifact(server, {
      accessToken: dsnToken(repository, server.config.tokenPepper),
      commitOid: aCommitOid(),
      analyzer: "staticcheck",
      analyzerType: "community",
      data: REPORT,
      metadata: { workDir },
    });
    assert.deepEqual(answer, { ok: true, error: "" });
    await artifactsProcessed(server.db, repository.id);
    const [artifact] = await server.db
      .selectFrom("artifacts")
      .select("key")
      .where("repository_id", "=", repository.id)
      .execute();
    assert.deepEqual(await listedFindings(encodeGlobalId("Artifact", artifact!.key)), toolFindings());
  });
});
