import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import type { RepositoryRow, UserRow } from "../src/db/types.ts";
import { readToolFixture } from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { importAdvisories } from "../src/modules/dependencies/advisory-import.ts";
import { dsnToken } from "../src/modules/repositories/dsn.ts";
import { REBASE_JOB_KIND } from "../src/modules/runs/rebase-job.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { waitFor } from "./helpers/instance.ts";
import { assertIssueCountsMatchFindings } from "./helpers/issue-counts.ts";
import { aResult, sarifLog } from "./helpers/sarif-scene.ts";
import {
  createArtifact as createArtifactWithDsn,
  dataOf,
  gql,
  startTestServer,
  type TestServer,
} from "./helpers/server.ts";
import {
  githubHeaders,
  githubPullRequestPayload,
  githubPushPayload,
  gitlabHeaders,
  gitlabMergeRequestPayload,
} from "./helpers/vcs-payloads.ts";
import { bitbucketHeaders, bitbucketPullRequestPayload } from "./helpers/vcs-payloads-bitbucket.ts";

/**
 * Which branch a pull request's head run is on, through the real server and the providers'
 * payloads (docs/vcs-events.md "Pull requests from forks", "Runs that move off the default
 * branch"): a fork's head branch may be called `main` as the default branch is, and its run must
 * belong to the pull request, never to the default branch; a run put on the default branch only
 * because its upload named no branch moves to the pull request whose head it turns out to be.
 */

const SHA = (n: number) => n.toString(16).padStart(40, "f");

let server: TestServer;
let user: UserRow;
let token: string;

interface Finding {
  rule: string;
  path: string;
  line: number;
}

function sarif(findings: readonly Finding[]): string {
  const rules = [...new Set(findings.map((f) => f.rule))].map((id) => ({
    id,
    shortDescription: { text: `Rule ${id}` },
    properties: { tags: ["style"] },
  }));
  return sarifLog([
    { tool: "fork-lint", rules, results: findings.map((f) => aResult(f.rule, f.path, f.line)) },
  ]);
}

/** npm's CycloneDX SBOM of a fixture project, with lodash 4.17.11 as a direct dependency when asked. */
function sbom(withLodash: boolean): string {
  const bom = JSON.parse(readToolFixture("sbom", "npm", "cyclonedx.json")) as {
    metadata: { component: { "bom-ref": string } };
    components: Array<Record<string, unknown>>;
    dependencies: Array<{ ref: string; dependsOn: string[] }>;
  };
  if (withLodash) {
    bom.components.push({
      type: "library",
      "bom-ref": "lodash@4.17.11",
      name: "lodash",
      version: "4.17.11",
      purl: "pkg:npm/lodash@4.17.11",
      // Where npm says a registry package came from; without it, npm's document means a link.
      externalReferences: [
        { type: "distribution", url: "https://registry.npmjs.org/lodash/-/lodash-4.17.11.tgz" },
      ],
    });
    bom.dependencies
      .find((d) => d.ref === bom.metadata.component["bom-ref"])
      ?.dependsOn.push("lodash@4.17.11");
    bom.dependencies.push({ ref: "lodash@4.17.11", dependsOn: [] });
  }
  return JSON.stringify(bom);
}

const LCOV = "TN:\nSF:src/m.ts\nDA:1,1\nDA:2,0\nDA:3,1\nDA:4,1\nend_of_record\n";

/** A repository of its own with a webhook secret, for one scenario. */
async function aScenario(provider: "GITHUB" | "GITLAB" | "BITBUCKET" = "GITHUB") {
  const team = await anAccount(server.db, { vcsProvider: provider }, [{ user, role: "ADMIN" }]);
  const repo = await aRepository(server.db, team, { defaultBranch: "main" });
  const set = await gql(
    server.endpoint,
    token,
    `mutation($id: ID!) { setRepositoryVcsWebhookSecret(input: { repositoryId: $id }) { secret } }`,
    { id: encodeGlobalId("Repository", repo.key) },
  );
  const secret = (dataOf(set).setRepositoryVcsWebhookSecret as { secret: string }).secret;
  return { team, repo, secret };
}

