import type { PullRequestRow, RepositoryRow } from "../../db/types.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { notFound } from "../../graphql/errors.ts";
import { accountById } from "../accounts/account-loaders.ts";
import { accountVcsUrl } from "../accounts/vcs.ts";
import { runSummaryByRunId, vulnerabilitiesIntroducedByRunId } from "../checks/checks-loaders.ts";
import { repositoryById } from "../repositories/repository-loaders.ts";
import { latestRunByPullRequestId, pullRequestByNumber } from "./pull-request-loaders.ts";
import { derivePullRequestVcsUrl } from "./pull-request-vcs.ts";

/** Real clients match this exact text to tell "no such pull request" apart from other errors. */
export const PULL_REQUEST_NOT_FOUND = "Pull request matching query does not exist";

/**
 * The run id a pull request's run-based connections read when it has no run. Identity ids start
 * at 1, so no row has parent 0: the connection answers an empty page through the same batched
 * statement as its siblings, with its arguments validated the same way.
 */
export const NO_RUN_ID = "0";

/** `PRSummary`. */
export interface PullRequestSummary {
  issuesRaised: number;
  issuesResolved: number;
  issuesSuppressed: number;
  vulnerabilitiesRaised: number;
}

/** The pull request `number` of `repository` (which the viewer sees); NOT_FOUND when there is none. */
export async function findRepositoryPullRequest(
  ctx: GraphQLContext,
  repository: RepositoryRow,
  number: number,
): Promise<PullRequestRow> {
  const pullRequest = await pullRequestByNumber(ctx).load(`${repository.id}:${number}`);
  if (!pullRequest) throw notFound(PULL_REQUEST_NOT_FOUND);
  return pullRequest;
}

/** The id of the pull request's newest run, or {@link NO_RUN_ID} when it has none. */
export async function latestRunIdOf(ctx: GraphQLContext, pullRequest: PullRequestRow): Promise<string> {
  const run = await latestRunByPullRequestId(ctx).load(pullRequest.id);
  return run ? String(run.id) : NO_RUN_ID;
}

/**
 * Totals of the pull request's newest run: its findings introduced (and not suppressed),
 * resolved and suppressed, and the vulnerability occurrences its SCA checks introduced. Null
 * when the pull request has no run.
 */
export async function summarisePullRequest(
  ctx: GraphQLContext,
  pullRequest: PullRequestRow,
): Promise<PullRequestSummary | null> {
  const run = await latestRunByPullRequestId(ctx).load(pullRequest.id);
  if (!run) return null;
  const [summary, vulnerabilities] = await Promise.all([
    runSummaryByRunId(ctx).load(String(run.id)),
    vulnerabilitiesIntroducedByRunId(ctx).load(String(run.id)),
  ]);
  return {
    issuesRaised: summary.introduced,
    issuesResolved: summary.resolved,
    issuesSuppressed: summary.suppressed,
    vulnerabilitiesRaised: vulnerabilities,
  };
}

/**
 * The pull request's page on its provider: the stored URL, else one derived from the
 * repository's page (stored, or the account's page plus the repository name) by
 * {@link derivePullRequestVcsUrl}.
 */
export async function pullRequestVcsUrl(
  ctx: GraphQLContext,
  pullRequest: PullRequestRow,
): Promise<string | null> {
  if (pullRequest.vcs_url) return pullRequest.vcs_url;
  const repository = (await repositoryById(ctx).load(pullRequest.repository_id))!;
  const account = (await accountById(ctx).load(repository.account_id))!;
  const base = accountVcsUrl(account);
  const repositoryUrl =
    repository.vcs_url ?? (base ? `${base}/${encodeURIComponent(repository.name)}` : null);
  return derivePullRequestVcsUrl(account.vcs_provider, repositoryUrl, pullRequest.number);
}
