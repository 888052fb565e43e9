import { FIXTURE_LOGIN } from "./plans-fixture.ts";

/**
 * The connections `npm run bench:plans` measures: every `ConnectionSource` in src/modules, through
 * the GraphQL field that reads it, with the filters that change its SQL.
 *
 * Each case names how to find its parent: SQL over the database with `$1` the viewer's user id
 * and `$2` true for a parent of the deep fixture (bench/plans-fixture.ts), false for a parent of
 * the seeded data; among the parents the viewer can see, the one with the most rows of the
 * connection. The SQL returns `type` and `key` (the parent's global id), `rows` (the
 * connection's total under it) and optionally `arg`, which the case's arguments may use.
 */

/** One connection as the benchmark requests it. */
export interface PlanCase {
  /** The GraphQL field, as `Type.field`. */
  field: string;
  /** The ConnectionSource it reads (src/modules). */
  source: string;
  /** How the parent is chosen, when not the one with the most rows. */
  note?: string;
  /** Non-paging arguments, as GraphQL text; `arg` is the parent query's `arg` column. */
  args?: (arg: string | null) => string;
  /** Whether the deep fixture has a parent with more than 10,000 rows of it. */
  deep: boolean;
  /** SQL for the parent (see the module comment). */
  parent: string;
  /**
   * The document around `connection` (the field with its arguments and selection); `$id` is the
   * parent's global id.
   */
  document: (connection: string) => string;
}

const onNode = (type: string) => (connection: string) =>
  `query($id: ID!) { node(id: $id) { ... on ${type} { ${connection} } } }`;

/** `= $2`: the parent is in the fixture account (true) or not (false). */
const inFixture = (alias: string) => `(${alias}.login = '${FIXTURE_LOGIN}') = $2`;

/** Accounts the viewer belongs to, as `acc`. */
const VISIBLE_ACCOUNTS = `accounts acc JOIN memberships vm ON vm.account_id = acc.id AND vm.user_id = $1`;

/** Repositories the viewer can see, as `repo` (account `acc`). */
const VISIBLE_REPOSITORIES = `repositories repo JOIN ${VISIBLE_ACCOUNTS} ON acc.id = repo.account_id`;

/**
 * The latest finished default-branch run of `repo`, as `lr` (as src/modules/runs/run-store.ts). Its
 * checks are the repository's current ones wherever every analyzer reports in every run, as in the
 * seeded data and the fixture (src/modules/checks/current-check-store.ts).
 */
const LATEST_RUN = `CROSS JOIN LATERAL (
  SELECT r.id FROM analysis_runs r
  WHERE r.repository_id = repo.id AND r.branch_name = repo.default_branch AND r.status IN ('SUCCESS', 'FAILURE')
  ORDER BY r.created_at DESC, r.key DESC LIMIT 1) lr`;

/** The newest run of pull request `pr`, as `lr`. */
const LATEST_PR_RUN = `CROSS JOIN LATERAL (
  SELECT r.id FROM analysis_runs r WHERE r.pull_request_id = pr.id ORDER BY r.created_at DESC, r.key DESC LIMIT 1) lr`;

const mostRows = (select: string, from: string, where = "true") =>
  `SELECT ${select}, count(*) AS rows FROM ${from} WHERE ${where} GROUP BY 1, 2 ORDER BY rows DESC, 2 LIMIT 1`;

const accountParent = (join: string) =>
  mostRows(`'Account' AS type, acc.key`, `${VISIBLE_ACCOUNTS} ${join}`, inFixture("acc"));

const repositoryParent = (join: string, where = "true") =>
  mostRows(
    `'Repository' AS type, repo.key`,
    `${VISIBLE_REPOSITORIES} ${join}`,
    `${inFixture("acc")} AND ${where}`,
  );

/** Occurrences of `lr`'s checks as `o` (non-RESOLVED). */
const RUN_FINDINGS = `JOIN checks c ON c.run_id = lr.id JOIN occurrences o ON o.check_id = c.id AND o.state <> 'RESOLVED'`;