type Scenario = Awaited<ReturnType<typeof aScenario>>;

async function upload(
  { repo }: Scenario,
  fields: {
    commit: string;
    branch?: string;
    pullRequestNumber?: number;
    findings?: Finding[];
    coverage?: string;
    sbom?: string;
  },
): Promise<void> {
  const report =
    fields.coverage !== undefined
      ? { analyzer: "test-coverage", key: "javascript", data: fields.coverage }
      : fields.sbom !== undefined
        ? { analyzer: "sca", data: fields.sbom }
        : { analyzer: "fork-lint", analyzerType: "community", data: sarif(fields.findings ?? []) };
  const answer = await gql(
    server.endpoint,
    token,
    `mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok error } }`,
    {
      input: {
        repositoryId: encodeGlobalId("Repository", repo.key),
        commitOid: fields.commit,
        branch: fields.branch,
        pullRequestNumber: fields.pullRequestNumber,
        ...report,
      },
    },
  );
  const result = dataOf(answer).uploadArtifact as { ok: boolean; error: string };
  assert.equal(result.ok, true, result.error);
  await waitFor(
    `the run of ${fields.commit} to settle`,
    async () => (await runOf(repo, fields.commit))?.status !== "PENDING",
    20_000,
  );
}

/** Uploads a report with the contract's `createArtifact` and the repository's DSN: it names no branch. */
async function createArtifact(
  { repo }: Scenario,
  commit: string,
  findings: Finding[],
  configToml?: string,
): Promise<void> {
  const result = await createArtifactWithDsn(server, {
    accessToken: dsnToken(repo, server.config.tokenPepper),
    commitOid: commit,
    analyzer: "fork-lint",
    analyzerType: "community",
    data: sarif(findings),
    configToml,
  });
  assert.equal(result.ok, true, result.error);
  await waitFor(
    `the run of ${commit} to settle`,
    async () => (await runOf(repo, commit))?.status !== "PENDING",
    20_000,
  );
}

function runOf(repo: RepositoryRow, commit: string) {
  return server.db
    .selectFrom("analysis_runs")
    .selectAll()
    .where("repository_id", "=", repo.id)
    .where("commit_oid", "=", commit)
    .executeTakeFirst();
}

async function deliver(
  path: string,
  headers: Record<string, string>,
  body: string,
  repo: RepositoryRow,
): Promise<void> {
  const delivered = await fetch(`${server.url}${path}`, { method: "POST", headers, body });
  assert.equal(delivered.status, 200, await delivered.text());
  // Rebase jobs are enqueued with the delivery and deleted when done.
  await waitFor(
    "the delivery's rebase jobs to be done",
    async () => {
      const runs = await server.db
        .selectFrom("analysis_runs")
        .select("id")
        .where("repository_id", "=", repo.id)
        .execute();
      const pending = await server.db
        .selectFrom("jobs")
        .select("id")
        .where("dedupe_key", "in", runs.map((run) => `${REBASE_JOB_KIND}:${run.id}`).concat(["(none)"]))
        .execute();
      return pending.length === 0;
    },
    20_000,
  );
}

/** Delivers a GitHub `pull_request` event from `fork` (undefined: a branch of the repository). */
function deliverGithubPullRequest(
  { team, repo, secret }: Scenario,
  fields: {
    action: "opened" | "synchronize";
    number: number;
    head: { ref: string; sha: string };
    base: { ref: string; sha: string };
    fork?: { owner: string; name: string; id: number } | null;
    updatedAt: string;
  },
): Promise<void> {
  const body = JSON.stringify(githubPullRequestPayload({ owner: team.login, name: repo.name, ...fields }));
  return deliver("/webhooks/github", githubHeaders("pull_request", body, secret), body, repo);
}

async function pullRequestRow(repo: RepositoryRow, number: number) {
  return server.db
    .selectFrom("pull_requests")
    .select(["branch", "is_cross_repository", "head_repository"])
    .where("repository_id", "=", repo.id)
    .where("number", "=", number)
    .executeTakeFirstOrThrow();
}

