import type { Kysely } from "kysely";
import type { AnalysisRunRow, CheckStatus, Database } from "../db/types.ts";
import type { JobHandler } from "../jobs/worker.ts";
import { findArtifactOutcomesOfCheck } from "../modules/artifacts/artifact-store.ts";
import { findBaseCheckId, findChecksOfRun } from "../modules/checks/check-store.ts";
import { matchScaCheck } from "../modules/dependencies/advisory-matching.ts";
import { findScaCheckIdsOfRun } from "../modules/dependencies/advisory-store.ts";
import {
  findLatestSettledRunOfBranch,
  findPullRequestById,
  findSettledRunOfCommit,
} from "../modules/pull-requests/vcs-event-store.ts";
import { findRepositoryById } from "../modules/repositories/repository-store.ts";
import { REBASE_JOB_KIND } from "../modules/runs/rebase-job.ts";
import { findRunById, lockRun, updateRunBase } from "../modules/runs/run-store.ts";
import { gateOf, settleCheck, settleRun } from "./run-lifecycle.ts";
import { recomputeFindingStates } from "./sarif/finding-states.ts";

/**
 * A run that joins a pull request after it was created (an upload on push before the provider's
 * webhook, or before an upload that names the pull request) was compared with the default
 * branch. Its pull request says which branch it adds to (docs/ingestion.md "Base"): rebasing sets
 * the run's base run from it, as a run made for the pull request would have had it, and sets every
 * finding's state again against the new base, so the pull request's `issuesRaised` counts what
 * it adds to its own base branch.
 */

/** Check statuses a rebase decides again: the finished ones whose findings were judged. */
const JUDGED: ReadonlySet<CheckStatus> = new Set(["SUCCESS", "FAILURE", "NEUTRAL"]);

/**
 * The run the pull request's run should compare with, or "unchanged" when its base is already
 * right: the finished run of the merge base when the provider reported one and it was analysed;
 * else its current base when that is on the base branch (a run made for the pull request
 * already compares with its branch, and a newer run there is no reason to move it); else the
 * base branch's newest finished run (none when the branch has none).
 */
async function baseForPullRequest(
  tx: Kysely<Database>,
  run: AnalysisRunRow,
  baseBranch: string,
  mergeBaseOid: string | null,
): Promise<AnalysisRunRow | undefined | "unchanged"> {
  let base = mergeBaseOid ? await findSettledRunOfCommit(tx, run.repository_id, mergeBaseOid) : undefined;
  if (base === undefined) {
    const current = run.base_run_id === null ? undefined : await findRunById(tx, run.base_run_id);
    if (current?.branch_name === baseBranch) return "unchanged";
    base = await findLatestSettledRunOfBranch(tx, run.repository_id, baseBranch);
  }
  if (base?.id === run.id || (base?.id ?? null) === run.base_run_id) return "unchanged";
  return base;
}

/**
 * Rebases run `runId` on its pull request's base, inside `tx`: locks the run (as processing
 * does, so an artifact is published either before or after), sets its base run, recomputes the
 * states of each findings check's findings against the new base check and settles the checks
 * that had finished, matches its SCA checks again against their new base, and settles the run.
 * A run of no pull request, or of the default branch (compared along the default branch
 * whatever pull request its commit heads), is left as it is. Answers whether it changed.
 */
export async function rebaseRun(tx: Kysely<Database>, runId: string): Promise<boolean> {
  if (!(await lockRun(tx, runId))) return false;
  const run = await findRunById(tx, runId);
  if (run.pull_request_id === null) return false;
  const pullRequest = await findPullRequestById(tx, run.pull_request_id);
  const repository = await findRepositoryById(tx, run.repository_id);
  if (!pullRequest || run.branch_name === repository.default_branch) return false;
  const baseBranch = pullRequest.base_branch ?? repository.default_branch;
  if (baseBranch === null) return false;
  const base = await baseForPullRequest(tx, run, baseBranch, pullRequest.merge_base_oid);
  if (base === "unchanged") return false;

  await updateRunBase(tx, run.id, base ?? null);
  let lastCheckId: string | null = null;
  for (const check of await findChecksOfRun(tx, run.id)) {
    const artifacts = await findArtifactOutcomesOfCheck(tx, check.id);
    // A check holds one analyzer's artifacts, all of one kind; only findings have states.
    if (artifacts[0]?.kind !== "SARIF") continue;
    const baseCheckId = base ? await findBaseCheckId(tx, base.id, check.analyzer_id) : null;
    // Rows of an artifact still being staged are set too; its publication sees the base changed
    // and sets them all again.
    await recomputeFindingStates(tx, check.id, baseCheckId);
    if (JUDGED.has(check.status)) await settleCheck(tx, check, gateOf(run.repository_id, "SARIF"));
    lastCheckId = check.id;
  }
  for (const scaCheckId of await findScaCheckIdsOfRun(tx, run.id)) await matchScaCheck(tx, scaCheckId);
  await settleRun(tx, run.id, lastCheckId);
  return true;
}

/** The `ingest.rebase` job: payload `{ runId }`, rebased in the job's settling transaction. */
export function runRebaseHandler(): JobHandler {
  return {
    kind: REBASE_JOB_KIND,
    async run(job) {
      const { runId } = (job.payload ?? {}) as { runId?: unknown };
      if (typeof runId !== "string") return async () => ({ status: "failed", error: "payload has no runId" });
      return async (tx) => {
        await rebaseRun(tx, runId);
        return { status: "done" };
      };
    },
  };
}
