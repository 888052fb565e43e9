import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AccountRow, AnalyzerRow, IssueRow, RepositoryRow, UserRow } from "../src/db/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aRun, aToken, aUser } from "./helpers/builders.ts";
import { anArtifact } from "./helpers/builders-artifacts.ts";
import { anAnalyzer, issuesIn } from "./helpers/builders-catalog.ts";
import { aPullRequest, aPullRequestRun } from "./helpers/builders-pull-requests.ts";
import { aCheckWithTrackedFindings, daysAgo, type TrackedFinding } from "./helpers/builders-reports.ts";
import { assertPageSizeIndependent, settle, startInstance, type TestInstance } from "./helpers/instance.ts";
import { gql } from "./helpers/server.ts";

const DAY = 86_400_000;

interface Day {
  date: string;
  values: Array<{ key: string; value: number }>;
}

interface PreventedAnswer {
  key: string;
  title: string;
  currentValue: number;
  values: Day[];
  trends: Array<{ label: string; value: number; changePercentage: number | null }>;
}

const PREVENTED = `issuesPrevented { key title currentValue values(startDate: $start, endDate: $end) { date values { key value } }
  trends { label value changePercentage } }`;

describe("issues prevented", () => {
  let server: TestInstance;
  let alice: UserRow;
  let team: AccountRow;
  let hidden: AccountRow;
  let token: string;
  let python: AnalyzerRow;
  let go: AnalyzerRow;
  let bug: IssueRow;
  let style: IssueRow;
  let goBug: IssueRow;
  let web: RepositoryRow;
  let api: RepositoryRow;
  let secret: RepositoryRow;

  const at = (days: number) => new Date(Date.now() - days * DAY);
  const finding = (issue: IssueRow, fingerprint: string, state: TrackedFinding["state"] = "INTRODUCED") => ({
    issue,
    fingerprint,
    state,
  });

  before(async () => {
    server = await startInstance();
    const { db } = server;
    alice = await aUser(db);
    const carol = await aUser(db);
    team = await anAccount(db, {}, [{ user: alice }]);
    hidden = await anAccount(db, {}, [{ user: carol, role: "ADMIN" }]);
    token = await aToken(db, server.config.tokenPepper, alice);
    python = await anAnalyzer(db, { shortcode: `py-${newRowKey()}` });
    go = await anAnalyzer(db, { shortcode: `go-${newRowKey()}` });
    [bug, style] = (await issuesIn(db, [
      { analyzer: python, category: "BUG_RISK", severity: "MAJOR" },
      { analyzer: python, category: "STYLE", severity: "MINOR" },
    ])) as [IssueRow, IssueRow];
    [goBug] = (await issuesIn(db, [{ analyzer: go, category: "BUG_RISK" }])) as [IssueRow];

    web = await aRepository(db, team);
    // Pull request 1: f1 is introduced and gone in the next run (prevented 5 days ago); f2 stays;
    // f3 was only ever suppressed; f4 came from the default branch (its disappearance is a
    // resolution, not a prevention); k1's analyzer never ran again in this pull request; f2 and f5
    // are missing only from runs that are no evidence of a fix (a NEUTRAL check, a check whose
    // artifact failed to process, an unfinished run, a timed-out check).
    const pr1 = await aPullRequest(db, web);
    const pr1run1 = await aPullRequestRun(db, web, pr1, { createdAt: at(10) });
    await aCheckWithTrackedFindings(db, pr1run1, python, [
      finding(bug, "f1"),
      finding(bug, "f2"),
      { ...finding(style, "f3"), isSuppressed: true },
      finding(style, "f4", "EXISTING"),
    ]);
    await aCheckWithTrackedFindings(db, pr1run1, go, [finding(goBug, "k1")]);
    const pr1run2 = await aPullRequestRun(db, web, pr1, { createdAt: at(5) });
    await aCheckWithTrackedFindings(db, pr1run2, python, [
      finding(bug, "f2"),
      finding(style, "f4", "EXISTING"),
    ]);
    const pr1run3 = await aPullRequestRun(db, web, pr1, { createdAt: at(3) });
    await aCheckWithTrackedFindings(db, pr1run3, python, [
      finding(bug, "f2"),
      finding(style, "f4", "RESOLVED"),
      finding(bug, "f5"),
    ]);
    const neutral = await aPullRequestRun(db, web, pr1, { createdAt: at(2.8) });
    await aCheckWithTrackedFindings(db, neutral, python, [], { status: "NEUTRAL" });
    const failed = await aPullRequestRun(db, web, pr1, { createdAt: at(2.5), status: "FAILURE" });
    const failedCheck = await aCheckWithTrackedFindings(db, failed, python, [], { status: "FAILURE" });
    await anArtifact(db, failed, failedCheck, { status: "FAILED" });
    const pending = await aPullRequestRun(db, web, pr1, { createdAt: at(2), status: "PENDING" });
    await aCheckWithTrackedFindings(db, pending, python, []);
    const timedOut = await aPullRequestRun(db, web, pr1, { createdAt: at(1.5) });
    await aCheckWithTrackedFindings(db, timedOut, python, [], { status: "TIMEOUT" });

    // Pull request 2: g1 and g2 are gone a day ago; g3 left and came back, so it is not prevented.
    const pr2 = await aPullRequest(db, web, { state: "MERGED" });
    const pr2run1 = await aPullRequestRun(db, web, pr2, { createdAt: at(4) });
    await aCheckWithTrackedFindings(db, pr2run1, python, [
      finding(bug, "g1"),
      finding(style, "g2"),
      finding(style, "g3"),
    ]);
    const pr2run2 = await aPullRequestRun(db, web, pr2, { createdAt: at(1) });
    await aCheckWithTrackedFindings(db, pr2run2, python, []);
    const pr2run3 = await aPullRequestRun(db, web, pr2, { createdAt: at(0.5) });
    await aCheckWithTrackedFindings(db, pr2run3, python, [finding(style, "g3")]);

    // Default-branch runs never prevent anything: x1 is resolved there.
    const main1 = await aRun(db, web, { createdAt: at(9) });
    await aCheckWithTrackedFindings(db, main1, python, [finding(bug, "x1")]);
    const main2 = await aRun(db, web, { createdAt: at(8) });
    await aCheckWithTrackedFindings(db, main2, python, [finding(bug, "x1", "RESOLVED")]);

    // api: h1 prevented 35 days ago.
    api = await aRepository(db, team);
    const pr3 = await aPullRequest(db, api, { state: "CLOSED" });
    const pr3run1 = await aPullRequestRun(db, api, pr3, { createdAt: at(40) });
    await aCheckWithTrackedFindings(db, pr3run1, python, [finding(bug, "h1")]);
    const pr3run2 = await aPullRequestRun(db, api, pr3, { createdAt: at(35) });
    await aCheckWithTrackedFindings(db, pr3run2, python, []);

    // Another account's repository prevents findings too; they never show up for alice.
    secret = await aRepository(db, hidden);
    const pr4 = await aPullRequest(db, secret);
    const pr4run1 = await aPullRequestRun(db, secret, pr4, { createdAt: at(3) });
    await aCheckWithTrackedFindings(db, pr4run1, python, [finding(bug, "s1"), finding(bug, "s2")]);
    const pr4run2 = await aPullRequestRun(db, secret, pr4, { createdAt: at(2) });
    await aCheckWithTrackedFindings(db, pr4run2, python, []);
  });
  after(() => server.stop());

  async function query<T>(text: string, variables: Record<string, unknown> = {}): Promise<T> {
    const res = await gql<T>(server.endpoint, token, text, variables);
    assert.deepEqual(res.body.errors, undefined, text);
    assert.ok(res.body.data);
    return res.body.data;
  }

  async function accountPrevented(account: AccountRow, start = daysAgo(6), end = daysAgo(0)) {
    const data = await query<{ account: { reports: { issuesPrevented: PreventedAnswer } } }>(
      `query($login: String!, $start: Date!, $end: Date!) { account(login: $login, vcsProvider: GITHUB) {
        reports { ${PREVENTED} } } }`,
      { login: account.login, start, end },
    );
    return data.account.reports.issuesPrevented;
  }

  async function repositoryPrevented(repository: RepositoryRow) {
    const data = await query<{ repository: { reports: { issuesPrevented: PreventedAnswer } } }>(
      `query($name: String!, $login: String!, $start: Date!, $end: Date!) {
        repository(name: $name, login: $login, vcsProvider: GITHUB) { reports { ${PREVENTED} } } }`,
      { name: repository.name, login: team.login, start: daysAgo(6), end: daysAgo(0) },
    );
    return data.repository.reports.issuesPrevented;
  }

  const series = (days: Day[], key: string) =>
    days.map((day) => day.values.find((v) => v.key === key)!.value);

  test("the account's headline counts each finding fixed within its pull request once", async () => {
    const report = await accountPrevented(team);
    assert.equal(report.key, "ISSUES_PREVENTED");
    assert.equal(report.title, "Issues Prevented");
    // f1 (web), g1 and g2 (web), h1 (api).
    assert.equal(report.currentValue, 4);
  });

  test("values give the findings prevented on each day and the total by its end", async () => {
    const report = await accountPrevented(team);
    assert.deepEqual(
      report.values.map((day) => day.date),
      Array.from({ length: 7 }, (_, i) => daysAgo(6 - i)),
    );
    assert.deepEqual(series(report.values, "prevented"), [0, 1, 0, 0, 0, 2, 0]);
    assert.deepEqual(series(report.values, "total"), [1, 2, 2, 2, 2, 4, 4]);
  });

  test("trends compare the total with the totals 1, 3, 6 and 12 months ago", async () => {
    const report = await accountPrevented(team);
    assert.deepEqual(report.trends, [
      { label: "1 month ago", value: 1, changePercentage: 300 },
      { label: "3 months ago", value: 0, changePercentage: null },
      { label: "6 months ago", value: 0, changePercentage: null },
      { label: "12 months ago", value: 0, changePercentage: null },
    ]);
  });

  test("a repository's report counts only that repository's pull requests", async () => {
    assert.equal((await repositoryPrevented(web)).currentValue, 3);
    const apiReport = await repositoryPrevented(api);
    assert.equal(apiReport.currentValue, 1);
    assert.deepEqual(series(apiReport.values, "prevented"), [0, 0, 0, 0, 0, 0, 0]);
  });

  test("a run a late artifact reopened still shows what its published checks fixed", async () => {
    const { db } = server;
    const repository = await aRepository(db, team);
    const pr = await aPullRequest(db, repository);
    const first = await aPullRequestRun(db, repository, pr, { createdAt: at(4) });
    await aCheckWithTrackedFindings(db, first, python, [finding(bug, "r1"), finding(bug, "r2")]);
    const fixing = await aPullRequestRun(db, repository, pr, { createdAt: at(3) });
    const check = await aCheckWithTrackedFindings(db, fixing, python, [finding(bug, "r2")]);
    // As a late upload leaves the run and its check: PENDING again, from SUCCESS.
    await db
      .updateTable("analysis_runs")
      .set({ status: "PENDING", reopened_from: "SUCCESS", finished_at: null })
      .where("id", "=", fixing.id)
      .execute();
    await db
      .updateTable("checks")
      .set({ status: "PENDING", reopened_from: "SUCCESS", finished_at: null })
      .where("id", "=", check.id)
      .execute();
    assert.equal((await repositoryPrevented(repository)).currentValue, 1, "r1 was fixed by the reopened run");
  });

  test("an account or repository without pull requests prevented nothing", async () => {
    const empty = await anAccount(server.db, {}, [{ user: alice }]);
    await aRepository(server.db, empty);
    const report = await accountPrevented(empty, daysAgo(1), daysAgo(0));
    assert.equal(report.currentValue, 0);
    assert.deepEqual(
      report.values.map((day) => day.values),
      [
        [
          { key: "prevented", value: 0 },
          { key: "total", value: 0 },
        ],
        [
          { key: "prevented", value: 0 },
          { key: "total", value: 0 },
        ],
      ],
    );
  });

  test("values refuse a reversed range and one longer than 366 days, naming endDate", async () => {
    for (const [start, end] of [
      [daysAgo(1), daysAgo(2)],
      [daysAgo(366), daysAgo(0)],
    ]) {
      const res = await gql(
        server.endpoint,
        token,
        `query($login: String!, $start: Date!, $end: Date!) { account(login: $login, vcsProvider: GITHUB) {
          reports { issuesPrevented { values(startDate: $start, endDate: $end) { date } } } } }`,
        { login: team.login, start, end },
      );
      assert.equal(res.body.errors?.[0]?.extensions?.code, "BAD_USER_INPUT", `${start}..${end}`);
      assert.equal(res.body.errors?.[0]?.extensions?.field, "endDate");
    }
  });

  test("another account's repository report answers like a repository that does not exist", async () => {
    const text = `query($name: String!, $login: String!) { repository(name: $name, login: $login, vcsProvider: GITHUB) {
      reports { issuesPrevented { currentValue } } } }`;
    const theirs = await gql(server.endpoint, token, text, { name: secret.name, login: hidden.login });
    const missing = await gql(server.endpoint, token, text, {
      name: `no-${newRowKey()}`,
      login: hidden.login,
    });
    assert.equal(theirs.body.data?.repository, null);
    assert.equal(theirs.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
    assert.equal(theirs.body.errors?.[0]?.message, missing.body.errors?.[0]?.message);
    const account = await gql<{ account: null }>(
      server.endpoint,
      token,
      `query($login: String!) { account(login: $login, vcsProvider: GITHUB) { reports { issuesPrevented { currentValue } } } }`,
      { login: hidden.login },
    );
    assert.equal(account.body.data?.account, null);
    const byNode = await gql(
      server.endpoint,
      token,
      `query($id: ID!) { node(id: $id) { ... on Repository { reports { issuesPrevented { currentValue } } } } }`,
      { id: encodeGlobalId("Repository", secret.key) },
    );
    assert.equal(byNode.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
  });

  test("the report takes one statement for any number of repositories", async () => {
    async function statementsFor(repositories: number): Promise<string[]> {
      const account = await anAccount(server.db, {}, [{ user: alice }]);
      for (let i = 0; i < repositories; i++) {
        const repository = await aRepository(server.db, account);
        const pr = await aPullRequest(server.db, repository);
        const first = await aPullRequestRun(server.db, repository, pr, { createdAt: at(2) });
        await aCheckWithTrackedFindings(server.db, first, python, [finding(bug, `n${i}`)]);
        const second = await aPullRequestRun(server.db, repository, pr, { createdAt: at(1) });
        await aCheckWithTrackedFindings(server.db, second, python, []);
      }
      await settle(server.statements);
      const start = server.statements.length;
      const data = await query<{
        account: {
          reports: { issuesPrevented: PreventedAnswer };
          repositories: {
            edges: Array<{ node: { reports: { issuesPrevented: { currentValue: number } } } }>;
          };
        };
      }>(
        `query($login: String!, $start: Date!, $end: Date!) { account(login: $login, vcsProvider: GITHUB) {
          reports { ${PREVENTED} }
          repositories(first: 50) { edges { node { reports { issuesPrevented { currentValue } } } } } } }`,
        { login: account.login, start: daysAgo(3), end: daysAgo(0) },
      );
      assert.equal(data.account.reports.issuesPrevented.currentValue, repositories);
      assert.deepEqual(
        data.account.repositories.edges.map((edge) => edge.node.reports.issuesPrevented.currentValue),
        Array.from({ length: repositories }, () => 1),
      );
      await settle(server.statements);
      return server.statements.slice(start);
    }
    const eight = await statementsFor(8);
    assertPageSizeIndependent(await statementsFor(2), eight, ["2 repositories", "8 repositories"]);
  });
});
