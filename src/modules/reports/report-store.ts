import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database, IssueCategory, IssueSeverity } from "../../db/types.ts";
import { currentCheckCandidates, isConclusiveCheck } from "../checks/current-check-store.ts";
import { isPublished } from "../checks/occurrence-store.ts";
import { isValueOfAnalysedRun } from "../metrics/metric-store.ts";
import { isAnalysedRun } from "../runs/run-store.ts";

/**
 * SQL of the reports (docs/reports.md). Every snapshot report of a scope (an account or one
 * repository) is computed from one batched statement: the open and resolved occurrence counts of
 * every check that can hold a repository's current findings (`currentCheckCandidates`: the
 * conclusive checks of its analysed default-branch runs) of every repository in the scopes asked
 * for, per issue, read from the checks' issue counts (checks/issue-count-store.ts), so a report
 * costs the checks' distinct issues, not their findings (but for the findings of the few checks
 * whose base is not the check they replace: `findScopeCheckIssueCounts`). Issues
 * prevented and code coverage as an insight read one batched statement each. Report cards read
 * one statement of per-run counts by category and severity, and one of coverage metric values.
 */

/**
 * One issue's counts at one severity in one check that can hold a repository's current findings,
 * of a repository in a scope. The severity is each finding's own, else its issue's, so one issue
 * may have a row per severity. Silenced findings count in neither `open` nor `resolved`, as the
 * repository's issues leave them out.
 */
export interface ScopeCheckIssueRow {
  scope_id: string;
  repository_id: string;
  /** The check's analyzer: a repository's snapshot holds the newest check of each. */
  analyzer_id: string;
  /** The check's run, whose key and creation place the check in time. */
  run_key: string;
  created_at: Date | string;
  /** Null for a check without occurrences (it still counts, as a snapshot of zero). */
  issue_id: string | null;
  category: IssueCategory | null;
  severity: IssueSeverity | null;
  tags: string[] | null;
  /** The check's analyzer's shortcode; null with `issue_id`. */
  analyzer_shortcode: string | null;
  open: number;
  /**
   * Findings of the analyzer's previous candidate check that this check is the first to be
   * without (see {@link findScopeCheckIssueCounts}); such a count can come in a row of its own,
   * with `open` 0.
   */
  resolved: number;
}

/** Which column of `repositories` places a repository in a scope. */
export type ScopeColumn = "account_id" | "id";

/**
 * Per-issue counts of every check that can hold the current findings of every repository whose
 * `column` is one of `scopeIds` (`currentCheckCandidates`: the conclusive checks of the analysed
 * default-branch runs, of the analyzers the repository turns on). One statement for any number of
 * scopes.
 *
 * `resolved` counts the findings a check is the first to be without: those its analyzer's
 * previous candidate (the check it replaces in the snapshot) had open and it no longer has, by
 * fingerprint, as a check's RESOLVED rows are written against its base check. When the check was
 * compared with that previous candidate (`checks.base_check_id`), which is the usual case, they
 * are the check's RESOLVED rows and are read from its issue counts. When it was not (a run
 * created while the one before it was still pending is compared with the run before both, so both
 * would have the same RESOLVED rows; the previous candidate came in late, after the check was
 * compared with an older one; or the base is a check of a run that never became analysed), the
 * previous candidate's findings are compared with the check's own (by fingerprint, or by former
 * fingerprint in a renamed file) instead, in rows with `open` 0:
 * only for those checks are occurrences read.
 */
