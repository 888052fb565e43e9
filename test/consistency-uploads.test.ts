// test-runner: execution-mode independent (a client of the API; the queries it sends are covered elsewhere in both modes)
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { type FixtureKind, fixtureDir, toolFixture } from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { findingInvariants } from "./helpers/consistency-findings.ts";
import { historyInvariants } from "./helpers/consistency-history.ts";
import { measureInvariants } from "./helpers/consistency-measures.ts";
import {
  inRepository,
  type Query,
  type RepositoryRef,
  sum,
  viewerRepositories,
} from "./helpers/consistency-reads.ts";
import { waitFor } from "./helpers/instance.ts";
import { aCommit, importLodashAdvisory, rootSbom, webSbom } from "./helpers/sbom-scene.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";
import { uploadProcessed } from "./helpers/uploads.ts";

/**
 * The numbers of docs/read-model.md and docs/reports.md agree on data made the way real data is:
 * the real tools' reports (src/formats/**\/fixtures/, test/fixtures/pull-request/, made by
 * scripts/make-fixtures.sh) uploaded through `uploadArtifact` and processed by the server's
 * worker, over a small history of one repository:
 *
 * 1. main: ESLint (the shop's first version), Biome, clang's two translation units as two shards,
 *    GCC's whole build, one file of which does not compile (its CWE ids put findings in the SANS Top 25), coverage of JavaScript and Go,
 *    npm's SBOM;
 * 2. two ignore rules (one of them of clang's finding in the second unit) and a team suppression,
 *    then main again: ESLint on the second version (two findings appear, one persists), Biome,
 *    oxlint for the first time, clang, GCC, coverage of JavaScript, Java and Go, the SBOM with
 *    lodash (the lodash advisory imported from its OSV record);
 * 3. an ignore rule of an oxlint issue in one file, an enforced threshold of 100% on new code's line
 *    coverage, then pull request #12 from `fix/unused` into main, two pushes: ESLint on the third version (the unused variable fixed), coverage with the
 *    changed lines of two real `git diff`s, the SBOM, oxlint;
 * 4. main after the merge: ESLint on the third version, Biome, oxlint, clang's first unit only
 *    (the suppressed finding of the second is fixed), coverage, the SBOM of two lockfiles.
 *
 * The checks are test/helpers/consistency-findings.ts (the ones the demo holds too),
 * consistency-measures.ts and consistency-history.ts (the ones only uploads can hold).
 */

const PULL_REQUEST = path.resolve(import.meta.dirname, "fixtures", "pull-request");
const ESLINT_WORK_DIR = "/tmp/assay-fixtures/js-pull-request";

let server: TestServer;
let account: AccountRow;
let repository: RepositoryRow;
let token: string;
let repositories: RepositoryRef[];

const query: Query = async (text, variables) =>
  dataOf(await gql(server.endpoint, token, text, variables)) as never;

/** A report of the tool fixtures' manifest of `kind`, and the directory its tool ran in. */
function fixture(kind: FixtureKind, tool: string, name: string): { data: string; workDir: string } {
  const entry = toolFixture(kind, tool, name);
  return { data: fs.readFileSync(path.join(fixtureDir(kind), entry.file), "utf8"), workDir: entry.workDir };
}

/** ESLint's SARIF or c8's LCOV of a version of the pull-request project (base, push-1, push-2). */
function shopReport(version: string, extension: "sarif" | "lcov"): string {
  return fs.readFileSync(path.join(PULL_REQUEST, `${version}.${extension}`), "utf8");
}

interface Push {
  commit: string;
  branch: string;
  pullRequestNumber?: number;
  baseBranch?: string;
}

/**
 * Uploads one report for `push`'s commit and waits until the worker processed it and (unless it
 * is changed lines) the run settled; fails unless it was processed.
 */
