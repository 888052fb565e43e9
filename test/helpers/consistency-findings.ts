import assert from "node:assert/strict";
import {
  everyNode,
  inRepository,
  labelOf,
  type Query,
  type RepositoryRef,
  sum,
  tally,
} from "./consistency-reads.ts";
import { assertPagesBothWays, type Connection, PAGE_INFO, type PageArgs } from "./paging.ts";

/**
 * Fields that answer one question from different angles must agree (docs/read-model.md,
 * docs/reports.md): for every repository, the open occurrences its issues count,
 * `issueOccurrences`, and the reports; a run's summary and its checks'; a pull request's summary
 * and its latest run's; a metric item's latest value and its history; an account's reports and
 * its repositories'; and every connection's `totalCount` and the edges paged through it. Shared by
 * the demo's test (consistency.test.ts) and the real uploads' (consistency-uploads.test.ts). Each
 * check answers how many things it compared, so that a caller can require something to compare.
 */

interface IssueRow {
  id: string;
  issue: { category: string; tags: string[]; analyzer: { shortcode: string } };
  occurrences: { totalCount: number };
}

interface SeverityCounts {
  critical: number | null;
  major: number | null;
  minor: number | null;
  total: number | null;
}

interface SummaryCounts {
  occurrencesIntroduced: number;
  occurrencesResolved: number;
  occurrencesSuppressed: number;
}

const ISSUE_ROW = "id issue { category tags analyzer { shortcode } } occurrences(first: 1) { totalCount }";

