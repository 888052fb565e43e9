import type { Kysely } from "kysely";
import type {
  AnalysisRunRow,
  AnalysisRunStatus,
  AnalyzerRow,
  Database,
  FindingState,
  IssueRow,
  RepositoryRow,
} from "../../src/db/types.ts";
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
}

/** Inserts a run of `repository` with one check of `analyzer` holding the findings listed. */
export async function aRunWithFindings(
  db: Kysely<Database>,
  repository: RepositoryRow,
  analyzer: AnalyzerRow,
  findings: readonly FindingCount[],
  fields: Partial<{ branch: string; status: AnalysisRunStatus; createdAt: Date }> = {},
): Promise<AnalysisRunRow> {
  const run = await aRun(db, repository, fields);
  const check = await aCheck(db, run, analyzer);
  await occurrencesIn(
    db,
    check,
    findings.flatMap(({ issue, count, state }) =>
      Array.from({ length: count }, (_, i) => ({ issue, beginLine: i + 1, state: state ?? "EXISTING" })),
    ),
  );
  return run;
}

/** The date `days` days before `now`, in UTC, as YYYY-MM-DD. */
export function daysAgo(days: number, now = new Date()): string {
  return new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}
