import { z } from "zod";
import {
  type Connection,
  connectionSelection,
  countText,
  found,
  pageInfoOutput,
  pageInput,
  pageOf,
  repositoryInput,
  repositoryVariables,
  runOperation,
  VCS_PROVIDERS,
} from "./tool-kit.ts";
import { defineTool } from "./tool-registry.ts";

/** The tools about repositories and their issues. */

/** Issue categories and severities, as the API's enums name them. */
export const ISSUE_CATEGORIES = [
  "ANTI_PATTERN",
  "BUG_RISK",
  "COVERAGE",
  "DOCUMENTATION",
  "PERFORMANCE",
  "SECRETS",
  "SECURITY",
  "STYLE",
  "TYPECHECK",
] as const;
export const ISSUE_SEVERITIES = ["CRITICAL", "MAJOR", "MINOR"] as const;
const RUN_STATUSES = ["CANCEL", "FAILURE", "PENDING", "READY", "SKIPPED", "SUCCESS", "TIMEOUT"] as const;

/**
 * Accounts and repositories read per call: enough for a person's view, and within the API's
 * node limit (each repository asks one node of three connections: about 20,000 in all).
 */
const ACCOUNTS_PER_CALL = 50;
const REPOSITORIES_PER_ACCOUNT = 100;

const ACCOUNT_SELECTION = `login vcsProvider
  repositories(first: ${REPOSITORIES_PER_ACCOUNT}) {
    totalCount
    edges { node {
      name defaultBranch isActivated
      issues(first: 1) { totalCount }
      dependencyVulnerabilityOccurrences(first: 1) { totalCount }
      metrics { items { thresholdStatus } }
      analysisRuns(first: 1) { edges { node { runUid status branchName commitOid createdAt } } }
    } }
  }`;

const REPOSITORIES_QUERY = `query McpRepositories {
  viewer {
    accounts(first: ${ACCOUNTS_PER_CALL}) {
      totalCount
      edges { node { ${ACCOUNT_SELECTION} } }
    }
  }
}`;

/** One account's repositories, asked for by login (which, as in the API, ignores case). */
const ACCOUNT_REPOSITORIES_QUERY = `query McpAccountRepositories($login: String!, $vcsProvider: VCSProvider!) {
  account(login: $login, vcsProvider: $vcsProvider) { ${ACCOUNT_SELECTION} }
}`;

interface AccountNode {
  login: string;
  vcsProvider: (typeof VCS_PROVIDERS)[number];
  repositories: Connection<RepositoryNode>;
}

interface RepositoryNode {
  name: string;
  defaultBranch: string | null;
  isActivated: boolean;
  issues: { totalCount: number } | null;
  dependencyVulnerabilityOccurrences: { totalCount: number } | null;
  metrics: Array<{ items: Array<{ thresholdStatus: string | null }> }>;
  analysisRuns: Connection<RunHeadline> | null;
}

interface RunHeadline {
  runUid: string;
  status: (typeof RUN_STATUSES)[number];
  branchName: string | null;
  commitOid: string | null;
  createdAt: string;
}

const runHeadlineOutput = z.strictObject({
  runUid: z.string().describe("The run's UUID; pass it to get_run_checks."),
  status: z.enum(RUN_STATUSES).describe("How the run ended, or PENDING while it runs."),
  branchName: z.string().nullable().describe("The analysed branch."),
  commitOid: z.string().nullable().describe("The analysed commit's SHA."),
  createdAt: z.string().describe("When the run started (ISO 8601)."),
});

const listRepositoriesOutput = z.strictObject({
  repositories: z
    .array(
      z.strictObject({
        login: z.string().describe("The owning account's login."),
        vcsProvider: z.enum(VCS_PROVIDERS).describe("Where the repository is hosted."),
        name: z.string().describe("The repository's name."),
        defaultBranch: z
          .string()
          .nullable()
          .describe("The branch whose latest run is the repository's current state."),
        isActivated: z.boolean().describe("Whether analysis is switched on."),
        openIssues: z
          .number()
          .int()
          .describe(
            "Distinct issues in the repository's current findings on the default branch (per analyzer, its newest report that could be read and placed).",
          ),
        vulnerabilities: z
          .number()
          .int()
          .describe("Vulnerable dependency occurrences found now, fixed ones left out."),
        failingMetrics: z.number().int().describe("Metric items whose latest value misses its threshold."),
        latestRun: runHeadlineOutput
          .nullable()
          .describe("The newest analysis run on any branch; null when none."),
      }),
    )
    .describe("Every repository you can see, by account."),
  truncated: z
    .boolean()
    .describe(
      `True when some repositories are not listed: an account listed has more than ${REPOSITORIES_PER_ACCOUNT}, or (without \`login\`) you belong to more than ${ACCOUNTS_PER_CALL} accounts; give \`login\` to list one account's.`,
    ),
});

