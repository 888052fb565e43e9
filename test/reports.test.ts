import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AccountRow, AnalyzerRow, IssueRow, RepositoryRow, UserRow } from "../src/db/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aRun, aToken, aUser } from "./helpers/builders.ts";
import { anArtifact } from "./helpers/builders-artifacts.ts";
import { anAnalyzer, issuesIn } from "./helpers/builders-catalog.ts";
import { aCheck } from "./helpers/builders-checks.ts";
import { aMetricItem, aMetricValue } from "./helpers/builders-metrics.ts";
import { aCheckWithFindings, aRunWithFindings, daysAgo } from "./helpers/builders-reports.ts";
import { assertPageSizeIndependent, settle, startInstance, type TestInstance } from "./helpers/instance.ts";
import { gql } from "./helpers/server.ts";

interface Stat {
  key: string;
  title: string;
  occurrence: { critical: number | null; major: number | null; minor: number | null; total: number | null };
}

interface ComplianceAnswer {
  key: string;
  title: string;
  currentValue: number | null;
  status: string;
  securityIssueStats: Stat[];
}

const COMPLIANCE =
  "key title currentValue status securityIssueStats { key title occurrence { critical major minor total } }";
const DAY = 86_400_000;

describe("reports and report cards", () => {
  let server: TestInstance;
  let alice: UserRow;
  let team: AccountRow;
  let hidden: AccountRow;
  let token: string;
  let analyzer: AnalyzerRow;
  let issues: Record<"sql" | "xss" | "misconfig" | "ssrf" | "misra" | "style", IssueRow>;
  let web: RepositoryRow;
  let api: RepositoryRow;

  before(async () => {
    server = await startInstance();
    const { db } = server;
    alice = await aUser(db);
    const carol = await aUser(db);
    team = await anAccount(db, {}, [{ user: alice }]);
    hidden = await anAccount(db, {}, [{ user: carol, role: "ADMIN" }]);
    token = await aToken(db, server.config.tokenPepper, alice);
    analyzer = await anAnalyzer(db, { shortcode: `py-${newRowKey()}` });
    const [sql, xss, misconfig, ssrf, misra, style] = await issuesIn(db, [
      { analyzer, category: "SECURITY", severity: "CRITICAL", tags: ["security", "cwe-89"] },
      { analyzer, category: "SECURITY", severity: "MAJOR", tags: ["security", "cwe-79"] },
      { analyzer, category: "SECURITY", severity: "MINOR", tags: ["owasp-top-10-2021-a05"] },
      { analyzer, category: "SECURITY", severity: "MINOR", tags: ["cwe-918"] },
      { analyzer, category: "BUG_RISK", severity: "MAJOR", tags: ["misra-c-2012-rule-10.3"] },
      { analyzer, category: "STYLE", severity: "MINOR", tags: ["style"] },
    ]);
    issues = { sql: sql!, xss: xss!, misconfig: misconfig!, ssrf: ssrf!, misra: misra!, style: style! };

    // web: history 40 and 10 days ago, the latest run now, and runs that must not count.
    web = await aRepository(db, team);
    const now = Date.now();
    await aRunWithFindings(db, web, analyzer, [{ issue: issues.sql, count: 2 }], {
      createdAt: new Date(now - 40 * DAY),
    });
    await aRunWithFindings(db, web, analyzer, [{ issue: issues.sql, count: 10 }], {
      createdAt: new Date(now - 10 * DAY),
    });
    await aRunWithFindings(
      db,
      web,
      analyzer,
      [
        { issue: issues.sql, count: 3 },
        { issue: issues.sql, count: 4, state: "RESOLVED" },
        { issue: issues.xss, count: 2, state: "INTRODUCED" },
        { issue: issues.misconfig, count: 1 },
        { issue: issues.style, count: 5 },
      ],
      { createdAt: new Date(now - 1000) },
    );
    await aRunWithFindings(db, web, analyzer, [{ issue: issues.sql, count: 50 }], { status: "PENDING" });
    await aRunWithFindings(db, web, analyzer, [{ issue: issues.sql, count: 50 }], { branch: "feature" });
    // api: one run five days ago.
    api = await aRepository(db, team);
    await aRunWithFindings(
      db,
      api,
      analyzer,
      [
        { issue: issues.ssrf, count: 1 },
        { issue: issues.misra, count: 2 },
      ],
      { createdAt: new Date(now - 5 * DAY) },
    );
  });
  after(() => server.stop());

  async function query<T>(text: string, variables: Record<string, unknown> = {}): Promise<T> {
    const res = await gql<T>(server.endpoint, token, text, variables);
    assert.deepEqual(res.body.errors, undefined, text);
    assert.ok(res.body.data);
    return res.body.data;
  }

  async function accountReports<T>(account: AccountRow, selection: string, variables = {}, declared = "") {
    const data = await query<{ account: { reports: T } }>(
      `query($login: String!${declared}) { account(login: $login, vcsProvider: GITHUB) { reports { ${selection} } } }`,
      { login: account.login, ...variables },
    );
    return data.account.reports;
  }

  async function repositoryReports<T>(repository: RepositoryRow, account: AccountRow, selection: string) {
    const data = await query<{ repository: { reports: T } }>(
      `query($name: String!, $login: String!) {
        repository(name: $name, login: $login, vcsProvider: GITHUB) { reports { ${selection} } } }`,
      { name: repository.name, login: account.login },
    );
    return data.repository.reports;
  }

  const stat = (report: ComplianceAnswer, key: string) =>
    report.securityIssueStats.find((s) => s.key === key)!;

  test("the account's OWASP report counts open findings of the latest default-branch runs by category and severity", async () => {
    const { owaspTop10 } = await accountReports<{ owaspTop10: ComplianceAnswer }>(
      team,
      `owaspTop10 { ${COMPLIANCE} }`,
    );
    assert.equal(owaspTop10.key, "OWASP_TOP_10");
    assert.equal(owaspTop10.currentValue, 7);
    assert.equal(owaspTop10.status, "FAILING");
    assert.deepEqual(
      owaspTop10.securityIssueStats.map((s) => s.key),
      ["A01", "A02", "A03", "A04", "A05", "A06", "A07", "A08", "A09", "A10"],
    );
    assert.deepEqual(stat(owaspTop10, "A03"), {
      key: "A03",
      title: "Injection",
      occurrence: { critical: 3, major: 2, minor: 0, total: 5 },
    });
    assert.deepEqual(stat(owaspTop10, "A05").occurrence, { critical: 0, major: 0, minor: 1, total: 1 });
    assert.deepEqual(stat(owaspTop10, "A10").occurrence, { critical: 0, major: 0, minor: 1, total: 1 });
    assert.equal(stat(owaspTop10, "A01").occurrence.total, 0);
  });

  test("the SANS report keys its rows by CWE id and the MISRA report by rule group", async () => {
    const reports = await accountReports<{ sansTop25: ComplianceAnswer; misraC: ComplianceAnswer }>(
      team,
      `sansTop25 { ${COMPLIANCE} } misraC { ${COMPLIANCE} }`,
    );
    assert.equal(reports.sansTop25.securityIssueStats.length, 25);
    assert.equal(reports.sansTop25.currentValue, 6);
    assert.deepEqual(stat(reports.sansTop25, "CWE-89").occurrence, {
      critical: 3,
      major: 0,
      minor: 0,
      total: 3,
    });
    assert.deepEqual(stat(reports.sansTop25, "CWE-79").occurrence, {
      critical: 0,
      major: 2,
      minor: 0,
      total: 2,
    });
    assert.deepEqual(stat(reports.sansTop25, "CWE-918").occurrence, {
      critical: 0,
      major: 0,
      minor: 1,
      total: 1,
    });
    assert.equal(reports.misraC.currentValue, 2);
    assert.equal(reports.misraC.securityIssueStats.length, 22);
    assert.deepEqual(stat(reports.misraC, "10").occurrence, { critical: 0, major: 2, minor: 0, total: 2 });
  });

  test("a repository's reports count only that repository", async () => {
    const { owaspTop10, misraC } = await repositoryReports<{
      owaspTop10: ComplianceAnswer;
      misraC: ComplianceAnswer;
    }>(web, team, `owaspTop10 { ${COMPLIANCE} } misraC { ${COMPLIANCE} }`);
    assert.equal(owaspTop10.currentValue, 6);
    assert.equal(stat(owaspTop10, "A10").occurrence.total, 0);
    assert.equal(misraC.currentValue, 0);
    assert.equal(misraC.status, "PASSING");
  });

  test("status is NOOP when no repository in scope has a finished default-branch run", async () => {
    const empty = await anAccount(server.db, {}, [{ user: alice }]);
    const repository = await aRepository(server.db, empty);
    await aRunWithFindings(server.db, repository, analyzer, [{ issue: issues.sql, count: 1 }], {
      status: "PENDING",
    });
    const { owaspTop10 } = await accountReports<{ owaspTop10: ComplianceAnswer }>(
      empty,
      `owaspTop10 { ${COMPLIANCE} }`,
    );
    assert.equal(owaspTop10.status, "NOOP");
    assert.equal(owaspTop10.currentValue, null, "nothing analysed yet is not 0 findings");
    assert.deepEqual(
      owaspTop10.securityIssueStats.map((s) => s.key),
      ["A01", "A02", "A03", "A04", "A05", "A06", "A07", "A08", "A09", "A10"],
      "the standard's items are still listed",
    );
    for (const item of owaspTop10.securityIssueStats) {
      assert.deepEqual(item.occurrence, { critical: null, major: null, minor: null, total: null }, item.key);
    }
  });

  test("an analysed scope with nothing open counts 0 in every item, where one not analysed yet counts null", async () => {
    const clean = await anAccount(server.db, {}, [{ user: alice }]);
    await aRunWithFindings(server.db, await aRepository(server.db, clean), analyzer, []);
    const unknown = await anAccount(server.db, {}, [{ user: alice }]);
    await aRepository(server.db, unknown);
    const [analysed, notYet] = [
      await accountReports<Record<"owaspTop10" | "sansTop25" | "misraC", ComplianceAnswer>>(
        clean,
        `owaspTop10 { ${COMPLIANCE} } sansTop25 { ${COMPLIANCE} } misraC { ${COMPLIANCE} }`,
      ),
      await accountReports<Record<"owaspTop10" | "sansTop25" | "misraC", ComplianceAnswer>>(
        unknown,
        `owaspTop10 { ${COMPLIANCE} } sansTop25 { ${COMPLIANCE} } misraC { ${COMPLIANCE} }`,
      ),
    ];
    for (const name of ["owaspTop10", "sansTop25", "misraC"] as const) {
      assert.deepEqual([analysed[name].status, analysed[name].currentValue], ["PASSING", 0], name);
      assert.deepEqual([notYet[name].status, notYet[name].currentValue], ["NOOP", null], name);
      assert.deepEqual(
        notYet[name].securityIssueStats.map((s) => [s.key, s.title]),
        analysed[name].securityIssueStats.map((s) => [s.key, s.title]),
        `${name} lists the same items either way`,
      );
      assert.ok(analysed[name].securityIssueStats.length > 0, name);
      for (const item of analysed[name].securityIssueStats) {
        assert.deepEqual(
          item.occurrence,
          { critical: 0, major: 0, minor: 0, total: 0 },
          `${name} ${item.key}`,
        );
      }
      for (const item of notYet[name].securityIssueStats) {
        assert.deepEqual(
          item.occurrence,
          { critical: null, major: null, minor: null, total: null },
          `${name} ${item.key}`,
        );
      }
    }
    const older = await query<{ account: { report: { complianceIssueStats: Stat[] } } }>(
      `query($login: String!) { account(login: $login, vcsProvider: GITHUB) { report(key: OWASP_TOP_10) {
        ... on ComplianceReport { complianceIssueStats { key title occurrence { critical major minor total } } } } } }`,
      { login: unknown.login },
    );
    assert.deepEqual(older.account.report.complianceIssueStats, notYet.owaspTop10.securityIssueStats);
  });

  test("values give each day the counts of the latest runs created by the end of that day", async () => {
    const { owaspTop10 } = await accountReports<{
      owaspTop10: { values: Array<{ date: string; values: Array<{ key: string; value: number }> }> };
    }>(
      team,
      "owaspTop10 { values(startDate: $start, endDate: $end) { date values { key value } } }",
      { start: daysAgo(12), end: daysAgo(0) },
      ", $start: Date!, $end: Date!",
    );
    assert.equal(owaspTop10.values.length, 13);
    const series = (key: string) =>
      owaspTop10.values.map((day) => day.values.find((v) => v.key === key)!.value);
    assert.deepEqual(series("A03"), [2, 2, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 5]);
    assert.deepEqual(series("A10"), [0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]);
    assert.deepEqual(
      owaspTop10.values.map((day) => day.date),
      Array.from({ length: 13 }, (_, i) => daysAgo(12 - i)),
    );
  });

  test("days before the first analysed run in scope have no values, and trends from then have no value", async () => {
    const account = await anAccount(server.db, {}, [{ user: alice }]);
    const repository = await aRepository(server.db, account);
    const now = Date.now();
    // Runs that analysed nothing do not make the history known.
    await aRunWithFindings(server.db, repository, analyzer, [], {
      status: "TIMEOUT",
      createdAt: new Date(now - 5 * DAY),
    });
    await aRunWithFindings(server.db, repository, analyzer, [{ issue: issues.sql, count: 2 }], {
      createdAt: new Date(now - 2 * DAY),
    });
    const { owaspTop10, codeHealthTrend } = await accountReports<{
      owaspTop10: {
        currentValue: number | null;
        values: Array<{ date: string; values: Array<{ key: string; value: number }> }>;
        trends: Array<{ label: string; value: number | null; changePercentage: number | null }>;
      };
      codeHealthTrend: { values: Array<{ date: string; values: Array<{ key: string; value: number }> }> };
    }>(
      account,
      `owaspTop10 { currentValue values(startDate: $start, endDate: $end) { date values { key value } }
        trends { label value changePercentage } }
       codeHealthTrend { values(startDate: $start, endDate: $end) { date values { key value } } }`,
      { start: daysAgo(6), end: daysAgo(0) },
      ", $start: Date!, $end: Date!",
    );
    assert.equal(owaspTop10.currentValue, 2);
    assert.deepEqual(
      owaspTop10.values.map((day) => day.date),
      Array.from({ length: 7 }, (_, i) => daysAgo(6 - i)),
      "every day of the range is listed",
    );
    const a03 = owaspTop10.values.map((day) => day.values.find((v) => v.key === "A03")?.value ?? null);
    assert.deepEqual(a03, [null, null, null, null, 2, 2, 2]);
    assert.deepEqual(owaspTop10.values[0]!.values, []);
    assert.deepEqual(codeHealthTrend.values[3]!.values, []);
    assert.equal(owaspTop10.trends.length, 4);
    for (const trend of owaspTop10.trends) {
      assert.deepEqual([trend.value, trend.changePercentage], [null, null], trend.label);
    }
  });

  test("values refuse a reversed range, one longer than 366 days, and a day the calendar does not have", async () => {
    for (const [start, end] of [
      [daysAgo(1), daysAgo(2)],
      [daysAgo(366), daysAgo(0)],
      // Date would roll these over to 1 and 2 March.
      ["2024-02-01", "2024-02-31"],
      ["2023-02-29", "2023-03-01"],
      ["2024-13-01", "2024-12-31"],
    ]) {
      const res = await gql(
        server.endpoint,
        token,
        `query($login: String!, $start: Date!, $end: Date!) { account(login: $login, vcsProvider: GITHUB) {
          reports { sansTop25 { values(startDate: $start, endDate: $end) { date } } } } }`,
        { login: team.login, start, end },
      );
      assert.equal(res.body.errors?.[0]?.extensions?.code, "BAD_USER_INPUT", `${start}..${end}`);
    }
  });

  test("trends compare the current value with 1, 3, 6 and 12 months ago", async () => {
    const { owaspTop10 } = await accountReports<{
      owaspTop10: {
        trends: Array<{
          label: string;
          value: number | null;
          changePercentage: number | null;
          rate: number | null;
        }>;
      };
    }>(team, "owaspTop10 { trends { label value changePercentage rate } }");
    // The account's first run is 40 days old: before it, nothing was known.
    assert.deepEqual(owaspTop10.trends, [
      { label: "1 month ago", value: 2, changePercentage: 250, rate: 250 },
      { label: "3 months ago", value: null, changePercentage: null, rate: null },
      { label: "6 months ago", value: null, changePercentage: null, rate: null },
      { label: "12 months ago", value: null, changePercentage: null, rate: null },
    ]);
  });

  test("an account's reports take the same number of statements for 2 repositories as for 8", async () => {
    async function statementsFor(repositories: number): Promise<string[]> {
      const account = await anAccount(server.db, {}, [{ user: alice }]);
      for (let i = 0; i < repositories; i++) {
        const repository = await aRepository(server.db, account);
        await aRunWithFindings(server.db, repository, analyzer, [{ issue: issues.sql, count: i + 1 }]);
      }
      await settle(server.statements);
      const start = server.statements.length;
      const reports = await accountReports<{ owaspTop10: ComplianceAnswer; misraC: ComplianceAnswer }>(
        account,
        `owaspTop10 { ${COMPLIANCE} trends { value } } sansTop25 { ${COMPLIANCE} } misraC { ${COMPLIANCE} }`,
      );
      assert.equal(reports.owaspTop10.currentValue, (repositories * (repositories + 1)) / 2);
      await settle(server.statements);
      return server.statements.slice(start);
    }
    const eight = await statementsFor(8);
    assertPageSizeIndependent(await statementsFor(2), eight, ["2 repositories", "8 repositories"]);
  });

  describe("an analyzer without an answer in the newest run", () => {
    const SNAPSHOT = `owaspTop10 { currentValue values(startDate: $start, endDate: $end) { date values { key value } } }
      issueDistribution { currentValue issueDistributionByAnalyzer { key value } }
      codeHealthTrend { currentValue }`;

    interface Snapshot {
      owaspTop10: {
        currentValue: number;
        values: Array<{ date: string; values: Array<{ key: string; value: number }> }>;
      };
      issueDistribution: {
        currentValue: number;
        issueDistributionByAnalyzer: Array<{ key: string; value: number }>;
      };
      codeHealthTrend: { currentValue: number };
    }

    /**
     * A repository of `account` whose run three days ago found 2 SQL injections with `analyzer`
     * and 1 style finding with `other`, and whose newest run, a day ago, has other's style finding
     * again while `analyzer`'s report `how`: failed to process, placed nothing (NEUTRAL), or was
     * not sent.
     */
    async function aRepositoryWithoutAnswer(
      account: AccountRow,
      other: AnalyzerRow,
      otherStyle: IssueRow,
      how: "FAILED" | "NEUTRAL" | "ABSENT",
    ): Promise<RepositoryRow> {
      const { db } = server;
      const repository = await aRepository(db, account);
      const now = Date.now();
      const before = await aRunWithFindings(db, repository, analyzer, [{ issue: issues.sql, count: 2 }], {
        createdAt: new Date(now - 3 * DAY),
      });
      await aCheckWithFindings(db, before, other, [{ issue: otherStyle, count: 1 }]);
      const newest = await aRun(db, repository, {
        status: how === "FAILED" ? "FAILURE" : "SUCCESS",
        createdAt: new Date(now - DAY),
      });
      await aCheckWithFindings(db, newest, other, [{ issue: otherStyle, count: 1 }]);
      if (how !== "ABSENT") {
        const check = await aCheckWithFindings(db, newest, analyzer, [], {
          status: how === "FAILED" ? "FAILURE" : "NEUTRAL",
        });
        await anArtifact(db, newest, check, { status: how === "FAILED" ? "FAILED" : "PROCESSED" });
      }
      return repository;
    }

    for (const how of ["FAILED", "NEUTRAL", "ABSENT"] as const) {
      test(`a repository's snapshot keeps the findings of an analyzer whose newest report ${how === "FAILED" ? "failed to process" : how === "NEUTRAL" ? "placed nothing" : "was not sent"}, on every day since`, async () => {
        const account = await anAccount(server.db, {}, [{ user: alice }]);
        const other = await anAnalyzer(server.db, { shortcode: `zz-${newRowKey()}` });
        const [otherStyle] = await issuesIn(server.db, [
          { analyzer: other, category: "STYLE", severity: "MINOR" },
        ]);
        const repository = await aRepositoryWithoutAnswer(account, other, otherStyle!, how);
        const data = await query<{ repository: { reports: Snapshot } }>(
          `query($name: String!, $login: String!, $start: Date!, $end: Date!) {
            repository(name: $name, login: $login, vcsProvider: GITHUB) { reports { ${SNAPSHOT} } } }`,
          { name: repository.name, login: account.login, start: daysAgo(3), end: daysAgo(0) },
        );
        const reports = data.repository.reports;
        assert.equal(reports.owaspTop10.currentValue, 2);
        assert.deepEqual(
          reports.owaspTop10.values.map((day) => day.values.find((v) => v.key === "A03")!.value),
          [2, 2, 2, 2],
        );
        assert.equal(reports.issueDistribution.currentValue, 3);
        assert.deepEqual(reports.issueDistribution.issueDistributionByAnalyzer, [
          { key: analyzer.shortcode, value: 2 },
          { key: other.shortcode, value: 1 },
        ]);
        assert.equal(reports.codeHealthTrend.currentValue, 3);
      });
    }

    test("an account's snapshot sums each repository's analyzers at their newest answers", async () => {
      const account = await anAccount(server.db, {}, [{ user: alice }]);
      const other = await anAnalyzer(server.db, { shortcode: `zz-${newRowKey()}` });
      const [otherStyle] = await issuesIn(server.db, [
        { analyzer: other, category: "STYLE", severity: "MINOR" },
      ]);
      for (const how of ["FAILED", "NEUTRAL", "ABSENT"] as const) {
        await aRepositoryWithoutAnswer(account, other, otherStyle!, how);
      }
      const reports = await accountReports<Snapshot>(
        account,
        SNAPSHOT,
        { start: daysAgo(1), end: daysAgo(0) },
        ", $start: Date!, $end: Date!",
      );
      assert.equal(reports.owaspTop10.currentValue, 6);
      assert.deepEqual(
        reports.owaspTop10.values.map((day) => day.values.find((v) => v.key === "A03")!.value),
        [6, 6],
      );
      assert.equal(reports.issueDistribution.currentValue, 9);
      assert.equal(reports.codeHealthTrend.currentValue, 9);
    });
  });

  describe("report cards", () => {
    const CARD = `reportCard { id status
      security { grade score issuesCount } reliability { grade score issuesCount }
      complexity { grade score issuesCount } hygiene { grade score issuesCount }
      coverage { grade score lineCoverage branchCoverage } aggregate { grade score }
      focusArea { dimension action } }`;

    async function cardOf(runUid: string) {
      const data = await query<{ run: { reportCard: Record<string, unknown> } }>(
        `query($uid: UUID!) { run(runUid: $uid) { ${CARD} } }`,
        { uid: runUid },
      );
      return data.run.reportCard;
    }

    test("grades each dimension from its open findings, caps the aggregate on a critical security finding, and reads coverage", async () => {
      const { db } = server;
      const repository = await aRepository(db, team);
      const [critical, bug, style] = await issuesIn(db, [
        { analyzer, category: "SECURITY", severity: "CRITICAL" },
        { analyzer, category: "BUG_RISK", severity: "MAJOR" },
        { analyzer, category: "DOCUMENTATION", severity: "MINOR" },
      ]);
      const run = await aRunWithFindings(db, repository, analyzer, [
        { issue: critical!, count: 1 },
        { issue: critical!, count: 3, state: "RESOLVED" },
        { issue: bug!, count: 2 },
        { issue: style!, count: 5 },
      ]);
      const coverageCheck = await aCheck(db, run, await anAnalyzer(db, { shortcode: `cov-${newRowKey()}` }));
      await aMetricValue(db, await aMetricItem(db, repository, "LCV"), {
        value: 82.5,
        checkId: coverageCheck.id,
      });
      await aMetricValue(db, await aMetricItem(db, repository, "BCV"), {
        value: 61,
        checkId: coverageCheck.id,
      });
      assert.deepEqual(await cardOf(run.run_uid), {
        id: encodeGlobalId("RunReport", run.key),
        status: "READY",
        security: { grade: "B", score: 76, issuesCount: 1 },
        reliability: { grade: "B", score: 85, issuesCount: 2 },
        complexity: { grade: "A", score: 100, issuesCount: 0 },
        hygiene: { grade: "B", score: 87, issuesCount: 5 },
        coverage: { grade: "C", score: 72, lineCoverage: 82.5, branchCoverage: 61 },
        aggregate: { grade: "C", score: 74 },
        focusArea: {
          dimension: "SECURITY",
          action: "Fix the open security findings and remove any secrets from the code, critical ones first.",
        },
      });
    });

    test("counts each finding at its own severity, else its issue's", async () => {
      const { db } = server;
      const repository = await aRepository(db, team);
      const [injection] = await issuesIn(db, [
        { analyzer, category: "SECURITY", severity: "MINOR", tags: ["security", "cwe-89"] },
      ]);
      // The catalog rates the rule MINOR; this repository's report graded one finding CRITICAL.
      const run = await aRunWithFindings(db, repository, analyzer, [
        { issue: injection!, count: 1, severity: "CRITICAL" },
        { issue: injection!, count: 1 },
      ]);
      const card = await cardOf(run.run_uid);
      assert.deepEqual(card.security, { grade: "C", score: 74, issuesCount: 2 }, "10 + 1 points");
      const { sansTop25 } = await repositoryReports<{ sansTop25: ComplianceAnswer }>(
        repository,
        team,
        `sansTop25 { ${COMPLIANCE} }`,
      );
      assert.deepEqual(stat(sansTop25, "CWE-89").occurrence, { critical: 1, major: 0, minor: 1, total: 2 });
    });

    test("a run without findings or coverage scores 100 with null coverage, and a pending run has no grades", async () => {
      const repository = await aRepository(server.db, team);
      const clean = await aRun(server.db, repository);
      const card = await cardOf(clean.run_uid);
      assert.deepEqual(card.aggregate, { grade: "A", score: 100 });
      assert.deepEqual(card.coverage, { grade: null, score: null, lineCoverage: null, branchCoverage: null });
      assert.equal(card.focusArea, null);
      const pending = await aRun(server.db, repository, { status: "PENDING" });
      const pendingCard = await cardOf(pending.run_uid);
      assert.equal(pendingCard.status, "PENDING");
      assert.equal(pendingCard.security, null);
      assert.equal(pendingCard.aggregate, null);
    });

    test("a run that timed out, was cancelled or was skipped has no report card, whatever its checks hold", async () => {
      const { db } = server;
      const repository = await aRepository(db, team);
      const [bug] = await issuesIn(db, [{ analyzer, category: "BUG_RISK", severity: "CRITICAL" }]);
      const nodeQuery = "query($id: ID!) { node(id: $id) { id ... on RunReport { status } } }";
      for (const status of ["TIMEOUT", "CANCEL", "SKIPPED"] as const) {
        // A run whose checks found nothing, and one where an analyzer reported before the run
        // ended: neither says how the code is.
        const empty = await aRun(db, repository, { status });
        const partial = await aRunWithFindings(db, repository, analyzer, [{ issue: bug!, count: 1 }], {
          status,
        });
        for (const run of [empty, partial]) {
          assert.equal(await cardOf(run.run_uid), null, status);
          const id = encodeGlobalId("RunReport", run.key);
          const res = await gql(server.endpoint, token, nodeQuery, { id });
          assert.equal(res.body.errors?.[0]?.extensions?.code, "NOT_FOUND", status);
        }
      }
      const ready = await aRunWithFindings(db, repository, analyzer, [{ issue: bug!, count: 1 }], {
        status: "READY",
      });
      const readyCard = await cardOf(ready.run_uid);
      assert.equal(readyCard.status, "PENDING", "results not yet published are not graded yet");
      assert.equal(readyCard.reliability, null);
      assert.equal(readyCard.aggregate, null);
    });

    test("a report card resolves through node for a member and answers another account's like a missing id", async () => {
      const mine = await aRun(server.db, await aRepository(server.db, team));
      const theirs = await aRun(server.db, await aRepository(server.db, hidden));
      const nodeQuery =
        "query($id: ID!) { node(id: $id) { id ... on RunReport { status aggregate { grade } } } }";
      const ok = await query<{ node: { id: string; status: string } }>(nodeQuery, {
        id: encodeGlobalId("RunReport", mine.key),
      });
      assert.equal(ok.node.status, "READY");
      const answers = [];
      for (const key of [theirs.key, newRowKey()]) {
        const id = encodeGlobalId("RunReport", key);
        const res = await gql(server.endpoint, token, nodeQuery, { id });
        assert.equal(res.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
        answers.push(res.body.errors?.[0]?.message.replace(id, "<id>"));
      }
      assert.equal(answers[0], answers[1]);
    });
  });
});