async function repositoryIssues({ team, repo }: Scenario): Promise<string[]> {
  const answer = await gql<{
    repository: { issues: { edges: Array<{ node: { issue: { shortcode: string } } }> } };
  }>(
    server.endpoint,
    token,
    `query($login: String!, $name: String!, $provider: VCSProvider!) {
      repository(login: $login, name: $name, vcsProvider: $provider) {
        issues(first: 10) { edges { node { issue { shortcode } } } } } }`,
    { login: team.login, name: repo.name, provider: team.vcs_provider },
  );
  return (answer.body.data?.repository.issues.edges ?? []).map((edge) => edge.node.issue.shortcode).sort();
}

async function latestRunOfPullRequest({ team, repo }: Scenario, number: number) {
  const answer = await gql<{
    repository: {
      pullRequest: {
        branch: string | null;
        latestAnalysisRun: { commitOid: string; branchName: string | null; baseOid: string | null } | null;
        summary: { issuesRaised: number; issuesResolved: number } | null;
      } | null;
    };
  }>(
    server.endpoint,
    token,
    `query($login: String!, $name: String!, $number: Int!) {
      repository(login: $login, name: $name, vcsProvider: GITHUB) {
        pullRequest(number: $number) {
          branch latestAnalysisRun { commitOid branchName baseOid } summary { issuesRaised issuesResolved }
        } } }`,
    { login: team.login, name: repo.name, number },
  );
  return answer.body.data?.repository.pullRequest ?? null;
}

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  user = await aUser(server.db);
  token = await aToken(server.db, server.config.tokenPepper, user);
});

after(() => server?.stop());

describe("a GitHub pull request from a fork's main", () => {
  test("reported first: the head's upload naming main joins the pull request on the fork's branch, and the default branch is untouched", async () => {
    const scenario = await aScenario();
    const { repo } = scenario;
    await upload(scenario, {
      commit: SHA(1),
      branch: "main",
      findings: [{ rule: "semi", path: "src/m.ts", line: 1 }],
    });
    await deliverGithubPullRequest(scenario, {
      action: "opened",
      number: 7,
      head: { ref: "main", sha: SHA(2) },
      base: { ref: "main", sha: SHA(1) },
      fork: { owner: "contributor", name: repo.name, id: 987_654 },
      updatedAt: "2026-11-20T10:00:00Z",
    });
    assert.deepEqual(await pullRequestRow(repo, 7), {
      branch: "main",
      is_cross_repository: true,
      head_repository: `contributor/${repo.name}`,
    });

    // The fork's CI names its own branch, main.
    await upload(scenario, {
      commit: SHA(2),
      branch: "main",
      findings: [
        { rule: "semi", path: "src/m.ts", line: 1 },
        { rule: "quotes", path: "src/f.ts", line: 2 },
      ],
    });
    const pr = await latestRunOfPullRequest(scenario, 7);
    assert.equal(pr?.branch, "main", "the pull request keeps the branch its provider names");
    assert.deepEqual(pr?.latestAnalysisRun, {
      commitOid: SHA(2),
      branchName: `contributor/${repo.name}:main`,
      baseOid: SHA(1),
    });
    assert.deepEqual(pr?.summary, { issuesRaised: 1, issuesResolved: 0 });
    assert.deepEqual(
      await repositoryIssues(scenario),
      ["semi"],
      "the fork's finding is not the repository's",
    );
  });

  test("a pull request of the repository's own branch is not cross-repository", async () => {
    const scenario = await aScenario();
    await deliverGithubPullRequest(scenario, {
      action: "opened",
      number: 3,
      head: { ref: "feature", sha: SHA(0x30) },
      base: { ref: "main", sha: SHA(0x31) },
      updatedAt: "2026-11-20T10:00:00Z",
    });
    assert.deepEqual(await pullRequestRow(scenario.repo, 3), {
      branch: "feature",
      is_cross_repository: false,
      head_repository: null,
    });
  });

  test("a deleted fork's pull request keeps the fork's name, and a fork never named puts its runs on no branch", async () => {
    const scenario = await aScenario();
    const { repo } = scenario;
    await deliverGithubPullRequest(scenario, {
      action: "opened",
      number: 4,
      head: { ref: "main", sha: SHA(0x40) },
      base: { ref: "main", sha: SHA(0x41) },
      fork: { owner: "someone", name: "fork", id: 55 },
      updatedAt: "2026-11-20T10:00:00Z",
    });
    await deliverGithubPullRequest(scenario, {
      action: "synchronize",
      number: 4,
      head: { ref: "main", sha: SHA(0x42) },
      base: { ref: "main", sha: SHA(0x41) },
      fork: null,
      updatedAt: "2026-11-20T11:00:00Z",
    });
    assert.deepEqual(await pullRequestRow(repo, 4), {
      branch: "main",
      is_cross_repository: true,
      head_repository: "someone/fork",
    });

    await deliverGithubPullRequest(scenario, {
      action: "opened",
      number: 5,
      head: { ref: "main", sha: SHA(0x50) },
      base: { ref: "main", sha: SHA(0x41) },
      fork: null,
      updatedAt: "2026-11-20T10:00:00Z",
    });
    await upload(scenario, { commit: SHA(0x50), branch: "main" });
    const run = await runOf(repo, SHA(0x50));
    assert.equal(run?.branch_name, null);
    assert.notEqual(run?.pull_request_id, null);
  });
});