/** `list_repositories`: every repository the caller can see, with its health at a glance. */
export const listRepositories = defineTool({
  name: "list_repositories",
  title: "List repositories",
  description:
    "Lists the repositories you can see in Assay, with their health at a glance: open issues on the default branch, vulnerable dependencies, failing metric thresholds and the newest analysis run. Start here to find a repository's login and name for the other tools.",
  inputSchema: {
    login: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Only the repositories of this account (login, any case); all accounts you belong to when left out.",
      ),
    vcsProvider: z
      .enum(VCS_PROVIDERS)
      .default("GITHUB")
      .describe("Where the account given as `login` is hosted. Defaults to GITHUB; ignored without `login`."),
  },
  outputSchema: listRepositoriesOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async answer(backend, args) {
    let accounts: AccountNode[];
    let truncated: boolean;
    if (args.login !== undefined) {
      const data = await runOperation<{ account: AccountNode | null }>(backend, ACCOUNT_REPOSITORIES_QUERY, {
        login: args.login,
        vcsProvider: args.vcsProvider,
      });
      accounts = [found(data.account, `Account ${args.login}`)];
      truncated = false;
    } else {
      const data = await runOperation<{ viewer: { accounts: Connection<AccountNode> } | null }>(
        backend,
        REPOSITORIES_QUERY,
        {},
      );
      const connection = found(data.viewer, "The viewer").accounts;
      accounts = connection.edges.map(({ node }) => node);
      truncated = connection.totalCount > connection.edges.length;
    }
    const repositories: z.infer<typeof listRepositoriesOutput>["repositories"] = [];
    for (const account of accounts) {
      if (account.repositories.totalCount > account.repositories.edges.length) truncated = true;
      for (const { node } of account.repositories.edges) {
        const run = node.analysisRuns?.edges[0]?.node;
        repositories.push({
          login: account.login,
          vcsProvider: account.vcsProvider,
          name: node.name,
          defaultBranch: node.defaultBranch,
          isActivated: node.isActivated,
          openIssues: node.issues?.totalCount ?? 0,
          vulnerabilities: node.dependencyVulnerabilityOccurrences?.totalCount ?? 0,
          failingMetrics: node.metrics
            .flatMap((metric) => metric.items)
            .filter((item) => item.thresholdStatus === "FAILING").length,
          latestRun: run
            ? {
                runUid: run.runUid,
                status: run.status,
                branchName: run.branchName,
                commitOid: run.commitOid,
                createdAt: run.createdAt,
              }
            : null,
        });
      }
    }
    const lines = repositories.map(
      (r) =>
        `${r.login}/${r.name}: ${r.openIssues} open issues, ${r.vulnerabilities} vulnerabilities, ${r.failingMetrics} failing metrics; latest run ${r.latestRun ? `${r.latestRun.status} on ${r.latestRun.branchName ?? "?"}` : "none"}`,
    );
    return {
      structured: { repositories, truncated },
      text: [`${repositories.length} repositories${truncated ? " (more not listed)" : ""}.`, ...lines].join(
        "\n",
      ),
    };
  },
});

const ISSUES_QUERY = `query McpRepositoryIssues($login: String!, $name: String!, $vcsProvider: VCSProvider!,
  $first: Int!, $after: String, $analyzerIn: [String], $category: IssueCategory, $severity: IssueSeverity,
  $path: String, $tags: [String]) {
  repository(login: $login, name: $name, vcsProvider: $vcsProvider) {
    issues(first: $first, after: $after, analyzerIn: $analyzerIn, category: $category, severity: $severity,
      path: $path, tags: $tags) {
      ${connectionSelection(`issue { shortcode title category severity tags analyzer { shortcode } }
        occurrences(first: 3) { totalCount edges { node { path beginLine endLine } } }`)}
    }
  }
}`;

