import type {
  AccountRow,
  AnalysisRunRow,
  AnalyzerRow,
  CheckRow,
  IssueRow,
  OccurrenceRow,
  RepositoryRow,
} from "../../db/types.ts";
import { encodeGlobalId } from "../../graphql/global-id.ts";
import type { OccurrenceSummary } from "../checks/summary.ts";
import { type NewEvent, unixSeconds, type WebhookObject } from "../events/outbox.ts";
import { repositoryObject } from "../repositories/repository-events.ts";

/**
 * Webhook objects as the contract's samples show them (api-notes §10.4): every object carries an
 * `object` discriminator with its GraphQL type name, timestamps are UNIX seconds, ids are the same
 * global ids as the API's, nested lists are plain arrays. Built inside the transaction that makes
 * the change, so an event shows the state that change produced. The `…Event` functions build the
 * whole event for `recordEvent`, so the code that causes an event only gathers the rows.
 *
 * The objects of runs, checks and issues are built here, for the ingestion pipeline that causes
 * their events; accounts, team members and repositories are built by their own modules
 * (`account-events.ts`, `repository-events.ts`), whose mutations cause events too and must not
 * depend on this module.
 */

/** The envelope of a delivery (api-notes §10.2): `id` is the delivery id, as a numeric string. */
export function webhookEnvelope(
  deliveryId: string,
  type: string,
  createdAt: Date | string,
  data: unknown,
): { id: string; type: string; createdAt: number; data: unknown } {
  return { id: deliveryId, type, createdAt: unixSeconds(createdAt) ?? 0, data };
}

/** `Analyzer` (`logoUrl` where the API says `logo`). */
export function analyzerObject(analyzer: AnalyzerRow): WebhookObject {
  return {
    id: encodeGlobalId("Analyzer", analyzer.key),
    object: "Analyzer",
    shortcode: analyzer.shortcode,
    name: analyzer.name,
    logoUrl: analyzer.logo_url,
  };
}

/** `Issue` (a rule of the catalog), with its analyzer. */
export function issueObject(issue: IssueRow, analyzer: AnalyzerRow): WebhookObject {
  return {
    id: encodeGlobalId("Issue", issue.key),
    object: "Issue",
    shortcode: issue.shortcode,
    title: issue.title,
    shortDescription: issue.short_description,
    category: issue.category,
    autofixAvailable: issue.autofix_available,
    isRecommended: issue.is_recommended,
    analyzer: analyzerObject(analyzer),
  };
}

/** `Occurrence`: where a finding is. */
export function occurrenceObject(occurrence: OccurrenceRow): WebhookObject {
  return {
    id: encodeGlobalId("Occurrence", occurrence.key),
    object: "Occurrence",
    title: occurrence.title,
    path: occurrence.path,
    beginLine: occurrence.begin_line,
    beginColumn: occurrence.begin_column,
    endLine: occurrence.end_line,
    endColumn: occurrence.end_column,
  };
}

function categoryDistribution(summary: OccurrenceSummary): WebhookObject[] {
  return summary.byCategory.map((entry) => ({
    object: "OccurrenceDistributionByCategory",
    category: entry.category,
    introduced: entry.introduced,
  }));
}

/** `CheckSummary`. */
export function checkSummaryObject(summary: OccurrenceSummary): WebhookObject {
  return {
    object: "CheckSummary",
    occurrencesIntroduced: summary.introduced,
    occurrencesResolved: summary.resolved,
    occurrenceDistributionByCategory: categoryDistribution(summary),
  };
}

/**
 * `AnalysisRunSummary`. As in the contract's samples, the distribution by analyzer names every
 * analyzer of the run's checks (in `analyzerShortcodes` order), with 0 when it introduced nothing.
 */
export function runSummaryObject(
  summary: OccurrenceSummary,
  analyzerShortcodes: readonly string[],
): WebhookObject {
  const introduced = new Map(summary.byAnalyzer.map((entry) => [entry.analyzerShortcode, entry.introduced]));
  const shortcodes = [...new Set([...analyzerShortcodes, ...introduced.keys()])];
  return {
    object: "AnalysisRunSummary",
    occurrencesIntroduced: summary.introduced,
    occurrencesResolved: summary.resolved,
    occurrenceDistributionByAnalyzer: shortcodes.map((shortcode) => ({
      object: "OccurrenceDistributionByAnalyzer",
      analyzerShortcode: shortcode,
      introduced: introduced.get(shortcode) ?? 0,
    })),
    occurrenceDistributionByCategory: categoryDistribution(summary),
  };
}

/** One check of a run as an event shows it. */
export interface CheckForEvent {
  check: Pick<CheckRow, "key" | "sequence" | "status" | "created_at" | "updated_at" | "finished_at">;
  analyzer: AnalyzerRow;
  summary: OccurrenceSummary;
}

