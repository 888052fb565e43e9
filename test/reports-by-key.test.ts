import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AccountRow, AnalyzerRow, IssueRow, RepositoryRow, UserRow } from "../src/db/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { anAnalyzer, issuesIn } from "./helpers/builders-catalog.ts";
import { aMetricItem, metricValuesOf } from "./helpers/builders-metrics.ts";
import { aPullRequest, aPullRequestRun } from "./helpers/builders-pull-requests.ts";
import { aCheckWithTrackedFindings, aRunWithFindings, daysAgo } from "./helpers/builders-reports.ts";
import { assertPageSizeIndependent, settle, startInstance, type TestInstance } from "./helpers/instance.ts";
import { gql } from "./helpers/server.ts";

const DAY = 86_400_000;

const KEYS = [
  "OWASP_TOP_10",
  "SANS_TOP_25",
  "MISRA_C",
  "CODE_COVERAGE",
  "CODE_HEALTH_TREND",
  "ISSUE_DISTRIBUTION",
  "ISSUES_PREVENTED",
  "ISSUES_AUTOFIXED",
] as const;

const TYPE_OF_KEY: Record<(typeof KEYS)[number], string> = {
  OWASP_TOP_10: "ComplianceReport",
  SANS_TOP_25: "ComplianceReport",
  MISRA_C: "ComplianceReport",
  CODE_COVERAGE: "InsightReport",
  CODE_HEALTH_TREND: "InsightReport",
  ISSUE_DISTRIBUTION: "IssueDistributionReport",
  ISSUES_PREVENTED: "InsightReport",
  ISSUES_AUTOFIXED: "InsightReport",
};

interface Stat {
  key: string;
  title: string;
  occurrence: { critical: number; major: number; minor: number; total: number };
}

interface ReportAnswer {
  __typename: string;
  key: string;
  title: string;
  currentValue: number | null;
  status: string | null;
  historicalValues: Array<{ date: string; values: Array<{ key: string; value: number }> }>;
  trends: Array<{ label: string; value: number | null; changePercentage: number | null }>;
  complianceIssueStats?: Stat[];
}

const REPORT = `__typename key title currentValue status
  historicalValues(startDate: $start, endDate: $end) { date values { key value } }
  trends { label value changePercentage }
  ... on ComplianceReport { complianceIssueStats { key title occurrence { critical major minor total } } }`;

