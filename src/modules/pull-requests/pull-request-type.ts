import type { OccurrenceRow, PullRequestRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { registerNodeType } from "../../graphql/node.ts";
import {
  connectionArgs,
  connectionType,
  globalIdField,
  NodeInterface,
  pageArgs,
} from "../../graphql/relay.ts";
import {
  type AnalysisIssueRow,
  analysisIssueFilter,
  analysisIssuesOfRun,
  occurrenceFilter,
  occurrencesOfRun,
} from "../checks/occurrence-store.ts";
import {
  AnalysisIssueConnection,
  analysisIssueArgs,
  OccurrenceConnection,
} from "../checks/occurrence-type.ts";
import type { VulnerabilityOccurrenceNode } from "../dependencies/dependencies-store.ts";
import { VulnerabilityOccurrenceConnection } from "../dependencies/dependencies-type.ts";
import { metricsRecordedByChecks } from "../metrics/metric-service.ts";
import { RepositoryMetricRef } from "../metrics/metric-type.ts";
import { RepositoryRef } from "../repositories/repository-type.ts";
import { AnalysisRunRef } from "../runs/run-type.ts";
import {
  checkIdsByRunId,
  latestRunByPullRequestId,
  visiblePullRequestByKey,
} from "./pull-request-loaders.ts";
import {
  findRepositoryPullRequest,
  latestRunIdOf,
  PULL_REQUEST_NOT_FOUND,
  type PullRequestSummary,
  pullRequestVcsUrl,
  summarisePullRequest,
} from "./pull-request-service.ts";
import {
  pullRequestBranchFilter,
  pullRequestsOfRepository,
  vulnerabilityOccurrencesOfRun,
} from "./pull-request-store.ts";

const PRStateEnum = builder.enumType("PRState", {
  description: "Whether a pull request is open, closed without merging, or merged.",
  values: ["OPEN", "CLOSED", "MERGED"] as const,
});

const PRSummaryRef = builder.objectRef<PullRequestSummary>("PRSummary").implement({
  description:
    "Totals of a pull request's newest analysis run: findings it raised, resolved and suppressed, and dependency vulnerabilities it raised.",
  fields: (t) => ({
    issuesRaised: t.int({
      description: "Findings new in the pull request and not suppressed.",
      resolve: (s) => s.issuesRaised,
    }),
    issuesResolved: t.int({
      description: "Findings of the base branch that the pull request removes.",
      resolve: (s) => s.issuesResolved,
    }),
    issuesSuppressed: t.int({
      description: "Findings present in the pull request but suppressed.",
      resolve: (s) => s.issuesSuppressed,
    }),
    vulnerabilitiesRaised: t.int({
      description: "Dependency vulnerability occurrences the pull request introduces.",
      resolve: (s) => s.vulnerabilitiesRaised,
    }),
  }),
});

const FROM_LATEST_RUN = "of the pull request's newest analysis run (empty when it has none)";

/** A pull (merge) request of a repository, with the results of its newest analysis run. */
export const PullRequestRef = builder.objectRef<PullRequestRow>("PullRequest").implement({
  description: "A pull (merge) request of a repository, with the results of its newest analysis run.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("PullRequest")),
    createdAt: t.field({
      type: "DateTime",
      description: "When the pull request was opened.",
      resolve: (pr) => pr.created_at,
    }),
    baseBranch: t.string({
      nullable: true,
      description: "The branch the pull request merges into.",
      resolve: (pr) => pr.base_branch,
    }),
    branch: t.string({
      nullable: true,
      description: "The branch the pull request merges from.",
      resolve: (pr) => pr.branch,
    }),
    number: t.int({ description: "The pull request's number on its provider.", resolve: (pr) => pr.number }),
    title: t.string({ nullable: true, description: "The pull request's title.", resolve: (pr) => pr.title }),
    state: t.field({ type: PRStateEnum, description: "Open, closed or merged.", resolve: (pr) => pr.state }),
    vcsUrl: t.string({
      nullable: true,
      description:
        "The pull request's page on its provider: the stored link, else one derived from the repository's page (`/pull/<n>` on GitHub, `/-/merge_requests/<n>` on GitLab, `/pull-requests/<n>` on Bitbucket). Null when neither is known.",
      resolve: (pr, _args, ctx) => pullRequestVcsUrl(ctx, pr),
    }),
    summary: t.field({
      type: PRSummaryRef,
      nullable: true,
      description: "Totals of the pull request's newest analysis run; null when it has no run.",
      resolve: (pr, _args, ctx) => summarisePullRequest(ctx, pr),
    }),
    latestAnalysisRun: t.field({
      type: AnalysisRunRef,
      nullable: true,
      description:
        "The pull request's newest analysis run (by start time), whatever its status; null when none.",
      resolve: (pr, _args, ctx) => latestRunByPullRequestId(ctx).load(pr.id),
    }),
    issues: t.field({
      type: AnalysisIssueConnection,
      description: `The findings ${FROM_LATEST_RUN} across all its checks, RESOLVED ones left out (silenced ones too unless \`isSuppressed: true\`), by path, then line, then key.`,
      args: { ...analysisIssueArgs(t.arg), ...connectionArgs(t.arg) },
      resolve: async (pr, args, ctx) =>
        ctx.loaders.connections.load<AnalysisIssueRow>(
          analysisIssuesOfRun,
          await latestRunIdOf(ctx, pr),
          pageArgs(args),
          analysisIssueFilter(args),
        ),
    }),
    metrics: t.field({
      type: [RepositoryMetricRef],
      description:
        "The metrics the checks of the pull request's newest run recorded, in `MetricShortcode` order, each with only the items measured and the value recorded. Empty when there is no run or it recorded none.",
      resolve: async (pr, _args, ctx) => {
        const runId = await latestRunIdOf(ctx, pr);
        return metricsRecordedByChecks(ctx, await checkIdsByRunId(ctx).load(runId));
      },
    }),
    vulnerabilityOccurrences: t.field({
      type: VulnerabilityOccurrenceConnection,
      nullable: true,
      description: `The dependency vulnerabilities found by the SCA checks ${FROM_LATEST_RUN}, fixed ones left out; most severe first, then by key.`,
      args: connectionArgs(t.arg),
      resolve: async (pr, args, ctx) =>
        ctx.loaders.connections.load<VulnerabilityOccurrenceNode>(
          vulnerabilityOccurrencesOfRun,
          await latestRunIdOf(ctx, pr),
          pageArgs(args),
        ),
    }),
    issueOccurrences: t.field({
      type: OccurrenceConnection,
      nullable: true,
      deprecationReason: "Use `issues`, which carries each finding's code, category and severity.",
      description: `The findings ${FROM_LATEST_RUN}, RESOLVED and silenced ones left out (as \`issues\` leaves them by default), by path, then line, then key. Kept for clients from before March 2026.`,
      args: connectionArgs(t.arg),
      resolve: async (pr, args, ctx) =>
        ctx.loaders.connections.load<OccurrenceRow>(
          occurrencesOfRun,
          await latestRunIdOf(ctx, pr),
          pageArgs(args),
          occurrenceFilter({}),
        ),
    }),
  }),
});

const PullRequestConnection = connectionType("PullRequest", PullRequestRef, "pull request");

builder.objectField(RepositoryRef, "pullRequest", (t) =>
  t.field({
    type: PullRequestRef,
    nullable: true,
    description: `A pull request of the repository by its number. A missing one answers null with the error "${PULL_REQUEST_NOT_FOUND}".`,
    args: {
      number: t.arg.int({ required: true, description: "The pull request's number on its provider." }),
    },
    resolve: (repository, args, ctx) => findRepositoryPullRequest(ctx, repository, args.number),
  }),
);

builder.objectField(RepositoryRef, "pullRequests", (t) =>
  t.field({
    type: PullRequestConnection,
    nullable: true,
    description: "The repository's pull requests, newest first (by creation time, then key).",
    args: {
      ...connectionArgs(t.arg),
      branch: t.arg.string({ required: false, description: "Only pull requests from this source branch." }),
    },
    resolve: (repository, args, ctx) =>
      ctx.loaders.connections.load<PullRequestRow>(
        pullRequestsOfRepository,
        repository.id,
        pageArgs(args),
        pullRequestBranchFilter(args.branch),
      ),
  }),
);

registerNodeType("PullRequest", (ctx, key) => visiblePullRequestByKey(ctx).load(key));
