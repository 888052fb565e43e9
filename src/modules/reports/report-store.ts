import { type Kysely, sql } from "kysely";
import type { Database, IssueCategory, IssueSeverity } from "../../db/types.ts";

/**
 * SQL of the reports (docs/reports.md). Every report of a scope (an account or one repository) is
 * computed from one batched statement: the open and resolved occurrence counts of every finished
 * default-branch run of every repository in the scopes asked for, per issue. Report cards read
 * one statement of per-run counts by category and severity, and one of coverage metric values.
 */

/** One issue's counts in one finished default-branch run of a repository in a scope. */
export interface ScopeRunIssueRow {
  scope_id: string;
  repository_id: string;
  run_key: string;
  created_at: Date | string;
  /** Null for a run without occurrences (the run still counts, as a snapshot of zero). */
  issue_id: string | null;
  category: IssueCategory | null;
  severity: IssueSeverity | null;
  tags: string[] | null;
  analyzer_shortcode: string | null;
  open: number;
  resolved: number;
}

/** Which column of `repositories` places a repository in a scope. */
export type ScopeColumn = "account_id" | "id";

/**
 * Per-issue counts of every finished (SUCCESS or FAILURE) run on the default branch of every
 * repository whose `column` is one of `scopeIds`. One statement for any number of scopes.
 */
export async function findScopeRunIssueCounts(
  db: Kysely<Database>,
  column: ScopeColumn,
  scopeIds: readonly string[],
): Promise<ScopeRunIssueRow[]> {
  const result = await sql<ScopeRunIssueRow>`
    SELECT repo.${sql.ref(column)}::text AS scope_id, r.repository_id::text AS repository_id,
      r.key AS run_key, r.created_at, x.issue_id::text AS issue_id, x.category, x.severity, x.tags,
      x.analyzer_shortcode, coalesce(x.open, 0)::int AS open, coalesce(x.resolved, 0)::int AS resolved
    FROM repositories AS repo
    JOIN analysis_runs AS r ON r.repository_id = repo.id AND r.branch_name = repo.default_branch
      AND r.status IN ('SUCCESS', 'FAILURE')
    LEFT JOIN LATERAL (
      SELECT o.issue_id, i.category, i.severity, i.tags, a.shortcode AS analyzer_shortcode,
        count(*) FILTER (WHERE o.state <> 'RESOLVED') AS open,
        count(*) FILTER (WHERE o.state = 'RESOLVED') AS resolved
      FROM checks AS c
      JOIN occurrences AS o ON o.check_id = c.id
      JOIN issues AS i ON i.id = o.issue_id
      JOIN analyzers AS a ON a.id = i.analyzer_id
      WHERE c.run_id = r.id
      GROUP BY o.issue_id, i.category, i.severity, i.tags, a.shortcode
    ) AS x ON true
    WHERE repo.${sql.ref(column)} = ANY(cast(${scopeIds} as bigint[]))`.execute(db);
  return result.rows;
}

/** Open (non-RESOLVED) occurrences of one run in one category and severity. */
export interface RunCategoryCountRow {
  run_id: string;
  category: IssueCategory;
  severity: IssueSeverity;
  open: number;
}

/** Open occurrence counts of these runs by issue category and severity. */
export async function countOpenOccurrencesOfRuns(
  db: Kysely<Database>,
  runIds: readonly string[],
): Promise<RunCategoryCountRow[]> {
  const result = await sql<RunCategoryCountRow>`
    SELECT c.run_id::text AS run_id, i.category, i.severity, count(*)::int AS open
    FROM checks AS c
    JOIN occurrences AS o ON o.check_id = c.id
    JOIN issues AS i ON i.id = o.issue_id
    WHERE c.run_id = ANY(cast(${runIds} as bigint[])) AND o.state <> 'RESOLVED'
    GROUP BY c.run_id, i.category, i.severity`.execute(db);
  return result.rows;
}

/** A run's repository-wide (AGGREGATE) line and branch coverage, when it recorded them. */
export interface RunCoverageRow {
  run_id: string;
  lcv: number | null;
  bcv: number | null;
}

/** The AGGREGATE LCV and BCV values recorded by the checks of these runs. */
export async function findCoverageValuesOfRuns(
  db: Kysely<Database>,
  runIds: readonly string[],
): Promise<RunCoverageRow[]> {
  const result = await sql<RunCoverageRow>`
    SELECT c.run_id::text AS run_id,
      max(mv.value) FILTER (WHERE it.metric_shortcode = 'LCV') AS lcv,
      max(mv.value) FILTER (WHERE it.metric_shortcode = 'BCV') AS bcv
    FROM checks AS c
    JOIN metric_values AS mv ON mv.check_id = c.id
    JOIN repository_metric_items AS it ON it.id = mv.item_id
    WHERE c.run_id = ANY(cast(${runIds} as bigint[]))
      AND it.metric_key = 'AGGREGATE' AND it.metric_shortcode IN ('LCV', 'BCV')
    GROUP BY c.run_id`.execute(db);
  return result.rows;
}
