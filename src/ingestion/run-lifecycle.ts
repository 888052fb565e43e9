import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type {
  AccountRow,
  AnalysisRunRow,
  AnalysisRunStatus,
  AnalyzerRow,
  CheckStatus,
  Database,
  RepositoryRow,
} from "../db/types.ts";
import type { ArtifactKind } from "../db/types-ingestion.ts";
import { enabledAnalyzerNames } from "../formats/deepsource-config/reader.ts";
import { newRowKey } from "../graphql/global-id.ts";
import { enqueueJob } from "../jobs/job-store.ts";
import { findAccountById } from "../modules/accounts/account-store.ts";
import { findArtifactOutcomesOfCheck } from "../modules/artifacts/artifact-store.ts";
import { findAnalyzersByIds, findAnalyzersByShortcodes } from "../modules/catalog/catalog-store.ts";
import {
  countOccurrencesOfChecks,
  findCheckOfRunByAnalyzer,
  findChecksOfRun,
  findLastCheckSequence,
  findRunsComparedWithInconclusiveChecksOf,
  findRunsReadingBaseChecksOf,
  finishCheck,
  insertCheck,
  reopenCheck,
} from "../modules/checks/check-store.ts";
import { refreshCheckIssueCounts } from "../modules/checks/issue-count-store.ts";
import {
  countCheckFailingOccurrences,
  deleteResolvedOccurrencesOfCheck,
} from "../modules/checks/occurrence-store.ts";
import { EMPTY_SUMMARY, summariseByParent, summariseOccurrences } from "../modules/checks/summary.ts";
import { findRunsComparingScansOf, findRunsCountingScansOf } from "../modules/dependencies/sbom-store.ts";
import { recordEvent } from "../modules/events/outbox.ts";
import { baseRunOfPullRequest, pullRequestOfUpload } from "../modules/pull-requests/pull-request-runs.ts";
import { setRunPullRequest } from "../modules/pull-requests/vcs-event-store.ts";
import { findRepositoryById } from "../modules/repositories/repository-store.ts";
import { enqueueHistoryRebases, enqueueRunRebases } from "../modules/runs/rebase-job.ts";
import {
  findDescendantRunsComparedFurtherBack,
  findLatestDefaultBranchRuns,
  findNearestAnalysedAncestorRun,
  findRunById,
  findRunOfCommit,
  findRunsAwaitingMergeBase,
  findRunsBasedOn,
  findRunsInUploadOrderComparedFurtherBack,
  insertRunWithDeadline,
  isAnalysed,
  lockRunHistory,
  markRunBranchNamed,
  placementInHistory,
  updateRunMergeBase,
  updateRunStatus,
} from "../modules/runs/run-store.ts";
import { PRIORITY_OF_SEVERITY } from "../modules/settings/settings-service.ts";
import {
  analysisRunStartedEvent,
  analysisRunUpdatedEvent,
  type CheckForEvent,
} from "../modules/webhooks/payloads.ts";
import { coverageGateFailures } from "./coverage/metrics.ts";
import { announceRepositoryIssues } from "./repository-issue-events.ts";
import { isEverythingLost } from "./types.ts";

/**
 * A run's life (docs/ingestion.md "The run's life"): one run per (repository, commit), created by
 * the first upload with its base and its expected checks, and settled — check by check, then the
 * run — after each processed artifact or when its deadline passes. Every function here runs inside
 * the caller's transaction and writes only through `tx`.
 */

/** The job that ends a run's WAITING checks when its deadline passes. */
export const DEADLINE_JOB_KIND = "ingest.deadline";

