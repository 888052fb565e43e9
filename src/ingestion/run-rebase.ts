import type { Kysely } from "kysely";
import type { AnalysisRunRow, CheckStatus, Database, PullRequestRow, RepositoryRow } from "../db/types.ts";
import type { ClaimedJob } from "../jobs/job-store.ts";
import type { JobHandler } from "../jobs/worker.ts";
import { findAccountById } from "../modules/accounts/account-store.ts";
import { findArtifactOutcomesOfCheck } from "../modules/artifacts/artifact-store.ts";
import {
  findChecksOfRun,
  findRunsReadingBaseChecksOf,
  lockBaseCheckId,
} from "../modules/checks/check-store.ts";
import { matchScaCheck } from "../modules/dependencies/advisory-matching.ts";
import { findScaCheckIdsOfRun } from "../modules/dependencies/advisory-store.ts";
import { findRunsComparingScansOf } from "../modules/dependencies/sbom-store.ts";
import { markMetricValuesOfRun } from "../modules/metrics/metric-store.ts";
import { runBranchOfPullRequest } from "../modules/pull-requests/pull-request-runs.ts";
import {
  findBranchHead,
  findLatestSettledRunOfBranch,
  findLatestSettledRunOfBranchBefore,
  findPullRequestById,
  findSettledRunOfCommit,
} from "../modules/pull-requests/vcs-event-store.ts";
import {
  findRepositoryById,
  followBranchConfig,
  lockRepositoryNoKeyUpdate,
} from "../modules/repositories/repository-store.ts";
import { enqueueRunRebases, REBASE_JOB_KIND } from "../modules/runs/rebase-job.ts";
import {
  findNearestAnalysedAncestorRun,
  findRepositoryIdOfRun,
  findRunById,
  findRunsBasedOn,
  isAnalysed,
  lockRun,
  lockRunsBasedOn,
  updateRunBase,
  updateRunBranch,
} from "../modules/runs/run-store.ts";
import { announceRepositoryIssues } from "./repository-issue-events.ts";
import { gateOf, settleCheck, settleRun } from "./run-lifecycle.ts";
import { adoptDeferredRenames } from "./run-renames.ts";
import { recomputeFindingStates } from "./sarif/finding-states.ts";
import { recountRunDependencies } from "./sca/dependency-count.ts";

/**
 * A run that joins a pull request after it was created (an upload on push before the provider's
 * webhook, or before an upload that names the pull request) was compared with the default
 * branch. Its pull request says which branch it adds to (docs/ingestion.md "Base"): rebasing sets
 * the run's base run from it, as a run made for the pull request would have had it, and sets every
 * finding's state again against the new base, so the pull request's `issuesRaised` counts what
 * it adds to its own base branch. The same job compares a default-branch run again with its
 * nearest analysed ancestor when an older commit's run came in, or finished, after it
 * (docs/ingestion.md "Where a run stands in the history").
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
 * The branch a default-branch run of a pull request's head moves to, or undefined when it stays
 * on the default branch (docs/vcs-events.md "Runs that move off the default branch"):
 * - a run of a pull request from a fork (whose head branch may be called `main` too, in the
 *   fork) moves to the fork's branch ({@link runBranchOfPullRequest});
 * - a run put on the default branch for want of a branch (`is_branch_defaulted`: its upload named
 *   none, as `createArtifact` cannot) moves to its pull request's branch, when that is another
 *   branch; a run whose upload named the default branch stays.
 * Either stays when its commit is the default branch's head as the provider's last push reported
 * it: the commit is then the default branch's as well, and one run serves both.
 */
async function branchToMoveTo(
  tx: Kysely<Database>,
  run: AnalysisRunRow,
  pullRequest: PullRequestRow,
  defaultBranch: string,
): Promise<string | null | undefined> {
  let branch: string | null;
  if (pullRequest.is_cross_repository) branch = runBranchOfPullRequest(pullRequest, pullRequest.branch);
  else if (run.is_branch_defaulted && pullRequest.branch !== null && pullRequest.branch !== defaultBranch) {
    branch = pullRequest.branch;
  } else return undefined;
  if ((await findBranchHead(tx, run.repository_id, defaultBranch)) === run.commit_oid) return undefined;
  return branch;
}

