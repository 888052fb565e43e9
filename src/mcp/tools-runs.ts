import { z } from "zod";
import {
  type Connection,
  connectionSelection,
  countText,
  found,
  repositoryInput,
  repositoryVariables,
  runOperation,
  type ToolBackend,
  ToolFailure,
} from "./tool-kit.ts";
import { defineTool } from "./tool-registry.ts";
import { emptyConnection, ISSUE_CATEGORIES, ISSUE_SEVERITIES } from "./tools-repositories.ts";

/** The tools about analysis runs: what a pull request or commit changed, and a run's checks. */

const RUN_STATUSES = ["CANCEL", "FAILURE", "PENDING", "READY", "SKIPPED", "SUCCESS", "TIMEOUT"] as const;
const CHECK_STATUSES = [
  "ARTIFACT_TIMEOUT",
  "CANCEL",
  "FAILURE",
  "NEUTRAL",
  "PENDING",
  "READY",
  "SKIPPED",
  "SUCCESS",
  "TIMEOUT",
  "WAITING",
] as const;
const PR_STATES = ["CLOSED", "MERGED", "OPEN"] as const;

/** A finding as `AnalysisIssue` has it. */
interface FindingNode {
  shortcode: string;
  title: string;
  category: (typeof ISSUE_CATEGORIES)[number];
  severity: (typeof ISSUE_SEVERITIES)[number];
  path: string;
  beginLine: number;
  endLine: number;
  isIntroduced: boolean;
}

const FINDING_FIELDS = "shortcode title category severity path beginLine endLine isIntroduced";

const findingOutput = z.strictObject({
  shortcode: z.string().describe("The issue's code."),
  title: z.string().describe("What was found here."),
  category: z.enum(ISSUE_CATEGORIES),
  severity: z.enum(ISSUE_SEVERITIES).describe("The finding's own severity, else its issue's."),
  path: z.string().describe("Repository-relative file path."),
  beginLine: z.number().int(),
  endLine: z.number().int(),
  isIntroduced: z
    .boolean()
    .describe(
      "True when this change (the run) brought the finding; false when it was already there before (its base had it).",
    ),
});

/** A finding as the tools answer it: exactly the output schema's fields. */
function findingOf(node: FindingNode): z.infer<typeof findingOutput> {
  return {
    shortcode: node.shortcode,
    title: node.title,
    category: node.category,
    severity: node.severity,
    path: node.path,
    beginLine: node.beginLine,
    endLine: node.endLine,
    isIntroduced: node.isIntroduced,
  };
}

function findingLine(f: z.infer<typeof findingOutput>): string {
  return `${f.path}:${f.beginLine} ${f.shortcode} [${f.severity}] ${f.title}${f.isIntroduced ? " (new)" : " (already there)"}`;
}

const findingsLimit = z
  .number()
  .int()
  .min(1)
  .max(100)
  .default(20)
  .describe("How many findings to list (1 to 100, default 20); the counts cover all of them.");

const runOutput = z.strictObject({
  runUid: z.string().describe("The run's UUID; pass it to get_run_checks for the findings per check."),
  status: z.enum(RUN_STATUSES),
  branchName: z.string().nullable(),
  commitOid: z.string().nullable(),
});

const changesOutput = z.strictObject({
  pullRequest: z
    .strictObject({
      number: z.number().int(),
      title: z.string().nullable(),
      state: z.enum(PR_STATES),
      branch: z.string().nullable(),
      baseBranch: z.string().nullable(),
    })
    .nullable()
    .describe("The pull request asked about; null when a commit was asked about."),
  run: runOutput.nullable().describe("The analysis run the answer comes from; null when there is none yet."),
  introduced: z.number().int().describe("Findings the change introduced."),
  resolved: z.number().int().describe("Findings the change resolved."),
  suppressed: z.number().int().describe("Findings suppressed (ignore rules, team suppressions)."),
  vulnerabilitiesIntroduced: z.number().int().describe("Dependency vulnerabilities the change introduced."),
  findings: z
    .array(findingOutput)
    .describe(
      "The findings of the change's run: first those it introduced (`isIntroduced: true`), then those already there before it, each group by path then line.",
    ),
  findingsTotal: z
    .number()
    .int()
    .describe("How many findings the run has in all, new and old; `findings` may list fewer."),
  findingsIntroduced: z
    .number()
    .int()
    .describe(
      "How many of them the change introduced (suppressed ones included, which `introduced` leaves out).",
    ),
  findingsExisting: z.number().int().describe("How many of them were already there before the change."),
});

type ChangesOutput = z.infer<typeof changesOutput>;

