import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ingestRunSbom } from "../src/ingestion/sca/sbom-upload.ts";
import { seedDemo } from "../src/modules/demo/demo-seed.ts";
import { coveragePercent } from "../src/modules/metrics/metric-format.ts";
import { type CoverageFileOut, FILE_FIELDS, type FileCounts } from "./helpers/coverage-files.ts";
import { assertPagesBothWays, type Connection, PAGE_INFO, type PageArgs } from "./helpers/paging.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * Fields that answer one question from different angles must agree (docs/read-model.md,
 * docs/reports.md): on the demo data, for every repository, the open occurrences its issues count,
 * `issueOccurrences`, and the reports; a run's summary and its checks'; a pull request's summary
 * and its latest run's; a metric item's latest value and its history; an account's reports and
 * its repositories'; a coverage check's files and its totals and metric values; and every
 * connection's `totalCount` and the edges paged through it. Each
 * test also requires something to compare, so that an empty answer cannot pass.
 */

interface RepositoryRef {
  login: string;
  name: string;
  vcsProvider: string;
}

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

const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

/** Counts by key, keys with 0 left out. */
function tally(entries: ReadonlyArray<readonly [string, number]>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [key, value] of entries) counts[key] = (counts[key] ?? 0) + value;
  return Object.fromEntries(
    Object.entries(counts)
      .filter(([, value]) => value !== 0)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

describe("numbers that answer the same question agree, on the demo data", () => {
  let server: TestServer;
  let token: string;
  let repositories: RepositoryRef[];

  async function query<T = Record<string, unknown>>(text: string): Promise<T> {
    return dataOf(await gql(server.endpoint, token, text)) as T;
  }

  function inRepository(repository: RepositoryRef, selection: string): string {
    const { login, name, vcsProvider } = repository;
    return `{ repository(login: ${JSON.stringify(login)}, name: ${JSON.stringify(name)}, vcsProvider: ${vcsProvider}) { ${selection} } }`;
  }

  /** Every node of a repository's connection `field`, paged with `first`/`after`. */
  async function everyNode<N>(repository: RepositoryRef, field: string, selection: string): Promise<N[]> {
    const nodes: N[] = [];
    let after: string | null = null;
    for (;;) {
      const page: Connection<N> = (
        await query<{ repository: Record<string, Connection<N>> }>(
          inRepository(
            repository,
            `${field}(first: 100${after ? `, after: ${JSON.stringify(after)}` : ""}) { ${PAGE_INFO} edges { cursor node { ${selection} } } }`,
          ),
        )
      ).repository[field] as Connection<N>;
      nodes.push(...page.edges.map((edge) => edge.node));
      if (!page.pageInfo.hasNextPage) return nodes;
      after = page.pageInfo.endCursor;
    }
  }

  before(async () => {
    server = await startTestServer();
    ({ token } = await seedDemo(server.db, { pepper: server.config.tokenPepper, uploadSbom: ingestRunSbom }));
    const { viewer } = await query<{
      viewer: {
        accounts: {
          edges: Array<{ node: { login: string; repositories: { edges: Array<{ node: RepositoryRef }> } } }>;
        };
      };
    }>(`{ viewer { accounts(first: 100) { edges { node { login
          repositories(first: 100) { edges { node { name vcsProvider } } } } } } } }`);
    repositories = viewer.accounts.edges.flatMap(({ node: account }) =>
      account.repositories.edges.map(({ node }) => ({ ...node, login: account.login })),
    );
    assert.ok(repositories.length > 1);
  });
  after(() => server?.stop());

  test("a repository's open occurrences are one number: its issues', issueOccurrences' and the issue reports'", async () => {
    let open = 0;
    for (const repository of repositories) {
      const label = `${repository.login}/${repository.name}`;
      const issues = await everyNode<IssueRow>(
        repository,
        "issues",
        "id issue { category tags analyzer { shortcode } } occurrences(first: 1) { totalCount }",
      );
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
    assert.ok(open > 0, "the demo has open occurrences to compare");
  });

  test("the compliance reports count the open occurrences of the issues their standards tag", async () => {
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
      const label = `${repository.login}/${repository.name}`;
      const issues = await everyNode<IssueRow>(
        repository,
        "issues",
        "id issue { category tags analyzer { shortcode } } occurrences(first: 1) { totalCount }",
      );
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
        assert.ok(report);
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
    assert.ok(tagged > 0, "the demo has open occurrences in a standard's items");
  });

  test("a run's summary is the sum of its checks', and each distribution adds up to what it introduced", async () => {
    let introduced = 0;
    for (const repository of repositories) {
      const { repository: answer } = await query<{
        repository: { analysisRuns: { edges: Array<{ node: RunSummaries }> } };
      }>(
        inRepository(
          repository,
          `analysisRuns(first: 5) { edges { node { runUid
            summary { ${SUMMARY} occurrenceDistributionByAnalyzer { analyzerShortcode introduced }
              occurrenceDistributionByCategory { category introduced } occurrenceDistributionBySeverity { severity introduced } }
            checks(first: 100) { edges { node { analyzer { shortcode }
              summary { ${SUMMARY} occurrenceDistributionByCategory { category introduced } occurrenceDistributionBySeverity { severity introduced } }
              issues(first: 1) { totalCount } occurrences(first: 1) { totalCount } } } } } } }`,
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
          assert.equal(
            check.issues.totalCount,
            check.occurrences.totalCount,
            `${label} ${check.analyzer.shortcode}`,
          );
        }
        introduced += summary.occurrencesIntroduced;
      }
    }
    assert.ok(introduced > 0, "the demo's runs introduce occurrences");
  });

  test("a pull request's summary and findings are its latest run's", async () => {
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
    assert.ok(compared > 0, "the demo has pull requests with runs");
  });

  test("a repository's latest commit is its newest analysed default-branch run's", async () => {
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
    assert.ok(compared > 0, "the demo has analysed default-branch runs");
  });

  test("a metric item's latest value is the newest of its recorded values", async () => {
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
    assert.ok(compared > 0, "the demo has metric values");
  });

  /** Every file of a coverage check, paged through `Check.coverageFiles`. */
  async function filesOfCheck(checkId: string): Promise<CoverageFileOut[]> {
    const files: CoverageFileOut[] = [];
    let after: string | null = null;
    for (;;) {
      const answer: { node: { coverageFiles: Connection<CoverageFileOut> } } = await query(
        `{ node(id: ${JSON.stringify(checkId)}) { ... on Check {
          coverageFiles(first: 500${after ? `, after: ${JSON.stringify(after)}` : ""}) { ${PAGE_INFO}
            edges { cursor node { ${FILE_FIELDS} } } } } } }`,
      );
      const page = answer.node.coverageFiles;
      files.push(...page.edges.map((edge) => edge.node));
      if (!page.pageInfo.hasNextPage) return files;
      after = page.pageInfo.endCursor;
    }
  }

  test("every coverage check's files add up to its run's changeset stats and to its metric values", async () => {
    let compared = 0;
    for (const repository of repositories) {
      const runs = await everyNode<CoverageRunRow>(
        repository,
        "analysisRuns",
        `runUid changesetStats { ${["lines", "branches", "conditions"].map((m) => `${m} { overall overallCovered new newCovered }`).join(" ")} }
         checks(first: 10, analyzerIn: ["test-coverage"]) { edges { node { id status
           metrics { shortcode items { key latestValue } } } } }`,
      );
      for (const run of runs) {
        for (const { node: check } of run.checks.edges) {
          const label = `${repository.name} run ${run.runUid} (${check.status})`;
          const files = await filesOfCheck(check.id);
          const stats = run.changesetStats;
          if (stats === null) {
            assert.deepEqual(files, [], `${label}: no report, no files`);
            continue;
          }
          assert.ok(files.length > 0, `${label}: a report has files`);
          for (const measure of ["lines", "branches", "conditions"] as const) {
            const of = (pick: (c: FileCounts) => number | null) =>
              sum(files.map((file) => (file[measure] ? (pick(file[measure]) ?? 0) : 0)));
            const counts: StatsCounts = stats[measure];
            assert.deepEqual(
              [of((c) => c.total), of((c) => c.covered), of((c) => c.new), of((c) => c.newCovered)],
              [counts.overall ?? 0, counts.overallCovered ?? 0, counts.new ?? 0, counts.newCovered ?? 0],
              `${label}: ${measure}`,
            );
          }
          if (stats.conditions.overall === null) assert.ok(files.every((file) => file.conditions === null));
          for (const file of files) {
            assert.equal(file.lineCoverage, coveragePercent(file.lines.covered, file.lines.total), file.path);
            assert.equal(file.uncoveredLines.length, file.lines.total - file.lines.covered, file.path);
          }
          for (const metric of check.metrics) {
            const measure = FILE_MEASURE[metric.shortcode];
            if (!measure) continue;
            for (const item of metric.items) {
              const keyed = files.filter((file) => item.key === "AGGREGATE" || file.key === item.key);
              const [covered, total]: [keyof FileCounts, keyof FileCounts] = measure.fresh
                ? ["newCovered", "new"]
                : ["covered", "total"];
              const of = (part: keyof FileCounts): number =>
                sum(keyed.map((file) => file[measure.counts]?.[part] ?? 0));
              assert.equal(
                item.latestValue,
                coveragePercent(of(covered), of(total)),
                `${label}: ${metric.shortcode} ${item.key}`,
              );
              compared++;
            }
          }
        }
      }
      const { repository: current } = await query<{
        repository: {
          metrics: Array<{ items: Array<{ key: string; latestValue: number | null }> }>;
          coverageFiles: Connection<CoverageFileOut> | null;
        };
      }>(
        inRepository(
          repository,
          `metrics(shortcodeIn: [LCV]) { items { key latestValue } }
           coverageFiles(first: 500) { ${PAGE_INFO} edges { cursor node { ${FILE_FIELDS} } } }`,
        ),
      );
      const lcv = current.metrics[0]?.items ?? [];
      assert.equal(
        current.coverageFiles === null,
        lcv.length === 0,
        `${repository.name}: files with coverage`,
      );
      if (current.coverageFiles === null) continue;
      assert.equal(current.coverageFiles.pageInfo.hasNextPage, false);
      const files = current.coverageFiles.edges.map((edge) => edge.node);
      for (const item of lcv) {
        const keyed = files.filter((file) => item.key === "AGGREGATE" || file.key === item.key);
        const lines = (part: "covered" | "total") => sum(keyed.map((file) => file.lines[part]));
        assert.equal(item.latestValue, coveragePercent(lines("covered"), lines("total")), repository.name);
        compared++;
      }
    }
    assert.ok(compared > 0, "the demo has coverage values to add up");
  });

  test("an account's reports are the sums of its repositories'", async () => {
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
    assert.ok(compared > 0, "the demo's accounts have reports to add up");
  });

  test("every connection of a repository holds totalCount edges, paged forwards and backwards", async () => {
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
        const all = await everyNode<{ id: string }>(repository, field, "id");
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
    assert.ok(rows > 0, "the demo's connections hold rows");
  });
});

const SUMMARY = "occurrencesIntroduced occurrencesResolved occurrencesSuppressed";

type StatsCounts = Record<"overall" | "overallCovered" | "new" | "newCovered", number | null>;

interface CoverageRunRow {
  runUid: string;
  changesetStats: Record<"lines" | "branches" | "conditions", StatsCounts> | null;
  checks: {
    edges: Array<{
      node: {
        id: string;
        status: string;
        metrics: Array<{ shortcode: string; items: Array<{ key: string; latestValue: number | null }> }>;
      };
    }>;
  };
}

/**
 * The metrics a file's counts determine, and which counts. CPCV and NCPCV are left out: the demo's
 * composite adds its invented condition counts (docs/ingestion-coverage.md, "Coverage metrics").
 */
const FILE_MEASURE: Record<string, { counts: "lines" | "branches" | "conditions"; fresh: boolean }> = {
  LCV: { counts: "lines", fresh: false },
  BCV: { counts: "branches", fresh: false },
  CCV: { counts: "conditions", fresh: false },
  NLCV: { counts: "lines", fresh: true },
  NBCV: { counts: "branches", fresh: true },
  NCCV: { counts: "conditions", fresh: true },
};

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