/**
 * Moves run `run` off the default branch to `branch`, inside `tx`, with what the default branch
 * derived from it: its checks leave the repository's current findings (they are read by branch),
 * its metric values leave the repository's history, and every run whose findings were compared
 * with it is compared again:
 * - a run compared with it (its base run): on the default branch, or of no pull request, with the
 *   default branch's newest analysed run before it; a pull request's run, by its own rebase job;
 * - a run compared with a later default-branch run that had no conclusive check of one of its
 *   analyzers, so that analyzer's base check was this run's, or no scan of a target, so that its
 *   base scan was this run's: with the same base run, whose base checks and scans are then read
 *   without this run's.
 * The rebases of the pull requests' runs are queued before any of those runs is locked, as every
 * transaction takes a run's job rows before the run (docs/ingestion.md "Lock order"): the worker
 * settling one of those rebases holds its job's row and then locks its run. The runs are then
 * locked in the order they were made. The caller holds the repository's lock
 * ({@link runRebaseHandler}), which an upload holds while it chooses its run's base and makes the
 * run: such a run was made before (it is among those compared again) or is made after the move
 * (and does not choose this run). The caller announces the repository's issues afterwards.
 */
async function moveRunOffDefaultBranch(
  tx: Kysely<Database>,
  run: AnalysisRunRow,
  branch: string | null,
  defaultBranch: string,
): Promise<void> {
  const readers = [
    ...new Set([
      ...(await findRunsReadingBaseChecksOf(tx, run.id, defaultBranch)),
      ...(await findRunsComparingScansOf(tx, run.id)),
    ]),
  ];
  // Read unlocked, but no run can become based on this one meanwhile: that takes KEY SHARE on this
  // run's row, which this transaction holds FOR UPDATE.
  const queued = (await findRunsBasedOn(tx, run.id))
    .filter((dependent) => isRebasedByItsPullRequest(dependent, run, defaultBranch))
    .map((dependent) => dependent.id);
  await enqueueRunRebases(tx, queued);
  const dependents = await lockRunsBasedOn(tx, run.id, readers);
  await updateRunBranch(tx, run.id, branch);
  await markMetricValuesOfRun(tx, run.id, false);
  // The repository's configuration follows the default branch (docs/ingestion.md "The
  // repository's configuration"); the caller holds the repository's lock (runRebaseHandler).
  if (run.config_json !== null) await followBranchConfig(tx, run.repository_id, defaultBranch);
  const attachedSince: string[] = [];
  for (const dependent of dependents) {
    if (dependent.base_run_id !== run.id) {
      await compareRunWith(tx, dependent, await findRunById(tx, dependent.base_run_id as string));
    } else if (isRebasedByItsPullRequest(dependent, run, defaultBranch)) {
      if (!queued.includes(dependent.id)) attachedSince.push(dependent.id);
    } else {
      const base = await findLatestSettledRunOfBranchBefore(tx, run.repository_id, defaultBranch, dependent);
      await compareRunWith(tx, dependent, base);
    }
  }
  // A run attached to its pull request between the read and its lock (only a caller without the
  // repository's lock, which every attachment takes, can meet one): the attaching transaction
  // queued its rebase too, but that rebase may have run already, against this run.
  await enqueueRunRebases(tx, attachedSince);
}

/** True when `dependent`, compared with `run`, is a pull request's run its own rebase compares again. */
function isRebasedByItsPullRequest(
  dependent: AnalysisRunRow,
  run: AnalysisRunRow,
  defaultBranch: string,
): boolean {
  return (
    dependent.base_run_id === run.id &&
    dependent.pull_request_id !== null &&
    dependent.branch_name !== defaultBranch
  );
}

/**
 * Compares run `run` with `base` (none when undefined), inside `tx`: sets its base run,
 * compares its findings checks with their new base checks ({@link compareChecksWith}), matches
 * its SCA checks again against their new base, and settles the run. When `base` is no longer
 * analysed once set, compares it past `base` instead ({@link rebaseOffUnanalysedBase}): setting
 * it waited for a transaction holding `base`'s row, the settlement of a late artifact that left
 * it SKIPPED, which looked for the runs compared with it before this one was. The caller holds
 * the run's lock.
 */
async function compareRunWith(
  tx: Kysely<Database>,
  run: AnalysisRunRow,
  base: AnalysisRunRow | undefined,
): Promise<void> {
  await updateRunBase(tx, run.id, base ?? null);
  if (base !== undefined && !isAnalysed(await findRunById(tx, base.id))) {
    await rebaseOffUnanalysedBase(tx, await findRunById(tx, run.id));
    return;
  }
  // A rename against the commit it is now compared with is matched from now on.
  if (base) await adoptDeferredRenames(tx, { id: run.id, base_oid: base.commit_oid });
  const lastCheckId = await compareChecksWith(tx, run, base);
  await matchScaChecksOfRun(tx, run.id);
  // Announced by rebaseRun, after the last check this transaction writes.
  await settleRun(tx, run.id, lastCheckId, { announce: false });
}