/** A check row as this module reads it. */
export interface CheckRow {
  id: string;
  key: string;
  run_id: string;
  analyzer_id: string;
  sequence: number;
  status: CheckStatus;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

/** What {@link openRun} needs to create a run. */
export interface NewRunSpec {
  commitOid: string;
  branch: string | null;
  timeoutSeconds: number;
  /** The pull request the upload names, and the branch to compare with (docs/vcs-events.md). */
  pullRequestNumber?: number | null;
  baseBranch?: string | null;
  /** Where the commit meets the base branch, when the upload says (`git merge-base`). */
  mergeBaseOid?: string | null;
  /**
   * The commit's first-parent ancestors, nearest first, when the upload says (`git rev-list
   * --first-parent`): a default-branch run is compared with its nearest analysed ancestor and
   * placed before the runs of its descendants (docs/ingestion.md "Where a run stands in the
   * history").
   */
  ancestorOids?: readonly string[] | null;
  /**
   * The configuration (`.deepsource.toml` as JSON) the upload carries: a new run keeps it and
   * expects its analyzers instead of the repository's (docs/ingestion.md "The repository's
   * configuration").
   */
  config?: Record<string, unknown> | null;
}

/**
 * The run of `spec.commitOid` (its run on the branch the spec names, when it has one there),
 * created when there is none yet (`created: true`), or when an upload of the default branch finds
 * the commit analysed on other branches only: branch from the spec, else its pull request's, else
 * (a run of no pull request) the repository's default branch; its pull request the one the spec
 * names or the open one whose head the commit is (none for such a default-branch upload); base = the base branch's last analysed
 * run (the merge base's when known) for a pull request or a given base branch, else the default
 * branch's; a WAITING check per analyzer of the catalog that the upload's configuration (else the
 * repository's) turns on, with a deadline job; the upload's configuration kept on the run. The caller holds the
 * repository row lock, so two first uploads make one run.
 */
export async function openRun(
  tx: Kysely<Database>,
  repository: RepositoryRow,
  account: AccountRow,
  spec: NewRunSpec,
): Promise<{ run: AnalysisRunRow; created: boolean }> {
  let existing = await findRunOfCommit(tx, repository.id, spec.commitOid, spec.branch);
  // A commit analysed on other branches only, now uploaded as the default branch's (a branch
  // fast-forward merged): a run of its own there, so the default branch's history has it.
  const mergedIntoDefault =
    existing !== undefined && isDefaultBranchUpload(repository, spec) && existing.branch_name !== spec.branch;
  if (mergedIntoDefault) existing = undefined;
  // An upload names the branch the run was put on for want of one: it is that branch's now.
  const namesDefaultedBranch =
    existing?.is_branch_defaulted === true && spec.branch !== null && spec.branch === existing.branch_name;
  const named = (run: AnalysisRunRow) => (namesDefaultedBranch ? markRunBranchNamed(tx, run.id) : run);
  if (existing && (existing.pull_request_id !== null || !spec.pullRequestNumber)) {
    return { run: await named(existing), created: false };
  }
  // The open pull request whose head the commit is has its run on its own branch already.
  const target = mergedIntoDefault
    ? { pullRequest: null, branch: spec.branch, baseBranch: spec.baseBranch ?? null, mergeBaseOid: null }
    : await pullRequestOfUpload(tx, repository, spec);
  if (existing) {
    if (!target.pullRequest) return { run: await named(existing), created: false };
    // Made before Assay knew its pull request: compared with the default branch until the rebase
    // job compares it with the pull request's base branch. The job's row before the run's: a
    // rebase of this run being settled holds its job's row and then locks the run, so taking
    // them in the other order could deadlock with it (test/ingest-locks.test.ts).
    await enqueueRunRebases(tx, [existing.id]);
    await named(existing);
    if (target.mergeBaseOid) await updateRunMergeBase(tx, existing.id, target.mergeBaseOid);
    const attached = await setRunPullRequest(tx, existing.id, target.pullRequest.id);
    return { run: attached, created: false };
  }

  // A pull request's run whose branch nobody named is on no branch: never the default branch's.
  const branch = target.branch ?? (target.pullRequest ? null : repository.default_branch);
  const history = target.baseBranch ? null : historyOf(repository, branch, spec);
  const mergeBaseOid = target.baseBranch ? target.mergeBaseOid : null;
  // The run of an ancestor, or of the merge base, being settled meanwhile either is seen analysed
  // here, or sees this run (once this transaction commits) and queues its rebase.
  if (history || mergeBaseOid || branch === repository.default_branch)
    await lockRunHistory(tx, repository.id);
  const [base] = target.baseBranch
    ? [await baseRunOfPullRequest(tx, repository, target)]
    : history
      ? await baseRunInHistory(tx, repository, history, spec.commitOid)
      : await findLatestDefaultBranchRuns(tx, [repository.id]);
  const config = spec.config ?? null;
  const expected = enabledAnalyzerNames(config ?? repository.config_json);
  const expectedAnalyzers = expected.length === 0 ? [] : await findAnalyzersByShortcodes(tx, expected);
  const run = await insertRunWithDeadline(
    tx,
    {
      key: newRowKey(),
      run_uid: randomUUID(),
      repository_id: repository.id,
      branch_name: branch,
      // Else on the default branch for want of a branch: a pull request may claim it later.
      is_branch_defaulted:
        target.branch === null && !target.pullRequest && repository.default_branch !== null,
      commit_oid: spec.commitOid,
      pull_request_id: target.pullRequest?.id ?? null,
      base_oid: base?.commit_oid ?? null,
      base_run_id: base?.id ?? null,
      status: "PENDING",
      config_json: config === null ? null : JSON.stringify(config),
      ancestor_oids: spec.ancestorOids ? [...spec.ancestorOids] : null,
      merge_base_oid: mergeBaseOid,
    },
    expectedAnalyzers.length > 0 ? spec.timeoutSeconds : null,
    history ? placementInHistory(repository.id, history.branch, spec.commitOid, history.ancestorOids) : null,
  );
  await rebaseIfBaseStoppedBeingAnalysed(tx, run, base);

  const ordered = expected.flatMap((shortcode) => expectedAnalyzers.filter((a) => a.shortcode === shortcode));
  const checks: CheckForEvent[] = [];
  for (const [index, analyzer] of ordered.entries()) {
    const check = await insertCheck(tx, {
      key: newRowKey(),
      run_id: run.id,
      analyzer_id: analyzer.id,
      sequence: index + 1,
      status: "WAITING",
    });
    checks.push({ check, analyzer, summary: EMPTY_SUMMARY });
  }
  if (ordered.length > 0) {
    await enqueueJob(tx, {
      kind: DEADLINE_JOB_KIND,
      payload: { runId: run.id },
      dedupeKey: `${DEADLINE_JOB_KIND}:${run.id}`,
      delayMs: spec.timeoutSeconds * 1000,
    });
  }
  await recordEvent(
    tx,
    analysisRunStartedEvent({
      run,
      repository,
      account,
      // A new run is pending: the newest analysed default-branch run is the default branch's base.
      latestCommitOid:
        target.baseBranch || history
          ? ((await findLatestDefaultBranchRuns(tx, [repository.id]))[0]?.commit_oid ?? null)
          : (base?.commit_oid ?? null),
      summary: EMPTY_SUMMARY,
      checks,
    }),
  );
  return { run, created: true };
}

/**
 * Queues the rebase of new run `run` when its base run, read before the insert, is no longer
 * analysed now: the insert's reference to it waited for a transaction holding its row (the
 * settlement of a late artifact that left it SKIPPED), which looked for the runs compared with it
 * before this one was committed and so queued nothing for it (docs/ingestion.md "Where a run
 * stands in the history"). The rebase compares it past that run. The job's key names a run no
 * other transaction knows yet, so its row waits for nothing ("Lock order").
 */
async function rebaseIfBaseStoppedBeingAnalysed(
  tx: Kysely<Database>,
  run: AnalysisRunRow,
  base: AnalysisRunRow | undefined,
): Promise<void> {
  if (base === undefined || isAnalysed(await findRunById(tx, base.id))) return;
  await enqueueRunRebases(tx, [run.id]);
}

/** A default-branch run's place in the history the upload gave: its branch and its ancestors. */
interface RunHistory {
  branch: string;
  ancestorOids: readonly string[];
}

/** The history a new run of the default branch follows; null when the upload sent no ancestry (today's upload order). */
function historyOf(repository: RepositoryRow, branch: string | null, spec: NewRunSpec): RunHistory | null {
  if (!spec.ancestorOids || branch === null || branch !== repository.default_branch) return null;
  return { branch, ancestorOids: spec.ancestorOids };
}

/**
 * The base of a new default-branch run whose upload sent its ancestry: its nearest analysed
 * ancestor; else the branch's newest analysed run unless that run descends from the commit (an
 * older commit's run is not compared with a newer one's), when it has none.
 */
async function baseRunInHistory(
  tx: Kysely<Database>,
  repository: RepositoryRow,
  history: RunHistory,
  commitOid: string,
): Promise<AnalysisRunRow[]> {
  const nearest = await findNearestAnalysedAncestorRun(
    tx,
    repository.id,
    history.branch,
    history.ancestorOids,
  );
  if (nearest) return [nearest];
  const [latest] = await findLatestDefaultBranchRuns(tx, [repository.id]);
  return latest && !latest.ancestor_oids?.includes(commitOid) ? [latest] : [];
}

/** An upload that names the default branch and no pull request: a build of the default branch. */
function isDefaultBranchUpload(repository: RepositoryRow, spec: NewRunSpec): boolean {
  return spec.branch !== null && spec.branch === repository.default_branch && !spec.pullRequestNumber;
}

/**
 * The run's check of `analyzer`, made PENDING for a new artifact (created when the run has none,
 * after the run's other checks).
 */
export async function openCheck(
  tx: Kysely<Database>,
  run: AnalysisRunRow,
  analyzer: AnalyzerRow,
): Promise<CheckRow> {
  const existing = await findCheckOfRunByAnalyzer(tx, run.id, analyzer.id);
  if (existing) return reopenCheck(tx, existing.id);
  const last = await findLastCheckSequence(tx, run.id);
  return insertCheck(tx, {
    key: newRowKey(),
    run_id: run.id,
    analyzer_id: analyzer.id,
    sequence: last + 1,
    status: "PENDING",
  });
}

/**
 * Why a findings check fails its quality gate: its INTRODUCED, unsuppressed occurrences whose
 * category (the issue's) and priority (of the finding's own severity) can both fail checks,
 * counted per category; empty when it passes.
 */
export async function findingsGateFailures(
  tx: Kysely<Database>,
  repositoryId: string,
  checkId: string,
): Promise<string[]> {
  const rows = await countCheckFailingOccurrences(tx, repositoryId, checkId, PRIORITY_OF_SEVERITY);
  return rows.map(
    (row) =>
      `${row.count} introduced ${row.category} occurrence${row.count === 1 ? "" : "s"} can fail the check`,
  );
}

/** How a check's status is decided once its artifacts are processed. */
export type CheckGate = (tx: Kysely<Database>, check: CheckRow) => Promise<string[]>;

/** The gate of a check, by the kind of its artifacts: coverage and SBOM checks gate on metrics. */
export function gateOf(repositoryId: string, kind: ArtifactKind): CheckGate {
  return kind === "COVERAGE" || kind === "SBOM"
    ? (tx, check) => coverageGateFailures(tx, check.id)
    : (tx, check) => findingsGateFailures(tx, repositoryId, check.id);
}

/**
 * Settles a PENDING check whose artifacts are all processed (docs/ingestion.md "Status"):
 * FAILURE when one failed to process; NEUTRAL when they stored nothing although entries were
 * lost (skipped for a reason that is no one's decision, {@link isEverythingLost}), or when the
 * tool said it could not analyze some of the code without naming the files (an error of no file,
 * or one outside the repository, or an artifact processed before the files were kept): what it did
 * not see is neither clean nor fixed, and not known; else FAILURE or SUCCESS by the gate — a check
 * whose tool named the files it could not analyze has its base's findings there carried as
 * EXISTING (src/ingestion/sarif/finding-states.ts) and is judged on the rest. A failed or NEUTRAL
 * check keeps no RESOLVED or carried rows: it cannot say which findings of its base are gone, and
 * it is never a base nor the repository's current findings. A check with artifacts still queued
 * stays PENDING. Answers the check as it now stands.
 */
export async function settleCheck(tx: Kysely<Database>, check: CheckRow, gate: CheckGate): Promise<CheckRow> {
  const artifacts = await findArtifactOutcomesOfCheck(tx, check.id);
  if (artifacts.some((a) => a.status === "QUEUED")) return check;
  const failed = artifacts.some((a) => a.status === "FAILED");
  const outcomes = artifacts.flatMap((a) => (a.outcome ? [a.outcome] : []));
  const unknownUnanalyzed = outcomes.some((outcome) => outcome.unanalyzedPaths === null);
  const lost = !failed && (isEverythingLost(outcomes) || unknownUnanalyzed);
  if (failed || lost) {
    await deleteResolvedOccurrencesOfCheck(tx, check.id);
    await refreshCheckIssueCounts(tx, [check.id]);
  }
  let status: CheckStatus = "NEUTRAL";
  if (failed) status = "FAILURE";
  else if (!lost) status = (await gate(tx, check)).length > 0 ? "FAILURE" : "SUCCESS";
  return finishCheck(tx, check.id, status);
}

/** A run's status from its checks' (docs/ingestion.md "Status"). */
export function runStatusOf(statuses: readonly CheckStatus[]): AnalysisRunStatus {
  if (statuses.length === 0) return "PENDING";
  if (statuses.some((s) => s === "WAITING" || s === "PENDING")) return "PENDING";
  if (statuses.some((s) => s === "ARTIFACT_TIMEOUT" || s === "TIMEOUT")) return "TIMEOUT";
  if (statuses.some((s) => s === "FAILURE")) return "FAILURE";
  // Every check judged nothing: the run is no state of the repository, so it must not become its
  // latest analysed run (which only SUCCESS and FAILURE runs can be).
  if (statuses.some((s) => s === "NEUTRAL") && statuses.every((s) => s === "NEUTRAL" || s === "SKIPPED")) {
    return "SKIPPED";
  }
  return "SUCCESS";
}

/**
 * Sets the run's status from its checks; when it changed, records `analysis_run.updated` (with
 * `lastCheckId`'s check last). A run that has just finished queues the rebase of the runs after
 * it in its branch's history whose base, base checks or DDP it changes (it came in, or finished,
 * late: {@link queueRebasesOfLaterRuns}). For a default-branch run that is
 * analysed or has just finished, announces what changed in the repository's issues (the run may
 * have become, stayed or stopped being the repository's current state, or what it shows may have
 * changed), unless `announce` is false: the caller then announces them itself, after the last
 * check it writes (a rebase, which settles runs and then writes other runs' checks:
 * docs/ingestion.md "Lock order").
 */
export async function settleRun(
  tx: Kysely<Database>,
  runId: string,
  lastCheckId: string | null,
  { announce = true }: { announce?: boolean } = {},
): Promise<AnalysisRunRow> {
  const run = await findRunById(tx, runId);
  const checks = await findChecksOfRun(tx, runId);
  const status = runStatusOf(checks.map((c) => c.status));
  const changed = status !== run.status;
  const updated = changed ? await updateRunStatus(tx, runId, status) : run;
  const finished = changed && status !== "PENDING";
  if (!changed && !isAnalysed(updated)) return updated;

  const repository = await findRepositoryById(tx, run.repository_id);
  const account = await findAccountById(tx, repository.account_id);
  if (changed) await recordRunUpdated(tx, { run: updated, repository, account, checks, lastCheckId });
  // Queued before the announcement, which takes its row after every other lock.
  if (finished) await queueRebasesOfLaterRuns(tx, run, updated, repository);
  if (announce && updated.branch_name === repository.default_branch && (finished || isAnalysed(updated))) {
    await announceRepositoryIssues(tx, repository, account);
  }
  return updated;
}

/**
 * Queues the rebase of each run after `run` in its branch's history that it changes now that it
 * has finished (`before` is the run as it stood until then): it may have come in late, or
 * finished late, after runs placed after it were compared and counted (docs/ingestion.md "Where a
 * run stands in the history"). Those are:
 * - once it is analysed, on the default branch, the runs that descend from it and are compared
 *   with a run before it, or with none: it is their nearest analysed ancestor now; and the runs
 *   placed after it that follow the upload order (their uploads sent no ancestry) and are compared
 *   with a run before it, or with none: it is the newest analysed run before them now;
 * - once it is analysed, the runs made for a merge base at its commit and compared with another
 *   run (a pull request's run made before its merge base's run was analysed): they are compared
 *   with it now;
 * - the runs compared with a later run that has no conclusive check of one of its analyzers, whose
 *   base check of that analyzer the rule now finds in this run;
 * - when it is analysed, the runs whose DDP counts one of its scans, or its list of lockfiles, for
 *   a target they did not scan (its scans may be new: a late SBOM of a finished run), and the runs
 *   whose scans of a target it scanned compare with its scan, through it or a later run of its
 *   branch that did not scan the target;
 * - the runs that read what it no longer says ({@link findRunsReadingWhatItStoppedSaying}).
 * Each rebase compares its run again, or counts its DDP again, only where that changes something,
 * so a run queued twice is rebased as once. The jobs are queued under no key, which no other
 * transaction can hold: the caller holds this run, and may not wait for a job row
 * (docs/ingestion.md "Lock order").
 */
async function queueRebasesOfLaterRuns(
  tx: Kysely<Database>,
  before: AnalysisRunRow,
  run: AnalysisRunRow,
  repository: RepositoryRow,
): Promise<void> {
  if (run.branch_name === null) return;
  const becameAnalysed = !isAnalysed(before) && isAnalysed(run);
  const later: string[] = [];
  if (becameAnalysed) {
    // After an upload making a run of a descendant, or of a pull request meeting its base branch
    // here, has committed it, or before that upload chooses its base (then it sees this run
    // analysed): the new run is not missed.
    await lockRunHistory(tx, repository.id);
    if (run.branch_name === repository.default_branch) {
      later.push(
        ...(await findDescendantRunsComparedFurtherBack(tx, run)).map((descendant) => descendant.id),
      );
      later.push(...(await findRunsInUploadOrderComparedFurtherBack(tx, run)).map((after) => after.id));
    }
    later.push(...(await findRunsAwaitingMergeBase(tx, run)).map((waiting) => waiting.id));
  }
  later.push(...(await findRunsReadingBaseChecksOf(tx, run.id, run.branch_name)));
  if (isAnalysed(run)) {
    later.push(...(await findRunsCountingScansOf(tx, run.id)));
    later.push(...(await findRunsComparingScansOf(tx, run.id)));
  }
  later.push(...(await findRunsReadingWhatItStoppedSaying(tx, before, run)));
  await enqueueHistoryRebases(tx, [...new Set(later.map(String))]);
}

/**
 * The runs after `run` that read what it no longer says now that a late artifact has settled it
 * (`before` is the run as it stood until then; docs/ingestion.md "Where a run stands in the
 * history"): when it stopped being analysed (left SKIPPED, it judged nothing), the runs compared
 * with it, whose base run is then their nearest analysed ancestor placed before them; the runs
 * compared with one of its checks that is no longer comparable (an artifact failed to process,
 * or left it NEUTRAL); and the runs whose scans were compared with its scans, or whose DDP counted
 * them, or its list of lockfiles, before they stopped counting.
 */
async function findRunsReadingWhatItStoppedSaying(
  tx: Kysely<Database>,
  before: AnalysisRunRow,
  run: AnalysisRunRow,
): Promise<string[]> {
  const based = isAnalysed(before) && !isAnalysed(run) ? await findRunsBasedOn(tx, run.id) : [];
  return [
    ...based.map((later) => later.id),
    ...(await findRunsComparedWithInconclusiveChecksOf(tx, run.id)),
    ...(await findRunsCountingScansOf(tx, run.id, { stopped: true })),
    ...(await findRunsComparingScansOf(tx, run.id, { stopped: true })),
  ];
}

/** `analysis_run.updated` for a run whose status changed, with its checks' summaries. */
async function recordRunUpdated(
  tx: Kysely<Database>,
  input: {
    run: AnalysisRunRow;
    repository: RepositoryRow;
    account: AccountRow;
    checks: readonly CheckRow[];
    lastCheckId: string | null;
  },
): Promise<void> {
  const { run, repository, account, checks, lastCheckId } = input;
  const ordered = [
    ...checks.filter((c) => c.id !== lastCheckId),
    ...checks.filter((c) => c.id === lastCheckId),
  ];
  const analyzers =
    ordered.length === 0
      ? []
      : await findAnalyzersByIds(
          tx,
          ordered.map((c) => c.analyzer_id),
        );
  const checkCounts = await countOccurrencesOfChecks(
    tx,
    ordered.map((c) => c.id),
  );
  const checkSummaries = summariseByParent(
    ordered.map((c) => c.id),
    checkCounts,
    (row) => row.check_id,
  );
  // The run's counts are its checks' (one check per analyzer): they are not counted again.
  const shortcodeOf = new Map(
    ordered.map((check) => [check.id, analyzers.find((a) => a.id === check.analyzer_id)?.shortcode ?? ""]),
  );
  const summary = summariseOccurrences(
    checkCounts.map((row) => ({ ...row, analyzerShortcode: shortcodeOf.get(row.check_id) ?? "" })),
  );
  await recordEvent(
    tx,
    analysisRunUpdatedEvent({
      run,
      repository,
      account,
      latestCommitOid: (await findLatestDefaultBranchRuns(tx, [repository.id]))[0]?.commit_oid ?? null,
      summary,
      checks: ordered.map((check, index) => ({
        check,
        analyzer: analyzers.find((a) => a.id === check.analyzer_id) as AnalyzerRow,
        summary: checkSummaries[index] ?? EMPTY_SUMMARY,
      })),
    }),
  );
}