async function upload(push: Push, input: Record<string, unknown>): Promise<void> {
  const { artifactId, runUid } = await uploadProcessed(server, token, {
    repositoryId: encodeGlobalId("Repository", repository.key),
    commitOid: push.commit,
    branch: push.branch,
    pullRequestNumber: push.pullRequestNumber ?? null,
    baseBranch: push.baseBranch ?? null,
    ...input,
  });
  const state = async () =>
    (
      await query<{ run: { status: string } }>(`query($uid: UUID!) { run(runUid: $uid) { status } }`, {
        uid: runUid,
      })
    ).run.status;
  // Changed lines have no check: a run they open waits for the reports that follow.
  if (input.analyzer !== "changes") {
    await waitFor(`run ${runUid} to settle`, async () => (await state()) !== "PENDING", 20_000);
  }
  const { node } = await query<{ node: { status: string; error: string | null } }>(
    `query($id: ID!) { node(id: $id) { ... on Artifact { status error } } }`,
    { id: artifactId },
  );
  assert.deepEqual(node, { status: "PROCESSED", error: null }, `${input.analyzer} of ${push.commit}`);
}

const eslint = (version: string) => ({
  analyzer: "eslint",
  analyzerType: "community",
  workDir: ESLINT_WORK_DIR,
  data: shopReport(version, "sarif"),
});
const community = (tool: string, name: string) => ({
  analyzer: tool,
  analyzerType: "community",
  ...fixture("sarif", tool, name),
});
/**
 * GCC's whole build (the fixture's legacy.c does not compile: the check keeps the base's findings
 * there and is judged on the rest, docs/ingestion.md "Status").
 */
const gcc = () => ({ analyzer: "gcc", analyzerType: "community", ...fixture("sarif", "gcc", "gcc.json") });
const coverage = (key: string, report: { data: string; workDir: string }) => ({
  analyzer: "test-coverage",
  key,
  ...report,
});
const javascript = (version: string) =>
  coverage("javascript", { data: shopReport(version, "lcov"), workDir: ESLINT_WORK_DIR });
// A Go profile names files by import path: the module path is the upload's workDir.
const go = (name: string) =>
  coverage("go", { ...fixture("coverage", "go", name), workDir: "example.com/warehouse" });
const sbom = (data: string) => ({ analyzer: "sca", data });
const changes = (tool: string) => ({ analyzer: "changes", ...fixture("coverage", tool, "changes.diff") });