/**
 * Matches each SCA check of run `runId` again against its base scan as it stands now
 * (`findScaCheckWithBase`); a check whose base scan and advisories are the ones it was matched
 * with is left as it is. The caller holds the run's lock.
 */
async function matchScaChecksOfRun(tx: Kysely<Database>, runId: string): Promise<void> {
  for (const scaCheckId of await findScaCheckIdsOfRun(tx, runId)) await matchScaCheck(tx, scaCheckId);
}

/**
 * Sets again the states of each findings check of run `run` whose base check is not the one its
 * base run `base` gives it now ({@link findBaseCheckId}), and settles those that had finished;
 * answers the last one, null when every check already compared with its base check. The caller
 * holds the run's lock and settles the run.
 */
async function compareChecksWith(
  tx: Kysely<Database>,
  run: AnalysisRunRow,
  base: AnalysisRunRow | undefined,
): Promise<string | null> {
  let lastCheckId: string | null = null;
  for (const check of await findChecksOfRun(tx, run.id)) {
    const artifacts = await findArtifactOutcomesOfCheck(tx, check.id);
    // A check holds one analyzer's artifacts, all of one kind; only findings have states.
    if (artifacts[0]?.kind !== "SARIF") continue;
    // A check none of whose artifacts was published has compared with nothing yet: its
    // publication reads its base check then, and sets every state again when that is not the one
    // staging read (src/ingestion/sarif/process.ts).
    if (!isPublished(artifacts)) continue;
    // Held until this commits, as a publication holds it: a settlement leaving it NEUTRAL or
    // failed meanwhile then finds this check compared with it (docs/ingestion.md "Lock order").
    const baseCheckId = base ? await lockBaseCheckId(tx, base.id, check.analyzer_id) : null;
    // Compared with its base check already: its states stand. (When the new base run's check of
    // the analyzer is NEUTRAL or failed, the rule walks back to the same check.)
    if (sameCheck(check.base_check_id, baseCheckId)) continue;
    // Rows of an artifact still being staged are set too; its publication sees the base check
    // changed and sets them all again.
    await recomputeFindingStates(tx, check.id, baseCheckId);
    if (JUDGED.has(check.status)) await settleCheck(tx, check, gateOf(run.repository_id, "SARIF"));
    lastCheckId = check.id;
  }
  return lastCheckId;
}

/** True when both name the same check, or neither names one. */
function sameCheck(a: string | null, b: string | null): boolean {
  return (a === null ? null : String(a)) === (b === null ? null : String(b));
}

/** True when some artifact of the check was published (its states were set against a base check). */
function isPublished(artifacts: ReadonlyArray<{ status: string }>): boolean {
  return artifacts.some((artifact) => artifact.status === "PROCESSED");
}

/**
 * Rebases run `runId` on the base it should have, inside `tx`: locks the run (as processing
 * does, so an artifact is published either before or after), compares it with the base it
 * should have ({@link rebaseOnItsBase}), then past a base run that is no longer analysed
 * ({@link rebaseOffUnanalysedBase}: one a move to its pull request's branch kept among them);
 * when its base run stays, compares again each findings
 * check whose base check is no longer the one the rule reaches through that base run (a late
 * run's check came in between: docs/ingestion.md "Where a run stands in the history"); and counts
 * its DDP again ({@link recountRunDependencies}); then announces the repository's issues, once,
 * when a run it settled is the default branch's or it moved one off it. Answers whether it
 * changed. The worker holds the run's repository's lock when it calls this
 * ({@link runRebaseHandler}).
 */
