import type { Kysely } from "kysely";
import type {
  AnalysisRunRow,
  AnalysisRunStatus,
  AnalyzerRow,
  CheckRow,
  CheckStatus,
  Database,
  FindingState,
  IssueRow,
  IssueSeverity,
  RepositoryRow,
} from "../../src/db/types.ts";
import { newRowKey } from "../../src/graphql/global-id.ts";
import { refreshCheckIssueCounts } from "../../src/modules/checks/issue-count-store.ts";
import { aRun } from "./builders.ts";
import { aCheck, occurrencesIn } from "./builders-checks.ts";

/**
 * Builders for report tests: a run with one check holding `count` occurrences of each issue
 * given, so a test states the counts a report must show.
 */

/** How many occurrences of an issue a run holds, and in which state. */
export interface FindingCount {
  issue: IssueRow;
  count: number;
  state?: FindingState;
  /** The findings' own severity; the issue's when not given. */
  severity?: IssueSeverity;
}

/**
 * Inserts a run of `repository` with one check of `analyzer` holding the findings listed. RESOLVED
 * findings are what the check no longer has of its base's: give the run compared with as
 * `baseRun`, as ingestion would have.
 */
export async function aRunWithFindings(
  db: Kysely<Database>,
  repository: RepositoryRow,
  analyzer: AnalyzerRow,
  findings: readonly FindingCount[],
  fields: Partial<{
    branch: string;
    status: AnalysisRunStatus;
    createdAt: Date;
    baseRun: AnalysisRunRow;
  }> = {},
): Promise<AnalysisRunRow> {
  const run = await aRun(db, repository, fields);
  await aCheckWithFindings(db, run, analyzer, findings);
  return run;
}

/** Inserts the check of `analyzer` in `run` (SUCCESS unless `status`) holding the findings listed. */
export async function aCheckWithFindings(
  db: Kysely<Database>,
  run: AnalysisRunRow,
  analyzer: AnalyzerRow,
  findings: readonly FindingCount[],
  fields: Partial<{ status: CheckStatus }> = {},
): Promise<CheckRow> {
  const check = await aCheck(db, run, analyzer, { status: fields.status ?? "SUCCESS" });
  await occurrencesIn(
    db,
    check,
    findings.flatMap(({ issue, count, state, severity }) =>
      Array.from({ length: count }, (_, i) => ({
        issue,
        beginLine: i + 1,
        state: state ?? "EXISTING",
        severity,
      })),
    ),
  );
  return check;
}

/** The date `days` days before `now`, in UTC, as YYYY-MM-DD. */
export function daysAgo(days: number, now = new Date()): string {
  return new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}

/** A finding tracked across runs: its issue, its fingerprint (its identity) and its state. */
export interface TrackedFinding {
  issue: IssueRow;
  fingerprint: string;
  state: FindingState;
  isSuppressed?: boolean;
}

/**
 * Inserts the check of `analyzer` in `run` holding these findings, each with the fingerprint
 * given, so a later run can report (or drop) the same finding.
 */
export async function aCheckWithTrackedFindings(
  db: Kysely<Database>,
  run: AnalysisRunRow,
  analyzer: AnalyzerRow,
  findings: readonly TrackedFinding[],
  fields: Partial<{ status: CheckStatus }> = {},
): Promise<CheckRow> {
  const check = await aCheck(db, run, analyzer, { status: fields.status ?? "SUCCESS" });
  if (findings.length === 0) return check;
  await db
    .insertInto("occurrences")
    .values(
      findings.map((finding, i) => ({
        key: newRowKey(),
        check_id: check.id,
        issue_id: finding.issue.id,
        path: `src/${finding.fingerprint}.py`,
        begin_line: i + 1,
        end_line: i + 1,
        title: finding.issue.title,
        fingerprint: finding.fingerprint,
        state: finding.state,
        is_suppressed: finding.isSuppressed ?? false,
      })),
    )
    .execute();
  await refreshCheckIssueCounts(db, [check.id]);
  return check;
}