export async function findScopeCheckIssueCounts(
  db: Kysely<Database>,
  column: ScopeColumn,
  scopeIds: readonly string[],
): Promise<ScopeCheckIssueRow[]> {
  const result = await sql<ScopeCheckIssueRow>`
    WITH cand AS (
      SELECT repo.${sql.ref(column)}::text AS scope_id, repo.id AS repository_id, c.check_id, c.run_id,
        c.analyzer_id, c.run_key, c.run_created_at,
        lag(c.check_id) OVER (PARTITION BY repo.id, c.analyzer_id ORDER BY c.run_created_at, c.run_key)
          AS previous_check_id
      FROM repositories AS repo
      CROSS JOIN LATERAL ${currentCheckCandidates("repo")} AS c
      WHERE repo.${sql.ref(column)} = ANY(cast(${scopeIds} as bigint[]))
    ), judged AS (
      SELECT cand.*, ck.base_check_id IS NOT DISTINCT FROM cand.previous_check_id AS resolved_against_previous
      FROM cand
      JOIN checks AS ck ON ck.id = cand.check_id
    )
    SELECT j.scope_id, j.repository_id::text AS repository_id,
      j.analyzer_id::text AS analyzer_id, j.run_key, j.run_created_at AS created_at,
      x.issue_id::text AS issue_id, x.category, x.severity, x.tags,
      CASE WHEN x.issue_id IS NOT NULL THEN a.shortcode END AS analyzer_shortcode,
      coalesce(x.open, 0)::int AS open, coalesce(x.resolved, 0)::int AS resolved
    FROM judged AS j
    JOIN analyzers AS a ON a.id = j.analyzer_id
    LEFT JOIN LATERAL (
      SELECT k.issue_id, i.category, coalesce(k.severity, i.severity) AS severity, i.tags,
        sum(k.occurrences) FILTER (WHERE k.state <> 'RESOLVED') AS open,
        sum(k.occurrences) FILTER (WHERE k.state = 'RESOLVED' AND j.resolved_against_previous) AS resolved
      FROM check_issue_counts AS k
      JOIN issues AS i ON i.id = k.issue_id
      WHERE k.check_id = j.check_id AND NOT k.is_suppressed
      GROUP BY k.issue_id, i.category, coalesce(k.severity, i.severity), i.tags
    ) AS x ON true
    UNION ALL
    SELECT j.scope_id, j.repository_id::text, j.analyzer_id::text, j.run_key, j.run_created_at,
      i.id::text, i.category, coalesce(p.severity, i.severity), i.tags, a.shortcode,
      0, count(*)::int
    FROM judged AS j
    JOIN analyzers AS a ON a.id = j.analyzer_id
    JOIN occurrences AS p ON p.check_id = j.previous_check_id AND p.state <> 'RESOLVED' AND NOT p.is_suppressed
      AND ${isPublished("p")}
    JOIN issues AS i ON i.id = p.issue_id
    WHERE NOT j.resolved_against_previous
      AND NOT EXISTS (SELECT 1 FROM occurrences AS o WHERE o.check_id = j.check_id
        AND o.fingerprint = p.fingerprint AND o.state <> 'RESOLVED' AND ${isPublished("o")})
      AND NOT EXISTS (SELECT 1 FROM occurrences AS o WHERE o.check_id = j.check_id
        AND o.former_fingerprint = p.fingerprint AND o.state <> 'RESOLVED' AND ${isPublished("o")})
    GROUP BY j.scope_id, j.repository_id, j.analyzer_id, j.run_key, j.run_created_at, i.id, i.category,
      coalesce(p.severity, i.severity), i.tags, a.shortcode`.execute(db);
  return result.rows;
}

