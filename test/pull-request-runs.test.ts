import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AccountRow, RepositoryRow, UserRow } from "../src/db/types.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { dsnToken } from "../src/modules/repositories/dsn.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { waitFor } from "./helpers/instance.ts";
import { assertIssueCountsMatchFindings } from "./helpers/issue-counts.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";
import { githubHeaders, githubPullRequestPayload } from "./helpers/vcs-payloads.ts";

/**
 * Runs of pull requests through the real server (docs/vcs-events.md "Pull request runs"): a pull
 * request opened by the provider's webhook, a base-branch run, then the pull request's head run,
 * which joins the pull request and is compared with the base branch; and uploads that name their
 * pull request themselves.
 */

const SHA = (n: number) => n.toString(16).padStart(40, "c");

let server: TestServer;
let user: UserRow;
let token: string;
let team: AccountRow;
let repo: RepositoryRow;
let secret: string;

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
  return JSON.stringify({
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "pr-lint", rules } },
        results: findings.map((f) => ({
          ruleId: f.rule,
          level: "warning",
          message: { text: `Problem of ${f.rule}.` },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: f.path },
                region: { startLine: f.line, startColumn: 1, endLine: f.line, endColumn: 10 },
              },
            },
          ],
        })),
      },
    ],
  });
}

const UPLOAD = `mutation($input: UploadArtifactInput!) {
  uploadArtifact(input: $input) { ok error run { id } }
}`;

async function upload(fields: {
  commit: string;
  branch?: string;
  pullRequestNumber?: number;
  baseBranch?: string;
  mergeBaseOid?: string;
  findings: Finding[];
}): Promise<string> {
  const answer = await gql<{ uploadArtifact: { ok: boolean; error: string; run: { id: string } | null } }>(
    server.endpoint,
    token,
    UPLOAD,
    {
      input: {
        repositoryId: encodeGlobalId("Repository", repo.key),
        commitOid: fields.commit,
        branch: fields.branch,
        pullRequestNumber: fields.pullRequestNumber,
        baseBranch: fields.baseBranch,
        mergeBaseOid: fields.mergeBaseOid,
        analyzer: "pr-lint",
        analyzerType: "community",
        data: sarif(fields.findings),
      },
    },
  );
  const result = dataOf(answer).uploadArtifact as { ok: boolean; error: string; run: { id: string } | null };
  assert.equal(result.ok, true, result.error);
  await settled(fields.commit);
  return result.run?.id as string;
}

async function settled(commit: string): Promise<void> {
  await waitFor(
    `the run of ${commit} to settle`,
    async () => {
      const runs = await server.db
        .selectFrom("analysis_runs")
        .select("status")
        .where("repository_id", "=", repo.id)
        .where("commit_oid", "=", commit)
        .execute();
      return runs.length > 0 && runs.every((run) => run.status !== "PENDING");
    },
    20_000,
  );
}

const PULL_REQUEST = `query($login: String!, $name: String!, $number: Int!) {
  repository(login: $login, name: $name, vcsProvider: GITHUB) {
    pullRequest(number: $number) {
      number state branch baseBranch title
      summary { issuesRaised issuesResolved issuesSuppressed vulnerabilitiesRaised }
      latestAnalysisRun { commitOid branchName baseOid summary { occurrencesIntroduced occurrencesResolved } }
      issues(first: 10) { edges { node { issue { shortcode } } } }
    }
  }
}`;

interface PullRequestAnswer {
  number: number;
  state: string;
  branch: string | null;
  baseBranch: string | null;
  title: string | null;
  summary: Record<string, number> | null;
  latestAnalysisRun: {
    commitOid: string;
    branchName: string;
    baseOid: string | null;
    summary: { occurrencesIntroduced: number; occurrencesResolved: number };
  } | null;
  issues: { edges: Array<{ node: { issue: { shortcode: string } } }> };
}