/** Vulnerability occurrences of `lr`'s SCA checks as `vo` (non-RESOLVED). */
const RUN_VULNERABILITIES = `JOIN sca_checks sc ON sc.run_id = lr.id
  JOIN vulnerability_occurrences vo ON vo.sca_check_id = sc.id AND vo.state <> 'RESOLVED'`;

const pullRequestParent = (join: string) =>
  mostRows(
    `'PullRequest' AS type, pr.key`,
    `${VISIBLE_REPOSITORIES} JOIN pull_requests pr ON pr.repository_id = repo.id ${LATEST_PR_RUN} ${join}`,
    inFixture("acc"),
  );

const CHECK_PARENT = mostRows(
  `'Check' AS type, c.key`,
  `${VISIBLE_REPOSITORIES} JOIN analysis_runs r ON r.repository_id = repo.id JOIN checks c ON c.run_id = r.id
   JOIN occurrences o ON o.check_id = c.id AND o.state <> 'RESOLVED'`,
  inFixture("acc"),
);

const page = (type: string) => onNode(type);

/** Every case, in the order of the report. */
export const PLAN_CASES: PlanCase[] = [
  {
    field: "User.accounts",
    source: "accountsOfUser",
    deep: false,
    parent: `SELECT 'User' AS type, u.key, count(*) AS rows FROM users u JOIN memberships m ON m.user_id = u.id
      WHERE u.id = $1 AND NOT $2 GROUP BY u.key`,
    document: (connection) => `query { viewer { ${connection} } }`,
  },
  {
    field: "Account.repositories",
    source: "repositoriesOfAccount",
    deep: true,
    parent: accountParent(`JOIN repositories r ON r.account_id = acc.id`),
    document: page("Account"),
  },
  {
    field: "Account.members",
    source: "membersOfAccount",
    deep: true,
    parent: accountParent(`JOIN memberships m ON m.account_id = acc.id`),
    document: page("Account"),
  },
  {
    field: "Account.suppressedIssues",
    source: "suppressedIssuesOfAccount",
    deep: false,
    parent: accountParent(`JOIN team_suppressed_issues t ON t.account_id = acc.id`),
    document: page("Account"),
  },
  {
    field: "CodeCoverageReport.repositories",
    source: "coverageOfAccount:NAME",
    deep: true,
    parent: accountParent(`JOIN repositories r ON r.account_id = acc.id`),
    document: (connection) =>
      `query($id: ID!) { node(id: $id) { ... on Account { reports { codeCoverage { ${connection} } } } } }`,
  },
  {
    field: "CodeCoverageReport.repositories",
    source: "coverageOfAccount:LCV_DESCENDING",
    args: () => "sortKey: LCV_DESCENDING",
    deep: true,
    parent: accountParent(`JOIN repositories r ON r.account_id = acc.id`),
    document: (connection) =>
      `query($id: ID!) { node(id: $id) { ... on Account { reports { codeCoverage { ${connection} } } } } }`,
  },
  {
    field: "Repository.analysisRuns",
    source: "runsOfRepository",
    deep: true,
    parent: repositoryParent(`JOIN analysis_runs x ON x.repository_id = repo.id`),
    document: page("Repository"),
  },
  {
    field: "Repository.analysisRuns",
    source: "runsOfRepository",
    args: (branch) => `branch: ${JSON.stringify(branch)}`,
    deep: true,
    parent: `SELECT 'Repository' AS type, repo.key, count(*) AS rows, x.branch_name AS arg
      FROM ${VISIBLE_REPOSITORIES} JOIN analysis_runs x ON x.repository_id = repo.id
      WHERE ${inFixture("acc")} AND x.branch_name IS NOT NULL GROUP BY 1, 2, 4 ORDER BY rows DESC, 2 LIMIT 1`,
    document: page("Repository"),
  },
  {
    field: "Repository.pullRequests",
    source: "pullRequestsOfRepository",
    deep: true,
    parent: repositoryParent(`JOIN pull_requests x ON x.repository_id = repo.id`),
    document: page("Repository"),
  },
  {
    field: "Repository.pullRequests",
    source: "pullRequestsOfRepository",
    args: (branch) => `branch: ${JSON.stringify(branch)}`,
    deep: false,
    parent: `SELECT 'Repository' AS type, repo.key, count(*) AS rows, x.branch AS arg
      FROM ${VISIBLE_REPOSITORIES} JOIN pull_requests x ON x.repository_id = repo.id
      WHERE ${inFixture("acc")} AND x.branch IS NOT NULL GROUP BY 1, 2, 4 ORDER BY rows DESC, 2 LIMIT 1`,
    document: page("Repository"),
  },
  {
    field: "Repository.ignoreRules",
    source: "ignoreRulesOfRepository",
    deep: true,
    parent: repositoryParent(`JOIN ignore_rules x ON x.repository_id = repo.id`),
    document: page("Repository"),
  },
  {
    field: "Repository.ignoreRules",
    source: "ignoreRulesOfRepository",
    args: (shortcode) => `issueShortcode: ${JSON.stringify(shortcode)}`,
    deep: true,
    parent: `SELECT 'Repository' AS type, repo.key, count(*) AS rows, i.shortcode AS arg
      FROM ${VISIBLE_REPOSITORIES} JOIN ignore_rules x ON x.repository_id = repo.id JOIN issues i ON i.id = x.issue_id
      WHERE ${inFixture("acc")} GROUP BY 1, 2, 4 ORDER BY rows DESC, 2 LIMIT 1`,
    document: page("Repository"),
  },
  {
    field: "Repository.ignoreRules",
    source: "ignoreRulesOfRepository",
    args: (path) => `filePath: ${JSON.stringify(path)}`,
    deep: false,
    parent: `SELECT 'Repository' AS type, repo.key, count(*) AS rows, x.file_path AS arg
      FROM ${VISIBLE_REPOSITORIES} JOIN ignore_rules x ON x.repository_id = repo.id
      WHERE ${inFixture("acc")} AND x.file_path IS NOT NULL GROUP BY 1, 2, 4 ORDER BY rows DESC, 2 LIMIT 1`,
    document: page("Repository"),
  },
  {
    field: "Repository.targets",
    source: "targetsOfRepository",
    deep: false,
    parent: repositoryParent(`JOIN repository_targets x ON x.repository_id = repo.id`),
    document: page("Repository"),
  },
  {
    field: "Repository.issues",
    source: "repositoryIssuesOfRepository",
    deep: false,
    parent: `SELECT 'Repository' AS type, repo.key, count(DISTINCT o.issue_id) AS rows
      FROM ${VISIBLE_REPOSITORIES} ${LATEST_RUN} ${RUN_FINDINGS}
      WHERE ${inFixture("acc")} GROUP BY 1, 2 ORDER BY rows DESC, 2 LIMIT 1`,
    document: page("Repository"),
  },
  {
    field: "Repository.issueOccurrences",
    source: "occurrencesOfRepository",
    deep: true,
    parent: repositoryParent(`${LATEST_RUN} ${RUN_FINDINGS}`),
    document: page("Repository"),
  },
  {
    field: "Repository.dependencyVulnerabilityOccurrences",
    source: "vulnerabilityOccurrencesOfRepository",
    deep: true,
    parent: repositoryParent(`${LATEST_RUN} ${RUN_VULNERABILITIES}`),
    document: page("Repository"),
  },
  {
    field: "RepositoryIssue.occurrences",
    source: "occurrencesOfIssueInCheck",
    deep: true,
    parent: mostRows(
      `'RepositoryIssue' AS type, repo.key || i.key AS key`,
      `${VISIBLE_REPOSITORIES} ${LATEST_RUN} ${RUN_FINDINGS} JOIN issues i ON i.id = o.issue_id`,
      inFixture("acc"),
    ),
    document: page("RepositoryIssue"),
  },
  {
    field: "RepositoryIssue.occurrences",
    source: "occurrencesOfIssueInCheck",
    note: "the rarest issue of the largest check",
    deep: false,
    parent: `SELECT 'RepositoryIssue' AS type, repo.key || i.key AS key, count(*) AS rows
      FROM ${VISIBLE_REPOSITORIES} ${LATEST_RUN} ${RUN_FINDINGS} JOIN issues i ON i.id = o.issue_id
      WHERE ${inFixture("acc")} GROUP BY 1, 2, c.id
      ORDER BY (SELECT count(*) FROM occurrences oc WHERE oc.check_id = c.id) DESC, rows, 2 LIMIT 1`,
    document: page("RepositoryIssue"),
  },
  {
    field: "AnalysisRun.checks",
    source: "checksOfRun",
    deep: false,
    parent: mostRows(
      `'AnalysisRun' AS type, r.key`,
      `${VISIBLE_REPOSITORIES} JOIN analysis_runs r ON r.repository_id = repo.id JOIN checks c ON c.run_id = r.id`,
      inFixture("acc"),
    ),
    document: page("AnalysisRun"),
  },
  {
    field: "AnalysisRun.scaChecks",
    source: "scaChecksOfRun",
    deep: false,
    parent: mostRows(
      `'AnalysisRun' AS type, r.key`,
      `${VISIBLE_REPOSITORIES} JOIN analysis_runs r ON r.repository_id = repo.id JOIN sca_checks c ON c.run_id = r.id`,
      inFixture("acc"),
    ),
    document: page("AnalysisRun"),
  },
  {
    field: "Check.occurrences",
    source: "occurrencesOfCheck",
    deep: true,
    parent: CHECK_PARENT,
    document: page("Check"),
  },
  {
    field: "Check.issues",
    source: "analysisIssuesOfCheck",
    deep: true,
    parent: CHECK_PARENT,
    document: page("Check"),
  },
  {
    field: "Check.issues",
    source: "analysisIssuesOfCheck",
    args: (category) => `category: ${category}`,
    deep: true,
    parent: `SELECT 'Check' AS type, c.key, count(*) AS rows, i.category AS arg
      FROM ${VISIBLE_REPOSITORIES} JOIN analysis_runs r ON r.repository_id = repo.id JOIN checks c ON c.run_id = r.id
      JOIN occurrences o ON o.check_id = c.id AND o.state <> 'RESOLVED' JOIN issues i ON i.id = o.issue_id
      WHERE ${inFixture("acc")} GROUP BY 1, 2, 4 ORDER BY rows DESC, 2 LIMIT 1`,
    document: page("Check"),
  },
  {
    field: "Check.issues",
    source: "analysisIssuesOfCheck",
    args: (severity) => `severity: ${severity}`,
    note: "the rarest severity of the largest check",
    deep: false,
    parent: `SELECT 'Check' AS type, c.key, count(*) AS rows, coalesce(o.severity, i.severity) AS arg
      FROM ${VISIBLE_REPOSITORIES} JOIN analysis_runs r ON r.repository_id = repo.id JOIN checks c ON c.run_id = r.id
      JOIN occurrences o ON o.check_id = c.id AND o.state <> 'RESOLVED' JOIN issues i ON i.id = o.issue_id
      WHERE ${inFixture("acc")} GROUP BY 1, 2, 4, c.id
      ORDER BY (SELECT count(*) FROM occurrences oc WHERE oc.check_id = c.id) DESC, rows, 2 LIMIT 1`,
    document: page("Check"),
  },
  {
    field: "Check.issues",
    source: "analysisIssuesOfCheck",
    args: () => `source: AI, q: "module_1"`,
    deep: false,
    parent: CHECK_PARENT,
    document: page("Check"),
  },
  {
    field: "PullRequest.issues",
    source: "analysisIssuesOfRun",
    deep: true,
    parent: pullRequestParent(RUN_FINDINGS),
    document: page("PullRequest"),
  },
  {
    field: "PullRequest.issueOccurrences",
    source: "occurrencesOfRun",
    deep: true,
    parent: pullRequestParent(RUN_FINDINGS),
    document: page("PullRequest"),
  },
  {
    field: "PullRequest.vulnerabilityOccurrences",
    source: "vulnerabilityOccurrencesOfRun",
    deep: true,
    parent: pullRequestParent(RUN_VULNERABILITIES),
    document: page("PullRequest"),
  },
  {
    field: "SCACheck.vulnerabilityOccurrences",
    source: "vulnerabilityOccurrencesOfScaCheck",
    deep: true,
    parent: mostRows(
      `'SCACheck' AS type, sc.key`,
      `${VISIBLE_REPOSITORIES} JOIN analysis_runs r ON r.repository_id = repo.id JOIN sca_checks sc ON sc.run_id = r.id
       JOIN vulnerability_occurrences vo ON vo.sca_check_id = sc.id AND vo.state <> 'RESOLVED'`,
      inFixture("acc"),
    ),
    document: page("SCACheck"),
  },
  {
    field: "RepositoryMetricItem.values",
    source: "valuesOfMetricItem",
    deep: true,
    parent: mostRows(
      `'RepositoryMetricItem' AS type, i.key`,
      `${VISIBLE_REPOSITORIES} JOIN repository_metric_items i ON i.repository_id = repo.id
       JOIN metric_values v ON v.item_id = i.id`,
      inFixture("acc"),
    ),
    document: page("RepositoryMetricItem"),
  },
  {
    field: "Analyzer.issues",
    source: "visibleIssuesOfAnalyzer",
    deep: false,
    parent: `SELECT 'Analyzer' AS type, a.key, count(*) AS rows FROM analyzers a JOIN issues i ON i.analyzer_id = a.id
      WHERE NOT $2 GROUP BY 1, 2 ORDER BY rows DESC, 2 LIMIT 1`,
    document: page("Analyzer"),
  },
  {
    field: "Query.analyzers",
    source: "allAnalyzers",
    deep: false,
    parent: `SELECT 'Query' AS type, '' AS key, count(*) AS rows FROM analyzers WHERE NOT $2`,
    document: (connection) => `query { ${connection} }`,
  },
  {
    field: "Query.codeFormatters",
    source: "allCodeFormatters",
    deep: false,
    parent: `SELECT 'Query' AS type, '' AS key, count(*) AS rows FROM code_formatters WHERE NOT $2`,
    document: (connection) => `query { ${connection} }`,
  },
];

