import type { Kysely } from "kysely";
import type { AnalysisRunRow, Database, NewAnalysisRun, RepositoryRow } from "../../db/types.ts";
import { baseRunOfPullRequest, pullRequestOfUpload } from "../pull-requests/pull-request-runs.ts";
import { setAccountVcsSecret, setRepositoryVcsSecret } from "../pull-requests/vcs-secret-service.ts";
import { findRepositoryById } from "../repositories/repository-store.ts";
import { insertRun } from "../runs/run-store.ts";
import { type DeliveryTarget, deliverPullRequestChange, deliverPush, receivesWebhooks } from "./demo-vcs.ts";
import type { PlannedPullRequest, PlannedRun, RepositoryPlan } from "./plan-types.ts";

/**
 * One repository's runs and pull requests, replayed in the order they happened (docs/read-model.md
 * "Generated data"): the repository gets a webhook secret; each pull request is opened, updated and
 * closed by signed provider deliveries (GitHub, GitLab; a Bitbucket one is created by its first
 * upload naming it, as Assay receives no Bitbucket webhooks); each run of a pull request is
 * attached to it and given its base by the code a PR-aware upload goes through; pushes set the
 * branch heads. Default-branch runs, and branch runs without a pull request, keep the base the
 * history planned (the latest analysed default-branch run, as an upload's run would get).
 */

/** The repository and its runs (by key) as stored, and how many pull requests the replay created. */
export interface ReplayedHistory {
  repository: RepositoryRow;
  runs: Map<string, AnalysisRunRow>;
  pullRequests: number;
}

function runRow(repositoryId: string, run: PlannedRun): NewAnalysisRun {
  return {
    key: run.key,
    run_uid: run.runUid,
    repository_id: repositoryId,
    branch_name: run.branch,
    commit_oid: run.commitOid,
    status: run.status,
    created_at: run.createdAt,
    updated_at: run.updatedAt,
    finished_at: run.finishedAt,
    base_oid: run.baseOid,
    base_run_id: null,
    pull_request_id: null,
  };
}

/** What {@link replayHistory} needs of the seed: the pepper, the accounts' ids and their shared secrets. */
export interface ReplayContext {
  pepper: string;
  accountIds: Map<string, string>;
  accountSecrets: Map<string, string>;
}

/**
 * The secret `plan`'s deliveries are signed with. GitHub repositories share their account's
 * secret, as the repositories of a GitHub App installation do (set once per account); GitLab
 * projects each have their own.
 */
async function webhookSecret(
  tx: Kysely<Database>,
  ctx: ReplayContext,
  plan: RepositoryPlan,
  repository: { id: string; key: string },
): Promise<string> {
  if (plan.repository.provider !== "GITHUB") {
    return setRepositoryVcsSecret(tx, repository, ctx.pepper, null);
  }
  const accountKey = plan.repository.accountKey;
  let secret = ctx.accountSecrets.get(accountKey);
  if (secret === undefined) {
    const id = ctx.accountIds.get(accountKey);
    if (id === undefined) throw new Error(`account ${accountKey} was not written`);
    secret = await setAccountVcsSecret(tx, { id, key: accountKey }, ctx.pepper, null);
    ctx.accountSecrets.set(accountKey, secret);
  }
  return secret;
}

/** Replays `plan`'s runs and pull requests into repository `repositoryId`. */
export async function replayHistory(
  tx: Kysely<Database>,
  ctx: ReplayContext,
  plan: RepositoryPlan,
  repositoryId: string,
): Promise<ReplayedHistory> {
  const { pepper } = ctx;
  const repository = await findRepositoryById(tx, repositoryId);
  const target: DeliveryTarget | null = receivesWebhooks(plan.repository)
    ? {
        repository: plan.repository,
        secret: await webhookSecret(tx, ctx, plan, { id: repository.id, key: repository.key }),
      }
    : null;
  const pullRequests = new Map(plan.pullRequests.map((pr) => [pr.key, pr]));
  const opened = new Set<string>();
  const heads = new Map<string, string>();
  const runs = new Map<string, AnalysisRunRow>();
  for (const run of plan.runs) {
    const pr = run.pullRequestKey === null ? undefined : pullRequests.get(run.pullRequestKey);
    const row = runRow(repositoryId, run);
    if (pr) {
      if (target) {
        const first = !opened.has(pr.key);
        await deliverPullRequestChange(tx, pepper, target, {
          action: first ? "opened" : "synchronize",
          pr,
          headOid: run.commitOid,
          at: first ? pr.createdAt : run.createdAt,
        });
      }
      opened.add(pr.key);
      Object.assign(row, await pullRequestRunColumns(tx, repository, pr, run, target !== null));
    } else if (run.baseRunKey !== null) {
      row.base_run_id = runs.get(run.baseRunKey)?.id ?? null;
    }
    runs.set(run.key, await insertRun(tx, row));
    heads.set(run.branch, run.commitOid);
  }
  if (target) {
    for (const pr of plan.pullRequests) {
      const head = heads.get(pr.branch);
      if (pr.state !== "OPEN" && head) {
        await deliverPullRequestChange(tx, pepper, target, {
          action: "closed",
          pr,
          headOid: head,
          at: pr.updatedAt,
        });
      }
    }
    const openBranches = plan.pullRequests.filter((pr) => pr.state === "OPEN").map((pr) => pr.branch);
    for (const branch of [plan.repository.defaultBranch, ...openBranches]) {
      const head = heads.get(branch);
      if (head)
        await deliverPush(tx, pepper, target, { branch, headOid: head, at: plan.repository.updatedAt });
    }
  }
  return { repository, runs, pullRequests: opened.size };
}

/**
 * The pull request and base of a pull request's run, as an upload naming the pull request gets
 * them; throws when the real code compares the run with another run than the history planned
 * (the findings' states would then not agree with the base).
 */
async function pullRequestRunColumns(
  tx: Kysely<Database>,
  repository: RepositoryRow,
  pr: PlannedPullRequest,
  run: PlannedRun,
  fromWebhooks: boolean,
): Promise<Pick<NewAnalysisRun, "pull_request_id" | "base_run_id" | "base_oid">> {
  const found = await pullRequestOfUpload(tx, repository, {
    commitOid: run.commitOid,
    branch: run.branch,
    pullRequestNumber: pr.number,
    // Without webhooks the upload names the branch it targets, as `assay upload --base-branch` does.
    baseBranch: fromWebhooks ? null : pr.baseBranch,
  });
  const base = found.baseBranch ? await baseRunOfPullRequest(tx, repository, found) : undefined;
  if ((base?.commit_oid ?? null) !== run.baseOid) {
    throw new Error(
      `run ${run.key} of pull request ${pr.number} is compared with ${base?.commit_oid ?? "nothing"}, planned ${run.baseOid}`,
    );
  }
  return {
    pull_request_id: found.pullRequest?.id ?? null,
    base_run_id: base?.id ?? null,
    base_oid: base?.commit_oid ?? null,
  };
}