async function pullRequest(number: number): Promise<PullRequestAnswer | null> {
  const answer = await gql<{ repository: { pullRequest: PullRequestAnswer | null } }>(
    server.endpoint,
    token,
    PULL_REQUEST,
    { login: team.login, name: repo.name, number },
  );
  return answer.body.data?.repository.pullRequest ?? null;
}

/** Delivers a signed GitHub pull_request event for the test repository. */
async function deliverPullRequest(fields: {
  action: "opened" | "edited" | "synchronize";
  number: number;
  head: { ref: string; sha: string };
  base: { ref: string; sha: string };
  updatedAt: string;
}): Promise<void> {
  const body = JSON.stringify(githubPullRequestPayload({ owner: team.login, name: repo.name, ...fields }));
  const delivered = await fetch(`${server.url}/webhooks/github`, {
    method: "POST",
    headers: githubHeaders("pull_request", body, secret),
    body,
  });
  assert.equal(delivered.status, 200, await delivered.text());
}

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  user = await aUser(server.db);
  team = await anAccount(server.db, {}, [{ user, role: "ADMIN" }]);
  repo = await aRepository(server.db, team, { defaultBranch: "main" });
  token = await aToken(server.db, server.config.tokenPepper, user);
  const set = await gql(
    server.endpoint,
    token,
    `mutation($id: ID!) { setRepositoryVcsWebhookSecret(input: { repositoryId: $id }) { secret } }`,
    { id: encodeGlobalId("Repository", repo.key) },
  );
  secret = (dataOf(set).setRepositoryVcsWebhookSecret as { secret: string }).secret;
});

after(() => server?.stop());

describe("a pull request opened by webhook, then analysed", () => {
  test("the head's run joins the pull request, is compared with the base branch, and the summary counts it", async () => {
    // The base branch: two findings.
    await upload({
      commit: SHA(1),
      branch: "develop",
      findings: [
        { rule: "no-var", path: "src/a.ts", line: 3 },
        { rule: "eqeqeq", path: "src/b.ts", line: 7 },
      ],
    });
    // The default branch has other findings entirely: comparing with it would be wrong.
    await upload({ commit: SHA(2), branch: "main", findings: [{ rule: "semi", path: "src/z.ts", line: 1 }] });

    const body = JSON.stringify(
      githubPullRequestPayload({
        owner: team.login,
        name: repo.name,
        action: "opened",
        number: 31,
        title: "Tidy equality",
        head: { ref: "tidy", sha: SHA(3) },
        base: { ref: "develop", sha: SHA(1) },
        updatedAt: "2026-11-20T10:00:00Z",
      }),
    );
    const delivered = await fetch(`${server.url}/webhooks/github`, {
      method: "POST",
      headers: githubHeaders("pull_request", body, secret),
      body,
    });
    assert.equal(delivered.status, 200);

    // The head: eqeqeq fixed, no-var kept, a new finding. No pull request fields in the upload.
    await upload({
      commit: SHA(3),
      branch: "tidy",
      findings: [
        { rule: "no-var", path: "src/a.ts", line: 3 },
        { rule: "prefer-const", path: "src/c.ts", line: 2 },
      ],
    });
    const pr = await pullRequest(31);
    assert.equal(pr?.state, "OPEN");
    assert.equal(pr?.title, "Tidy equality");
    assert.deepEqual(pr?.latestAnalysisRun, {
      commitOid: SHA(3),
      branchName: "tidy",
      baseOid: SHA(1),
      summary: { occurrencesIntroduced: 1, occurrencesResolved: 1 },
    });
    assert.deepEqual(pr?.summary, {
      issuesRaised: 1,
      issuesResolved: 1,
      issuesSuppressed: 0,
      vulnerabilitiesRaised: 0,
    });
    assert.deepEqual(pr?.issues.edges.map((edge) => edge.node.issue.shortcode).sort(), [
      "no-var",
      "prefer-const",
    ]);
  });
});

