import type { VcsProvider } from "../../db/types.ts";

/**
 * Where each provider shows a pull (merge) request under a repository's page. GitHub Server and
 * Bitbucket Data Center use the same paths as their cloud versions; Google Source Repositories has
 * no pull requests, so no link is derived for it.
 */
const PULL_REQUEST_PATHS: Partial<Record<VcsProvider, string>> = {
  GITHUB: "pull",
  GITHUB_ENTERPRISE: "pull",
  GITLAB: "-/merge_requests",
  BITBUCKET: "pull-requests",
  BITBUCKET_DATACENTER: "pull-requests",
  ADS: "pullrequest",
};

/**
 * A pull request's page on its provider, derived from the repository's page: `<repository
 * URL>/pull/<n>` on GitHub, `/-/merge_requests/<n>` on GitLab, `/pull-requests/<n>` on Bitbucket,
 * `/pullrequest/<n>` on Azure DevOps. Null when the repository has no URL or the provider has no
 * pull request pages.
 */
export function derivePullRequestVcsUrl(
  provider: VcsProvider,
  repositoryUrl: string | null,
  number: number,
): string | null {
  const path = PULL_REQUEST_PATHS[provider];
  if (!repositoryUrl || !path) return null;
  return `${repositoryUrl.replace(/\/+$/, "")}/${path}/${number}`;
}
