import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AccountRow, AnalyzerRow, IssueRow, RepositoryRow, UserRow } from "../src/db/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { anAnalyzer, issuesIn } from "./helpers/builders-catalog.ts";
import { aMetricItem, metricValuesOf } from "./helpers/builders-metrics.ts";
import { aRunWithFindings, daysAgo } from "./helpers/builders-reports.ts";
import { assertPageSizeIndependent, settle, startInstance, type TestInstance } from "./helpers/instance.ts";
import { gql } from "./helpers/server.ts";

const DAY = 86_400_000;

interface Distribution {
  key: string;
  value: number;
}

describe("insight reports", () => {
  let server: TestInstance;
  let alice: UserRow;
  let team: AccountRow;
  let token: string;
  let python: AnalyzerRow;
  let go: AnalyzerRow;
  let issues: Record<"bug" | "style" | "goBug", IssueRow>;
  let web: RepositoryRow;

  before(async () => {
    server = await startInstance();
    const { db } = server;
    alice = await aUser(db);
    team = await anAccount(db, {}, [{ user: alice }]);
    token = await aToken(db, server.config.tokenPepper, alice);
    python = await anAnalyzer(db, { shortcode: `py-${newRowKey()}` });
    go = await anAnalyzer(db, { shortcode: `go-${newRowKey()}` });
    const [bug, style] = await issuesIn(db, [
      { analyzer: python, category: "BUG_RISK", severity: "MAJOR", tags: [] },
      { analyzer: python, category: "STYLE", severity: "MINOR", tags: [] },
    ]);
    const [goBug] = await issuesIn(db, [{ analyzer: go, category: "BUG_RISK", severity: "MAJOR", tags: [] }]);
    issues = { bug: bug!, style: style!, goBug: goBug! };
    const now = Date.now();
    // web: 6 open 40 days ago; now 2 bugs + 3 style open, 4 resolved.
    web = await aRepository(db, team);
    const webFirst = await aRunWithFindings(db, web, python, [{ issue: issues.bug, count: 6 }], {
      createdAt: new Date(now - 40 * DAY),
    });
    await aRunWithFindings(
      db,
      web,
      python,
      [
        { issue: issues.bug, count: 2 },
        { issue: issues.style, count: 3 },
        { issue: issues.bug, count: 4, state: "RESOLVED" },
      ],
      { createdAt: new Date(now - 2 * DAY), baseRun: webFirst },
    );
    await aRunWithFindings(db, web, python, [{ issue: issues.bug, count: 40 }], { branch: "feature" });
    // api: 1 go bug open, 5 days ago.
    const api = await aRepository(db, team);
    await aRunWithFindings(db, api, go, [{ issue: issues.goBug, count: 1 }], {
      createdAt: new Date(now - 5 * DAY),
    });
  });
  after(() => server.stop());

  async function query<T>(text: string, variables: Record<string, unknown> = {}): Promise<T> {
    const res = await gql<T>(server.endpoint, token, text, variables);
    assert.deepEqual(res.body.errors, undefined, text);
    assert.ok(res.body.data);
    return res.body.data;
  }

  async function accountReports<T>(selection: string, variables = {}, declared = ""): Promise<T> {
    const data = await query<{ account: { reports: T } }>(
      `query($login: String!${declared}) { account(login: $login, vcsProvider: GITHUB) { reports { ${selection} } } }`,
      { login: team.login, ...variables },
    );
    return data.account.reports;
  }

  test("issueDistribution counts open occurrences of the latest default-branch runs by category and analyzer", async () => {
    const { issueDistribution } = await accountReports<{
      issueDistribution: {
        key: string;
        title: string;
        currentValue: number;
        status: string;
        issueDistributionByCategory: Distribution[];
        issueDistributionByAnalyzer: Distribution[];
      };
    }>(
      "issueDistribution { key title currentValue status issueDistributionByCategory { key value } issueDistributionByAnalyzer { key value } }",
    );
    assert.equal(issueDistribution.key, "ISSUE_DISTRIBUTION");
    assert.equal(issueDistribution.title, "Issue Distribution");
    assert.equal(issueDistribution.currentValue, 6);
    assert.equal(issueDistribution.status, "FAILING");
    // Ties are ordered by key.
    assert.deepEqual(issueDistribution.issueDistributionByCategory, [
      { key: "BUG_RISK", value: 3 },
      { key: "STYLE", value: 3 },
    ]);
    assert.deepEqual(issueDistribution.issueDistributionByAnalyzer, [
      { key: python.shortcode, value: 5 },
      { key: go.shortcode, value: 1 },
    ]);
  });

  test("issueDistribution values give one series per category and historicalValues the same numbers", async () => {
    const { issueDistribution } = await accountReports<{
      issueDistribution: {
        values: Array<{ date: string; values: Distribution[] }>;
        historicalValues: Array<{ date: string; values: Distribution[] }>;
      };
    }>(
      `issueDistribution { values(startDate: $start, endDate: $end) { date values { key value } }
        historicalValues(startDate: $start, endDate: $end) { date values { key value } } }`,
      { start: daysAgo(6), end: daysAgo(0) },
      ", $start: Date!, $end: Date!",
    );
    const series = (key: string) =>
      issueDistribution.values.map((day) => day.values.find((v) => v.key === key)!.value);
    assert.deepEqual(series("BUG_RISK"), [6, 7, 7, 7, 3, 3, 3]);
    assert.deepEqual(series("STYLE"), [0, 0, 0, 0, 3, 3, 3]);
    assert.equal(issueDistribution.values[0]!.values.length, 9);
    assert.deepEqual(issueDistribution.historicalValues, issueDistribution.values);
  });

  test("codeHealthTrend's headline is the active count, with active and resolved series and trends", async () => {
    const { codeHealthTrend } = await accountReports<{
      codeHealthTrend: {
        key: string;
        currentValue: number;
        values: Array<{ date: string; values: Distribution[] }>;
        trends: Array<{ label: string; value: number | null; changePercentage: number | null }>;
      };
    }>(
      `codeHealthTrend { key currentValue values(startDate: $start, endDate: $end) { date values { key value } }
        trends { label value changePercentage } }`,
      { start: daysAgo(2), end: daysAgo(1) },
      ", $start: Date!, $end: Date!",
    );
    assert.equal(codeHealthTrend.key, "CODE_HEALTH_TREND");
    assert.equal(codeHealthTrend.currentValue, 6);
    // web's run two days ago resolved 4; nothing was resolved the day after.
    assert.deepEqual(
      codeHealthTrend.values.map((day) => day.values),
      [
        [
          { key: "active", value: 6 },
          { key: "resolved", value: 4 },
        ],
        [
          { key: "active", value: 6 },
          { key: "resolved", value: 0 },
        ],
      ],
    );
    assert.deepEqual(codeHealthTrend.trends[0], { label: "1 month ago", value: 6, changePercentage: 0 });
    // Three months ago no repository had been analysed: unknown, not 0.
    assert.deepEqual(codeHealthTrend.trends[1], {
      label: "3 months ago",
      value: null,
      changePercentage: null,
    });
  });

  test("codeHealthTrend's resolved is what the runs of each day resolved, and active the level at its end", async () => {
    const { db } = server;
    const account = await anAccount(db, {}, [{ user: alice }]);
    const [front, back] = [await aRepository(db, account), await aRepository(db, account)];
    const at = (days: number, hour: number) => new Date(`${daysAgo(days)}T0${hour}:00:00Z`);
    const resolving = (open: number, resolved: number) => [
      { issue: issues.bug, count: open },
      { issue: issues.bug, count: resolved, state: "RESOLVED" as const },
    ];
    // Two runs of front on one day resolve 2 and 1; a day later neither repository runs; the
    // day after, front resolves 4 and back 1.
    const first = await aRunWithFindings(db, front, python, resolving(5, 2), { createdAt: at(3, 1) });
    const second = await aRunWithFindings(db, front, python, resolving(4, 1), {
      createdAt: at(3, 2),
      baseRun: first,
    });
    await aRunWithFindings(db, front, python, resolving(0, 4), { createdAt: at(1, 1), baseRun: second });
    await aRunWithFindings(db, back, python, resolving(2, 1), { createdAt: at(1, 2) });
    const data = await query<{
      account: { reports: { codeHealthTrend: { values: Array<{ date: string; values: Distribution[] }> } } };
    }>(
      `query($login: String!, $start: Date!, $end: Date!) { account(login: $login, vcsProvider: GITHUB) {
        reports { codeHealthTrend { values(startDate: $start, endDate: $end) { date values { key value } } } } } }`,
      { login: account.login, start: daysAgo(4), end: daysAgo(0) },
    );
    const days = data.account.reports.codeHealthTrend.values;
    const series = (key: string) => days.map((day) => day.values.find((v) => v.key === key)?.value ?? null);
    assert.deepEqual(series("resolved"), [null, 3, 0, 5, 0]);
    assert.deepEqual(series("active"), [null, 4, 4, 2, 2]);
  });

  test("a repository's issueDistribution counts only that repository", async () => {
    const data = await query<{ repository: { reports: { issueDistribution: { currentValue: number } } } }>(
      `query($name: String!, $login: String!) { repository(name: $name, login: $login, vcsProvider: GITHUB) {
        reports { issueDistribution { currentValue } } } }`,
      { name: web.name, login: team.login },
    );
    assert.equal(data.repository.reports.issueDistribution.currentValue, 5);
  });

  test("issuesAutofixed answers null and empty series because no autofix facts are stored", async () => {
    const { issuesAutofixed } = await accountReports<{
      issuesAutofixed: {
        key: string;
        currentValue: number | null;
        values: unknown[];
        trends: Array<{ label: string; value: number | null; changePercentage: number | null }>;
      };
    }>(
      "issuesAutofixed { key currentValue values(startDate: $start, endDate: $end) { date } trends { label value changePercentage } }",
      { start: daysAgo(3), end: daysAgo(0) },
      ", $start: Date!, $end: Date!",
    );
    assert.equal(issuesAutofixed.key, "ISSUES_AUTOFIXED");
    assert.equal(issuesAutofixed.currentValue, null);
    assert.deepEqual(issuesAutofixed.values, []);
    assert.deepEqual(
      issuesAutofixed.trends.map((trend) => [trend.label, trend.value, trend.changePercentage]),
      [
        ["1 month ago", null, null],
        ["3 months ago", null, null],
        ["6 months ago", null, null],
        ["12 months ago", null, null],
      ],
    );
  });

  describe("code coverage", () => {
    let covered: AccountRow;
    let stranger: string;
    let alpha: RepositoryRow;

    interface CoverageNode {
      name: string;
      lcvMetricValue: number | null;
      bcvMetricValue: number | null;
      isLcvPassing: boolean | null;
      isBcvPassing: boolean | null;
    }
    interface CoverageAnswer {
      totalCount: number;
      pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string; startCursor: string };
      edges: Array<{ node: CoverageNode & { id: string } }>;
    }

    before(async () => {
      const { db } = server;
      covered = await anAccount(db, {}, [{ user: alice }]);
      const bob = await aUser(db);
      await anAccount(db, {}, [{ user: bob }]);
      stranger = await aToken(db, server.config.tokenPepper, bob);
      alpha = await aRepository(db, covered, { name: "alpha-svc" });
      const beta = await aRepository(db, covered, { name: "beta_svc" });
      await aRepository(db, covered, { name: "gamma" });
      const delta = await aRepository(db, covered, { name: "Delta-svc" });
      const value = async (
        repo: RepositoryRow,
        shortcode: "LCV" | "BCV",
        threshold: number | null,
        values: number[],
      ) => {
        const item = await aMetricItem(db, repo, shortcode, { threshold });
        await metricValuesOf(
          db,
          item,
          values.map((v) => ({ value: v })),
        );
      };
      await value(alpha, "LCV", 70, [10, 80]);
      await value(alpha, "BCV", 50, [40]);
      await value(beta, "LCV", null, [55.5]);
      await value(delta, "LCV", 90, [95]);
      await value(delta, "BCV", 60, [60]);
      // A per-language item is not the repository-wide value.
      const perLanguage = await aMetricItem(db, beta, "BCV", { key: "PYTHON" });
      await metricValuesOf(db, perLanguage, [{ value: 99 }]);
    });

    async function coverage(args: string, variables: Record<string, unknown> = {}, viewer = token) {
      const res = await gql<{
        account: { reports: { codeCoverage: { key: string; title: string; repositories: CoverageAnswer } } };
      }>(
        server.endpoint,
        viewer,
        `query($login: String!, $q: String, $after: String, $before: String) { account(login: $login, vcsProvider: GITHUB) {
          reports { codeCoverage { key title repositories(q: $q, after: $after, before: $before, ${args}) { totalCount
            pageInfo { hasNextPage hasPreviousPage endCursor startCursor }
            edges { node { id name lcvMetricValue bcvMetricValue isLcvPassing isBcvPassing } } } } } } }`,
        { login: covered.login, ...variables },
      );
      assert.deepEqual(res.body.errors, undefined);
      return res.body.data!.account.reports.codeCoverage;
    }
    const names = (answer: CoverageAnswer) => answer.edges.map((e) => e.node.name);

    test("codeCoverage lists each repository's latest AGGREGATE coverage and threshold status, by name", async () => {
      const report = await coverage("");
      assert.equal(report.key, "CODE_COVERAGE");
      assert.equal(report.title, "Code Coverage");
      assert.deepEqual(names(report.repositories), ["alpha-svc", "beta_svc", "Delta-svc", "gamma"].sort());
      const byName = new Map(report.repositories.edges.map((e) => [e.node.name, e.node]));
      const { id: _id, ...alphaNode } = byName.get("alpha-svc")!;
      assert.deepEqual(alphaNode, {
        name: "alpha-svc",
        lcvMetricValue: 80,
        bcvMetricValue: 40,
        isLcvPassing: true,
        isBcvPassing: false,
      });
      assert.deepEqual(
        [
          byName.get("beta_svc")!.lcvMetricValue,
          byName.get("beta_svc")!.isLcvPassing,
          byName.get("beta_svc")!.bcvMetricValue,
        ],
        [55.5, null, null],
      );
      assert.equal(byName.get("Delta-svc")!.isBcvPassing, true);
      assert.equal(byName.get("gamma")!.lcvMetricValue, null);
      assert.equal(report.repositories.totalCount, 4);
    });

    test("isLcvPassing holds the latest value to the threshold set now, as Repository.metrics' thresholdStatus does", async () => {
      const { db } = server;
      const raised = await anAccount(db, {}, [{ user: alice }]);
      const repository = await aRepository(db, raised, { name: "raised" });
      // 75 was recorded while the threshold was 70; it has been raised to 80 since.
      const item = await aMetricItem(db, repository, "LCV", { threshold: 80 });
      await metricValuesOf(db, item, [{ value: 75, threshold: 70 }]);
      const report = await coverage("", { login: raised.login });
      assert.deepEqual(
        report.repositories.edges.map((e) => [e.node.lcvMetricValue, e.node.isLcvPassing]),
        [[75, false]],
      );
      const metrics = await gql<{
        repository: {
          metrics: Array<{ shortcode: string; items: Array<{ key: string; thresholdStatus: string }> }>;
        };
      }>(
        server.endpoint,
        token,
        `query($login: String!, $name: String!) { repository(login: $login, name: $name, vcsProvider: GITHUB) {
          metrics { shortcode items { key thresholdStatus } } } }`,
        { login: raised.login, name: repository.name },
      );
      const lcv = metrics.body.data?.repository.metrics.find((m) => m.shortcode === "LCV");
      assert.deepEqual(lcv?.items, [{ key: "AGGREGATE", thresholdStatus: "FAILING" }]);
    });

    test("sort keys order by a coverage value with repositories without one last", async () => {
      assert.deepEqual(names((await coverage("sortKey: LCV_ASCENDING")).repositories), [
        "beta_svc",
        "alpha-svc",
        "Delta-svc",
        "gamma",
      ]);
      assert.deepEqual(names((await coverage("sortKey: LCV_DESCENDING")).repositories), [
        "Delta-svc",
        "alpha-svc",
        "beta_svc",
        "gamma",
      ]);
      const bcvAsc = names((await coverage("sortKey: BCV_ASCENDING")).repositories);
      assert.deepEqual(bcvAsc.slice(0, 2), ["alpha-svc", "Delta-svc"]);
      assert.deepEqual(bcvAsc.slice(2).sort(), ["beta_svc", "gamma"]);
      const bcvDesc = names((await coverage("sortKey: BCV_DESCENDING")).repositories);
      assert.deepEqual(bcvDesc.slice(0, 2), ["Delta-svc", "alpha-svc"]);
    });

    test("cursors page forward and backward through the null sentinel", async () => {
      const all = names((await coverage("sortKey: BCV_DESCENDING")).repositories);
      const seen: string[] = [];
      let after: string | null = null;
      for (;;) {
        const page: CoverageAnswer = (await coverage("sortKey: BCV_DESCENDING, first: 1", { after }))
          .repositories;
        seen.push(...names(page));
        assert.equal(page.totalCount, 4);
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
      assert.deepEqual(seen, all);
      const last = (await coverage("sortKey: BCV_DESCENDING, last: 2")).repositories;
      assert.deepEqual(names(last), all.slice(2));
      const before = (
        await coverage("sortKey: BCV_DESCENDING, last: 2", {
          before: last.pageInfo.startCursor,
        })
      ).repositories;
      assert.deepEqual(names(before), all.slice(0, 2));
      assert.equal(before.pageInfo.hasPreviousPage, false);
    });

    test("q filters by name, case-insensitively, with LIKE wildcards taken literally", async () => {
      const svc = (await coverage("", { q: "SVC" })).repositories;
      assert.deepEqual(names(svc), ["Delta-svc", "alpha-svc", "beta_svc"].sort());
      assert.equal(svc.totalCount, 3);
      assert.deepEqual(names((await coverage("", { q: "_" })).repositories), ["beta_svc"]);
      assert.deepEqual(names((await coverage("", { q: "%" })).repositories), []);
    });

    test("a coverage repository resolves through node(id:) for a member and is NOT_FOUND for others", async () => {
      const id = encodeGlobalId("CodeCoverageReportRepository", alpha.key);
      const text = `query($id: ID!) { node(id: $id) { id ... on CodeCoverageReportRepository { name lcvMetricValue } } }`;
      const mine = await gql<{ node: { id: string; name: string; lcvMetricValue: number } }>(
        server.endpoint,
        token,
        text,
        { id },
      );
      assert.deepEqual(mine.body.data?.node, { id, name: "alpha-svc", lcvMetricValue: 80 });
      const theirs = await gql(server.endpoint, stranger, text, { id });
      const missing = await gql(server.endpoint, stranger, text, {
        id: encodeGlobalId("CodeCoverageReportRepository", newRowKey()),
      });
      assert.equal(theirs.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
      assert.equal(
        theirs.body.errors?.[0]?.message.replace(id, "?"),
        missing.body.errors?.[0]?.message.replace(/"[^"]+"/, '"?"'),
      );
    });

    test("codeCoverage.repositories takes the same statements for 10 repositories as for 100", async () => {
      async function statementsFor(count: number): Promise<string[]> {
        const account = await anAccount(server.db, {}, [{ user: alice }]);
        for (let i = 0; i < count; i++) {
          const repo = await aRepository(server.db, account);
          const item = await aMetricItem(server.db, repo, "LCV", { threshold: 50 });
          await metricValuesOf(server.db, item, [{ value: i }]);
        }
        await settle(server.statements);
        const start = server.statements.length;
        const res = await gql<{ account: { reports: { codeCoverage: { repositories: CoverageAnswer } } } }>(
          server.endpoint,
          token,
          `query($login: String!) { account(login: $login, vcsProvider: GITHUB) { reports { codeCoverage {
            repositories(sortKey: LCV_DESCENDING, first: 500) { totalCount pageInfo { hasNextPage }
              edges { node { id name lcvMetricValue bcvMetricValue isLcvPassing isBcvPassing } } } } } } }`,
          { login: account.login },
        );
        assert.equal(res.body.data?.account.reports.codeCoverage.repositories.edges.length, count);
        await settle(server.statements);
        return server.statements.slice(start);
      }
      const hundred = await statementsFor(100);
      assertPageSizeIndependent(await statementsFor(10), hundred, ["10 repositories", "100 repositories"]);
    });
  });
});