interface RepositoryIssueNode {
  issue: {
    shortcode: string;
    title: string;
    category: (typeof ISSUE_CATEGORIES)[number];
    severity: (typeof ISSUE_SEVERITIES)[number];
    tags: Array<string | null>;
    analyzer: { shortcode: string };
  };
  occurrences: Connection<{ path: string; beginLine: number; endLine: number }>;
}

const locationOutput = z.strictObject({
  path: z.string().describe("Repository-relative file path."),
  beginLine: z.number().int().describe("First line."),
  endLine: z.number().int().describe("Last line."),
});

const repositoryIssuesOutput = z.strictObject({
  issues: z.array(
    z.strictObject({
      shortcode: z.string().describe("The issue's code, e.g. `PYL-W0611`; use it for add_ignore_rule."),
      title: z.string().describe("What the issue is."),
      category: z.enum(ISSUE_CATEGORIES),
      severity: z.enum(ISSUE_SEVERITIES),
      analyzer: z.string().describe("The analyzer's shortcode, e.g. `python`."),
      tags: z.array(z.string()).describe("The issue's tags, e.g. `cwe-79`."),
      occurrenceCount: z.number().int().describe("How many places it occurs."),
      occurrences: z.array(locationOutput).describe("The first few places it occurs."),
    }),
  ),
  page: pageInfoOutput,
});

const analyzerFilter = z
  .array(z.string().min(1))
  .optional()
  .describe("Only issues of these analyzers (shortcodes such as `python`, `javascript`).");

/** `list_repository_issues`: the issues present on a repository's default branch, filtered and paged. */
export const listRepositoryIssues = defineTool({
  name: "list_repository_issues",
  title: "List a repository's issues",
  description:
    "Lists the distinct issues present in a repository now (its current findings on the default branch: per analyzer, its newest report that could be read and placed), each with its category, severity, analyzer and first occurrences. Filter by analyzer, category, severity, path (a file or directory) and tags; page with `first` and `after`.",
  inputSchema: {
    ...repositoryInput,
    analyzers: analyzerFilter,
    category: z.enum(ISSUE_CATEGORIES).optional().describe("Only issues of this category."),
    severity: z.enum(ISSUE_SEVERITIES).optional().describe("Only issues of this severity."),
    path: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Only issues occurring in this file or under this directory (repository-relative, e.g. `src/api`).",
      ),
    tags: z
      .array(z.string().min(1))
      .optional()
      .describe("Only issues carrying every one of these tags (e.g. `cwe-79`)."),
    ...pageInput,
  },
  outputSchema: repositoryIssuesOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async answer(backend, args) {
    const data = await runOperation<{
      repository: { issues: Connection<RepositoryIssueNode> | null } | null;
    }>(backend, ISSUES_QUERY, {
      ...repositoryVariables(args),
      first: args.first,
      after: args.after ?? null,
      analyzerIn: args.analyzers ?? null,
      category: args.category ?? null,
      severity: args.severity ?? null,
      path: args.path ?? null,
      tags: args.tags ?? null,
    });
    const repository = found(data.repository, `Repository ${args.login}/${args.name}`);
    const connection = repository.issues ?? emptyConnection<RepositoryIssueNode>();
    const issues = connection.edges.map(({ node }) => ({
      shortcode: node.issue.shortcode,
      title: node.issue.title,
      category: node.issue.category,
      severity: node.issue.severity,
      analyzer: node.issue.analyzer.shortcode,
      tags: node.issue.tags.filter((tag): tag is string => tag !== null),
      occurrenceCount: node.occurrences.totalCount,
      occurrences: node.occurrences.edges.map(({ node: o }) => ({
        path: o.path,
        beginLine: o.beginLine,
        endLine: o.endLine,
      })),
    }));
    const lines = issues.map(
      (i) =>
        `${i.shortcode} [${i.severity} ${i.category}] ${i.title} (${i.occurrenceCount}×${i.occurrences[0] ? `, e.g. ${i.occurrences[0].path}:${i.occurrences[0].beginLine}` : ""})`,
    );
    return {
      structured: { issues, page: pageOf(connection) },
      text: [
        `${countText(issues.length, connection.totalCount, "issues")} in ${args.login}/${args.name}.`,
        ...lines,
      ].join("\n"),
    };
  },
});

/** An empty page, for a connection the API answers null (a repository without runs). */
export function emptyConnection<N>(): Connection<N> {
  return { totalCount: 0, pageInfo: { hasNextPage: false, endCursor: null }, edges: [] };
}