/** The checks of findings, reports and connections over `repositories`, read through `query`. */
export function findingInvariants(query: Query, repositories: readonly RepositoryRef[]) {
  /** The open occurrences of the issues, `issueOccurrences`, and the issue reports; answers the occurrences counted. */
  async function openOccurrencesAgree(): Promise<number> {
    let open = 0;
    for (const repository of repositories) {
      const label = labelOf(repository);
      const issues = await everyNode<IssueRow>(query, repository, "issues", ISSUE_ROW);
      const { repository: answer } = await query<{
        repository: {
          issueOccurrences: { totalCount: number };
          reports: {
            issueDistribution: {
              currentValue: number | null;
              issueDistributionByCategory: Array<{ key: string; value: number }>;
              issueDistributionByAnalyzer: Array<{ key: string; value: number }>;
            };
            codeHealthTrend: { currentValue: number | null };
          };
        };
      }>(
        inRepository(
          repository,
          `issueOccurrences(first: 1) { totalCount }
           reports {
             issueDistribution { currentValue issueDistributionByCategory { key value } issueDistributionByAnalyzer { key value } }
             codeHealthTrend { currentValue }
           }`,
        ),
      );
      const counted = sum(issues.map((issue) => issue.occurrences.totalCount));
      const { issueDistribution, codeHealthTrend } = answer.reports;
      assert.equal(answer.issueOccurrences.totalCount, counted, `${label}: issueOccurrences`);
      assert.equal(issueDistribution.currentValue ?? 0, counted, `${label}: issue distribution`);
      assert.equal(codeHealthTrend.currentValue ?? 0, counted, `${label}: code health trend`);
      assert.deepEqual(
        tally(issueDistribution.issueDistributionByCategory.map(({ key, value }) => [key, value])),
        tally(issues.map((issue) => [issue.issue.category, issue.occurrences.totalCount])),
        `${label}: by category`,
      );
      assert.deepEqual(
        tally(issueDistribution.issueDistributionByAnalyzer.map(({ key, value }) => [key, value])),
        tally(issues.map((issue) => [issue.issue.analyzer.shortcode, issue.occurrences.totalCount])),
        `${label}: by analyzer`,
      );
      open += counted;
    }
    return open;
  }

  /** The compliance reports against the open occurrences of the issues their standards tag; answers those counted. */
  async function complianceAgrees(): Promise<number> {
    // Which items of a standard an issue's tags place it in (docs/reports.md "Compliance reports").
    const standards = [
      {
        report: "owaspTop10",
        any: /^owasp-top-10-2021-a\d\d$/,
        inItem: (key: string, tag: string) => tag === `owasp-top-10-2021-${key.toLowerCase()}`,
      },
      {
        report: "sansTop25",
        any: /^sans-top-25-2023$/,
        inItem: (key: string, tag: string) => tag === key.toLowerCase(),
      },
      {
        report: "misraC",
        any: /^misra-c-2012-rule-/,
        inItem: (key: string, tag: string) => tag.startsWith(`misra-c-2012-rule-${key}.`),
      },
    ] as const;
    let tagged = 0;
    for (const repository of repositories) {
      const label = labelOf(repository);
      const issues = await everyNode<IssueRow>(query, repository, "issues", ISSUE_ROW);
      const stats =
        "currentValue status securityIssueStats { key occurrence { critical major minor total } }";
      const { repository: answer } = await query<{
        repository: {
          reports: Record<
            string,
            {
              currentValue: number | null;
              status: string;
              securityIssueStats: Array<{ key: string; occurrence: SeverityCounts }>;
            }
          >;
        };
      }>(
        inRepository(
          repository,
          `reports { owaspTop10 { ${stats} } sansTop25 { ${stats} } misraC { ${stats} } }`,
        ),
      );
      const openOf = (keep: (tags: readonly string[]) => boolean) =>
        sum(issues.filter((issue) => keep(issue.issue.tags)).map((issue) => issue.occurrences.totalCount));
      for (const standard of standards) {
        const report = answer.reports[standard.report];
        assert.ok(report, `${label}: ${standard.report} is answered`);
        const counted = openOf((tags) => tags.some((tag) => standard.any.test(tag)));
        assert.equal(report.currentValue ?? 0, counted, `${label}: ${standard.report} current value`);
        assert.equal(
          report.status,
          report.currentValue === null ? "NOOP" : counted === 0 ? "PASSING" : "FAILING",
        );
        for (const { key, occurrence } of report.securityIssueStats) {
          if (occurrence.total === null) continue;
          assert.equal(
            occurrence.total,
            (occurrence.critical ?? 0) + (occurrence.major ?? 0) + (occurrence.minor ?? 0),
            `${label}: ${standard.report} ${key} adds up`,
          );
          const inItem = openOf((tags) => tags.some((tag) => standard.inItem(key, tag)));
          assert.equal(occurrence.total, inItem, `${label}: ${standard.report} ${key}`);
        }
        tagged += counted;
      }
    }
    return tagged;
  }

  /** Each run's summary against its checks', and each distribution against what it introduced; answers the occurrences introduced. */
  async function runSummariesAddUp(runs = 5): Promise<number> {
    let introduced = 0;
    for (const repository of repositories) {
      const { repository: answer } = await query<{
        repository: { analysisRuns: { edges: Array<{ node: RunSummaries }> } };
      }>(
        inRepository(
          repository,
          `analysisRuns(first: ${runs}) { edges { node { runUid
            summary { ${SUMMARY} occurrenceDistributionByAnalyzer { analyzerShortcode introduced }
              occurrenceDistributionByCategory { category introduced } occurrenceDistributionBySeverity { severity introduced } }
            checks(first: 100) { edges { node { analyzer { shortcode }
              summary { ${SUMMARY} occurrenceDistributionByCategory { category introduced } occurrenceDistributionBySeverity { severity introduced } }
              issues(first: 1) { totalCount } suppressed: issues(first: 1, isSuppressed: true) { totalCount }
              occurrences(first: 1) { totalCount } } } } } } }`,
        ),
      );
      for (const { node: run } of answer.analysisRuns.edges) {
        const label = `run ${run.runUid}`;
        const checks = run.checks.edges.map((edge) => edge.node);
        for (const field of [
          "occurrencesIntroduced",
          "occurrencesResolved",
          "occurrencesSuppressed",
        ] as const) {
          assert.equal(
            run.summary[field],
            sum(checks.map((check) => check.summary[field])),
            `${label}: ${field}`,
          );
        }
        const { summary } = run;
        assert.deepEqual(
          tally(
            summary.occurrenceDistributionByAnalyzer.map((entry) => [
              entry.analyzerShortcode,
              entry.introduced,
            ]),
          ),
          tally(checks.map((check) => [check.analyzer.shortcode, check.summary.occurrencesIntroduced])),
          `${label}: by analyzer`,
        );
        for (const owner of [summary, ...checks.map((check) => check.summary)]) {
          assert.equal(
            sum(owner.occurrenceDistributionByCategory.map((e) => e.introduced)),
            owner.occurrencesIntroduced,
          );
          assert.equal(
            sum(owner.occurrenceDistributionBySeverity.map((e) => e.introduced)),
            owner.occurrencesIntroduced,
          );
        }
        for (const check of checks) {
          // The deprecated list leaves silenced findings out as `issues` does by default.
          assert.equal(
            check.occurrences.totalCount,
            check.issues.totalCount,
            `${label} ${check.analyzer.shortcode}`,
          );
          assert.equal(
            check.suppressed.totalCount,
            check.summary.occurrencesSuppressed,
            `${label} ${check.analyzer.shortcode}: suppressed`,
          );
        }
        introduced += summary.occurrencesIntroduced;
      }
    }
    return introduced;
  }

  /** Each pull request's summary and findings against its latest run's; answers the pull requests compared. */
  async function pullRequestsAreTheirLatestRuns(): Promise<number> {
    let compared = 0;
    for (const repository of repositories) {
      const { repository: answer } = await query<{
        repository: { pullRequests: { edges: Array<{ node: PullRequestRow }> } };
      }>(
        inRepository(
          repository,
          `pullRequests(first: 100) { edges { node { number
            summary { issuesRaised issuesResolved issuesSuppressed vulnerabilitiesRaised }
            issues(first: 1) { totalCount } vulnerabilityOccurrences(first: 1) { totalCount }
            latestAnalysisRun { summary { ${SUMMARY} vulnerabilitiesIntroduced }
              checks(first: 100) { edges { node { issues(first: 1) { totalCount } } } }
              scaChecks(first: 100) { edges { node { vulnerabilityOccurrences(first: 1) { totalCount } } } } } } } }`,
        ),
      );
      for (const { node: pullRequest } of answer.pullRequests.edges) {
        const run = pullRequest.latestAnalysisRun;
        if (!run) {
          assert.equal(pullRequest.summary, null);
          continue;
        }
        const label = `${repository.name} #${pullRequest.number}`;
        assert.deepEqual(
          pullRequest.summary,
          {
            issuesRaised: run.summary.occurrencesIntroduced,
            issuesResolved: run.summary.occurrencesResolved,
            issuesSuppressed: run.summary.occurrencesSuppressed,
            vulnerabilitiesRaised: run.summary.vulnerabilitiesIntroduced,
          },
          label,
        );
        assert.equal(
          pullRequest.issues.totalCount,
          sum(run.checks.edges.map((e) => e.node.issues.totalCount)),
          label,
        );
        assert.equal(
          pullRequest.vulnerabilityOccurrences.totalCount,
          sum(run.scaChecks.edges.map((e) => e.node.vulnerabilityOccurrences.totalCount)),
          label,
        );
        compared++;
      }
    }
    return compared;
  }

  /** Each repository's latest commit against its newest analysed default-branch run; answers the repositories that have one. */
  async function latestCommitIsNewestAnalysedRun(): Promise<number> {
    let compared = 0;
    for (const repository of repositories) {
      const { repository: answer } = await query<{
        repository: {
          defaultBranch: string;
          latestCommitOid: string | null;
          analysisRuns: { edges: Array<{ node: { commitOid: string; status: string; branchName: string } }> };
        };
      }>(
        inRepository(
          repository,
          "defaultBranch latestCommitOid analysisRuns(first: 500) { edges { node { commitOid status branchName } } }",
        ),
      );
      const newest = answer.analysisRuns.edges.find(
        ({ node }) =>
          node.branchName === answer.defaultBranch && ["SUCCESS", "FAILURE"].includes(node.status),
      );
      assert.equal(answer.latestCommitOid, newest?.node.commitOid ?? null, repository.name);
      if (newest) compared++;
    }
    return compared;
  }

  /** Each metric item's latest value against the newest of its values; answers the items with a value. */
  async function latestMetricValuesAreNewest(): Promise<number> {
    let compared = 0;
    for (const repository of repositories) {
      const { repository: answer } = await query<{
        repository: {
          metrics: Array<{
            shortcode: string;
            items: Array<{
              key: string;
              latestValue: number | null;
              values: { edges: Array<{ node: { value: number } }> };
            }>;
          }>;
        };
      }>(
        inRepository(
          repository,
          "metrics { shortcode items { key latestValue values(first: 1) { edges { node { value } } } } }",
        ),
      );
      for (const metric of answer.metrics) {
        for (const item of metric.items) {
          assert.equal(
            item.latestValue,
            item.values.edges[0]?.node.value ?? null,
            `${repository.name} ${metric.shortcode} ${item.key}`,
          );
          if (item.latestValue !== null) compared++;
        }
      }
    }
    return compared;
  }

  /** The viewer's accounts' reports against the sums of their repositories'; answers the repository values added. */
  async function accountReportsAreSums(): Promise<number> {
    const reports = `issueDistribution { currentValue } codeHealthTrend { currentValue } issuesPrevented { currentValue }
      owaspTop10 { currentValue securityIssueStats { key occurrence { total } } } sansTop25 { currentValue } misraC { currentValue }`;
    const { viewer } = await query<{
      viewer: {
        accounts: {
          edges: Array<{
            node: AccountReports & { repositories: { edges: Array<{ node: AccountReports }> } };
          }>;
        };
      };
    }>(`{ viewer { accounts(first: 100) { edges { node { reports { ${reports} }
        repositories(first: 100) { edges { node { reports { ${reports} } } } } } } } } }`);
    let compared = 0;
    for (const { node: account } of viewer.accounts.edges) {
      const parts = account.repositories.edges.map((edge) => edge.node.reports);
      for (const key of [
        "issueDistribution",
        "codeHealthTrend",
        "issuesPrevented",
        "owaspTop10",
        "sansTop25",
        "misraC",
      ] as const) {
        const known = parts
          .map((part) => part[key].currentValue)
          .filter((value): value is number => value !== null);
        assert.equal(account.reports[key].currentValue, known.length > 0 ? sum(known) : null, key);
        compared += known.length;
      }
      for (const { key, occurrence } of account.reports.owaspTop10.securityIssueStats) {
        const of = parts.map(
          (part) =>
            part.owaspTop10.securityIssueStats.find((stat) => stat.key === key)?.occurrence.total ?? 0,
        );
        assert.equal(occurrence.total ?? 0, sum(of), `OWASP ${key}`);
      }
    }
    return compared;
  }

  /** Every connection of each repository: totalCount edges, paged forwards and backwards; answers the rows seen. */
  async function connectionsPageBothWays(): Promise<number> {
    const fields = [
      "issues",
      "issueOccurrences",
      "analysisRuns",
      "pullRequests",
      "dependencyVulnerabilityOccurrences",
      "targets",
      "enabledAnalyzers",
      "ignoreRules",
    ];
    let rows = 0;
    for (const repository of repositories) {
      for (const field of fields) {
        const load = async (args: PageArgs): Promise<Connection<{ id: string }>> => {
          const list = Object.entries(args)
            .filter(([, value]) => value !== undefined && value !== null)
            .map(([name, value]) => `${name}: ${JSON.stringify(value)}`)
            .join(", ");
          const answer = await query<{ repository: Record<string, Connection<{ id: string }>> }>(
            inRepository(repository, `${field}(${list}) { ${PAGE_INFO} edges { cursor node { id } } }`),
          );
          return answer.repository[field] as Connection<{ id: string }>;
        };
        const all = await everyNode<{ id: string }>(query, repository, field, "id");
        const { totalCount } = await load({ first: 1 });
        assert.equal(totalCount, all.length, `${repository.name} ${field}`);
        const size = Math.max(2, Math.ceil(all.length / 4));
        await assertPagesBothWays(
          load,
          size,
          all.map((node) => node.id),
        );
        rows += all.length;
      }
    }
    return rows;
  }

  return {
    openOccurrencesAgree,
    complianceAgrees,
    runSummariesAddUp,
    pullRequestsAreTheirLatestRuns,
    latestCommitIsNewestAnalysedRun,
    latestMetricValuesAreNewest,
    accountReportsAreSums,
    connectionsPageBothWays,
  };
}