async function mutate(name: string, input: Record<string, unknown>): Promise<void> {
  const inputType = `${name[0]!.toUpperCase()}${name.slice(1)}Input`;
  const res = await gql(
    server.endpoint,
    token,
    `mutation($input: ${inputType}!) { ${name}(input: $input) { clientMutationId } }`,
    {
      input,
    },
  );
  assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
}

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, { login: "acme" }, [{ user, role: "ADMIN" }]);
  repository = await aRepository(server.db, account, { name: "shop", defaultBranch: "main" });
  token = await aToken(server.db, server.config.tokenPepper, user);
  await importLodashAdvisory(server);

  const first: Push = { commit: aCommit(), branch: "main" };
  await upload(first, eslint("base"));
  await upload(first, community("biome", "biome.sarif"));
  await upload(first, community("clang", "inventory.sarif"));
  await upload(first, community("clang", "main.sarif"));
  await upload(first, gcc());
  await upload(first, javascript("base"));
  await upload(first, go("set.out"));
  await upload(first, sbom(rootSbom(false)));

  const repositoryId = encodeGlobalId("Repository", repository.key);
  await mutate("createIgnoreRule", {
    repositoryId,
    issueShortcode: "lint/a11y/useAltText",
    analyzerShortcode: "biome",
    level: "REPOSITORY",
    type: "PATTERN",
    globPattern: "src/**/*.jsx",
  });
  await mutate("createIgnoreRule", {
    repositoryId,
    issueShortcode: "security.insecureAPI.gets",
    analyzerShortcode: "clang",
    level: "FILE",
    type: "FOREVER",
    filePath: "src/main.c",
  });
  await mutate("suppressIssueForTeam", {
    issueShortcode: "prefer-const",
    login: account.login,
    vcsProvider: "GITHUB",
  });

  const second: Push = { commit: aCommit(), branch: "main" };
  await upload(second, eslint("push-1"));
  await upload(second, community("biome", "biome.sarif"));
  await upload(second, community("oxlint", "oxlint.sarif"));
  await upload(second, community("clang", "inventory.sarif"));
  await upload(second, community("clang", "main.sarif"));
  await upload(second, gcc());
  await upload(second, javascript("push-1"));
  await upload(second, coverage("java", fixture("coverage", "jacoco", "jacoco.xml")));
  await upload(second, go("count.out"));
  await upload(second, sbom(rootSbom(true)));

  // oxlint's rules are known from its first report on: a rule of one of them follows it.
  await mutate("createIgnoreRule", {
    repositoryId,
    issueShortcode: "eslint(no-unused-vars)",
    analyzerShortcode: "oxlint",
    level: "FILE",
    type: "FOREVER",
    filePath: "src/orders.js",
  });
  // New code must be fully covered, enforced: the pull request's run with changed lines fails its
  // coverage check by the gate.
  await mutate("setRepositoryMetricThreshold", {
    repositoryId,
    metricShortcode: "NLCV",
    metricKey: "AGGREGATE",
    thresholdValue: 100,
  });
  await mutate("updateRepositoryMetricSetting", {
    repositoryId,
    metricShortcode: "NLCV",
    isReported: true,
    isThresholdEnforced: true,
  });
  const pullRequest = { branch: "fix/unused", pullRequestNumber: 12, baseBranch: "main" };
  const firstPush: Push = { commit: aCommit(), ...pullRequest };
  await upload(firstPush, eslint("push-2"));
  await upload(firstPush, javascript("push-2"));
  await upload(firstPush, sbom(rootSbom(true)));
  const secondPush: Push = { commit: aCommit(), ...pullRequest };
  await upload(secondPush, changes("git-diff"));
  await upload(secondPush, changes("jacoco"));
  await upload(secondPush, eslint("push-2"));
  await upload(secondPush, coverage("javascript", fixture("coverage", "c8", "lcov.info")));
  await upload(secondPush, coverage("java", fixture("coverage", "jacoco", "jacoco.xml")));
  await upload(secondPush, community("oxlint", "oxlint.sarif"));

  const merged: Push = { commit: aCommit(), branch: "main" };
  await upload(merged, eslint("push-2"));
  await upload(merged, community("biome", "biome.sarif"));
  await upload(merged, community("oxlint", "oxlint.sarif"));
  await upload(merged, community("clang", "inventory.sarif"));
  await upload(merged, javascript("push-2"));
  await upload(merged, sbom(rootSbom(true)));
  await upload(merged, sbom(webSbom(true)));

  repositories = await viewerRepositories(query);
  assert.equal(repositories.length, 1);
});
after(() => server?.stop());