/**
 * Open occurrences (neither RESOLVED nor silenced) of one run in one category and severity (the
 * finding's own, else its issue's).
 */
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
    SELECT c.run_id::text AS run_id, i.category, coalesce(k.severity, i.severity) AS severity,
      sum(k.occurrences)::int AS open
    FROM checks AS c
    JOIN check_issue_counts AS k ON k.check_id = c.id
    JOIN issues AS i ON i.id = k.issue_id
    WHERE c.run_id = ANY(cast(${runIds} as bigint[])) AND k.state <> 'RESOLVED' AND NOT k.is_suppressed
    GROUP BY c.run_id, i.category, coalesce(k.severity, i.severity)`.execute(db);
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

/** One run of a pull request and how many findings it was the first to be without for good. */
export interface ScopePreventionRow {
  scope_id: string;
  repository_id: string;
  run_key: string;
  created_at: Date | string;
  prevented: number;
}

/**
 * The findings prevented in the pull requests of every repository whose `column` is one of
 * `scopeIds`, counted per fixing run (docs/reports.md, "Issues prevented"). Only analysed runs
 * (`isAnalysedRun`) of a pull request and, in them, the checks that can say what the code holds
 * are read (`isConclusiveCheck`: finished SUCCESS or FAILURE, or PENDING again for a late artifact
 * after it did, with no artifact that FAILED to process), the rule a base check follows
 * (`findBaseCheckId`). An analyzer that did not report, reported nothing it could
 * place (NEUTRAL) or whose report could not be read never looks like a fix. A
 * finding is (analyzer, issue, fingerprint); it is prevented when one of those checks introduced
 * it unsuppressed and a later check of its analyzer in the same pull request no longer has it.
 * Its fixing run is the first run after the last one that had it. One statement for any number
 * of scopes.
 */
export async function findScopePreventions(
  db: Kysely<Database>,
  column: ScopeColumn,
  scopeIds: readonly string[],
): Promise<ScopePreventionRow[]> {
  const result = await sql<ScopePreventionRow>`
    WITH pr_checks AS (
      SELECT repo.${sql.ref(column)}::text AS scope_id, r.repository_id, r.pull_request_id,
        r.key AS run_key, r.created_at, c.id AS check_id, c.analyzer_id,
        row_number() OVER (PARTITION BY r.pull_request_id, c.analyzer_id ORDER BY r.created_at, r.key) AS seq
      FROM repositories AS repo
      JOIN analysis_runs AS r ON r.repository_id = repo.id AND r.pull_request_id IS NOT NULL
        AND ${isAnalysedRun("r")}
      JOIN checks AS c ON c.run_id = r.id AND ${isConclusiveCheck("c")}
      WHERE repo.${sql.ref(column)} = ANY(cast(${scopeIds} as bigint[]))
    ), findings AS (
      SELECT pc.pull_request_id, pc.analyzer_id, max(pc.seq) AS last_seen
      FROM pr_checks AS pc
      JOIN occurrences AS o ON o.check_id = pc.check_id
      WHERE ${isPublished("o")}
      GROUP BY pc.pull_request_id, pc.analyzer_id, o.issue_id, o.fingerprint
      HAVING bool_or(o.state = 'INTRODUCED' AND NOT o.is_suppressed)
    )
    SELECT fix.scope_id, fix.repository_id::text AS repository_id, fix.run_key, fix.created_at,
      count(*)::int AS prevented
    FROM findings AS f
    JOIN pr_checks AS fix ON fix.pull_request_id = f.pull_request_id
      AND fix.analyzer_id = f.analyzer_id AND fix.seq = f.last_seen + 1
    GROUP BY fix.scope_id, fix.repository_id, fix.run_key, fix.created_at`.execute(db);
  return result.rows;
}

/** One recorded repository-wide line coverage value of a repository in a scope. */
export interface ScopeCoverageRow {
  scope_id: string;
  repository_id: string;
  value_key: string;
  created_at: Date | string;
  value: number;
}

/**
 * Every AGGREGATE LCV value recorded for every repository whose `column` is one of `scopeIds`
 * (the values `codeCoverage` reads the latest of). One statement for any number of scopes.
 */
export async function findScopeLineCoverage(
  db: Kysely<Database>,
  column: ScopeColumn,
  scopeIds: readonly string[],
): Promise<ScopeCoverageRow[]> {
  return (await scopeLineCoverage(column, scopeIds).execute(db)).rows;
}

/**
 * The statement {@link findScopeLineCoverage} runs (its test reads the statement's plan): the
 * scope's whole history of values, each judged by the mark it carries, not by its check and run.
 */
export function scopeLineCoverage(
  column: ScopeColumn,
  scopeIds: readonly string[],
): RawBuilder<ScopeCoverageRow> {
  return sql<ScopeCoverageRow>`
    SELECT repo.${sql.ref(column)}::text AS scope_id, repo.id::text AS repository_id,
      v.key AS value_key, v.created_at, v.value
    FROM repositories AS repo
    JOIN repository_metric_items AS it ON it.repository_id = repo.id
      AND it.metric_shortcode = 'LCV' AND it.metric_key = 'AGGREGATE'
    JOIN metric_values AS v ON v.item_id = it.id AND v.on_default_branch AND ${isValueOfAnalysedRun("v")}
    WHERE repo.${sql.ref(column)} = ANY(cast(${scopeIds} as bigint[]))`;
}