const SUMMARY = "occurrencesIntroduced occurrencesResolved occurrencesSuppressed";

interface RunSummaries {
  runUid: string;
  summary: SummaryCounts & {
    occurrenceDistributionByAnalyzer: Array<{ analyzerShortcode: string; introduced: number }>;
    occurrenceDistributionByCategory: Array<{ category: string; introduced: number }>;
    occurrenceDistributionBySeverity: Array<{ severity: string; introduced: number }>;
  };
  checks: {
    edges: Array<{
      node: {
        analyzer: { shortcode: string };
        summary: SummaryCounts & {
          occurrenceDistributionByCategory: Array<{ category: string; introduced: number }>;
          occurrenceDistributionBySeverity: Array<{ severity: string; introduced: number }>;
        };
        issues: { totalCount: number };
        suppressed: { totalCount: number };
        occurrences: { totalCount: number };
      };
    }>;
  };
}

interface PullRequestRow {
  number: number;
  summary: {
    issuesRaised: number;
    issuesResolved: number;
    issuesSuppressed: number;
    vulnerabilitiesRaised: number;
  } | null;
  issues: { totalCount: number };
  vulnerabilityOccurrences: { totalCount: number };
  latestAnalysisRun: {
    summary: SummaryCounts & { vulnerabilitiesIntroduced: number };
    checks: { edges: Array<{ node: { issues: { totalCount: number } } }> };
    scaChecks: { edges: Array<{ node: { vulnerabilityOccurrences: { totalCount: number } } }> };
  } | null;
}

interface AccountReports {
  reports: Record<
    "issueDistribution" | "codeHealthTrend" | "issuesPrevented" | "sansTop25" | "misraC",
    { currentValue: number | null }
  > & {
    owaspTop10: {
      currentValue: number | null;
      securityIssueStats: Array<{ key: string; occurrence: { total: number | null } }>;
    };
  };
}