const PULL_REQUEST_QUERY = `query McpPullRequestChanges($login: String!, $name: String!, $vcsProvider: VCSProvider!,
  $number: Int!, $first: Int!) {
  repository(login: $login, name: $name, vcsProvider: $vcsProvider) {
    pullRequest(number: $number) {
      number title state branch baseBranch
      summary { issuesRaised issuesResolved issuesSuppressed vulnerabilitiesRaised }
      latestAnalysisRun { runUid status branchName commitOid }
      introducedIssues: issues(first: $first, isIntroduced: true) { ${connectionSelection(FINDING_FIELDS)} }
      existingIssues: issues(first: $first, isIntroduced: false) { ${connectionSelection(FINDING_FIELDS)} }
    }
  }
}`;

const COMMIT_QUERY = `query McpCommitChanges($login: String!, $name: String!, $vcsProvider: VCSProvider!,
  $commitOid: String!, $first: Int!) {
  repository(login: $login, name: $name, vcsProvider: $vcsProvider) {
    analysisRuns(first: 1, commitOid: $commitOid) { edges { node {
      runUid status branchName commitOid
      summary { occurrencesIntroduced occurrencesResolved occurrencesSuppressed vulnerabilitiesIntroduced }
      checks(first: 50) { edges { node {
        introducedIssues: issues(first: $first, isIntroduced: true) { ${connectionSelection(FINDING_FIELDS)} }
        existingIssues: issues(first: $first, isIntroduced: false) { ${connectionSelection(FINDING_FIELDS)} }
      } } }
    } } }
  }
}`;

interface RunHead {
  runUid: string;
  status: (typeof RUN_STATUSES)[number];
  branchName: string | null;
  commitOid: string | null;
}

function runOf(run: RunHead): z.infer<typeof runOutput> {
  return { runUid: run.runUid, status: run.status, branchName: run.branchName, commitOid: run.commitOid };
}

/** A change's findings in two pages: those it introduced and those already there. */
interface FindingPages {
  introducedIssues: Connection<FindingNode>;
  existingIssues: Connection<FindingNode>;
}

/**
 * The API's order of findings: by path, as the database compares it (`COLLATE "C"`, migration
 * 0045: the UTF-8 bytes, which is the code points' order; `<` compares UTF-16 units, which puts a
 * character past U+FFFF before U+E000-U+FFFF), then line. Exported for its test.
 */
export function byPathThenLine(
  a: Pick<FindingNode, "path" | "beginLine">,
  b: Pick<FindingNode, "path" | "beginLine">,
): number {
  if (a.path !== b.path) return Buffer.compare(Buffer.from(a.path), Buffer.from(b.path));
  return a.beginLine - b.beginLine;
}

/**
 * The findings to list, at most `first`: the introduced ones first, then those already there,
 * each group in the API's order (one page per check for a commit, merged), and their totals.
 */
function listedFindings(
  introduced: ReadonlyArray<Connection<FindingNode>>,
  existing: ReadonlyArray<Connection<FindingNode>>,
  first: number,
): Pick<ChangesOutput, "findings" | "findingsTotal" | "findingsIntroduced" | "findingsExisting"> {
  const merged = (pages: ReadonlyArray<Connection<FindingNode>>) =>
    pages.length === 1
      ? (pages[0]?.edges.map(({ node }) => node) ?? [])
      : pages.flatMap((page) => page.edges.map(({ node }) => node)).sort(byPathThenLine);
  const total = (pages: ReadonlyArray<Connection<FindingNode>>) =>
    pages.reduce((sum, page) => sum + page.totalCount, 0);
  const findingsIntroduced = total(introduced);
  const findingsExisting = total(existing);
  return {
    findings: [...merged(introduced), ...merged(existing)].slice(0, first).map(findingOf),
    findingsTotal: findingsIntroduced + findingsExisting,
    findingsIntroduced,
    findingsExisting,
  };
}

