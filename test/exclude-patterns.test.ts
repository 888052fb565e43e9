// test-runner: execution-mode independent (uploads and reads go through GraphQL over HTTP)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { aResult, sarifLog } from "./helpers/sarif-scene.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";
import { uploadSettled } from "./helpers/uploads.ts";

/**
 * The configuration's `exclude_patterns` (docs/ingestion.md "The repository's configuration"):
 * a SARIF result in a file they match is not stored, but counted as skipped `EXCLUDED` with a
 * warning in the artifact's result, and counts nowhere among the repository's findings or the
 * run's summary. The run's own configuration applies, else the repository's.
 */

const RUN = `query($runUid: UUID!) { run(runUid: $runUid) { status
  summary { occurrencesIntroduced }
  artifacts { edges { node { status readCount storedCount skippedCount skipped { reason count } warnings } } } } }`;
const ISSUES = `query($id: ID!) { node(id: $id) { ... on Repository {
  issues(first: 50) { edges { node { occurrences(first: 100) { edges { node { path } } } } } } } } }`;

interface ArtifactView {
  status: string;
  readCount: number;
  storedCount: number;
  skippedCount: number;
  skipped: Array<{ reason: string; count: number }>;
  warnings: string[];
}

interface RunView {
  status: string;
  summary: { occurrencesIntroduced: number };
  artifacts: { edges: Array<{ node: ArtifactView }> };
}

let server: TestServer;
let token: string;
let account: AccountRow;
let commits = 0;
const ANALYZER = `excl-${newRowKey().slice(0, 8).toLowerCase()}`;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, {}, [{ user, role: "ADMIN" }]);
  token = await aToken(server.db, server.config.tokenPepper, user);
});
after(() => server?.stop());

function aCommit(): string {
  commits += 1;
  return `${commits.toString(16).padStart(8, "0")}${"ec12".repeat(8)}`;
}

/** A configuration turning on the test's analyzer, with these `exclude_patterns`. */
function toml(...patterns: string[]): string {
  return [
    "version = 1",
    `exclude_patterns = [${patterns.map((p) => JSON.stringify(p)).join(", ")}]`,
    `[[analyzers]]\nname = "${ANALYZER}"\nenabled = true`,
  ].join("\n");
}

/** A SARIF report with one finding in each of `paths`, in that order. */
function report(paths: string[]): string {
  return sarifLog([
    {
      tool: ANALYZER,
      rules: [{ id: "excl-rule", properties: { tags: ["style"] } }],
      results: paths.map((path, i) => aResult("excl-rule", path, i + 1)),
    },
  ]);
}

/** Uploads a report of `paths` for a new default-branch commit; answers the run's view once processed. */
async function uploaded(repository: RepositoryRow, paths: string[], configToml?: string): Promise<RunView> {
  return uploadSettled<RunView>(
    server,
    token,
    {
      repositoryId: encodeGlobalId("Repository", repository.key),
      commitOid: aCommit(),
      branch: "main",
      analyzer: ANALYZER,
      analyzerType: "community",
      data: report(paths),
      ...(configToml === undefined ? {} : { configToml }),
    },
    RUN,
  );
}

/** The paths of the repository's current findings, sorted. */
async function currentPaths(repository: RepositoryRow): Promise<string[]> {
  const node = dataOf(
    await gql(server.endpoint, token, ISSUES, { id: encodeGlobalId("Repository", repository.key) }),
  ).node as {
    issues: { edges: Array<{ node: { occurrences: { edges: Array<{ node: { path: string } }> } } }> };
  };
  return node.issues.edges.flatMap((i) => i.node.occurrences.edges.map((o) => o.node.path)).sort();
}

function onlyArtifact(run: RunView): ArtifactView {
  assert.equal(run.artifacts.edges.length, 1);
  return run.artifacts.edges[0]!.node;
}

