import assert from "node:assert/strict";
import { coveragePercent } from "../../src/modules/metrics/metric-format.ts";
import {
  ANALYSED,
  everyNode,
  inRepository,
  labelOf,
  METRICS,
  type MetricRow,
  type Query,
  type RepositoryRef,
  type RunRow,
  runsOf,
  sum,
  valuesOf,
} from "./consistency-reads.ts";
import { type CoverageFileOut, FILE_FIELDS, type FileCounts } from "./coverage-files.ts";

/**
 * Measures that must agree, on real uploads and on the demo's generated data alike (the checks of
 * findings are consistency-findings.ts and, across runs, consistency-history.ts): coverage files
 * and the metric values of their check, a coverage check's status and the gate, a repository's
 * latest values and its newest analysed run's, the coverage reports and pull requests' metrics, a
 * run's DDP and its dependency scans. Each check answers how many things it compared.
 */

/** The coverage metrics `files` add up to, by `SHORTCODE`, as the API rounds them (left out: nothing to measure). */
function coverageOf(files: readonly CoverageFileOut[]): Map<string, number | null> {
  const total = (pick: (file: CoverageFileOut) => FileCounts | null, field: keyof FileCounts) =>
    sum(files.map((file) => pick(file)?.[field] ?? 0));
  const lines = (f: CoverageFileOut) => f.lines;
  const branches = (f: CoverageFileOut) => f.branches;
  const conditions = (f: CoverageFileOut) => f.conditions;
  const hasChanges = files.some((file) => file.lines.new !== null);
  const values = new Map<string, number | null>([
    ["LCV", coveragePercent(total(lines, "covered"), total(lines, "total"))],
    ["BCV", coveragePercent(total(branches, "covered"), total(branches, "total"))],
    [
      "CPCV",
      coveragePercent(
        total(lines, "covered") + total(branches, "covered"),
        total(lines, "total") + total(branches, "total"),
      ),
    ],
  ]);
  if (files.some((file) => file.conditions !== null)) {
    values.set("CCV", coveragePercent(total(conditions, "covered"), total(conditions, "total")));
  }
  if (hasChanges) {
    if (values.has("CCV")) {
      values.set("NCCV", coveragePercent(total(conditions, "newCovered"), total(conditions, "new")));
    }
    values.set("NLCV", coveragePercent(total(lines, "newCovered"), total(lines, "new")));
    values.set("NBCV", coveragePercent(total(branches, "newCovered"), total(branches, "new")));
    values.set(
      "NCPCV",
      coveragePercent(
        total(lines, "newCovered") + total(branches, "newCovered"),
        total(lines, "new") + total(branches, "new"),
      ),
    );
  }
  return new Map([...values].filter(([, value]) => value !== null));
}

