import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/types.ts";
import { isPublished } from "./occurrence-store.ts";

/**
 * The checks' issue counts (`check_issue_counts`, migration 0020): a check's published
 * occurrences counted by issue, own severity, state and suppression. Every count the API answers
 * over a check's findings reads them, so a summary or a total costs the number of distinct issues,
 * not of findings (docs/design-issue-counts.md).
 *
 * They are written by {@link refreshCheckIssueCounts} alone, in the transaction of every change to
 * what reads of a check's occurrences show: an artifact's publication (with its state pass), a
 * check losing its RESOLVED rows, and the demo's bulk write. Rows staged for an artifact still
 * QUEUED are not shown, so writing or deleting them changes nothing here.
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