export async function rebaseRun(tx: Kysely<Database>, runId: string): Promise<boolean> {
  if (!(await lockRun(tx, runId))) return false;
  const onItsBase = await rebaseOnItsBase(tx, await findRunById(tx, runId));
  const { moved } = onItsBase;
  // Also after a move, which leaves the base alone when its pull request keeps it: a base on the
  // base branch that is no longer analysed is moved past all the same.
  const offUnanalysed = await rebaseOffUnanalysedBase(tx, await findRunById(tx, runId));
  const rebased = onItsBase.rebased || offUnanalysed;
  const run = await findRunById(tx, runId);
  // Its base run stays, but a late run's check may now stand between it and the check an analyzer
  // was compared with.
  const base = rebased || run.base_run_id === null ? undefined : await findRunById(tx, run.base_run_id);
  const comparedCheckId = rebased ? null : await compareChecksWith(tx, run, base);
  // And a late run's scan of a target between it and the scan its own was compared with; matching
  // again writes only what changed.
  if (!rebased) await matchScaChecksOfRun(tx, run.id);
  const recounted = await recountRunDependencies(tx, run.id);
  // A DDP threshold may judge the run's dependency check otherwise now.
  if (recounted !== undefined && JUDGED.has(recounted.status)) {
    await settleCheck(tx, recounted, gateOf(run.repository_id, "SBOM"));
  }
  const lastCheckId = comparedCheckId ?? recounted?.id ?? null;
  if (lastCheckId !== null) await settleRun(tx, run.id, lastCheckId, { announce: false });
  // Announced once, last, after every lock this transaction takes, for the runs it settled: a
  // publication may hold a check this writes after settling another run, and then wait for the
  // announcement (docs/ingestion.md "Lock order"). A run moved off the default branch no longer
  // counts among the repository's current findings, and the runs compared again with it may.
  const repository = await findRepositoryById(tx, run.repository_id);
  const settled = await findRunById(tx, runId);
  const settledOnDefaultBranch =
    (rebased || lastCheckId !== null) &&
    settled.branch_name === repository.default_branch &&
    isAnalysed(settled);
  if (moved || settledOnDefaultBranch) {
    await announceRepositoryIssues(tx, repository, await findAccountById(tx, repository.account_id));
  }
  return rebased || lastCheckId !== null;
}

/**
 * Compares run `run` with the base it should have ({@link compareRunWith}), whose lock the caller
 * holds: the base its pull request gives it. A run of the default branch is first moved to its
 * pull request's branch when it belongs there ({@link branchToMoveTo}), else left on the default
 * branch (compared along it whatever pull request its commit heads), where it is compared with
 * its nearest analysed ancestor when that is nearer than its base ({@link rebaseInHistory}). A
 * run of another branch and no pull request keeps its base, unless its upload named a merge base
 * whose run is analysed now ({@link rebaseOnMergeBase}). Answers whether it was compared again
 * or moved (`rebased`), and whether it moved: the caller then announces the repository's issues.
 */
async function rebaseOnItsBase(
  tx: Kysely<Database>,
  current: AnalysisRunRow,
): Promise<{ rebased: boolean; moved: boolean }> {
  let run = current;
  const repository = await findRepositoryById(tx, run.repository_id);
  const onDefaultBranch = repository.default_branch !== null && run.branch_name === repository.default_branch;
  const pullRequest =
    run.pull_request_id === null ? undefined : await findPullRequestById(tx, run.pull_request_id);
  const inHistory = async () => ({ rebased: await rebaseInHistory(tx, run), moved: false });
  if (!pullRequest) {
    if (onDefaultBranch) return inHistory();
    return { rebased: await rebaseOnMergeBase(tx, run), moved: false };
  }
  let moved = false;
  if (onDefaultBranch && repository.default_branch !== null) {
    const branch = await branchToMoveTo(tx, run, pullRequest, repository.default_branch);
    if (branch === undefined) return inHistory();
    await moveRunOffDefaultBranch(tx, run, branch, repository.default_branch);
    run = await findRunById(tx, run.id);
    moved = true;
  }
  const changed = await rebaseOnPullRequest(tx, run, pullRequest, repository);
  return { rebased: moved || changed, moved };
}

/**
 * Compares a default-branch run whose upload sent its ancestry with its nearest analysed ancestor
 * placed before it, when that is nearer than its base run (or it has none, or one that is not its
 * ancestor): a run of an older commit that came in, or finished, after it (docs/ingestion.md
 * "Where a run stands in the history"). Never moves a base farther back. Answers whether it did.
 */
async function rebaseInHistory(tx: Kysely<Database>, run: AnalysisRunRow): Promise<boolean> {
  const ancestors = run.ancestor_oids;
  if (run.branch_name === null) return false;
  if (ancestors === null) return rebaseInUploadOrder(tx, run, run.branch_name);
  const nearest = await findNearestAnalysedAncestorRun(
    tx,
    run.repository_id,
    run.branch_name,
    ancestors,
    run.id,
  );
  if (nearest === undefined || nearest.id === run.base_run_id) return false;
  const current = run.base_run_id === null ? undefined : await findRunById(tx, run.base_run_id);
  const positionOf = (commit: string) => {
    const index = ancestors.indexOf(commit);
    return index === -1 ? Number.POSITIVE_INFINITY : index;
  };
  if (current !== undefined && positionOf(current.commit_oid) <= positionOf(nearest.commit_oid)) return false;
  await compareRunWith(tx, run, nearest);
  return true;
}