/**
 * A read that is not a connection page: one statement Assay sends for a GraphQL request, or for a
 * store call the benchmark makes itself (what ingestion computes, such as a run's DDP). Its parent
 * is chosen as a {@link PlanCase}'s is; `rows` is what the parent's history holds of what the
 * statement reads.
 */
export interface ReadCase {
  /** What is read, as `Type.field` or the store function. */
  field: string;
  /** The store function whose statement is measured. */
  source: string;
  /** How the parent is chosen, when not the one with the most rows. */
  note?: string;
  /** Whether the case has a parent in the deep fixture too. */
  deep: boolean;
  /** SQL for the parent (see the module comment); `arg` is the parent's internal id for `call`. */
  parent: string;
  /** Tells the measured statement from the request's others (true for exactly one). */
  statement: (text: string) => boolean;
  /** The request: a GraphQL document with `$id` the parent's global id ... */
  document?: string;
  /** ... or a store call with the parent's internal id. */
  call?: "countDistinctPackagesOfRun";
}

const readsMetricValues = (text: string) => /\bmetric_values\b/.test(text);

/** The LCV AGGREGATE item of `repo` as `it`, its values as `mv`. */
const LCV_VALUES_OF_REPOSITORY = `JOIN repository_metric_items it ON it.repository_id = repo.id
  AND it.metric_shortcode = 'LCV' AND it.metric_key = 'AGGREGATE' JOIN metric_values mv ON mv.item_id = it.id`;

