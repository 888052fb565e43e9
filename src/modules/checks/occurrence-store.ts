import { type Kysely, sql } from "kysely";
import type { Database, IssueCategory, IssueSeverity, OccurrenceRow } from "../../db/types.ts";
import type { ConnectionSource, OrderKey } from "../../graphql/pagination.ts";
import { allOf, type ConnectionFilter, containsPattern, equalsFilter } from "./filters.ts";

/**
 * Occurrences: the findings of a check. RESOLVED rows record a finding of the run's base that is
 * gone; they are counted in summaries but never listed, so every source here leaves them out.
 */

/** An occurrence as the connections read it: the row, its check's run and analyzer. */
export type LocatedOccurrence = OccurrenceRow & { run_id: string; analyzer_id: string };

/** An occurrence with its issue's shortcode, category and severity, as `AnalysisIssue` answers it. */
export type AnalysisIssueRow = LocatedOccurrence & {
  issue_shortcode: string;
  category: IssueCategory;
  severity: IssueSeverity;
};

/** Occurrences with these keys in runs of repositories `viewerId` can see (RESOLVED ones too). */
export function findVisibleOccurrencesByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<OccurrenceRow[]> {
  return db
    .selectFrom("occurrences as o")
    .innerJoin("checks as c", "c.id", "o.check_id")
    .innerJoin("analysis_runs as r", "r.id", "c.run_id")
    .innerJoin("repositories as repo", "repo.id", "r.repository_id")
    .innerJoin("memberships as m", "m.account_id", "repo.account_id")
    .selectAll("o")
    .where("m.user_id", "=", viewerId)
    .where("o.key", "in", keys)
    .execute();
}

// Reading order: file, line, then the key so the order is total.
const READING_ORDER: readonly OrderKey[] = [
  { column: "path", kind: "text" },
  { column: "begin_line", kind: "integer" },
  { column: "key", kind: "text" },
];

const LOCATED = sql`(
  SELECT o.*, c.run_id, c.analyzer_id
  FROM occurrences AS o
  JOIN checks AS c ON c.id = o.check_id
  WHERE o.state <> 'RESOLVED'
)`;

// The issue's columns are looked up per row rather than joined: a join with the issues table lets
// PostgreSQL hash it, which loses the order of occurrences_check_order_idx, so every page of a
// check read and sorted all of its findings. Subqueries keep the index order (a page reads about
// one page of rows), and after a sort (a run's pages) PostgreSQL runs them for the page's rows only.
const issueColumn = (column: "shortcode" | "category" | "severity") =>
  sql`(SELECT i.${sql.ref(column)} FROM issues AS i WHERE i.id = o.issue_id)`;

const WITH_ISSUE = sql`(
  SELECT o.*, c.run_id, c.analyzer_id, ${issueColumn("shortcode")} AS issue_shortcode,
    ${issueColumn("category")} AS category, ${issueColumn("severity")} AS severity
  FROM occurrences AS o
  JOIN checks AS c ON c.id = o.check_id
  WHERE o.state <> 'RESOLVED'
)`;

/** A check's occurrences in reading order. Parent: the check id. */
export const occurrencesOfCheck: ConnectionSource = {
  name: "occurrencesOfCheck",
  from: LOCATED,
  parentColumn: "check_id",
  order: READING_ORDER,
  direction: "asc",
};

/** A run's occurrences across its checks, in reading order. Parent: the run id. */
export const occurrencesOfRun: ConnectionSource = {
  name: "occurrencesOfRun",
  from: LOCATED,
  parentColumn: "run_id",
  order: READING_ORDER,
  direction: "asc",
};

/** The occurrences of one issue in one check, in reading order. Parent: `"<check id>:<issue id>"`. */
export const occurrencesOfIssueInCheck: ConnectionSource = {
  name: "occurrencesOfIssueInCheck",
  from: LOCATED,
  parentColumn: "check_id",
  secondParentColumn: "issue_id",
  order: READING_ORDER,
  direction: "asc",
};

/** A check's findings as `AnalysisIssue` rows, in reading order. Parent: the check id. */
export const analysisIssuesOfCheck: ConnectionSource = {
  name: "analysisIssuesOfCheck",
  from: WITH_ISSUE,
  parentColumn: "check_id",
  order: READING_ORDER,
  direction: "asc",
};

/** A run's findings as `AnalysisIssue` rows, in reading order (for pull requests). Parent: the run id. */
export const analysisIssuesOfRun: ConnectionSource = {
  name: "analysisIssuesOfRun",
  from: WITH_ISSUE,
  parentColumn: "run_id",
  order: READING_ORDER,
  direction: "asc",
};

/** The filter arguments of `Check.issues` (and `PullRequest.issues`). */
export interface AnalysisIssueFilterArgs {
  source?: "STATIC" | "AI" | null;
  category?: IssueCategory | null;
  severity?: IssueSeverity | null;
  q?: string | null;
}

/**
 * The filter of an {@link AnalysisIssueRow} connection: exact `source`, `category` and `severity`,
 * and `q` as a case-insensitive substring of the title, the path or the issue's shortcode. A `q`
 * of only whitespace does not filter.
 */
export function analysisIssueFilter(args: AnalysisIssueFilterArgs): ConnectionFilter | undefined {
  const q = args.q?.trim() ?? "";
  const pattern = containsPattern(q);
  return allOf(
    equalsFilter("source", args.source),
    equalsFilter("category", args.category),
    equalsFilter("severity", args.severity),
    q === ""
      ? undefined
      : {
          key: `q:${JSON.stringify(q)}`,
          condition: sql<boolean>`(s.title ILIKE ${pattern} ESCAPE '\\' OR s.path ILIKE ${pattern} ESCAPE '\\' OR s.issue_shortcode ILIKE ${pattern} ESCAPE '\\')`,
        },
  );
}

/**
 * Deletes a check's RESOLVED occurrences (the base's findings it no longer has): a check that
 * lost what it was sent cannot say which of them are gone (docs/ingestion.md "Status").
 */
export async function deleteResolvedOccurrencesOfCheck(db: Kysely<Database>, checkId: string): Promise<void> {
  await db
    .deleteFrom("occurrences")
    .where("check_id", "=", checkId)
    .where("state", "=", "RESOLVED")
    .execute();
}
