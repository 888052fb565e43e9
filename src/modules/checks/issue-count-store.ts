import { type Kysely, sql } from "kysely";
import { arrayParameter } from "../../db/array-parameter.ts";
import type { Database, FindingState, IssueSeverity } from "../../db/types.ts";
import { isPublished } from "./occurrence-store.ts";

/**
 * The checks' issue counts (`check_issue_counts`, migration 0020): a check's published
 * occurrences counted by issue, own severity, state and suppression. Every count the API answers
 * over a check's findings reads them, so a summary or a total costs the number of distinct issues,
 * not of findings (docs/design-issue-counts.md).
 *
 * They are written by {@link refreshCheckIssueCounts}, in the transaction of every change to what
 * reads of a check's occurrences show: an artifact's publication (with its state pass), a check
 * losing its RESOLVED rows, and the demo's bulk write; or, for a publication that changed nothing
 * of the check but the artifact's rows and RESOLVED copies it deleted, by
 * {@link addPublishedArtifactToIssueCounts}. Rows staged for an artifact still QUEUED are not
 * shown, so writing or deleting them changes nothing here.
 */

/**
 * Rewrites the issue counts of these checks from their published occurrences, in one statement
 * each for the old rows and the new ones. Linear in the checks' findings: it runs once per change,
 * in place of the counts every read made before.
 */
export async function refreshCheckIssueCounts(
  tx: Kysely<Database>,
  checkIds: readonly string[],
): Promise<void> {
  if (checkIds.length === 0) return;
  const ids = sql`cast(${checkIds} as bigint[])`;
  await sql`DELETE FROM check_issue_counts WHERE check_id = ANY(${ids})`.execute(tx);
  await sql`
    INSERT INTO check_issue_counts (check_id, issue_id, severity, state, is_suppressed, occurrences)
    SELECT o.check_id, o.issue_id, o.severity, o.state, o.is_suppressed, count(*)
    FROM occurrences AS o
    WHERE o.check_id = ANY(${ids}) AND ${isPublished("o")}
    GROUP BY o.check_id, o.issue_id, o.severity, o.state, o.is_suppressed`.execute(tx);
}

/** Some of a check's occurrences counted as its issue counts count them: one issue, severity, state, suppression. */
export interface IssueCountGroup {
  issueId: string;
  /** The occurrences' own severity; null for those that take their issue's. */
  severity: IssueSeverity | null;
  state: FindingState;
  isSuppressed: boolean;
  occurrences: number;
}

/** An {@link IssueCountGroup} as a statement answers it. */
export interface IssueCountGroupRow {
  issue_id: string;
  severity: IssueSeverity | null;
  state: FindingState;
  is_suppressed: boolean;
  occurrences: number;
}

export function toIssueCountGroup(row: IssueCountGroupRow): IssueCountGroup {
  return {
    issueId: String(row.issue_id),
    severity: row.severity,
    state: row.state,
    isSuppressed: row.is_suppressed,
    occurrences: Number(row.occurrences),
  };
}

/**
 * The issue counts of `checkId` once the rows of `artifactId` are published into it and the rows
 * counted in `removed` are gone, when nothing else in the check changed since they were last
 * right: the artifact's rows are added (read by the artifact's index) and `removed` taken away, in
 * one statement that rewrites the check's count rows (as many as its distinct issues, states and
 * severities). So a publication costs its own rows, not the check's, where
 * {@link refreshCheckIssueCounts} counts every finding of the check again. The caller holds the
 * check's run locked, as every publication, settlement and rebase does before it writes a check's
 * rows, so no other change to them comes in between.
 */
export async function addPublishedArtifactToIssueCounts(
  tx: Kysely<Database>,
  checkId: string,
  artifactId: string,
  removed: readonly IssueCountGroup[],
): Promise<void> {
  await sql`
    WITH earlier AS (
      DELETE FROM check_issue_counts WHERE check_id = ${checkId}
      RETURNING issue_id, severity, state, is_suppressed, occurrences
    ), changes (issue_id, severity, state, is_suppressed, occurrences) AS (
      SELECT issue_id, severity, state, is_suppressed, occurrences::bigint FROM earlier
      UNION ALL
      SELECT o.issue_id, o.severity, o.state, o.is_suppressed, count(*)
      FROM occurrences AS o WHERE o.artifact_id = ${artifactId} AND o.check_id = ${checkId}
      GROUP BY o.issue_id, o.severity, o.state, o.is_suppressed
      UNION ALL
      SELECT * FROM unnest(
        ${arrayParameter(removed.map((r) => r.issueId))}::bigint[],
        ${arrayParameter(removed.map((r) => r.severity))}::text[],
        ${arrayParameter(removed.map((r) => r.state))}::text[],
        ${arrayParameter(removed.map((r) => r.isSuppressed))}::boolean[],
        ${arrayParameter(removed.map((r) => -r.occurrences))}::bigint[])
    )
    INSERT INTO check_issue_counts (check_id, issue_id, severity, state, is_suppressed, occurrences)
    SELECT ${checkId}, issue_id, severity, state, is_suppressed, sum(occurrences)
    FROM changes GROUP BY issue_id, severity, state, is_suppressed
    HAVING sum(occurrences) > 0`.execute(tx);
}

/** A check's findings by state. */
export interface FindingStateCounts {
  introduced: number;
  existing: number;
  resolved: number;
}

/** A check's published findings counted by state, from its issue counts. */
export async function countCheckFindingsByState(
  tx: Kysely<Database>,
  checkId: string,
): Promise<FindingStateCounts> {
  const { rows } = await sql<FindingStateCounts>`
    SELECT coalesce(sum(occurrences) FILTER (WHERE state = 'INTRODUCED'), 0)::int AS introduced,
      coalesce(sum(occurrences) FILTER (WHERE state = 'EXISTING'), 0)::int AS existing,
      coalesce(sum(occurrences) FILTER (WHERE state = 'RESOLVED'), 0)::int AS resolved
    FROM check_issue_counts WHERE check_id = ${checkId}`.execute(tx);
  return rows[0]!;
}

/** A check's counts as stored, and as its occurrences give them now: they must be equal. */
export interface CheckIssueCountRow {
  check_id: string;
  issue_id: string;
  severity: string | null;
  state: string;
  is_suppressed: boolean;
  occurrences: number;
}

const ORDER = sql`ORDER BY check_id, issue_id, severity NULLS FIRST, state, is_suppressed`;

/**
 * Every stored issue count, and the same computed from the published occurrences, both in one
 * order: the invariant the tests hold after each write path (test/check-issue-counts.test.ts).
 */
export async function compareCheckIssueCounts(
  db: Kysely<Database>,
): Promise<{ stored: CheckIssueCountRow[]; computed: CheckIssueCountRow[] }> {
  const stored = await sql<CheckIssueCountRow>`
    SELECT check_id::text AS check_id, issue_id::text AS issue_id, severity, state, is_suppressed, occurrences
    FROM check_issue_counts ${ORDER}`.execute(db);
  const computed = await sql<CheckIssueCountRow>`
    SELECT check_id, issue_id, severity, state, is_suppressed, occurrences FROM (
      SELECT o.check_id::text AS check_id, o.issue_id::text AS issue_id, o.severity, o.state, o.is_suppressed,
        count(*)::int AS occurrences
      FROM occurrences AS o WHERE ${isPublished("o")}
      GROUP BY o.check_id, o.issue_id, o.severity, o.state, o.is_suppressed) AS g
    ${ORDER}`.execute(db);
  return { stored: stored.rows, computed: computed.rows };
}
