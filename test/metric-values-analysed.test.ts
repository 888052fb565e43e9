import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { fixtureDir } from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { aCommitOid } from "./helpers/builders-metrics.ts";
import { waitFor } from "./helpers/instance.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";
import { uploadProcessed } from "./helpers/uploads.ts";

/**
 * The repository's metrics show what its analysed runs measured (docs/read-model.md "Metrics"):
 * a default-branch run still waiting for another analyzer's report, whose coverage report was
 * processed, sets neither `latestValue`, nor a point of `values`, nor the account's
 * `codeCoverage` report, nor `Repository.coverageFiles`, until it has analysed the code; its
 * findings count for nothing meanwhile either. Real reports: lcov's captures of two of the
 * fixture projects (src/formats/coverage/fixtures/gcc-lcov, gcc-lcov-runs), 46 of 50 lines and
 * 11 of 15.
 */

const COVERAGE = path.join(fixtureDir("coverage"));
const RING = {
  data: fs.readFileSync(path.join(COVERAGE, "gcc-lcov", "ring.lcov"), "utf8"),
  workDir: "/tmp/assay-fixtures/c-coverage",
};
const GRADE = {
  data: fs.readFileSync(path.join(COVERAGE, "gcc-lcov-runs", "run-1.lcov"), "utf8"),
  workDir: "/tmp/assay-fixtures/c-coverage-runs",
};
const RING_LCV = Math.round((46 / 50) * 10000) / 100;
const GRADE_LCV = Math.round((11 / 15) * 10000) / 100;

/** A configuration that makes a run wait for a Python report besides the coverage. */
const WAITS_FOR_PYTHON =
  'version = 1\n\n[[analyzers]]\nname = "test-coverage"\n\n[[analyzers]]\nname = "python"\n';

interface Shown {
  latestValue: number | null;
  values: number[];
  report: number | null;
  coverageFiles: string[];
}

describe("metric values of runs that have not analysed the code", () => {
  let server: TestServer;
  let token: string;
  let account: AccountRow;
  let repository: RepositoryRow;

  before(async () => {
    server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
    const user = await aUser(server.db);
    account = await anAccount(server.db, {}, [{ user, role: "MEMBER" }]);
    token = await aToken(server.db, server.config.tokenPepper, user);
    repository = await aRepository(server.db, account);
  });
  after(() => server?.stop());

  /** Uploads one coverage report for `commitOid` on the default branch; waits until it is processed. */
  async function uploadCoverage(
    commitOid: string,
    report: typeof RING,
    configToml?: string,
  ): Promise<string> {
    const { runUid } = await uploadProcessed(server, token, {
      repositoryId: encodeGlobalId("Repository", repository.key),
      commitOid,
      branch: repository.default_branch,
      analyzer: "test-coverage",
      key: "cxx",
      workDir: report.workDir,
      data: report.data,
      ...(configToml === undefined ? {} : { configToml }),
    });
    return runUid;
  }

  async function runStatus(runUid: string): Promise<string> {
    const { run } = dataOf(
      await gql(server.endpoint, token, `query($runUid: UUID!) { run(runUid: $runUid) { status } }`, {
        runUid,
      }),
    ) as { run: { status: string } };
    return run.status;
  }

  /** What the repository shows of its AGGREGATE line coverage, and the files it counts. */
  async function shown(): Promise<Shown> {
    const { node, account: owner } = dataOf(
      await gql(
        server.endpoint,
        token,
        `query($id: ID!, $login: String!) {
          node(id: $id) { ... on Repository {
            metrics(shortcodeIn: [LCV]) { items { key latestValue values(first: 10) { edges { node { value } } } } }
            coverageFiles(first: 50) { edges { node { path } } } } }
          account(login: $login, vcsProvider: GITHUB) { reports { codeCoverage {
            repositories(first: 50) { edges { node { name lcvMetricValue } } } } } } }`,
        { id: encodeGlobalId("Repository", repository.key), login: account.login },
      ),
    ) as {
      node: {
        metrics: Array<{
          items: Array<{
            key: string;
            latestValue: number | null;
            values: { edges: Array<{ node: { value: number } }> };
          }>;
        }>;
        coverageFiles: { edges: Array<{ node: { path: string } }> } | null;
      };
      account: {
        reports: {
          codeCoverage: {
            repositories: { edges: Array<{ node: { name: string; lcvMetricValue: number | null } }> };
          };
        };
      };
    };
    const item = node.metrics[0]?.items.find((i) => i.key === "AGGREGATE");
    return {
      latestValue: item?.latestValue ?? null,
      values: item?.values.edges.map((e) => e.node.value) ?? [],
      report:
        owner.reports.codeCoverage.repositories.edges.find((e) => e.node.name === repository.name)?.node
          .lcvMetricValue ?? null,
      coverageFiles: (node.coverageFiles?.edges ?? []).map((e) => e.node.path).sort(),
    };
  }

  test("a run waiting for another report shows nothing of its coverage until it has analysed the code", async () => {
    const first = await uploadCoverage(aCommitOid(), RING);
    assert.equal(await runStatus(first), "SUCCESS");
    const before = await shown();
    assert.equal(before.latestValue, RING_LCV);
    assert.deepEqual(before.values, [RING_LCV]);
    assert.equal(before.report, RING_LCV);
    assert.ok(before.coverageFiles.length > 0);

    const waiting = aCommitOid();
    const second = await uploadCoverage(waiting, GRADE, WAITS_FOR_PYTHON);
    assert.equal(await runStatus(second), "PENDING");
    assert.notEqual(GRADE_LCV, RING_LCV);
    assert.deepEqual(await shown(), before);

    // The Python report arrives, finding nothing: the run has analysed the code, and its coverage shows.
    const answer = dataOf(
      await gql(
        server.endpoint,
        token,
        `mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok error } }`,
        {
          input: {
            repositoryId: encodeGlobalId("Repository", repository.key),
            commitOid: waiting,
            branch: repository.default_branch,
            analyzer: "python",
            data: JSON.stringify({
              version: "2.1.0",
              runs: [{ tool: { driver: { name: "Pylint" } }, results: [] }],
            }),
          },
        },
      ),
    ).uploadArtifact as { ok: boolean; error: string };
    assert.equal(answer.ok, true, answer.error);
    await waitFor("the run to finish", async () => (await runStatus(second)) !== "PENDING", 20_000);
    assert.equal(await runStatus(second), "SUCCESS");
    const after = await shown();
    assert.deepEqual(
      [after.latestValue, after.values, after.report, after.coverageFiles],
      [GRADE_LCV, [GRADE_LCV, RING_LCV], GRADE_LCV, ["src/grade.c"]],
    );
  });
});
