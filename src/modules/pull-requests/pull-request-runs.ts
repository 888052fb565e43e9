import type { Kysely } from "kysely";
import type { AnalysisRunRow, Database, PullRequestRow, RepositoryRow } from "../../db/types.ts";
import {
  findOpenPullRequestOfHead,
  findPullRequestBaseRun,
  findPullRequestByNumber,
  insertPullRequestOfUpload,
  updatePullRequestOfUpload,
} from "./vcs-event-store.ts";

/**
 * Which pull request a new run belongs to and what it is compared with (docs/vcs-events.md "Pull
 * request runs"). Used by the ingestion pipeline inside the upload's transaction, which holds the
 * repository's lock (so webhook deliveries to the repository wait).
 */

/** What an upload says about its pull request. */
export interface UploadPullRequestSpec {
  commitOid: string;
  branch: string | null;
  pullRequestNumber?: number | null;
  baseBranch?: string | null;
  /** Where the commit meets the base branch (`git merge-base`), when the upload says. */
  mergeBaseOid?: string | null;
}

/** The run's pull request (if any), its branch when the upload named none, and its base. */
export interface RunPullRequest {
  pullRequest: PullRequestRow | null;
  /**
   * The upload's branch, else the pull request's source branch; for a pull request from a fork,
   * qualified by the fork's name ({@link runBranchOfPullRequest}).
   */
  branch: string | null;
  /** The branch compared with: the upload's, else the pull request's base; null for the default branch. */
  baseBranch: string | null;
  mergeBaseOid: string | null;
}

/**
 * The pull request of an upload: the one it names by number (created when unknown, moved to this
 * head unless a provider manages it), else the open pull request whose head is the commit.
 */
export async function pullRequestOfUpload(
  tx: Kysely<Database>,
  repository: RepositoryRow,
  spec: UploadPullRequestSpec,
): Promise<RunPullRequest> {
  const baseBranch = spec.baseBranch ?? null;
  const mergeBaseOid = spec.mergeBaseOid ?? null;
  let pullRequest: PullRequestRow | null = null;
  if (spec.pullRequestNumber) {
    const upload = { branch: spec.branch, baseBranch, commitOid: spec.commitOid, mergeBaseOid };
    const stored = await findPullRequestByNumber(tx, repository.id, spec.pullRequestNumber);
    if (!stored) {
      pullRequest = await insertPullRequestOfUpload(tx, repository.id, {
        ...upload,
        number: spec.pullRequestNumber,
        baseBranch: baseBranch ?? repository.default_branch,
      });
    } else {
      pullRequest =
        stored.vcs_updated_at === null ? await updatePullRequestOfUpload(tx, stored.id, upload) : stored;
    }
  } else {
    pullRequest = (await findOpenPullRequestOfHead(tx, repository.id, spec.commitOid)) ?? null;
  }
  return {
    pullRequest,
    branch: runBranchOfPullRequest(pullRequest, spec.branch ?? pullRequest?.branch ?? null),
    baseBranch: baseBranch ?? pullRequest?.base_branch ?? null,
    // The upload's own, computed by git for this very commit, before the provider's.
    mergeBaseOid: mergeBaseOid ?? pullRequest?.merge_base_oid ?? null,
  };
}

/**
 * The branch a run of `pullRequest`'s head is on, given the head branch's name: that name for a
 * pull request within the repository (or no pull request); for one from another repository (a
 * fork), `<head repository>:<branch>`, which no branch of this repository can be called (git
 * refuses `:` in a branch name), or no branch when the fork's name is not known. So a fork's
 * `main` is never taken for the default branch, nor a fork's `develop` for the base branch of
 * another pull request (docs/vcs-events.md "Pull requests from forks").
 */
export function runBranchOfPullRequest(
  pullRequest: PullRequestRow | null,
  branch: string | null,
): string | null {
  if (!pullRequest?.is_cross_repository || branch === null) return branch;
  return pullRequest.head_repository === null ? null : `${pullRequest.head_repository}:${branch}`;
}

/**
 * The run a new run of a pull request (or with a base branch) is compared with: the finished run
 * of the merge base when known, else the base branch's newest finished run. Undefined when the
 * branch has none; the caller falls back to the default branch only when there is no base branch.
 */
export function baseRunOfPullRequest(
  tx: Kysely<Database>,
  repository: RepositoryRow,
  target: RunPullRequest,
): Promise<AnalysisRunRow | undefined> {
  return findPullRequestBaseRun(tx, repository.id, target.baseBranch as string, target.mergeBaseOid);
}