/**
 * Compares a run given a base branch and no pull request (`baseBranch` alone) with the run of the
 * merge base its upload named, once that run is analysed and is not its base already; answers
 * whether it did. Without a merge base, or before its run is analysed, the run keeps its base.
 */
async function rebaseOnMergeBase(tx: Kysely<Database>, run: AnalysisRunRow): Promise<boolean> {
  if (run.merge_base_oid === null) return false;
  const base = await findSettledRunOfCommit(tx, run.repository_id, run.merge_base_oid);
  if (base === undefined || base.id === run.id || base.id === run.base_run_id) return false;
  await compareRunWith(tx, run, base);
  return true;
}

/**
 * Compares a default-branch run whose upload sent no ancestry (it follows the upload order) with
 * the newest analysed run of its branch placed before it, when that is not its base: a run made
 * before it that was analysed only after it was made. Never moves a base farther back: only a run
 * compared with none, or with an analysed run of its branch (which that newest one cannot be
 * before), is compared again. Answers whether it was.
 */
async function rebaseInUploadOrder(
  tx: Kysely<Database>,
  run: AnalysisRunRow,
  branch: string,
): Promise<boolean> {
  const newest = await findLatestSettledRunOfBranchBefore(tx, run.repository_id, branch, run);
  if (newest === undefined || newest.id === run.base_run_id) return false;
  const current = run.base_run_id === null ? undefined : await findRunById(tx, run.base_run_id);
  if (current !== undefined && (current.branch_name !== branch || !isAnalysed(current))) return false;
  await compareRunWith(tx, run, newest);
  return true;
}

/**
 * Compares run `run` again when its base run is no longer analysed (a late artifact left it
 * SKIPPED: it judged nothing, and is no one's base) with the base it would have had without it:
 * its nearest analysed ancestor placed before it, when its upload sent its ancestry and it is on
 * its base's branch, else the newest analysed run of its base's branch placed before it (none
 * when there is none). Answers whether it did.
 */
async function rebaseOffUnanalysedBase(tx: Kysely<Database>, run: AnalysisRunRow): Promise<boolean> {
  if (run.base_run_id === null) return false;
  const current = await findRunById(tx, run.base_run_id);
  const branch = current.branch_name;
  if (isAnalysed(current) || branch === null) return false;
  const nearest =
    run.ancestor_oids !== null && run.branch_name === branch
      ? await findNearestAnalysedAncestorRun(tx, run.repository_id, branch, run.ancestor_oids, run.id)
      : undefined;
  await compareRunWith(
    tx,
    run,
    nearest ?? (await findLatestSettledRunOfBranchBefore(tx, run.repository_id, branch, run)),
  );
  return true;
}

/** Compares a pull request's run with its pull request's base when that changed; answers whether it did. */
async function rebaseOnPullRequest(
  tx: Kysely<Database>,
  run: AnalysisRunRow,
  pullRequest: PullRequestRow,
  repository: RepositoryRow,
): Promise<boolean> {
  const baseBranch = pullRequest.base_branch ?? repository.default_branch;
  if (baseBranch === null) return false;
  // The merge base the run was made for, else (a run made before migration 0042, or whose
  // upload named none) its pull request's.
  const mergeBaseOid = run.merge_base_oid ?? pullRequest.merge_base_oid;
  const base = await baseForPullRequest(tx, run, baseBranch, mergeBaseOid);
  if (base === "unchanged") return false;
  await compareRunWith(tx, run, base);
  return true;
}

/**
 * The `ingest.rebase` job: payload `{ runId }`, rebased in the job's settling transaction, which
 * locks the run's repository before the job's row: a move off the default branch must not
 * interleave with an upload choosing its run's base, and uploads and provider deliveries take
 * the repository's lock before they queue a rebase (docs/ingestion.md "Lock order").
 */
export function runRebaseHandler(): JobHandler {
  return {
    kind: REBASE_JOB_KIND,
    async lockBeforeJob(tx, job) {
      const runId = runIdOf(job);
      const repositoryId = runId === undefined ? undefined : await findRepositoryIdOfRun(tx, runId);
      if (repositoryId !== undefined) await lockRepositoryNoKeyUpdate(tx, repositoryId);
    },
    async run(job) {
      const runId = runIdOf(job);
      if (runId === undefined) return async () => ({ status: "failed", error: "payload has no runId" });
      return async (tx) => {
        await rebaseRun(tx, runId);
        return { status: "done" };
      };
    },
  };
}

/** The run a rebase job names; undefined when its payload names none. */
function runIdOf(job: ClaimedJob): string | undefined {
  const { runId } = (job.payload ?? {}) as { runId?: unknown };
  return typeof runId === "string" ? runId : undefined;
}