/** The checks of coverage, metrics and dependencies over `repositories`, read through `query`. */
export function measureInvariants(query: Query, repositories: readonly RepositoryRef[]) {
  /**
   * Each coverage check's files against its metric values, per language and (when no file is
   * listed under two languages) AGGREGATE, and against the run's `changesetStats`; answers the
   * checks compared.
   */
  async function coverageFilesAddUp(): Promise<number> {
    const compares = (name: string) => /^N?(LCV|BCV|CCV|CPCV) /.test(name);
    let compared = 0;
    for (const repository of repositories) {
      const runs: CoverageRunRow[] = [];
      for (const { runUid } of await everyNode<{ runUid: string }>(
        query,
        repository,
        "analysisRuns",
        "runUid",
      )) {
        const answer = await query<{ run: CoverageRunRow }>(
          `query($uid: UUID!) { run(runUid: $uid) { runUid changesetStats { lines { overall overallCovered new newCovered } }
            checks(first: 20) { edges { node { analyzer { shortcode } ${METRICS}
              coverageFiles(first: 200) { totalCount edges { node { ${FILE_FIELDS} } } } } } } } }`,
          { uid: runUid },
        );
        runs.push(answer.run);
      }
      for (const run of runs) {
        for (const { node: check } of run.checks.edges) {
          const files = check.coverageFiles.edges.map((edge) => edge.node);
          assert.equal(check.coverageFiles.totalCount, files.length);
          const recorded = valuesOf(check.metrics);
          const coverage = [...recorded].filter(([name]) => compares(name));
          if (files.length === 0) {
            assert.deepEqual(
              coverage,
              [],
              `run ${run.runUid} ${check.analyzer.shortcode}: values without files`,
            );
            continue;
          }
          const label = `run ${run.runUid} coverage`;
          for (const file of files) {
            assert.equal(
              file.lineCoverage,
              coveragePercent(file.lines.covered, file.lines.total),
              `${label} ${file.path}`,
            );
            assert.equal(
              file.branchCoverage,
              coveragePercent(file.branches.covered, file.branches.total),
              `${label} ${file.path}`,
            );
          }
          const keys = [...new Set(files.map((file) => file.key))];
          const expected = new Map<string, number | null>();
          for (const key of keys) {
            for (const [metric, value] of coverageOf(files.filter((file) => file.key === key))) {
              expected.set(`${metric} ${key}`, value);
            }
          }
          const paths = files.map((file) => file.path);
          if (new Set(paths).size === paths.length) {
            for (const [metric, value] of coverageOf(files)) expected.set(`${metric} AGGREGATE`, value);
            const lines = run.changesetStats?.lines;
            assert.deepEqual(
              lines,
              {
                overall: sum(files.map((f) => f.lines.total)),
                overallCovered: sum(files.map((f) => f.lines.covered)),
                new: files.some((f) => f.lines.new !== null) ? sum(files.map((f) => f.lines.new ?? 0)) : null,
                newCovered: files.some((f) => f.lines.new !== null)
                  ? sum(files.map((f) => f.lines.newCovered ?? 0))
                  : null,
              },
              `${label}: changesetStats`,
            );
          } else {
            for (const name of [...recorded.keys()]) if (name.endsWith(" AGGREGATE")) recorded.delete(name);
          }
          assert.deepEqual(
            new Map(coverage.filter(([name]) => recorded.has(name)).sort(([a], [b]) => a.localeCompare(b))),
            new Map([...expected].filter(([name]) => compares(name)).sort(([a], [b]) => a.localeCompare(b))),
            `${label}: the metric values are the files' sums`,
          );
          compared++;
        }
      }
    }
    return compared;
  }

  /**
   * Each repository metric item's latest value against the value the newest analysed
   * default-branch run recorded for it, and the repository's coverage files against that run's;
   * answers the items compared.
   */
  async function repositoryMetricsAreNewestRuns(): Promise<number> {
    let compared = 0;
    for (const repository of repositories) {
      const label = labelOf(repository);
      const { repository: answer } = await query<{
        repository: {
          defaultBranch: string;
          metrics: MetricRow[];
          coverageFiles: { edges: Array<{ node: CoverageFileOut }> } | null;
        };
      }>(
        inRepository(
          repository,
          `defaultBranch ${METRICS} coverageFiles(first: 500) { edges { node { ${FILE_FIELDS} } } }`,
        ),
      );
      const runs = (await runsOf(query, repository)).filter(
        (run) => run.branchName === answer.defaultBranch && ANALYSED.includes(run.status),
      );
      for (const [name, value] of valuesOf(answer.metrics)) {
        const newest = runs
          .map((run) => valuesOf(run.checks.edges.flatMap((edge) => edge.node.metrics)).get(name))
          .find((recorded) => recorded !== undefined);
        assert.equal(value, newest ?? null, `${label}: ${name}`);
        compared++;
      }
      const files = answer.coverageFiles?.edges.map((edge) => edge.node) ?? [];
      const lcv = valuesOf(answer.metrics).get("LCV AGGREGATE") ?? null;
      if (new Set(files.map((f) => f.path)).size === files.length) {
        assert.equal(lcv, coverageOf(files).get("LCV") ?? null, `${label}: the coverage files add up to LCV`);
      }
    }
    return compared;
  }

  /**
   * Each run's DDP against its dependency scans: the scans' own counts add up, and when the run
   * scanned every active target scanned so far (in it or before it) the DDP lies between the
   * largest scan and their sum, and equals the one scan's count when there is one (each package
   * in one version there); answers the runs compared.
   */
  async function dependenciesAreScans(): Promise<number> {
    let compared = 0;
    for (const repository of repositories) {
      const active = new Set(
        (
          await everyNode<{ id: string; isActivated: boolean }>(
            query,
            repository,
            "targets",
            "id isActivated",
          )
        )
          .filter((target) => target.isActivated)
          .map((target) => target.id),
      );
      const runs = (await runsOf(
        query,
        repository,
        `scaChecks(first: 100) { edges { node { target { id } dependencyCount directDependencyCount transitiveDependencyCount } } }`,
      )) as Array<RunRow & { scaChecks: { edges: Array<{ node: ScanRow }> } }>;
      const known = new Set<string>();
      for (const run of runs.reverse()) {
        const scans = run.scaChecks.edges.map((edge) => edge.node);
        for (const scan of scans) {
          assert.equal(
            (scan.directDependencyCount ?? 0) + (scan.transitiveDependencyCount ?? 0),
            scan.dependencyCount,
            `run ${run.runUid}: direct and transitive`,
          );
          if (scan.target && active.has(scan.target.id)) known.add(scan.target.id);
        }
        const ddp = valuesOf(run.checks.edges.flatMap((edge) => edge.node.metrics)).get("DDP AGGREGATE");
        const scanned = new Set(scans.map((scan) => scan.target?.id));
        if (ddp === undefined || ![...known].every((target) => scanned.has(target))) continue;
        const counts = scans.map((scan) => scan.dependencyCount ?? 0);
        const label = `run ${run.runUid}: DDP ${ddp} of scans ${counts.join(", ")}`;
        assert.ok(ddp !== null && ddp >= Math.max(...counts) && ddp <= sum(counts), label);
        if (scans.length === 1) assert.equal(ddp, counts[0], label);
        compared++;
      }
    }
    return compared;
  }

  /**
   * The account's code coverage report against each repository's latest AGGREGATE LCV and BCV,
   * and each pull request's metrics against what its latest run's checks recorded; answers the
   * repositories and pull requests compared, and how many of those pull requests had coverage values.
   */
  async function coverageReportsAreLatestValues(
    login: string,
    vcsProvider: string,
  ): Promise<{ repositories: number; pullRequests: number; withCoverage: number }> {
    const { account } = await query<{
      account: {
        reports: {
          codeCoverage: {
            repositories: {
              edges: Array<{
                node: { name: string; lcvMetricValue: number | null; bcvMetricValue: number | null };
              }>;
            };
          };
        };
      };
    }>(
      `query($login: String!, $vcs: VCSProvider!) { account(login: $login, vcsProvider: $vcs) { reports { codeCoverage {
        repositories(first: 100) { edges { node { name lcvMetricValue bcvMetricValue } } } } } } }`,
      { login, vcs: vcsProvider },
    );
    const compared = { repositories: 0, pullRequests: 0, withCoverage: 0 };
    for (const repository of repositories.filter((r) => r.login === login && r.vcsProvider === vcsProvider)) {
      const label = labelOf(repository);
      const { repository: answer } = await query<{
        repository: {
          metrics: MetricRow[];
          pullRequests: {
            edges: Array<{
              node: {
                number: number;
                metrics: MetricRow[];
                latestAnalysisRun: { checks: { edges: Array<{ node: { metrics: MetricRow[] } }> } } | null;
              };
            }>;
          };
        };
      }>(
        inRepository(
          repository,
          `${METRICS} pullRequests(first: 100) { edges { node { number ${METRICS}
            latestAnalysisRun { checks(first: 100) { edges { node { ${METRICS} } } } } } } }`,
        ),
      );
      const latest = valuesOf(answer.metrics);
      const row = account.reports.codeCoverage.repositories.edges.find(
        (edge) => edge.node.name === repository.name,
      );
      assert.deepEqual(
        row?.node,
        {
          name: repository.name,
          lcvMetricValue: latest.get("LCV AGGREGATE") ?? null,
          bcvMetricValue: latest.get("BCV AGGREGATE") ?? null,
        },
        `${label}: code coverage report`,
      );
      compared.repositories++;
      for (const { node: pullRequest } of answer.pullRequests.edges) {
        const recorded = (pullRequest.latestAnalysisRun?.checks.edges ?? []).flatMap(
          (edge) => edge.node.metrics,
        );
        assert.deepEqual(
          valuesOf(pullRequest.metrics),
          valuesOf(recorded),
          `${label} #${pullRequest.number}: metrics`,
        );
        compared.pullRequests++;
        if (recorded.some((m) => m.shortcode === "LCV" && m.items.length > 0)) compared.withCoverage++;
      }
    }
    return compared;
  }

  /**
   * Each coverage check that analysed its report against the gate (docs/ingestion-coverage.md
   * "The gate"): it failed exactly when one of its values missed the threshold in force when it
   * was recorded, of a metric the repository enforces. Answers how many checks passed and failed.
   */
  async function coverageChecksFollowTheGate(): Promise<{ passed: number; failed: number }> {
    const counts = { passed: 0, failed: 0 };
    for (const repository of repositories) {
      const runs = await everyNode<GateRunRow>(
        query,
        repository,
        "analysisRuns",
        `runUid checks(first: 20) { edges { node { analyzer { shortcode } status
          metrics { shortcode isThresholdEnforced items { key latestValue threshold thresholdStatus } } } } }`,
      );
      for (const run of runs) {
        for (const { node: check } of run.checks.edges) {
          if (check.analyzer.shortcode !== "test-coverage" || !ANALYSED.includes(check.status)) continue;
          const misses = check.metrics.flatMap((metric) =>
            metric.isThresholdEnforced
              ? metric.items
                  .filter((item) => item.thresholdStatus === "FAILING")
                  .map((item) => `${metric.shortcode} ${item.key} ${item.latestValue} < ${item.threshold}`)
              : [],
          );
          assert.equal(
            check.status,
            misses.length > 0 ? "FAILURE" : "SUCCESS",
            `${labelOf(repository)} run ${run.runUid}: coverage check ${check.status}, enforced misses: ${misses.join(", ") || "none"}`,
          );
          if (misses.length > 0) counts.failed++;
          else counts.passed++;
        }
      }
    }
    return counts;
  }

  return {
    coverageFilesAddUp,
    coverageChecksFollowTheGate,
    repositoryMetricsAreNewestRuns,
    dependenciesAreScans,
    coverageReportsAreLatestValues,
  };
}

interface CoverageRunRow {
  runUid: string;
  changesetStats: {
    lines: { overall: number; overallCovered: number; new: number | null; newCovered: number | null };
  } | null;
  checks: {
    edges: Array<{
      node: {
        analyzer: { shortcode: string };
        metrics: MetricRow[];
        coverageFiles: { totalCount: number; edges: Array<{ node: CoverageFileOut }> };
      };
    }>;
  };
}

interface GateRunRow {
  runUid: string;
  checks: {
    edges: Array<{
      node: {
        analyzer: { shortcode: string };
        status: string;
        metrics: Array<{
          shortcode: string;
          isThresholdEnforced: boolean;
          items: Array<{
            key: string;
            latestValue: number | null;
            threshold: number | null;
            thresholdStatus: string | null;
          }>;
        }>;
      };
    }>;
  };
}

interface ScanRow {
  target: { id: string } | null;
  dependencyCount: number | null;
  directDependencyCount: number | null;
  transitiveDependencyCount: number | null;
}