describe("uploads that name their pull request", () => {
  test("uploadArtifact with pullRequestNumber and baseBranch creates the pull request and compares with that branch", async () => {
    await upload({
      commit: SHA(10),
      branch: "release",
      findings: [{ rule: "semi", path: "src/r.ts", line: 4 }],
    });
    await upload({
      commit: SHA(11),
      branch: "hotfix",
      pullRequestNumber: 40,
      baseBranch: "release",
      findings: [{ rule: "semi", path: "src/r.ts", line: 4 }],
    });
    const pr = await pullRequest(40);
    assert.equal(pr?.state, "OPEN");
    assert.equal(pr?.branch, "hotfix");
    assert.equal(pr?.baseBranch, "release");
    assert.equal(pr?.title, null);
    assert.deepEqual(pr?.latestAnalysisRun, {
      commitOid: SHA(11),
      branchName: "hotfix",
      baseOid: SHA(10),
      summary: { occurrencesIntroduced: 0, occurrencesResolved: 0 },
    });
    // A later push to the pull request: the same pull request, its newest run.
    await upload({
      commit: SHA(12),
      branch: "hotfix",
      pullRequestNumber: 40,
      baseBranch: "release",
      findings: [],
    });
    const moved = await pullRequest(40);
    assert.equal(moved?.latestAnalysisRun?.commitOid, SHA(12));
    assert.deepEqual(moved?.summary, {
      issuesRaised: 0,
      issuesResolved: 1,
      issuesSuppressed: 0,
      vulnerabilitiesRaised: 0,
    });
  });

  test("createArtifact with a DSN takes pullRequestNumber too; the run's branch is the pull request's", async () => {
    const dsn = dsnToken(repo, server.config.tokenPepper);
    const answer = await fetch(`${server.url}/graphql/cli/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: `mutation($input: CreateArtifactInput!) { createArtifact(input: $input) { ok error } }`,
        variables: {
          input: {
            accessToken: dsn,
            commitOid: SHA(13),
            reporter: "cli",
            key: "",
            analyzer: "pr-lint",
            analyzerType: "community",
            data: sarif([]),
            pullRequestNumber: 40,
          },
        },
      }),
    });
    const result = (await answer.json()) as { data: { createArtifact: { ok: boolean; error: string } } };
    assert.equal(result.data.createArtifact.ok, true, result.data.createArtifact.error);
    await settled(SHA(13));
    const pr = await pullRequest(40);
    assert.equal(pr?.latestAnalysisRun?.commitOid, SHA(13));
    assert.equal(pr?.latestAnalysisRun?.branchName, "hotfix");
    assert.equal(pr?.latestAnalysisRun?.baseOid, SHA(10));
  });

  test("a pull request's run whose branch nobody named is on no branch, and never becomes the default branch's", async () => {
    // main's last run has one finding.
    await upload({
      commit: SHA(20),
      branch: "main",
      findings: [{ rule: "semi", path: "src/m.ts", line: 1 }],
    });
    // A pull request Assay has not heard of, uploaded without a branch (a detached HEAD in CI).
    await upload({
      commit: SHA(21),
      pullRequestNumber: 41,
      findings: [
        { rule: "semi", path: "src/m.ts", line: 1 },
        { rule: "quotes", path: "src/p.ts", line: 2 },
      ],
    });
    const pr = await pullRequest(41);
    assert.equal(pr?.branch, null);
    assert.equal(pr?.baseBranch, "main");
    assert.equal(pr?.latestAnalysisRun?.branchName, null);
    assert.equal(pr?.latestAnalysisRun?.baseOid, SHA(20), "compared with the default branch it targets");
    // The repository's current state is still main's last run.
    const current = await gql<{
      repository: { issues: { edges: Array<{ node: { issue: { shortcode: string } } }> } };
    }>(
      server.endpoint,
      token,
      `query($login: String!, $name: String!) { repository(login: $login, name: $name, vcsProvider: GITHUB) {
        issues(first: 10) { edges { node { issue { shortcode } } } } } }`,
      { login: team.login, name: repo.name },
    );
    assert.deepEqual(
      current.body.data?.repository.issues.edges.map((edge) => edge.node.issue.shortcode),
      ["semi"],
    );
  });

  test("a pullRequestNumber that is not positive and a bad baseBranch are refused by name", async () => {
    for (const [input, message] of [
      [{ pullRequestNumber: 0 }, /pullRequestNumber must be a positive/],
      [{ baseBranch: "bad..name" }, /baseBranch "bad\.\.name" is not a valid branch name/],
    ] as const) {
      const answer = await gql<{ uploadArtifact: { ok: boolean; error: string } }>(
        server.endpoint,
        token,
        UPLOAD,
        {
          input: {
            repositoryId: encodeGlobalId("Repository", repo.key),
            commitOid: SHA(99),
            analyzer: "pr-lint",
            analyzerType: "community",
            data: sarif([]),
            ...input,
          },
        },
      );
      const result = dataOf(answer).uploadArtifact as { ok: boolean; error: string };
      assert.equal(result.ok, false);
      assert.match(result.error, message);
    }
  });
});

describe("uploads that say where the pull request meets its base branch (mergeBaseOid)", () => {
  const X = { rule: "no-var", path: "src/m.ts", line: 1 };
  const Y = { rule: "eqeqeq", path: "src/m.ts", line: 2 };
  const Z = { rule: "semi", path: "src/n.ts", line: 3 };
  // The base branch `stable`: its commit 501 had X and Y; since, 502 fixed Y and added Z.
  const before = async () => {
    await upload({ commit: SHA(501), branch: "stable", findings: [X, Y] });
    await upload({ commit: SHA(502), branch: "stable", findings: [X, Z] });
  };

  test("a pull request branched before the base branch moved on is compared with the merge base's run, not the branch's newest", async () => {
    await before();
    // Two pull requests off 501 that change none of the findings: one says where it meets
    // `stable`, the other does not.
    await upload({
      commit: SHA(511),
      branch: "feature/told",
      pullRequestNumber: 511,
      baseBranch: "stable",
      mergeBaseOid: SHA(501),
      findings: [X, Y],
    });
    await upload({
      commit: SHA(512),
      branch: "feature/untold",
      pullRequestNumber: 512,
      baseBranch: "stable",
      findings: [X, Y],
    });
    const told = await pullRequest(511);
    assert.equal(told?.latestAnalysisRun?.baseOid, SHA(501));
    assert.deepEqual(told?.summary && [told.summary.issuesRaised, told.summary.issuesResolved], [0, 0]);
    // Without it, what `stable` changed since counts as the pull request's: Y back, Z gone.
    const untold = await pullRequest(512);
    assert.equal(untold?.latestAnalysisRun?.baseOid, SHA(502));
    assert.deepEqual(untold?.summary && [untold.summary.issuesRaised, untold.summary.issuesResolved], [1, 1]);
  });

  test("into a branch with no run of its own, the merge base's run elsewhere is the base", async () => {
    // `release` was cut at 501 and never analysed; the merge base's run is on `stable`.
    await upload({
      commit: SHA(521),
      branch: "fix/release",
      pullRequestNumber: 521,
      baseBranch: "release",
      mergeBaseOid: SHA(501),
      findings: [X, Y],
    });
    const answer = await pullRequest(521);
    assert.equal(answer?.latestAnalysisRun?.baseOid, SHA(501));
    assert.deepEqual(answer?.summary && [answer.summary.issuesRaised, answer.summary.issuesResolved], [0, 0]);
  });

  test("a push's run that an upload then names a pull request of is rebased on the merge base it names", async () => {
    await upload({ commit: SHA(531), branch: "feature/later", findings: [X, Y] });
    await upload({
      commit: SHA(531),
      branch: "feature/later",
      pullRequestNumber: 531,
      baseBranch: "stable",
      mergeBaseOid: SHA(501),
      findings: [X, Y],
    });
    await waitFor(
      "the run to be rebased on the merge base",
      async () => (await pullRequest(531))?.latestAnalysisRun?.baseOid === SHA(501),
      20_000,
    );
    await settled(SHA(531));
    const answer = await pullRequest(531);
    assert.deepEqual(answer?.summary && [answer.summary.issuesRaised, answer.summary.issuesResolved], [0, 0]);
  });

  test("a run made before its merge base's run is compared with that run once it is analysed", async () => {
    // `lts`: 551 had X and Y; 553, where the pull request and the topic branch start, fixed Y and
    // added Z, and its CI finishes after theirs.
    await upload({ commit: SHA(551), branch: "lts", findings: [X, Y] });
    await upload({
      commit: SHA(552),
      branch: "feature/early",
      pullRequestNumber: 552,
      baseBranch: "lts",
      mergeBaseOid: SHA(553),
      findings: [X, Z],
    });
    // A base branch alone, without a pull request.
    await upload({
      commit: SHA(554),
      branch: "topic/early",
      baseBranch: "lts",
      mergeBaseOid: SHA(553),
      findings: [X, Z],
    });
    const baseOidOf = async (commit: string) =>
      (
        await server.db
          .selectFrom("analysis_runs")
          .select("base_oid")
          .where("repository_id", "=", repo.id)
          .where("commit_oid", "=", commit)
          .executeTakeFirstOrThrow()
      ).base_oid;
    // Meanwhile compared with the branch's newest analysed run: what 553 changed counts as theirs.
    const early = await pullRequest(552);
    assert.equal(early?.latestAnalysisRun?.baseOid, SHA(551));
    assert.deepEqual(early?.summary && [early.summary.issuesRaised, early.summary.issuesResolved], [1, 1]);
    assert.equal(await baseOidOf(SHA(554)), SHA(551));

    await upload({ commit: SHA(553), branch: "lts", findings: [X, Z] });
    await waitFor(
      "both runs to be compared with the merge base's run",
      async () =>
        (await pullRequest(552))?.latestAnalysisRun?.baseOid === SHA(553) &&
        (await baseOidOf(SHA(554))) === SHA(553),
      20_000,
    );
    await settled(SHA(552));
    const answer = await pullRequest(552);
    assert.deepEqual(answer?.summary && [answer.summary.issuesRaised, answer.summary.issuesResolved], [0, 0]);
    assert.deepEqual(answer?.latestAnalysisRun?.summary, {
      occurrencesIntroduced: 0,
      occurrencesResolved: 0,
    });
  });

  test("a merge base that is no commit id, or without a pull request or base branch, is refused by name", async () => {
    for (const [input, message] of [
      [
        { pullRequestNumber: 541, baseBranch: "stable", mergeBaseOid: "HEAD~1" },
        /mergeBaseOid must be a git commit id/,
      ],
      [{ mergeBaseOid: SHA(501) }, /send it with pullRequestNumber or baseBranch/],
    ] as const) {
      const answer = await gql<{ uploadArtifact: { ok: boolean; error: string } }>(
        server.endpoint,
        token,
        UPLOAD,
        {
          input: {
            repositoryId: encodeGlobalId("Repository", repo.key),
            commitOid: SHA(541),
            analyzer: "pr-lint",
            analyzerType: "community",
            data: sarif([X]),
            ...input,
          },
        },
      );
      const result = dataOf(answer).uploadArtifact as { ok: boolean; error: string };
      assert.equal(result.ok, false);
      assert.match(result.error, message);
    }
  });
});

describe("a run that joins its pull request after it was made", () => {
  /** Waits until the run of `commit` is compared with the run of `baseOid`, settled. */
  async function rebasedOnto(commit: string, baseOid: string): Promise<void> {
    await waitFor(
      `the run of ${commit} to be compared with ${baseOid}`,
      async () => {
        const run = await server.db
          .selectFrom("analysis_runs")
          .select(["base_oid", "status"])
          .where("repository_id", "=", repo.id)
          .where("commit_oid", "=", commit)
          .executeTakeFirstOrThrow();
        return run.base_oid === baseOid && run.status !== "PENDING";
      },
      20_000,
    );
  }

  test("a push's run, then the provider's webhook: compared with the pull request's base branch from then on", async () => {
    await upload({
      commit: SHA(0x50),
      branch: "develop",
      findings: [
        { rule: "no-var", path: "src/a.ts", line: 3 },
        { rule: "eqeqeq", path: "src/b.ts", line: 7 },
      ],
    });
    await upload({
      commit: SHA(0x51),
      branch: "main",
      findings: [{ rule: "semi", path: "src/z.ts", line: 1 }],
    });
    // CI on push, before the pull request exists: compared with the default branch.
    await upload({
      commit: SHA(0x52),
      branch: "feature",
      findings: [
        { rule: "no-var", path: "src/a.ts", line: 3 },
        { rule: "prefer-const", path: "src/c.ts", line: 2 },
      ],
    });
    const before = await server.db
      .selectFrom("analysis_runs")
      .select("base_oid")
      .where("repository_id", "=", repo.id)
      .where("commit_oid", "=", SHA(0x52))
      .executeTakeFirstOrThrow();
    assert.equal(before.base_oid, SHA(0x51), "a run of no pull request compares with the default branch");

    await deliverPullRequest({
      action: "opened",
      number: 50,
      head: { ref: "feature", sha: SHA(0x52) },
      base: { ref: "develop", sha: SHA(0x50) },
      updatedAt: "2026-11-21T10:00:00Z",
    });
    await rebasedOnto(SHA(0x52), SHA(0x50));
    const pr = await pullRequest(50);
    // Against develop: prefer-const is new, eqeqeq fixed, no-var kept. Against main it was
    // no-var and prefer-const new, semi fixed.
    assert.deepEqual(pr?.latestAnalysisRun, {
      commitOid: SHA(0x52),
      branchName: "feature",
      baseOid: SHA(0x50),
      summary: { occurrencesIntroduced: 1, occurrencesResolved: 1 },
    });
    assert.deepEqual(pr?.summary, {
      issuesRaised: 1,
      issuesResolved: 1,
      issuesSuppressed: 0,
      vulnerabilitiesRaised: 0,
    });
  });

  test("a pull request whose base branch changes compares its head with the new base branch", async () => {
    // release's last run (the tests above) has one finding: semi in src/r.ts.
    await deliverPullRequest({
      action: "edited",
      number: 50,
      head: { ref: "feature", sha: SHA(0x52) },
      base: { ref: "release", sha: SHA(10) },
      updatedAt: "2026-11-21T11:00:00Z",
    });
    await rebasedOnto(SHA(0x52), SHA(10));
    const pr = await pullRequest(50);
    assert.equal(pr?.baseBranch, "release");
    assert.deepEqual(pr?.latestAnalysisRun?.summary, { occurrencesIntroduced: 2, occurrencesResolved: 1 });
    assert.deepEqual(pr?.summary, {
      issuesRaised: 2,
      issuesResolved: 1,
      issuesSuppressed: 0,
      vulnerabilitiesRaised: 0,
    });
  });

  test("an upload that names the pull request of a commit already analysed on push rebases its run", async () => {
    await upload({
      commit: SHA(0x53),
      branch: "fix",
      findings: [{ rule: "no-var", path: "src/a.ts", line: 3 }],
    });
    // The pull request's own CI job uploads the same report again, naming the pull request.
    await upload({
      commit: SHA(0x53),
      branch: "fix",
      pullRequestNumber: 51,
      baseBranch: "develop",
      findings: [{ rule: "no-var", path: "src/a.ts", line: 3 }],
    });
    await rebasedOnto(SHA(0x53), SHA(0x50));
    const pr = await pullRequest(51);
    assert.equal(pr?.baseBranch, "develop");
    assert.deepEqual(pr?.summary, {
      issuesRaised: 0,
      issuesResolved: 1,
      issuesSuppressed: 0,
      vulnerabilitiesRaised: 0,
    });
  });
});

test("a pull request's latest run is its head's, even when an older head's job reports after it", async () => {
  await deliverPullRequest({
    action: "synchronize",
    number: 60,
    head: { ref: "rework", sha: SHA(0x61) },
    base: { ref: "main", sha: SHA(0x51) },
    updatedAt: "2026-11-22T10:00:00Z",
  });
  await upload({ commit: SHA(0x61), branch: "rework", findings: [] });
  // The job of the head before a force-push finishes last; it names the pull request.
  await upload({
    commit: SHA(0x60),
    branch: "rework",
    pullRequestNumber: 60,
    findings: [{ rule: "semi", path: "src/old.ts", line: 1 }],
  });
  const pr = await pullRequest(60);
  assert.equal(pr?.latestAnalysisRun?.commitOid, SHA(0x61));
  assert.equal(pr?.summary?.issuesRaised, 0);
});

describe("a branch fast-forward merged into the default branch", () => {
  const REPOSITORY_ISSUES = `query($login: String!, $name: String!, $commit: String!) {
    repository(login: $login, name: $name, vcsProvider: GITHUB) {
      issues(first: 50) { edges { node { issue { shortcode } } } }
    }
    run(commitOid: $commit) { branchName baseOid summary { occurrencesIntroduced } }
  }`;

  interface Answer {
    repository: { issues: { edges: Array<{ node: { issue: { shortcode: string } } }> } };
    run: { branchName: string | null; baseOid: string | null; summary: { occurrencesIntroduced: number } };
  }

  /** The repository's current issues, and the newest run of `commit` (what `run(commitOid:)` answers). */
  async function read(commit: string) {
    const answer = await gql(server.endpoint, token, REPOSITORY_ISSUES, {
      login: team.login,
      name: repo.name,
      commit,
    });
    const data = dataOf(answer) as unknown as Answer;
    return {
      shortcodes: data.repository.issues.edges.map((edge) => edge.node.issue.shortcode),
      run: data.run,
    };
  }

  test("the merged commit's default-branch upload makes a run of its own there, compared with the default branch", async () => {
    const mainHead = await server.db
      .selectFrom("analysis_runs")
      .select("commit_oid")
      .where("repository_id", "=", repo.id)
      .where("branch_name", "=", "main")
      .orderBy("created_at", "desc")
      .orderBy("key", "desc")
      .executeTakeFirstOrThrow();
    const findings = [{ rule: "merged-rule", path: "src/merged.ts", line: 4 }];
    // CI on the topic branch, then, after a fast-forward merge, CI on main for the same commit.
    await upload({ commit: SHA(0x71), branch: "topic", findings });
    assert.ok(
      !(await read(SHA(0x71))).shortcodes.includes("merged-rule"),
      "a topic branch's finding is not current",
    );
    await upload({ commit: SHA(0x71), branch: "main", findings });

    const runs = await server.db
      .selectFrom("analysis_runs")
      .select(["branch_name", "base_oid", "status"])
      .where("repository_id", "=", repo.id)
      .where("commit_oid", "=", SHA(0x71))
      .orderBy("created_at")
      .orderBy("key")
      .execute();
    assert.deepEqual(
      runs.map((run) => run.branch_name),
      ["topic", "main"],
    );
    assert.equal(runs[1]!.base_oid, mainHead.commit_oid, "compared with the default branch's previous run");
    const after = await read(SHA(0x71));
    assert.ok(after.shortcodes.includes("merged-rule"), after.shortcodes.join(", "));
    assert.deepEqual(after.run, {
      branchName: "main",
      baseOid: mainHead.commit_oid,
      summary: { occurrencesIntroduced: 1 },
    });

    // Another upload of the topic branch's CI for that commit joins the topic branch's run.
    await upload({ commit: SHA(0x71), branch: "topic", findings });
    const count = await server.db
      .selectFrom("analysis_runs")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("repository_id", "=", repo.id)
      .where("commit_oid", "=", SHA(0x71))
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 2);
  });
});

test("every check's issue counts equal its published findings after the tests above", () =>
  assertIssueCountsMatchFindings(server.db, "the tests above"));