describe("a fork's run uploaded before its pull request was reported", () => {
  test("moves off the default branch when the webhook arrives: current findings, metric history and the runs compared with it follow", async () => {
    const scenario = await aScenario();
    const { repo } = scenario;
    await upload(scenario, {
      commit: SHA(0x10),
      branch: "main",
      findings: [{ rule: "semi", path: "src/m.ts", line: 1 }],
    });
    // The fork's job reports first, naming its branch main: taken for the default branch.
    await upload(scenario, {
      commit: SHA(0x11),
      branch: "main",
      findings: [
        { rule: "semi", path: "src/m.ts", line: 1 },
        { rule: "quotes", path: "src/f.ts", line: 2 },
      ],
    });
    await upload(scenario, { commit: SHA(0x11), branch: "main", coverage: LCOV });
    assert.deepEqual(await repositoryIssues(scenario), ["quotes", "semi"]);
    // A pull request of the repository's own, compared with main's newest run: the fork's.
    await upload(scenario, {
      commit: SHA(0x12),
      branch: "tidy",
      pullRequestNumber: 8,
      findings: [{ rule: "semi", path: "src/m.ts", line: 1 }],
    });
    assert.deepEqual((await latestRunOfPullRequest(scenario, 8))?.summary, {
      issuesRaised: 0,
      issuesResolved: 1,
    });

    await deliverGithubPullRequest(scenario, {
      action: "opened",
      number: 9,
      head: { ref: "main", sha: SHA(0x11) },
      base: { ref: "main", sha: SHA(0x10) },
      fork: { owner: "contributor", name: repo.name, id: 987_655 },
      updatedAt: "2026-11-21T10:00:00Z",
    });
    await waitFor(
      "the pull request 8's run to be compared with main again",
      async () => (await runOf(repo, SHA(0x12)))?.base_oid === SHA(0x10),
      20_000,
    );

    const moved = await runOf(repo, SHA(0x11));
    const forkBranch = `contributor/${repo.name}:main`;
    assert.equal(moved?.branch_name, forkBranch);
    const checks = await server.db
      .selectFrom("checks")
      .select("branch_name")
      .where("run_id", "=", moved?.id as string)
      .execute();
    assert.equal(checks.length, 2);
    assert.ok(
      checks.every((check) => check.branch_name === forkBranch),
      "each check's copy of the branch moved",
    );
    const values = await server.db
      .selectFrom("metric_values as v")
      .innerJoin("checks as c", "c.id", "v.check_id")
      .select("v.on_default_branch")
      .where("c.run_id", "=", moved?.id as string)
      .execute();
    assert.ok(values.length > 0, "the coverage check recorded values");
    assert.ok(
      values.every((value) => value.on_default_branch === false),
      "they left the repository's history",
    );
    const history = await gql<{
      repository: { metrics: Array<{ shortcode: string; items: Array<{ latestValue: number | null }> }> };
    }>(
      server.endpoint,
      token,
      `query($login: String!, $name: String!) { repository(login: $login, name: $name, vcsProvider: GITHUB) {
        metrics { shortcode items { latestValue } } } }`,
      { login: scenario.team.login, name: repo.name },
    );
    const lcv = history.body.data?.repository.metrics.find((metric) => metric.shortcode === "LCV");
    assert.ok(
      (lcv?.items ?? []).every((item) => item.latestValue === null),
      "no default-branch coverage is left",
    );

    assert.deepEqual(await repositoryIssues(scenario), ["semi"]);
    const pr = await latestRunOfPullRequest(scenario, 9);
    assert.deepEqual(pr?.latestAnalysisRun, {
      commitOid: SHA(0x11),
      branchName: forkBranch,
      baseOid: SHA(0x10),
    });
    assert.deepEqual(pr?.summary, { issuesRaised: 1, issuesResolved: 0 });
    assert.deepEqual((await latestRunOfPullRequest(scenario, 8))?.summary, {
      issuesRaised: 0,
      issuesResolved: 0,
    });
  });

  test("takes its dependency scan with it: its vulnerabilities stop being the repository's", async () => {
    const scenario = await aScenario();
    const { team, repo } = scenario;
    await importAdvisories(server.db, [
      {
        name: "GHSA-jf85-cpcp-j695.json",
        text: readFileSync(
          new URL("../src/formats/osv/fixtures/GHSA-jf85-cpcp-j695.json", import.meta.url),
          "utf8",
        ),
      },
    ]);
    await upload(scenario, { commit: SHA(0x18), branch: "main", sbom: sbom(false) });
    await upload(scenario, { commit: SHA(0x19), branch: "main", sbom: sbom(true) });
    const vulnerable = async () => {
      const answer = await gql<{
        repository: { dependencyVulnerabilityOccurrences: { totalCount: number } };
      }>(
        server.endpoint,
        token,
        `query($login: String!, $name: String!) { repository(login: $login, name: $name, vcsProvider: GITHUB) {
          dependencyVulnerabilityOccurrences(first: 10) { totalCount } } }`,
        { login: team.login, name: repo.name },
      );
      assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body.errors));
      return answer.body.data?.repository.dependencyVulnerabilityOccurrences.totalCount;
    };
    assert.equal(await vulnerable(), 1, "the fork's lodash, taken for main's");

    await deliverGithubPullRequest(scenario, {
      action: "opened",
      number: 10,
      head: { ref: "main", sha: SHA(0x19) },
      base: { ref: "main", sha: SHA(0x18) },
      fork: { owner: "contributor", name: repo.name, id: 987_658 },
      updatedAt: "2026-11-21T10:00:00Z",
    });
    assert.equal((await runOf(repo, SHA(0x19)))?.branch_name, `contributor/${repo.name}:main`);
    assert.equal(await vulnerable(), 0, "main's own scan has no lodash");
  });

  test("stays on the default branch when a push reported its commit as the default branch's head", async () => {
    const scenario = await aScenario();
    const { team, repo, secret } = scenario;
    const push = JSON.stringify(
      githubPushPayload({
        owner: team.login,
        name: repo.name,
        ref: "refs/heads/main",
        before: SHA(0x20),
        after: SHA(0x21),
        pushedAt: 1_795_000_000,
      }),
    );
    await deliver("/webhooks/github", githubHeaders("push", push, secret), push, repo);
    await upload(scenario, {
      commit: SHA(0x21),
      branch: "main",
      findings: [{ rule: "semi", path: "src/m.ts", line: 1 }],
    });
    await deliverGithubPullRequest(scenario, {
      action: "opened",
      number: 11,
      head: { ref: "main", sha: SHA(0x21) },
      base: { ref: "main", sha: SHA(0x20) },
      fork: { owner: "contributor", name: repo.name, id: 987_656 },
      updatedAt: "2026-11-21T10:00:00Z",
    });
    const run = await runOf(repo, SHA(0x21));
    assert.equal(run?.branch_name, "main");
    assert.notEqual(run?.pull_request_id, null, "it belongs to the pull request too");
    assert.deepEqual(await repositoryIssues(scenario), ["semi"]);
  });
});

