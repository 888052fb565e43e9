import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { AccountRow, AnalyzerRow, PullRequestRow, RepositoryRow, UserRow } from "../src/db/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { refreshCheckIssueCounts } from "../src/modules/checks/issue-count-store.ts";
import { anAccount, aRepository, aRun, aToken, aUser } from "./helpers/builders.ts";
import { anAnalyzer, anIssue } from "./helpers/builders-catalog.ts";
import { aCheck, occurrencesIn } from "./helpers/builders-checks.ts";
import {
  anScaCheck,
  aPackage,
  aPackageVersion,
  aVulnerability,
  vulnerabilityOccurrences,
} from "./helpers/builders-dependencies.ts";
import { aMetricItem, aMetricValue } from "./helpers/builders-metrics.ts";
import { aPullRequest, aPullRequestRun } from "./helpers/builders-pull-requests.ts";
import { assertPageSizeIndependent, settle, startInstance, type TestInstance } from "./helpers/instance.ts";
import { assertPagesBothWays, type Connection, PAGE_INFO, type PageArgs } from "./helpers/paging.ts";
import { dataOf, gql } from "./helpers/server.ts";

/** All four paging variables, null where `args` leaves one out, so each is declared in the query. */
function pageVariables(args: PageArgs): Record<string, unknown> {
  return {
    first: args.first ?? null,
    last: args.last ?? null,
    after: args.after ?? null,
    before: args.before ?? null,
  };
}

const VARIABLE_TYPES: Record<string, string> = {
  first: "Int",
  last: "Int",
  after: "String",
  before: "String",
  branch: "String",
  source: "AnalysisIssueSource",
  category: "IssueCategory",
  severity: "IssueSeverity",
  q: "String",
};