describe("the deprecated report(key:)", () => {
  let server: TestInstance;
  let alice: UserRow;
  let team: AccountRow;
  let hidden: AccountRow;
  let token: string;
  let analyzer: AnalyzerRow;
  let sqlInjection: IssueRow;
  let style: IssueRow;
  let web: RepositoryRow;
  let api: RepositoryRow;
  let secret: RepositoryRow;

  const at = (days: number) => new Date(Date.now() - days * DAY);

  before(async () => {
    server = await startInstance();
    const { db } = server;
    alice = await aUser(db);
    const carol = await aUser(db);
    team = await anAccount(db, {}, [{ user: alice }]);
    hidden = await anAccount(db, {}, [{ user: carol, role: "ADMIN" }]);
    token = await aToken(db, server.config.tokenPepper, alice);
    analyzer = await anAnalyzer(db, { shortcode: `py-${newRowKey()}` });
    [sqlInjection, style] = (await issuesIn(db, [
      { analyzer, category: "SECURITY", severity: "CRITICAL", tags: ["cwe-89"] },
      { analyzer, category: "STYLE", severity: "MINOR", tags: [] },
    ])) as [IssueRow, IssueRow];

    // web: 3 SQL injections and 2 style findings open, 1 resolved; coverage 60 then 81.
    web = await aRepository(db, team);
    await aRunWithFindings(
      db,
      web,
      analyzer,
      [
        { issue: sqlInjection, count: 3 },
        { issue: style, count: 2 },
        { issue: style, count: 1, state: "RESOLVED" },
      ],
      { createdAt: at(3) },
    );
    const webLcv = await aMetricItem(db, web, "LCV");
    await metricValuesOf(db, webLcv, [
      { value: 60, createdAt: at(10) },
      { value: 81, createdAt: at(2) },
    ]);
    // A prevented finding in a pull request of web.
    const pr = await aPullRequest(db, web);
    const first = await aPullRequestRun(db, web, pr, { createdAt: at(4) });
    await aCheckWithTrackedFindings(db, first, analyzer, [
      { issue: style, fingerprint: "p1", state: "INTRODUCED" },
    ]);
    const second = await aPullRequestRun(db, web, pr, { createdAt: at(1) });
    await aCheckWithTrackedFindings(db, second, analyzer, []);

    // api: one SQL injection; coverage 70.
    api = await aRepository(db, team);
    await aRunWithFindings(db, api, analyzer, [{ issue: sqlInjection, count: 1 }], { createdAt: at(5) });
    await metricValuesOf(db, await aMetricItem(db, api, "LCV"), [{ value: 70, createdAt: at(5) }]);

    secret = await aRepository(db, hidden);
    await aRunWithFindings(db, secret, analyzer, [{ issue: sqlInjection, count: 9 }]);
  });
  after(() => server.stop());

  async function query<T>(text: string, variables: Record<string, unknown> = {}): Promise<T> {
    const res = await gql<T>(server.endpoint, token, text, variables);
    assert.deepEqual(res.body.errors, undefined, text);
    assert.ok(res.body.data);
    return res.body.data;
  }

  async function accountReport(key: string, start = daysAgo(6), end = daysAgo(0)): Promise<ReportAnswer> {
    const data = await query<{ account: { report: ReportAnswer } }>(
      `query($login: String!, $key: ReportKey!, $start: Date!, $end: Date!) {
        account(login: $login, vcsProvider: GITHUB) { report(key: $key) { ${REPORT} } } }`,
      { login: team.login, key, start, end },
    );
    return data.account.report;
  }

  async function repositoryReport(repository: RepositoryRow, key: string): Promise<ReportAnswer> {
    const data = await query<{ repository: { report: ReportAnswer } }>(
      `query($name: String!, $login: String!, $key: ReportKey!, $start: Date!, $end: Date!) {
        repository(name: $name, login: $login, vcsProvider: GITHUB) { report(key: $key) { ${REPORT} } } }`,
      { name: repository.name, login: team.login, key, start: daysAgo(6), end: daysAgo(0) },
    );
    return data.repository.report;
  }

  test("every key answers its type, key and title on accounts and repositories", async () => {
    for (const key of KEYS) {
      const [ofAccount, ofRepository] = [await accountReport(key), await repositoryReport(web, key)];
      for (const report of [ofAccount, ofRepository]) {
        assert.equal(report.__typename, TYPE_OF_KEY[key], key);
        assert.equal(report.key, key);
        assert.equal(report.trends.length, 4, key);
      }
      assert.equal(ofAccount.title, ofRepository.title);
    }
  });

  test("a compliance report gives the numbers of the reports namespace in the older shape", async () => {
    const data = await query<{
      account: {
        report: ReportAnswer;
        reports: { owaspTop10: { currentValue: number; status: string; securityIssueStats: Stat[] } };
      };
    }>(
      `query($login: String!, $start: Date!, $end: Date!) { account(login: $login, vcsProvider: GITHUB) {
        report(key: OWASP_TOP_10) { ${REPORT} }
        reports { owaspTop10 { currentValue status securityIssueStats { key title occurrence { critical major minor total } } } } } }`,
      { login: team.login, start: daysAgo(6), end: daysAgo(0) },
    );
    const { report, reports } = data.account;
    assert.equal(report.title, "OWASP Top 10");
    assert.equal(report.currentValue, 4);
    assert.equal(report.status, "FAILING");
    assert.deepEqual(report.complianceIssueStats, reports.owaspTop10.securityIssueStats);
    assert.deepEqual(report.complianceIssueStats?.find((s) => s.key === "A03")?.occurrence, {
      critical: 4,
      major: 0,
      minor: 0,
      total: 4,
    });
    const a03 = report.historicalValues.map((day) => day.values.find((v) => v.key === "A03")?.value ?? null);
    // Six days ago no repository had been analysed yet: that day has no values.
    assert.deepEqual(a03, [null, 1, 1, 4, 4, 4, 4]);
    assert.deepEqual(report.historicalValues[0]!.values, []);
    assert.equal((await repositoryReport(web, "MISRA_C")).status, "PASSING");
  });

  test("insight reports carry their numbers without a status", async () => {
    const health = await accountReport("CODE_HEALTH_TREND");
    assert.equal(health.currentValue, 6);
    assert.equal(health.status, null);
    // web's run three days ago resolved 1; no run since resolved anything.
    assert.deepEqual(health.historicalValues.at(-4)?.values, [
      { key: "active", value: 6 },
      { key: "resolved", value: 1 },
    ]);
    assert.deepEqual(health.historicalValues.at(-1)?.values, [
      { key: "active", value: 6 },
      { key: "resolved", value: 0 },
    ]);
    const prevented = await accountReport("ISSUES_PREVENTED");
    assert.equal(prevented.title, "Issues Prevented");
    assert.equal(prevented.currentValue, 1);
    assert.equal(prevented.status, null);
    assert.deepEqual(prevented.historicalValues.at(-2)?.values, [
      { key: "prevented", value: 1 },
      { key: "total", value: 1 },
    ]);
    const distribution = await accountReport("ISSUE_DISTRIBUTION");
    assert.equal(distribution.currentValue, 6);
    assert.equal(distribution.status, "FAILING");
  });

  test("code coverage is the mean of the latest line coverage of the repositories, in whole percent", async () => {
    const account = await accountReport("CODE_COVERAGE", daysAgo(11), daysAgo(0));
    assert.equal(account.title, "Code Coverage");
    // (81 + 70) / 2 = 75.5
    assert.equal(account.currentValue, 76);
    const lcv = account.historicalValues.map((day) => day.values.find((v) => v.key === "lcv")?.value ?? null);
    assert.deepEqual(lcv, [null, 60, 60, 60, 60, 60, 65, 65, 65, 76, 76, 76]);
    assert.deepEqual(account.historicalValues[0]!.values, []);
    assert.deepEqual(account.trends[0], { label: "1 month ago", value: null, changePercentage: null });
    assert.equal((await repositoryReport(web, "CODE_COVERAGE")).currentValue, 81);
    const bare = await aRepository(server.db, team);
    assert.equal((await repositoryReport(bare, "CODE_COVERAGE")).currentValue, null);
  });

  test("issues autofixed answers null numbers and no series", async () => {
    const report = await accountReport("ISSUES_AUTOFIXED");
    assert.equal(report.currentValue, null);
    assert.deepEqual(report.historicalValues, []);
    assert.deepEqual(
      report.trends.map((trend) => [trend.value, trend.changePercentage]),
      [
        [null, null],
        [null, null],
        [null, null],
        [null, null],
      ],
    );
  });

  test("the field is deprecated in favour of reports", async () => {
    const data = await query<{
      account: { fields: Array<{ name: string; isDeprecated: boolean; deprecationReason: string | null }> };
      repository: {
        fields: Array<{ name: string; isDeprecated: boolean; deprecationReason: string | null }>;
      };
    }>(`{ account: __type(name: "Account") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } }
      repository: __type(name: "Repository") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }`);
    for (const type of [data.account, data.repository]) {
      assert.deepEqual(
        type.fields.find((field) => field.name === "report"),
        { name: "report", isDeprecated: true, deprecationReason: "Deprecated in favor of `reports`." },
      );
    }
  });

  test("historicalValues refuse a reversed range and one longer than 366 days, naming endDate", async () => {
    for (const key of ["OWASP_TOP_10", "ISSUES_PREVENTED", "ISSUES_AUTOFIXED", "CODE_COVERAGE"]) {
      for (const [start, end] of [
        [daysAgo(1), daysAgo(2)],
        [daysAgo(366), daysAgo(0)],
      ]) {
        const res = await gql(
          server.endpoint,
          token,
          `query($login: String!, $key: ReportKey!, $start: Date!, $end: Date!) {
            account(login: $login, vcsProvider: GITHUB) { report(key: $key) { historicalValues(startDate: $start, endDate: $end) { date } } } }`,
          { login: team.login, key, start, end },
        );
        assert.equal(res.body.errors?.[0]?.extensions?.code, "BAD_USER_INPUT", `${key} ${start}..${end}`);
        assert.equal(res.body.errors?.[0]?.extensions?.field, "endDate");
      }
    }
  });

  test("another account's reports are out of reach, like ones that do not exist", async () => {
    const text = `query($name: String!, $login: String!) { repository(name: $name, login: $login, vcsProvider: GITHUB) {
      report(key: OWASP_TOP_10) { currentValue } } }`;
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
      `query($login: String!) { account(login: $login, vcsProvider: GITHUB) { report(key: OWASP_TOP_10) { currentValue } } }`,
      { login: hidden.login },
    );
    assert.equal(account.body.data?.account, null);
    const id = encodeGlobalId("Repository", secret.key);
    const byNode = await gql(
      server.endpoint,
      token,
      `query($id: ID!) { node(id: $id) { ... on Repository { report(key: OWASP_TOP_10) { currentValue } } } }`,
      { id },
    );
    assert.equal(byNode.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
    assert.equal(byNode.body.errors?.[0]?.message, `No node with id "${id}" exists.`);
  });

  test("every key over a page of repositories takes the same statements for 2 repositories as for 8", async () => {
    async function statementsFor(repositories: number): Promise<string[]> {
      const account = await anAccount(server.db, {}, [{ user: alice }]);
      for (let i = 0; i < repositories; i++) {
        const repository = await aRepository(server.db, account);
        await aRunWithFindings(server.db, repository, analyzer, [{ issue: sqlInjection, count: 1 }]);
        await metricValuesOf(server.db, await aMetricItem(server.db, repository, "LCV"), [{ value: 50 }]);
      }
      await settle(server.statements);
      const start = server.statements.length;
      const selection = KEYS.map(
        (key) => `${key.toLowerCase()}: report(key: ${key}) { __typename currentValue }`,
      );
      const data = await query<{
        account: {
          repositories: { edges: Array<{ node: Record<string, { currentValue: number | null }> }> };
        };
      }>(
        `query($login: String!) { account(login: $login, vcsProvider: GITHUB) {
          repositories(first: 50) { edges { node { ${selection.join(" ")} } } } } }`,
        { login: account.login },
      );
      for (const edge of data.account.repositories.edges) {
        assert.equal(edge.node.owasp_top_10!.currentValue, 1);
        assert.equal(edge.node.code_coverage!.currentValue, 50);
      }
      await settle(server.statements);
      return server.statements.slice(start);
    }
    const eight = await statementsFor(8);
    assertPageSizeIndependent(await statementsFor(2), eight, ["2 repositories", "8 repositories"]);
  });
});