describe("numbers that answer the same question agree, on real uploads", () => {
  test("the history holds what the checks compare: findings new, kept, fixed and suppressed, a pull request's two runs, new-code coverage, a vulnerability", async () => {
    const { repository: answer } = await query<{
      repository: {
        analysisRuns: {
          edges: Array<{
            node: {
              branchName: string;
              status: string;
              summary: Record<string, number>;
              changesetStats: { lines: { new: number | null } } | null;
            };
          }>;
        };
      };
    }>(
      inRepository(
        repositories[0]!,
        `analysisRuns(first: 100) { edges { node { branchName status
          summary { occurrencesIntroduced occurrencesResolved occurrencesSuppressed vulnerabilitiesIntroduced }
          changesetStats { lines { new } } } } }`,
      ),
    );
    const runs = answer.analysisRuns.edges.map((edge) => edge.node);
    assert.deepEqual(
      runs.map((run) => run.branchName),
      ["main", "fix/unused", "fix/unused", "main", "main"],
    );
    assert.ok(runs.every((run) => ["SUCCESS", "FAILURE"].includes(run.status)));
    const total = (field: string) => sum(runs.map((run) => run.summary[field] ?? 0));
    assert.ok(total("occurrencesResolved") > 0, "findings were fixed");
    assert.ok(total("occurrencesSuppressed") > 0, "findings were suppressed");
    assert.ok(total("vulnerabilitiesIntroduced") > 0, "a vulnerability appeared");
    assert.ok(
      runs.some((run) => (run.changesetStats?.lines.new ?? 0) > 0),
      "changed lines were covered",
    );
  });

  test("a repository's open occurrences are one number: its issues', issueOccurrences' and the issue reports'", async () => {
    assert.ok((await findingInvariants(query, repositories).openOccurrencesAgree()) > 0);
  });

  test("the compliance reports count the open occurrences of the issues their standards tag", async () => {
    assert.ok(
      (await findingInvariants(query, repositories).complianceAgrees()) > 0,
      "findings in a standard's items",
    );
  });

  test("a run's summary is the sum of its checks', and each distribution adds up to what it introduced", async () => {
    assert.ok((await findingInvariants(query, repositories).runSummariesAddUp(100)) > 0);
  });

  test("a pull request's summary and findings are its latest run's", async () => {
    assert.equal(await findingInvariants(query, repositories).pullRequestsAreTheirLatestRuns(), 1);
  });

  test("a repository's latest commit is its newest analysed default-branch run's", async () => {
    assert.equal(await findingInvariants(query, repositories).latestCommitIsNewestAnalysedRun(), 1);
  });

  test("a metric item's latest value is the newest of its recorded values", async () => {
    assert.ok((await findingInvariants(query, repositories).latestMetricValuesAreNewest()) > 0);
  });

  test("an account's reports are the sums of its repositories'", async () => {
    assert.ok((await findingInvariants(query, repositories).accountReportsAreSums()) > 0);
  });

  test("every connection of a repository holds totalCount edges, paged forwards and backwards", async () => {
    assert.ok((await findingInvariants(query, repositories).connectionsPageBothWays()) > 0);
  });

  test("every coverage check's files add up to its metric values and its run's changeset stats", async () => {
    assert.ok((await measureInvariants(query, repositories).coverageFilesAddUp()) >= 4);
  });

  test("a coverage check fails exactly when one of its values misses an enforced threshold", async () => {
    const { passed, failed } = await measureInvariants(query, repositories).coverageChecksFollowTheGate();
    assert.ok(passed >= 3 && failed >= 1, `coverage checks passed ${passed}, failed ${failed}`);
  });

  test("a repository's latest metric values and coverage files are its newest analysed default-branch run's", async () => {
    assert.ok((await measureInvariants(query, repositories).repositoryMetricsAreNewestRuns()) > 0);
  });

  test("the code coverage report shows each repository's latest values, and a pull request's metrics are its latest run's", async () => {
    const compared = await measureInvariants(query, repositories).coverageReportsAreLatestValues(
      account.login,
      "GITHUB",
    );
    assert.deepEqual(
      compared,
      { repositories: 1, pullRequests: 1, withCoverage: 1 },
      "the repository and its pull request, which has coverage values",
    );
  });

  test("a run's DDP is what its dependency scans list", async () => {
    const compared = await measureInvariants(query, repositories).dependenciesAreScans();
    assert.ok(compared >= 3, `${compared} runs compared`);
  });

  test("a run's suppressed findings are those its ignore rules and team suppressions cover", async () => {
    assert.ok(
      (await historyInvariants(query, repositories).suppressedAreTheRulesFindings(account.login, "GITHUB")) >
        0,
    );
  });

  test("a repository's issues under each filter count what issueOccurrences holds under the same filter", async () => {
    assert.ok((await historyInvariants(query, repositories).issueFiltersMatchOccurrences()) > 0);
  });

  test("a repository's findings of each analyzer are its newest conclusive default-branch check's", async () => {
    assert.ok((await historyInvariants(query, repositories).findingsAreNewestChecks()) >= 4);
  });

  test("a check lists what its base check listed, plus what it introduced, minus what it resolved", async () => {
    assert.ok((await historyInvariants(query, repositories).findingsFollowTheirBase()) > 0);
  });
});