async function pullRequestChanges(
  backend: ToolBackend,
  args: { login: string; name: string; vcsProvider: string; first: number },
  number: number,
): Promise<ChangesOutput> {
  const data = await runOperation<{
    repository: {
      pullRequest: {
        number: number;
        title: string | null;
        state: (typeof PR_STATES)[number];
        branch: string | null;
        baseBranch: string | null;
        summary: {
          issuesRaised: number;
          issuesResolved: number;
          issuesSuppressed: number;
          vulnerabilitiesRaised: number;
        } | null;
        latestAnalysisRun: RunHead | null;
        introducedIssues: Connection<FindingNode>;
        existingIssues: Connection<FindingNode>;
      } | null;
    } | null;
  }>(backend, PULL_REQUEST_QUERY, { ...repositoryVariables(args), number, first: args.first });
  const repository = found(data.repository, `Repository ${args.login}/${args.name}`);
  const pr = found(repository.pullRequest, `Pull request #${number} of ${args.login}/${args.name}`);
  return {
    pullRequest: {
      number: pr.number,
      title: pr.title,
      state: pr.state,
      branch: pr.branch,
      baseBranch: pr.baseBranch,
    },
    run: pr.latestAnalysisRun ? runOf(pr.latestAnalysisRun) : null,
    introduced: pr.summary?.issuesRaised ?? 0,
    resolved: pr.summary?.issuesResolved ?? 0,
    suppressed: pr.summary?.issuesSuppressed ?? 0,
    vulnerabilitiesIntroduced: pr.summary?.vulnerabilitiesRaised ?? 0,
    ...listedFindings([pr.introducedIssues], [pr.existingIssues], args.first),
  };
}

async function commitChanges(
  backend: ToolBackend,
  args: { login: string; name: string; vcsProvider: string; first: number },
  commitOid: string,
): Promise<ChangesOutput> {
  const data = await runOperation<{
    repository: {
      analysisRuns: {
        edges: Array<{
          node: RunHead & {
            summary: {
              occurrencesIntroduced: number;
              occurrencesResolved: number;
              occurrencesSuppressed: number;
              vulnerabilitiesIntroduced: number;
            };
            checks: { edges: Array<{ node: FindingPages }> } | null;
          };
        }>;
      } | null;
    } | null;
  }>(backend, COMMIT_QUERY, { ...repositoryVariables(args), commitOid, first: args.first });
  const repository = found(data.repository, `Repository ${args.login}/${args.name}`);
  // The repository's own newest run of the commit: the root `run(commitOid:)` would answer the
  // newest in any repository the caller can see.
  const run = repository.analysisRuns?.edges[0]?.node;
  if (!run) {
    throw new ToolFailure(
      "NOT_FOUND",
      `${args.login}/${args.name} has no analysis run of commit ${commitOid} (give the full SHA).`,
    );
  }
  const checks = run.checks?.edges.map(({ node }) => node) ?? [];
  return {
    pullRequest: null,
    run: runOf(run),
    introduced: run.summary.occurrencesIntroduced,
    resolved: run.summary.occurrencesResolved,
    suppressed: run.summary.occurrencesSuppressed,
    vulnerabilitiesIntroduced: run.summary.vulnerabilitiesIntroduced,
    ...listedFindings(
      checks.map((check) => check.introducedIssues),
      checks.map((check) => check.existingIssues),
      args.first,
    ),
  };
}

/** `get_changes`: what a pull request or a commit introduced and resolved. */
export const getChanges = defineTool({
  name: "get_changes",
  title: "What a pull request or commit changed",
  description:
    "Answers what a pull request (by number) or a commit (by SHA) introduced and resolved: counts of findings introduced, resolved and suppressed and of dependency vulnerabilities introduced, from the newest analysis run, and the run's findings. The findings include those that were already there before the change: each says `isIntroduced` (true: new in this change; false: already there), and the new ones are listed first. Only report the `isIntroduced: true` ones as what the change brought. Give exactly one of `pullRequest` and `commitOid`.",
  inputSchema: {
    ...repositoryInput,
    pullRequest: z.number().int().min(1).optional().describe("The pull request's number."),
    commitOid: z
      .string()
      .regex(/^[0-9a-fA-F]{7,64}$/)
      .optional()
      .describe("The commit's full SHA, as the run recorded it."),
    first: findingsLimit,
  },
  outputSchema: changesOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async answer(backend, args) {
    if ((args.pullRequest === undefined) === (args.commitOid === undefined)) {
      throw new ToolFailure("BAD_USER_INPUT", "Give exactly one of `pullRequest` and `commitOid`.");
    }
    const changes =
      args.pullRequest !== undefined
        ? await pullRequestChanges(backend, args, args.pullRequest)
        : await commitChanges(backend, args, args.commitOid ?? "");
    const subject = changes.pullRequest
      ? `Pull request #${changes.pullRequest.number}`
      : `Commit ${args.commitOid}`;
    return {
      structured: changes,
      text: [
        `${subject}: ${changes.introduced} findings introduced, ${changes.resolved} resolved, ${changes.suppressed} suppressed, ${changes.vulnerabilitiesIntroduced} vulnerabilities introduced${changes.run ? ` (run ${changes.run.runUid}, ${changes.run.status})` : " (no analysis run yet)"}.`,
        `Findings of the run: ${changes.findingsIntroduced} new in this change, ${changes.findingsExisting} already there before it; ${countText(changes.findings.length, changes.findingsTotal, "listed")}, new ones first.`,
        ...changes.findings.map(findingLine),
      ].join("\n"),
    };
  },
});