describe("a run put on the default branch because its upload named no branch", () => {
  test("moves to the branch of the pull request a webhook then reports it heads, and leaves the default branch's findings", async () => {
    const scenario = await aScenario();
    const { repo } = scenario;
    await upload(scenario, {
      commit: SHA(0x80),
      branch: "main",
      findings: [{ rule: "semi", path: "src/m.ts", line: 1 }],
    });
    await createArtifact(scenario, SHA(0x81), [
      { rule: "semi", path: "src/m.ts", line: 1 },
      { rule: "quotes", path: "src/f.ts", line: 2 },
    ]);
    const before = await runOf(repo, SHA(0x81));
    assert.equal(before?.branch_name, "main");
    assert.equal(before?.is_branch_defaulted, true);
    assert.deepEqual(await repositoryIssues(scenario), ["quotes", "semi"]);

    await deliverGithubPullRequest(scenario, {
      action: "opened",
      number: 31,
      head: { ref: "feature", sha: SHA(0x81) },
      base: { ref: "main", sha: SHA(0x80) },
      updatedAt: "2026-11-22T10:00:00Z",
    });
    const moved = await runOf(repo, SHA(0x81));
    assert.equal(moved?.branch_name, "feature");
    assert.equal(moved?.is_branch_defaulted, false);
    const checks = await server.db
      .selectFrom("checks")
      .select("branch_name")
      .where("run_id", "=", moved?.id as string)
      .execute();
    assert.deepEqual(
      checks.map((check) => check.branch_name),
      ["feature"],
    );
    assert.deepEqual(await repositoryIssues(scenario), ["semi"]);
    const pr = await latestRunOfPullRequest(scenario, 31);
    assert.deepEqual(pr?.latestAnalysisRun, {
      commitOid: SHA(0x81),
      branchName: "feature",
      baseOid: SHA(0x80),
    });
    assert.deepEqual(pr?.summary, { issuesRaised: 1, issuesResolved: 0 });
  });

  test("gives the repository back the default branch's configuration when the run that set it moves", async () => {
    const scenario = await aScenario();
    const { repo } = scenario;
    const configOf = async () =>
      (
        await server.db
          .selectFrom("repositories")
          .select("config_json")
          .where("id", "=", repo.id)
          .executeTakeFirst()
      )?.config_json;
    // Both turn on the analyzer uploaded (a run waits for every analyzer its configuration names).
    const toml = (excluded: string) =>
      `version = 1\nexclude_patterns = ["${excluded}"]\n\n[[analyzers]]\nname = "fork-lint"\n`;
    const config = (excluded: string) => ({
      version: 1,
      exclude_patterns: [excluded],
      analyzers: [{ name: "fork-lint" }],
    });
    await createArtifact(scenario, SHA(0x90), [], toml("vendor/**"));
    await createArtifact(scenario, SHA(0x91), [], toml("dist/**"));
    assert.deepEqual(await configOf(), config("dist/**"));

    await deliverGithubPullRequest(scenario, {
      action: "opened",
      number: 33,
      head: { ref: "feature", sha: SHA(0x91) },
      base: { ref: "main", sha: SHA(0x90) },
      updatedAt: "2026-11-22T10:00:00Z",
    });
    assert.equal((await runOf(repo, SHA(0x91)))?.branch_name, "feature");
    assert.deepEqual(await configOf(), config("vendor/**"));
  });

  test("moves after later default-branch runs were compared with it, and every run that read its findings is compared again", async () => {
    const scenario = await aScenario();
    const { repo } = scenario;
    const semi = { rule: "semi", path: "src/m.ts", line: 1 };
    const quotes = { rule: "quotes", path: "src/f.ts", line: 2 };
    await upload(scenario, { commit: SHA(0x90), branch: "main", findings: [semi] });
    // The branch's push, analysed with createArtifact: on main, for want of a branch.
    await createArtifact(scenario, SHA(0x91), [semi, quotes]);
    // main goes on: a run of coverage alone (compared with the branch's run), a pull request's
    // run and a run of main with findings, both compared with it, whose fork-lint base check is
    // the branch's run's (the coverage run has none).
    await upload(scenario, { commit: SHA(0x92), branch: "main", coverage: LCOV });
    await upload(scenario, {
      commit: SHA(0x93),
      branch: "tidy",
      pullRequestNumber: 41,
      findings: [semi, quotes],
    });
    await upload(scenario, { commit: SHA(0x94), branch: "main", findings: [semi] });
    assert.equal((await runOf(repo, SHA(0x92)))?.base_oid, SHA(0x91));
    assert.deepEqual((await latestRunOfPullRequest(scenario, 41))?.summary, {
      issuesRaised: 0,
      issuesResolved: 0,
    });
    const resolvedBy = async (commit: string) =>
      (
        await server.db
          .selectFrom("occurrences as o")
          .innerJoin("checks as c", "c.id", "o.check_id")
          .innerJoin("analysis_runs as r", "r.id", "c.run_id")
          .select((eb) => eb.fn.countAll<string>().as("count"))
          .where("r.repository_id", "=", repo.id)
          .where("r.commit_oid", "=", commit)
          .where("o.state", "=", "RESOLVED")
          .executeTakeFirstOrThrow()
      ).count;
    assert.equal(Number(await resolvedBy(SHA(0x94))), 1, "main's run resolved the branch's quotes");

    await deliverGithubPullRequest(scenario, {
      action: "opened",
      number: 42,
      head: { ref: "feature", sha: SHA(0x91) },
      base: { ref: "main", sha: SHA(0x90) },
      updatedAt: "2026-11-22T10:00:00Z",
    });
    assert.equal((await runOf(repo, SHA(0x91)))?.branch_name, "feature");
    assert.equal((await runOf(repo, SHA(0x92)))?.base_oid, SHA(0x90), "compared with main's run before it");
    assert.equal(Number(await resolvedBy(SHA(0x94))), 0, "main never had quotes");
    assert.deepEqual(
      (await latestRunOfPullRequest(scenario, 41))?.summary,
      { issuesRaised: 1, issuesResolved: 0 },
      "the pull request adds quotes to main",
    );
    const pr = await latestRunOfPullRequest(scenario, 42);
    assert.deepEqual(pr?.latestAnalysisRun, {
      commitOid: SHA(0x91),
      branchName: "feature",
      baseOid: SHA(0x90),
    });
    assert.deepEqual(pr?.summary, { issuesRaised: 1, issuesResolved: 0 });
    assert.deepEqual(await repositoryIssues(scenario), ["semi"]);
  });

  test("stays when an upload named the default branch for its commit, before or after", async () => {
    const scenario = await aScenario();
    const { repo } = scenario;
    // Named by its first upload.
    await upload(scenario, {
      commit: SHA(0x82),
      branch: "main",
      findings: [{ rule: "semi", path: "src/m.ts", line: 1 }],
    });
    // Put there for want of a branch, then named by a later upload.
    await createArtifact(scenario, SHA(0x83), [{ rule: "semi", path: "src/m.ts", line: 1 }]);
    assert.equal((await runOf(repo, SHA(0x83)))?.is_branch_defaulted, true);
    await upload(scenario, {
      commit: SHA(0x83),
      branch: "main",
      findings: [{ rule: "semi", path: "src/m.ts", line: 1 }],
    });
    assert.equal((await runOf(repo, SHA(0x83)))?.is_branch_defaulted, false);
    for (const [number, commit] of [
      [32, SHA(0x82)],
      [33, SHA(0x83)],
    ] as const) {
      await deliverGithubPullRequest(scenario, {
        action: "opened",
        number,
        head: { ref: `release-${number}`, sha: commit },
        base: { ref: "production", sha: SHA(0x8f) },
        updatedAt: "2026-11-22T10:00:00Z",
      });
      const run = await runOf(repo, commit);
      assert.equal(run?.branch_name, "main", `the run of pull request ${number}'s head`);
      assert.notEqual(run?.pull_request_id, null);
    }
  });

  test("stays when the pull request's head branch is the default branch", async () => {
    const scenario = await aScenario();
    const { repo } = scenario;
    await createArtifact(scenario, SHA(0x84), [{ rule: "semi", path: "src/m.ts", line: 1 }]);
    await deliverGithubPullRequest(scenario, {
      action: "opened",
      number: 34,
      head: { ref: "main", sha: SHA(0x84) },
      base: { ref: "production", sha: SHA(0x8f) },
      updatedAt: "2026-11-22T10:00:00Z",
    });
    assert.equal((await runOf(repo, SHA(0x84)))?.branch_name, "main");
    assert.deepEqual(await repositoryIssues(scenario), ["semi"]);
  });
});