describe("exclude_patterns of the configuration", () => {
  test("results in excluded files are skipped as EXCLUDED, said in one warning, and counted nowhere", async () => {
    const repository = await aRepository(server.db, account);
    const run = await uploaded(
      repository,
      [
        "vendor/lib/a.js", // a directory, written with DeepSource's trailing `/`
        "src/app.js", // in no pattern: kept
        "web/generated/api.js", // `**/generated/**` at depth one
        "generated/b.js", // ... and at the root (`**` matches no segment)
        "js/x/y/z.min.js", // `js/**/*.min.js` through two directories
        "js/app.min.js", // ... and through none
        "src/vendor/b.js", // `vendor/` is the root's `vendor` only: kept
        "js/app.js", // kept
      ],
      toml("vendor/", "**/generated/**", "js/**/*.min.js"),
    );
    const artifact = onlyArtifact(run);
    assert.equal(artifact.status, "PROCESSED");
    assert.deepEqual([artifact.readCount, artifact.storedCount, artifact.skippedCount], [8, 3, 5]);
    assert.deepEqual(artifact.skipped, [{ reason: "EXCLUDED", count: 5 }]);
    assert.deepEqual(artifact.warnings, [
      `5 result(s) lie in files the run's .deepsource.toml excludes (exclude_patterns) and were not stored (first: vendor/lib/a.js, excluded by "vendor/").`,
    ]);
    assert.equal(run.summary.occurrencesIntroduced, 3);
    assert.deepEqual(await currentPaths(repository), ["js/app.js", "src/app.js", "src/vendor/b.js"]);
  });

  test("a run without a configuration of its own uses the repository's", async () => {
    const repository = await aRepository(server.db, account);
    // The default branch's upload gives the repository its configuration.
    await uploaded(repository, ["src/a.js"], toml("third_party/**"));
    const run = await uploaded(repository, ["third_party/x/y.js", "src/a.js"]);
    const artifact = onlyArtifact(run);
    assert.deepEqual(artifact.skipped, [{ reason: "EXCLUDED", count: 1 }]);
    assert.deepEqual(artifact.warnings, [
      `1 result(s) lie in files the repository's .deepsource.toml excludes (exclude_patterns) and were not stored (first: third_party/x/y.js, excluded by "third_party/**").`,
    ]);
    assert.equal(artifact.storedCount, 1);
    assert.deepEqual(await currentPaths(repository), ["src/a.js"]);
  });

  test("a run's own configuration decides over the repository's", async () => {
    const repository = await aRepository(server.db, account);
    await uploaded(repository, ["src/a.js"], toml("third_party/**"));
    const run = await uploaded(repository, ["third_party/x/y.js", "build/out.js"], toml("build/**"));
    const artifact = onlyArtifact(run);
    assert.deepEqual(artifact.skipped, [{ reason: "EXCLUDED", count: 1 }]);
    assert.deepEqual(await currentPaths(repository), ["third_party/x/y.js"]);
  });

  test("a check all of whose findings are excluded is a true empty answer: SUCCESS", async () => {
    const repository = await aRepository(server.db, account);
    const run = await uploaded(repository, ["vendor/a.js", "vendor/b/c.js"], toml("vendor/**"));
    const artifact = onlyArtifact(run);
    assert.deepEqual([artifact.storedCount, artifact.skippedCount], [0, 2]);
    assert.equal(run.status, "SUCCESS");
    assert.deepEqual(await currentPaths(repository), []);
  });

  test("a pattern the matcher cannot read excludes nothing, and a warning names it", async () => {
    const repository = await aRepository(server.db, account);
    const run = await uploaded(repository, ["Demo/a.py", "lib/b.py"], toml("Demo/**.py", "lib/**"));
    const artifact = onlyArtifact(run);
    assert.deepEqual(artifact.skipped, [{ reason: "EXCLUDED", count: 1 }]);
    assert.equal(artifact.warnings.length, 2);
    assert.match(
      artifact.warnings[1]!,
      /^The run's \.deepsource\.toml has 1 exclude pattern\(s\) Assay cannot read, which exclude nothing \(first: "Demo\/\*\*\.py", which uses `\*\*` inside a segment/,
    );
    assert.deepEqual(await currentPaths(repository), ["Demo/a.py"]);
  });
});