describe("pull requests", () => {
  let server: TestInstance;
  let alice: UserRow;
  let team: AccountRow;
  let token: string;
  let python: AnalyzerRow;
  let javascript: AnalyzerRow;

  before(async () => {
    server = await startInstance();
    const { db } = server;
    alice = await aUser(db);
    team = await anAccount(db, {}, [{ user: alice, role: "MEMBER" }]);
    token = await aToken(db, server.config.tokenPepper, alice);
    python = await anAnalyzer(db, { shortcode: `py-${newRowKey()}`, name: "Python" });
    javascript = await anAnalyzer(db, { shortcode: `js-${newRowKey()}`, name: "JavaScript" });
  });
  after(() => server.stop());

  /** The `data` of a query as alice, failing the test on any error. */
  async function query<T>(text: string, variables: Record<string, unknown> = {}): Promise<T> {
    const res = await gql<T>(server.endpoint, token, text, variables);
    assert.deepEqual(res.body.errors, undefined, text);
    assert.ok(res.body.data);
    return res.body.data;
  }

  /** `repository { <selection> }` as alice for a repository of `account`. */
  async function repositoryField<T>(
    repository: RepositoryRow,
    selection: string,
    variables: Record<string, unknown> = {},
    account: AccountRow = team,
  ): Promise<T> {
    const declared = Object.keys(variables)
      .map((name) => `, $${name}: ${VARIABLE_TYPES[name] ?? "String"}`)
      .join("");
    const data = await query<{ repository: T }>(
      `query($name: String!, $login: String!, $provider: VCSProvider!${declared}) {
        repository(name: $name, login: $login, vcsProvider: $provider) { ${selection} } }`,
      { name: repository.name, login: account.login, provider: account.vcs_provider, ...variables },
    );
    return data.repository;
  }

  /** `pullRequest(number:)` of `pullRequest`'s repository with `selection` inside. */
  async function pullRequestField<T>(
    repository: RepositoryRow,
    pullRequest: PullRequestRow,
    selection: string,
    variables: Record<string, unknown> = {},
  ): Promise<T> {
    const data = await repositoryField<{ pullRequest: T }>(
      repository,
      `pullRequest(number: ${pullRequest.number}) { ${selection} }`,
      variables,
    );
    return data.pullRequest;
  }

  test("Repository.pullRequest answers every stored field of the pull request by its number", async () => {
    const repo = await aRepository(server.db, team);
    const createdAt = new Date("2025-06-01T10:00:00.000Z");
    const pr = await aPullRequest(server.db, repo, {
      number: 42,
      title: "Add caching",
      branch: "cache",
      baseBranch: "develop",
      state: "MERGED",
      vcsUrl: "https://git.example.test/acme/api/pulls/42",
      createdAt,
    });
    const answer = await pullRequestField<Record<string, unknown>>(
      repo,
      pr,
      "id number title branch baseBranch state vcsUrl createdAt",
    );
    assert.deepEqual(answer, {
      id: encodeGlobalId("PullRequest", pr.key),
      number: 42,
      title: "Add caching",
      branch: "cache",
      baseBranch: "develop",
      state: "MERGED",
      vcsUrl: "https://git.example.test/acme/api/pulls/42",
      createdAt: createdAt.toISOString(),
    });
  });

  test("a missing pull request number answers null with the contract's NOT_FOUND message", async () => {
    const repo = await aRepository(server.db, team);
    await aPullRequest(server.db, repo, { number: 1 });
    const res = await gql(
      server.endpoint,
      token,
      `query($name: String!, $login: String!) { repository(name: $name, login: $login, vcsProvider: GITHUB) {
        name pullRequest(number: 2) { number } } }`,
      { name: repo.name, login: team.login },
    );
    assert.deepEqual(dataOf(res), { repository: { name: repo.name, pullRequest: null } });
    assert.deepEqual(
      res.body.errors?.map((e) => [e.message, e.extensions?.code, e.path]),
      [["Pull request matching query does not exist", "NOT_FOUND", ["repository", "pullRequest"]]],
    );
  });

  test("vcsUrl is derived from the repository's page in each provider's form when none is stored", async () => {
    const cases = [
      ["GITHUB", "https://github.com", "pull"],
      ["GITLAB", "https://gitlab.com", "-/merge_requests"],
      ["BITBUCKET", "https://bitbucket.org", "pull-requests"],
    ] as const;
    for (const [provider, host, path] of cases) {
      const account = await anAccount(server.db, { vcsProvider: provider }, [{ user: alice }]);
      const repo = await aRepository(server.db, account);
      await aPullRequest(server.db, repo, { number: 7 });
      const answer = await repositoryField<{ pullRequest: { vcsUrl: string } }>(
        repo,
        "pullRequest(number: 7) { vcsUrl }",
        {},
        account,
      );
      assert.equal(answer.pullRequest.vcsUrl, `${host}/${account.login}/${repo.name}/${path}/7`);
    }
  });

  test("Repository.pullRequests lists newest first and pages both ways", async () => {
    const repo = await aRepository(server.db, team);
    const base = Date.UTC(2025, 2, 1);
    const prs: PullRequestRow[] = [];
    for (let i = 0; i < 7; i++) {
      // Two pull requests share each instant, so the key decides between them.
      prs.push(
        await aPullRequest(server.db, repo, { createdAt: new Date(base + Math.floor(i / 2) * 60_000) }),
      );
    }
    const expected = [...prs]
      .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (a.key < b.key ? 1 : -1))
      .map((pr) => encodeGlobalId("PullRequest", pr.key));
    await assertPagesBothWays(
      async (args) =>
        (
          await repositoryField<{ pullRequests: Connection<{ id: string }> }>(
            repo,
            `pullRequests(first: $first, last: $last, after: $after, before: $before) { ${PAGE_INFO} edges { node { id } } }`,
            pageVariables(args),
          )
        ).pullRequests,
      3,
      expected,
    );
  });

  test("Repository.pullRequests(branch:) keeps pull requests from that source branch, counting with the filter", async () => {
    const repo = await aRepository(server.db, team);
    const base = Date.UTC(2025, 3, 1);
    const onBranch: PullRequestRow[] = [];
    for (let i = 0; i < 5; i++) {
      const branch = i % 2 === 0 ? "topic" : "other";
      const pr = await aPullRequest(server.db, repo, { branch, createdAt: new Date(base + i * 60_000) });
      if (branch === "topic") onBranch.push(pr);
    }
    const expected = onBranch.reverse().map((pr) => encodeGlobalId("PullRequest", pr.key));
    await assertPagesBothWays(
      async (args) =>
        (
          await repositoryField<{ pullRequests: Connection<{ id: string }> }>(
            repo,
            `pullRequests(branch: $branch, first: $first, last: $last, after: $after, before: $before) { ${PAGE_INFO} edges { node { id } } }`,
            { branch: "topic", ...pageVariables(args) },
          )
        ).pullRequests,
      2,
      expected,
    );
    const none = await repositoryField<{ pullRequests: Connection<{ id: string }> }>(
      repo,
      `pullRequests(branch: $branch) { ${PAGE_INFO} edges { node { id } } }`,
      { branch: "missing" },
    );
    assert.equal(none.pullRequests.totalCount, 0);
    assert.deepEqual(none.pullRequests.edges, []);
  });

  test("a pull request without runs has no summary or latest run and empty results", async () => {
    const repo = await aRepository(server.db, team);
    const pr = await aPullRequest(server.db, repo);
    const answer = await pullRequestField<Record<string, unknown>>(
      repo,
      pr,
      `summary { issuesRaised } latestAnalysisRun { runUid } metrics { shortcode }
       issues { totalCount edges { node { path } } }
       issueOccurrences { totalCount edges { node { path } } }
       vulnerabilityOccurrences { totalCount edges { node { id } } }`,
    );
    const empty = { totalCount: 0, edges: [] };
    assert.deepEqual(answer, {
      summary: null,
      latestAnalysisRun: null,
      metrics: [],
      issues: empty,
      issueOccurrences: empty,
      vulnerabilityOccurrences: empty,
    });
  });

  test("summary and latestAnalysisRun come from the pull request's newest run only", async () => {
    const { db } = server;
    const repo = await aRepository(db, team);
    const pr = await aPullRequest(db, repo);
    const issue = await anIssue(db, python);
    const older = await aPullRequestRun(db, repo, pr, { createdAt: new Date(Date.UTC(2025, 4, 1)) });
    const newer = await aPullRequestRun(db, repo, pr, {
      createdAt: new Date(Date.UTC(2025, 4, 2)),
      status: "PENDING",
    });
    // A run of the same branch that is not the pull request's does not count.
    await aRun(db, repo, { branch: pr.branch ?? "x", createdAt: new Date(Date.UTC(2025, 4, 3)) });
    await occurrencesIn(db, await aCheck(db, older, python), [{ issue, state: "INTRODUCED" }]);
    await occurrencesIn(db, await aCheck(db, newer, python), [
      { issue, state: "INTRODUCED" },
      { issue, state: "INTRODUCED" },
      { issue, state: "INTRODUCED", isSuppressed: true },
      { issue, state: "EXISTING", isSuppressed: true },
      { issue, state: "RESOLVED" },
      { issue, state: "EXISTING" },
    ]);
    await occurrencesIn(db, await aCheck(db, newer, javascript), [
      { issue: await anIssue(db, javascript), state: "INTRODUCED" },
    ]);
    const pkg = await aPackage(db);
    const version = await aPackageVersion(db, pkg);
    const sca = await anScaCheck(db, newer);
    await vulnerabilityOccurrences(db, sca, [
      { vulnerability: await aVulnerability(db), version, state: "INTRODUCED" },
      { vulnerability: await aVulnerability(db), version, state: "EXISTING" },
      { vulnerability: await aVulnerability(db), version, state: "RESOLVED" },
    ]);
    const answer = await pullRequestField<Record<string, unknown>>(
      repo,
      pr,
      "summary { issuesRaised issuesResolved issuesSuppressed vulnerabilitiesRaised } latestAnalysisRun { runUid status }",
    );
    assert.deepEqual(answer, {
      summary: { issuesRaised: 3, issuesResolved: 1, issuesSuppressed: 2, vulnerabilitiesRaised: 1 },
      latestAnalysisRun: { runUid: newer.run_uid, status: "PENDING" },
    });
  });

  test("PullRequest.issues lists the newest run's findings across checks, filtered, counted and paged", async () => {
    const { db } = server;
    const repo = await aRepository(db, team);
    const pr = await aPullRequest(db, repo);
    const older = await aPullRequestRun(db, repo, pr, { createdAt: new Date(Date.UTC(2025, 5, 1)) });
    const run = await aPullRequestRun(db, repo, pr, { createdAt: new Date(Date.UTC(2025, 5, 2)) });
    const bug = await anIssue(db, python, {
      category: "BUG_RISK",
      severity: "CRITICAL",
      shortcode: `PYB-${newRowKey()}`,
    });
    const style = await anIssue(db, javascript, { category: "STYLE", severity: "MINOR" });
    await occurrencesIn(db, await aCheck(db, older, python), [{ issue: bug, path: "old.py" }]);
    const pyFindings = await occurrencesIn(db, await aCheck(db, run, python), [
      { issue: bug, path: "b.py", beginLine: 3, title: "Null dereference" },
      { issue: bug, path: "a.py", beginLine: 9, source: "AI", title: "Leaky cache" },
      { issue: bug, path: "gone.py", state: "RESOLVED" },
    ]);
    const jsFindings = await occurrencesIn(db, await aCheck(db, run, javascript), [
      { issue: style, path: "a.py", beginLine: 2, title: "Prefer const" },
      { issue: style, path: "c.js", beginLine: 1, title: "Trailing space" },
    ]);
    type Node = { path: string; beginLine: number; shortcode: string; category: string; source: string };
    const issues = async (filter: string, variables: Record<string, unknown> = {}) =>
      (
        await pullRequestField<{ issues: Connection<Node> }>(
          repo,
          pr,
          `issues(${filter}) { totalCount edges { node { path beginLine shortcode category source } } }`,
          variables,
        )
      ).issues;
    const all = await issues("first: 10");
    assert.equal(all.totalCount, 4);
    assert.deepEqual(
      all.edges.map((e) => [e.node.path, e.node.beginLine, e.node.shortcode]),
      [
        ["a.py", 2, style.shortcode],
        ["a.py", 9, bug.shortcode],
        ["b.py", 3, bug.shortcode],
        ["c.js", 1, style.shortcode],
      ],
    );
    const byCategory = await issues("category: $category", { category: "BUG_RISK" });
    assert.equal(byCategory.totalCount, 2);
    assert.ok(byCategory.edges.every((e) => e.node.category === "BUG_RISK"));
    const bySeverity = await issues("severity: $severity", { severity: "MINOR" });
    assert.deepEqual(
      bySeverity.edges.map((e) => e.node.path),
      ["a.py", "c.js"],
    );
    const bySource = await issues("source: $source", { source: "AI" });
    assert.deepEqual([bySource.totalCount, bySource.edges[0]?.node.path], [1, "a.py"]);
    const byText = await issues("q: $q", { q: "  CACHE " });
    assert.deepEqual(
      byText.edges.map((e) => e.node.beginLine),
      [9],
    );
    const byPath = await issues("q: $q, category: $category", { q: "c.js", category: "STYLE" });
    assert.equal(byPath.totalCount, 1);

    const expected = [jsFindings[0]!, pyFindings[1]!, pyFindings[0]!, jsFindings[1]!].map(
      (o) => `${o.path}:${o.begin_line}`,
    );
    await assertPagesBothWays(
      async (args) => {
        const page = (
          await pullRequestField<{ issues: Connection<{ path: string; beginLine: number }> }>(
            repo,
            pr,
            `issues(first: $first, last: $last, after: $after, before: $before) { ${PAGE_INFO} edges { node { path beginLine } } }`,
            pageVariables(args),
          )
        ).issues;
        return {
          ...page,
          edges: page.edges.map((e) => ({ ...e, node: { id: `${e.node.path}:${e.node.beginLine}` } })),
        };
      },
      3,
      expected,
    );
  });

  test("PullRequest.issueOccurrences lists the newest run's findings without resolved ones", async () => {
    const { db } = server;
    const repo = await aRepository(db, team);
    const pr = await aPullRequest(db, repo);
    const run = await aPullRequestRun(db, repo, pr);
    const issue = await anIssue(db, python);
    const [kept] = await occurrencesIn(db, await aCheck(db, run, python), [
      { issue, path: "x.py", state: "EXISTING" },
      { issue, path: "y.py", state: "RESOLVED" },
    ]);
    const answer = await pullRequestField<{ issueOccurrences: Connection<{ id: string; path: string }> }>(
      repo,
      pr,
      "issueOccurrences { totalCount edges { node { id path } } }",
    );
    assert.equal(answer.issueOccurrences.totalCount, 1);
    assert.deepEqual(
      answer.issueOccurrences.edges.map((e) => e.node),
      [{ id: encodeGlobalId("Occurrence", kept!.key), path: "x.py" }],
    );
  });

  test("PullRequest.vulnerabilityOccurrences lists the newest run's open vulnerabilities, most severe first", async () => {
    const { db } = server;
    const repo = await aRepository(db, team);
    const pr = await aPullRequest(db, repo);
    const older = await aPullRequestRun(db, repo, pr, { createdAt: new Date(Date.UTC(2025, 6, 1)) });
    const run = await aPullRequestRun(db, repo, pr, { createdAt: new Date(Date.UTC(2025, 6, 2)) });
    const version = await aPackageVersion(db, await aPackage(db));
    const low = await aVulnerability(db, { severity: "LOW" });
    const critical = await aVulnerability(db, { severity: "CRITICAL" });
    await vulnerabilityOccurrences(db, await anScaCheck(db, older), [{ vulnerability: critical, version }]);
    const first = await vulnerabilityOccurrences(db, await anScaCheck(db, run), [
      { vulnerability: low, version, state: "INTRODUCED" },
      { vulnerability: critical, version, state: "RESOLVED" },
    ]);
    const second = await vulnerabilityOccurrences(db, await anScaCheck(db, run), [
      { vulnerability: critical, version, state: "EXISTING" },
    ]);
    const answer = await pullRequestField<{ vulnerabilityOccurrences: Connection<{ id: string }> }>(
      repo,
      pr,
      `vulnerabilityOccurrences { ${PAGE_INFO} edges { node { id } } }`,
    );
    assert.equal(answer.vulnerabilityOccurrences.totalCount, 2);
    assert.deepEqual(
      answer.vulnerabilityOccurrences.edges.map((e) => e.node.id),
      [second[0]!, first[0]!].map((o) => encodeGlobalId("VulnerabilityOccurrence", o.key)),
    );
  });

  test("PullRequest.metrics lists what the newest run's checks recorded", async () => {
    const { db } = server;
    const repo = await aRepository(db, team);
    const pr = await aPullRequest(db, repo);
    const older = await aPullRequestRun(db, repo, pr, { createdAt: new Date(Date.UTC(2025, 7, 1)) });
    const run = await aPullRequestRun(db, repo, pr, { createdAt: new Date(Date.UTC(2025, 7, 2)) });
    const coverage = await aMetricItem(db, repo, "LCV");
    const duplication = await aMetricItem(db, repo, "DDP");
    await aMetricValue(db, duplication, { value: 9, checkId: (await aCheck(db, older, python)).id });
    await aMetricValue(db, coverage, { value: 81.5, checkId: (await aCheck(db, run, python)).id });
    const answer = await pullRequestField<{
      metrics: Array<{ shortcode: string; items: Array<{ latestValue: number }> }>;
    }>(repo, pr, "metrics { shortcode items { latestValue } }");
    assert.deepEqual(answer.metrics, [{ shortcode: "LCV", items: [{ latestValue: 81.5 }] }]);
  });

  test("node(id:) resolves a member's pull request and answers another account's like a missing id", async () => {
    const { db } = server;
    const repo = await aRepository(db, team);
    const mine = await aPullRequest(db, repo, { number: 5 });
    const carol = await aUser(db);
    const hidden = await anAccount(db, {}, [{ user: carol, role: "ADMIN" }]);
    const theirs = await aPullRequest(db, await aRepository(db, hidden), { number: 5 });
    const nodeAnswer = async (id: string) => {
      const res = await gql(
        server.endpoint,
        token,
        `query($id: ID!) { node(id: $id) { id ... on PullRequest { number title summary { issuesRaised } issues { totalCount } } } }`,
        { id },
      );
      return { data: res.body.data, errors: res.body.errors?.map((e) => [e.message, e.extensions?.code]) };
    };
    const found = await nodeAnswer(encodeGlobalId("PullRequest", mine.key));
    assert.deepEqual(found.data, {
      node: {
        id: encodeGlobalId("PullRequest", mine.key),
        number: 5,
        title: mine.title,
        summary: null,
        issues: { totalCount: 0 },
      },
    });
    const hiddenId = encodeGlobalId("PullRequest", theirs.key);
    const missingId = encodeGlobalId("PullRequest", newRowKey());
    const hiddenAnswer = await nodeAnswer(hiddenId);
    const missingAnswer = await nodeAnswer(missingId);
    assert.deepEqual(hiddenAnswer.data, { node: null });
    assert.deepEqual(hiddenAnswer.errors, [[`No node with id "${hiddenId}" exists.`, "NOT_FOUND"]]);
    assert.deepEqual(missingAnswer.errors, [[`No node with id "${missingId}" exists.`, "NOT_FOUND"]]);
  });

  test("the statements for a page of pull requests with summaries, runs and issues do not grow with the page size", async () => {
    const { db } = server;
    const reader = await aUser(db);
    const account = await anAccount(db, {}, [{ user: reader, role: "MEMBER" }]);
    const repository = await aRepository(db, account);
    const issue = await anIssue(db, python);
    const base = Date.UTC(2025, 8, 1);
    const prs = await db
      .insertInto("pull_requests")
      .values(
        Array.from({ length: 110 }, (_, i) => ({
          key: newRowKey(),
          repository_id: repository.id,
          number: i + 1,
          branch: `b${i}`,
          created_at: new Date(base + i * 60_000),
        })),
      )
      .returningAll()
      .execute();
    const runs = await db
      .insertInto("analysis_runs")
      .values(
        prs.flatMap((pr, i) =>
          [0, 1].map((r) => ({
            key: newRowKey(),
            run_uid: randomUUID(),
            repository_id: repository.id,
            pull_request_id: pr.id,
            branch_name: pr.branch,
            commit_oid: `${i}-${r}`.padEnd(40, "0"),
            status: "SUCCESS" as const,
            created_at: new Date(base + i * 60_000 + r * 1000),
          })),
        ),
      )
      .returningAll()
      .execute();
    const checks = await db
      .insertInto("checks")
      .values(
        runs.map((run) => ({
          key: newRowKey(),
          run_id: run.id,
          analyzer_id: python.id,
          sequence: 1,
          status: "SUCCESS" as const,
        })),
      )
      .returningAll()
      .execute();
    await db
      .insertInto("occurrences")
      .values(
        checks.flatMap((check, c) =>
          (["INTRODUCED", "EXISTING", "RESOLVED"] as const).map((state, i) => ({
            key: newRowKey(),
            check_id: check.id,
            issue_id: issue.id,
            path: `f${i}.py`,
            begin_line: i + 1,
            end_line: i + 1,
            title: "t",
            fingerprint: `${c}-${i}`,
            state,
          })),
        ),
      )
      .execute();
    await refreshCheckIssueCounts(
      db,
      checks.map((check) => check.id),
    );
    const readerToken = await aToken(db, server.config.tokenPepper, reader);
    // A token used within the minute is not touched again, so no UPDATE lands in either request.
    await db
      .updateTable("personal_access_tokens")
      .set({ last_used_at: new Date() })
      .where("user_id", "=", reader.id)
      .execute();
    const text = `query($name: String!, $login: String!, $n: Int) {
      repository(name: $name, login: $login, vcsProvider: GITHUB) { pullRequests(first: $n) { edges { node {
        number summary { issuesRaised } latestAnalysisRun { runUid }
        issues(first: 5) { totalCount edges { node { path } } }
      } } } } }`;
    type Node = {
      number: number;
      summary: { issuesRaised: number };
      latestAnalysisRun: { runUid: string };
      issues: { totalCount: number; edges: Array<{ node: { path: string } }> };
    };
    type Result = { repository: { pullRequests: { edges: Array<{ node: Node }> } } };
    const latestUid = new Map(
      prs.map((pr) => [pr.number, runs.filter((r) => r.pull_request_id === pr.id).at(-1)!.run_uid]),
    );
    const measure = async (n: number) => {
      await settle(server.statements);
      const start = server.statements.length;
      const res = await gql<Result>(server.endpoint, readerToken, text, {
        name: repository.name,
        login: account.login,
        n,
      });
      const statements = server.statements.slice(start);
      assert.deepEqual(res.body.errors, undefined);
      const nodes = (dataOf(res).repository as Result["repository"]).pullRequests.edges.map((e) => e.node);
      assert.equal(nodes[0]?.number, 110);
      for (const node of nodes) {
        assert.equal(node.summary.issuesRaised, 1);
        assert.equal(node.latestAnalysisRun.runUid, latestUid.get(node.number));
        assert.equal(node.issues.totalCount, 2);
        assert.deepEqual(
          node.issues.edges.map((e) => e.node.path),
          ["f0.py", "f1.py"],
        );
      }
      return { statements, count: nodes.length };
    };
    await measure(1);
    const small = await measure(10);
    const large = await measure(100);
    assert.deepEqual([small.count, large.count], [10, 100]);
    assertPageSizeIndependent(small.statements, large.statements);
  });
});