/** `Check`, with its analyzer and summary (`finishedAt` null while it runs). */
export function checkObject({ check, analyzer, summary }: CheckForEvent): WebhookObject {
  return {
    id: encodeGlobalId("Check", check.key),
    object: "Check",
    sequence: check.sequence,
    status: check.status,
    analyzer: analyzerObject(analyzer),
    createdAt: unixSeconds(check.created_at),
    updatedAt: unixSeconds(check.updated_at),
    finishedAt: unixSeconds(check.finished_at),
    summary: checkSummaryObject(summary),
  };
}

/** A run as an event shows it: the run, where it belongs, its summary and its checks. */
export interface RunForEvent {
  run: AnalysisRunRow;
  repository: RepositoryRow;
  account: AccountRow;
  summary: OccurrenceSummary;
  /** The repository's newest analysed commit on its default branch, as the API answers it. */
  latestCommitOid: string | null;
  /**
   * The run's checks. For `analysis_run.updated` the check that reported last comes last (the
   * contract: "the last element is the one that triggered the event").
   */
  checks: readonly CheckForEvent[];
}

/** `AnalysisRun`, with its repository, summary and checks. */
export function analysisRunObject(input: RunForEvent): WebhookObject {
  const { run } = input;
  return {
    id: encodeGlobalId("AnalysisRun", run.key),
    object: "AnalysisRun",
    runUid: run.run_uid,
    status: run.status,
    branchName: run.branch_name,
    baseOid: run.base_oid,
    commitOid: run.commit_oid,
    createdAt: unixSeconds(run.created_at),
    updatedAt: unixSeconds(run.updated_at),
    repository: repositoryObject(input.repository, input.account, input.latestCommitOid),
    summary: runSummaryObject(
      input.summary,
      input.checks.map((c) => c.analyzer.shortcode),
    ),
    checks: input.checks.map(checkObject),
  };
}

const ZERO_SUMMARY: OccurrenceSummary = {
  introduced: 0,
  resolved: 0,
  suppressed: 0,
  byCategory: [],
  bySeverity: [],
  byAnalyzer: [],
};

/** `analysis_run.started`: a new run; its summary and its checks' summaries are zero, as the contract says. */
export function analysisRunStartedEvent(input: RunForEvent): NewEvent {
  return {
    accountId: input.account.id,
    type: "analysis_run.started",
    data: {
      object: analysisRunObject({
        ...input,
        summary: ZERO_SUMMARY,
        checks: input.checks.map((c) => ({ ...c, summary: ZERO_SUMMARY })),
      }),
    },
  };
}

/** `analysis_run.updated`: one check reported; it is the last of `input.checks`. */
export function analysisRunUpdatedEvent(input: RunForEvent): NewEvent {
  return {
    accountId: input.account.id,
    type: "analysis_run.updated",
    data: { object: analysisRunObject(input) },
  };
}

/** An issue of a repository as an event shows it. */
export interface RepositoryIssueForEvent {
  repository: RepositoryRow;
  account: AccountRow;
  /** The repository's newest analysed commit on its default branch, as the API answers it. */
  latestCommitOid: string | null;
  issue: IssueRow;
  analyzer: AnalyzerRow;
}

/** `RepositoryIssue`: its id's key is the repository key followed by the issue key, as in the API. */
export function repositoryIssueObject(
  input: RepositoryIssueForEvent,
  occurrences: readonly OccurrenceRow[],
): WebhookObject {
  return {
    id: encodeGlobalId("RepositoryIssue", input.repository.key + input.issue.key),
    object: "RepositoryIssue",
    repository: repositoryObject(input.repository, input.account, input.latestCommitOid),
    issue: issueObject(input.issue, input.analyzer),
    occurrences: occurrences.map(occurrenceObject),
  };
}

/**
 * `repository_issue.introduced`: an issue gained occurrences on the default branch (one event per
 * issue); `issueOccurrencesIntroduced` counts them (`count`, default all of `occurrences`, which
 * may list only the first of them to keep the payload small).
 */
export function repositoryIssueIntroducedEvent(
  input: RepositoryIssueForEvent,
  occurrences: readonly OccurrenceRow[],
  count = occurrences.length,
): NewEvent {
  return {
    accountId: input.account.id,
    type: "repository_issue.introduced",
    data: {
      object: repositoryIssueObject(input, occurrences),
      issueOccurrencesIntroduced: count,
    },
  };
}

/**
 * `repository_issue.resolved`: an issue lost `resolvedCount` occurrences on the default branch;
 * the object's `occurrences` is always empty, as the contract says.
 */
export function repositoryIssueResolvedEvent(
  input: RepositoryIssueForEvent,
  resolvedCount: number,
): NewEvent {
  return {
    accountId: input.account.id,
    type: "repository_issue.resolved",
    data: { object: repositoryIssueObject(input, []), issueOccurrencesResolved: resolvedCount },
  };
}