/** The statement of a run's DDP (sbom-store.ts). */
const countsPackagesOfRun = (text: string) => text.includes("count(DISTINCT v.package_id)");

/** A run of the deep fixture's repository, `n` runs back (as bench/plans-fixture.ts numbers them). */
const fixtureRun = (n: number) =>
  `SELECT 'AnalysisRun' AS type, r.key, count(*) AS rows, r.id::text AS arg
   FROM analysis_runs r JOIN repository_targets t ON t.repository_id = r.repository_id
   WHERE r.key = 'zzx${String(n).padStart(7, "0")}' AND $2 GROUP BY 1, 2, 4`;

/** Every read, in the order of the report. */
export const READ_CASES: ReadCase[] = [
  {
    field: "RepositoryMetricItem.latestValue",
    source: "findLatestValuesOfItems",
    deep: true,
    parent: repositoryParent(LCV_VALUES_OF_REPOSITORY),
    statement: readsMetricValues,
    document: onNode("Repository")("metrics(shortcodeIn: [LCV]) { items { latestValue } }"),
  },
  {
    field: "Repository.coverageFiles",
    source: "findCurrentCoverageChecks",
    deep: true,
    parent: repositoryParent(LCV_VALUES_OF_REPOSITORY),
    statement: readsMetricValues,
    document: onNode("Repository")("coverageFiles(first: 1) { totalCount }"),
  },
  {
    field: "Repository.report(key: CODE_COVERAGE)",
    source: "findScopeLineCoverage:id",
    deep: true,
    parent: repositoryParent(LCV_VALUES_OF_REPOSITORY),
    statement: readsMetricValues,
    document: onNode("Repository")("report(key: CODE_COVERAGE) { key }"),
  },
  {
    field: "Account.report(key: CODE_COVERAGE)",
    source: "findScopeLineCoverage:account_id",
    deep: true,
    parent: accountParent(`JOIN repositories repo ON repo.account_id = acc.id ${LCV_VALUES_OF_REPOSITORY}`),
    statement: readsMetricValues,
    document: onNode("Account")("report(key: CODE_COVERAGE) { key }"),
  },
  {
    field: "DDP of a run",
    source: "countDistinctPackagesOfRun",
    note: "the newest default-branch run of the repository with the most targets",
    deep: false,
    parent: `SELECT 'AnalysisRun' AS type, lr.key, count(*) AS rows, lr.id::text AS arg
      FROM ${VISIBLE_REPOSITORIES} CROSS JOIN LATERAL (
        SELECT r.id, r.key FROM analysis_runs r
        WHERE r.repository_id = repo.id AND r.branch_name = repo.default_branch
        ORDER BY r.created_at DESC, r.key DESC LIMIT 1) lr
      JOIN repository_targets t ON t.repository_id = repo.id
      WHERE ${inFixture("acc")} GROUP BY 1, 2, 4 ORDER BY rows DESC, 2 LIMIT 1`,
    statement: countsPackagesOfRun,
    call: "countDistinctPackagesOfRun",
  },
  {
    field: "DDP of a run",
    source: "countDistinctPackagesOfRun",
    note: "the deep repository's newest run",
    deep: true,
    parent: fixtureRun(1),
    statement: countsPackagesOfRun,
    call: "countDistinctPackagesOfRun",
  },
  {
    field: "DDP of a run",
    source: "countDistinctPackagesOfRun",
    note: "the deep repository's run 6,001 runs back",
    deep: true,
    parent: fixtureRun(6001),
    statement: countsPackagesOfRun,
    call: "countDistinctPackagesOfRun",
  },
];