describe("GitLab and Bitbucket pull requests from forks", () => {
  test("a GitLab merge request whose source project is another one puts its head's run on the fork's branch", async () => {
    const scenario = await aScenario("GITLAB");
    const { team, repo, secret } = scenario;
    const body = JSON.stringify(
      gitlabMergeRequestPayload({
        path: `${team.login}/${repo.name}`,
        action: "open",
        iid: 21,
        state: "opened",
        sourceBranch: "main",
        targetBranch: "main",
        lastCommit: SHA(0x60),
        updatedAt: "2026-11-20 10:00:00 UTC",
        sourceProject: { id: 2_718, path: `contributor/${repo.name}` },
      }),
    );
    await deliver("/webhooks/gitlab", gitlabHeaders("Merge Request Hook", secret), body, repo);
    assert.deepEqual(await pullRequestRow(repo, 21), {
      branch: "main",
      is_cross_repository: true,
      head_repository: `contributor/${repo.name}`,
    });
    await upload(scenario, { commit: SHA(0x60), branch: "main" });
    assert.equal((await runOf(repo, SHA(0x60)))?.branch_name, `contributor/${repo.name}:main`);
  });

  test("a Bitbucket pull request whose source repository is another one puts its head's run on the fork's branch", async () => {
    const scenario = await aScenario("BITBUCKET");
    const { team, repo, secret } = scenario;
    const body = JSON.stringify(
      bitbucketPullRequestPayload({
        workspace: team.login,
        slug: repo.name,
        id: 22,
        state: "OPEN",
        sourceBranch: "main",
        sourceHash: SHA(0x70),
        destinationBranch: "main",
        destinationHash: SHA(0x71),
        updatedOn: "2026-11-20T10:00:00.000000+00:00",
        fork: { workspace: "contributor", slug: repo.name, uuid: "{5a1b0c7e-0000-4000-8000-00000000f0c1}" },
      }),
    );
    await deliver("/webhooks/bitbucket", bitbucketHeaders("pullrequest:created", body, secret), body, repo);
    assert.deepEqual(await pullRequestRow(repo, 22), {
      branch: "main",
      is_cross_repository: true,
      head_repository: `contributor/${repo.name}`,
    });
    await upload(scenario, { commit: SHA(0x70), branch: "main" });
    assert.equal((await runOf(repo, SHA(0x70)))?.branch_name, `contributor/${repo.name}:main`);
  });

  test("a Bitbucket pull request of the repository's own branch is not cross-repository", async () => {
    const scenario = await aScenario("BITBUCKET");
    const { team, repo, secret } = scenario;
    const body = JSON.stringify(
      bitbucketPullRequestPayload({
        workspace: team.login,
        slug: repo.name,
        id: 23,
        state: "OPEN",
        sourceBranch: "feature",
        sourceHash: SHA(0x72),
        destinationBranch: "main",
        destinationHash: SHA(0x71),
        updatedOn: "2026-11-20T10:00:00.000000+00:00",
      }),
    );
    await deliver("/webhooks/bitbucket", bitbucketHeaders("pullrequest:created", body, secret), body, repo);
    assert.deepEqual(await pullRequestRow(repo, 23), {
      branch: "feature",
      is_cross_repository: false,
      head_repository: null,
    });
  });
});

test("every check's issue counts equal its published findings after the tests above", () =>
  assertIssueCountsMatchFindings(server.db, "the tests above"));