const RUN_CHECKS_QUERY = `query McpRunChecks($runUid: UUID!, $first: Int!, $analyzerIn: [String],
  $category: IssueCategory, $severity: IssueSeverity) {
  run(runUid: $runUid) {
    runUid status branchName commitOid createdAt finishedAt
    repository { name account { login } }
    checks(first: 50, analyzerIn: $analyzerIn) {
      totalCount
      edges { node {
        status
        analyzer { shortcode name }
        summary { occurrencesIntroduced occurrencesResolved occurrencesSuppressed }
        issues(first: $first, category: $category, severity: $severity) { ${connectionSelection(FINDING_FIELDS)} }
      } }
    }
  }
}`;

interface CheckNode {
  status: (typeof CHECK_STATUSES)[number];
  analyzer: { shortcode: string; name: string };
  summary: { occurrencesIntroduced: number; occurrencesResolved: number; occurrencesSuppressed: number };
  issues: Connection<FindingNode>;
}

const runChecksOutput = z.strictObject({
  run: runOutput.extend({
    repository: z.string().describe("`login/name` of the run's repository."),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  }),
  checks: z.array(
    z.strictObject({
      analyzer: z.string().describe("The analyzer's shortcode."),
      analyzerName: z.string(),
      status: z.enum(CHECK_STATUSES),
      introduced: z.number().int().describe("Findings this check introduced."),
      resolved: z.number().int().describe("Findings this check resolved."),
      suppressed: z.number().int(),
      findings: z
        .array(findingOutput)
        .describe("The check's findings (matching the filters), by path then line."),
      findingsTotal: z.number().int().describe("How many findings match; `findings` may list fewer."),
    }),
  ),
});

/** `get_run_checks`: one analysis run's checks, with their findings. */
export const getRunChecks = defineTool({
  name: "get_run_checks",
  title: "A run's checks and findings",
  description:
    "Shows one analysis run (by its runUid, from list_repositories or get_changes): each analyzer's check with its status, the counts it introduced and resolved, and its findings, optionally filtered by analyzer, category and severity.",
  inputSchema: {
    runUid: z.guid().describe("The run's UUID."),
    analyzers: z
      .array(z.string().min(1))
      .optional()
      .describe("Only the checks of these analyzers (shortcodes such as `python`)."),
    category: z.enum(ISSUE_CATEGORIES).optional().describe("Only findings of this category."),
    severity: z.enum(ISSUE_SEVERITIES).optional().describe("Only findings of this severity."),
    first: findingsLimit.describe("How many findings to list per check (1 to 100, default 20)."),
  },
  outputSchema: runChecksOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async answer(backend, args) {
    const data = await runOperation<{
      run: RunHead & {
        createdAt: string;
        finishedAt: string | null;
        repository: { name: string; account: { login: string } };
        checks: Connection<CheckNode> | null;
      };
    }>(backend, RUN_CHECKS_QUERY, {
      runUid: args.runUid,
      first: args.first,
      analyzerIn: args.analyzers ?? null,
      category: args.category ?? null,
      severity: args.severity ?? null,
    });
    const { run } = data;
    const checks = (run.checks ?? emptyConnection<CheckNode>()).edges.map(({ node }) => ({
      analyzer: node.analyzer.shortcode,
      analyzerName: node.analyzer.name,
      status: node.status,
      introduced: node.summary.occurrencesIntroduced,
      resolved: node.summary.occurrencesResolved,
      suppressed: node.summary.occurrencesSuppressed,
      findings: node.issues.edges.map(({ node: finding }) => findingOf(finding)),
      findingsTotal: node.issues.totalCount,
    }));
    const repository = `${run.repository.account.login}/${run.repository.name}`;
    return {
      structured: {
        run: { ...runOf(run), repository, createdAt: run.createdAt, finishedAt: run.finishedAt },
        checks,
      },
      text: [
        `Run ${run.runUid} of ${repository} (${run.status}, ${run.branchName ?? "?"} @ ${run.commitOid?.slice(0, 12) ?? "?"}): ${checks.length} checks.`,
        ...checks.flatMap((c) => [
          `${c.analyzer}: ${c.status}, ${c.introduced} introduced, ${c.resolved} resolved; ${countText(c.findings.length, c.findingsTotal, "findings")}`,
          ...c.findings.map((f) => `  ${findingLine(f)}`),
        ]),
      ].join("\n"),
    };
  },
});
