import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database, IssueCategory, IssueSeverity, OccurrenceRow } from "../../db/types.ts";
import type { ConnectionSource, OrderKey } from "../../graphql/pagination.ts";
import { allOf, equalsFilter } from "../../graphql/row-filter-store.ts";
import { analyzerInFilter, type ConnectionFilter } from "./connection-filter-store.ts";
import { currentChecksOf } from "./current-check-store.ts";
import { containsPattern } from "./filters.ts";

/**
 * Occurrences: the findings of a check. RESOLVED rows record a finding of the run's base that is
 * gone; they are counted in summaries but never listed, so every source here leaves them out.
 */

/**
 * True for the occurrences the API shows, as a condition on the occurrence `alias`: rows of no
 * artifact (RESOLVED copies, demo data) and rows of an artifact that is no longer QUEUED. SARIF
 * processing writes an artifact's rows in short steps while the artifact is QUEUED and publishes
 * them all at once by marking it PROCESSED (docs/ingestion.md "Processing in steps"), so every
 * read of occurrences, the processing's own counts included, carries this condition. The ids of
 * the QUEUED artifacts come from a partial index of those few (`artifacts_queued_idx`) and are
 * hashed once per statement.
 */
export function isPublished(alias: string): RawBuilder<boolean> {
  const artifact = sql.ref(`${alias}.artifact_id`);
  return sql<boolean>`(${artifact} IS NULL OR ${artifact} NOT IN (SELECT q.id FROM artifacts AS q WHERE q.status = 'QUEUED'))`;
}

/** An occurrence as the connections read it: the row, its check's run and analyzer. */
export type LocatedOccurrence = OccurrenceRow & { run_id: string; analyzer_id: string };

/**
 * An occurrence with its issue's shortcode and category, as `AnalysisIssue` answers it; `severity`
 * is the finding's own, else its issue's.
 */
export type AnalysisIssueRow = Omit<LocatedOccurrence, "severity"> & {
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
    .where(isPublished("o"))
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
  WHERE o.state <> 'RESOLVED' AND ${isPublished("o")}
)`;

// The issue's columns are looked up per row rather than joined: a join with the issues table lets
// PostgreSQL hash it, which loses the order of occurrences_check_order_idx, so every page of a
// check read and sorted all of its findings. Subqueries keep the index order (a page reads about
// one page of rows), and after a sort (a run's pages) PostgreSQL runs them for the page's rows only.
const issueColumn = (column: "shortcode" | "category" | "severity") =>
  sql`(SELECT i.${sql.ref(column)} FROM issues AS i WHERE i.id = o.issue_id)`;

// Every occurrence column but `severity`, which WITH_ISSUE answers as the finding's own, else
// the issue's (COALESCE runs the issue lookup only for rows without their own). The Record type
// makes a column added to the table fail to compile until it is listed here.
const OCCURRENCE_COLUMNS = Object.keys({
  id: true,
  key: true,
  check_id: true,
  issue_id: true,
  path: true,
  begin_line: true,
  begin_column: true,
  end_line: true,
  end_column: true,
  title: true,
  explanation: true,
  source: true,
  fingerprint: true,
  former_fingerprint: true,
  deferred_former_fingerprint: true,
  state: true,
  is_suppressed: true,
  created_at: true,
  artifact_id: true,
  is_carried: true,
} satisfies Record<Exclude<keyof OccurrenceRow, "severity">, true>);

const WITH_ISSUE = sql`(
  SELECT ${sql.join(OCCURRENCE_COLUMNS.map((column) => sql.ref(`o.${column}`)))}, c.run_id, c.analyzer_id,
    ${issueColumn("shortcode")} AS issue_shortcode, ${issueColumn("category")} AS category,
    coalesce(o.severity, ${issueColumn("severity")}) AS severity
  FROM occurrences AS o
  JOIN checks AS c ON c.id = o.check_id
  WHERE o.state <> 'RESOLVED' AND ${isPublished("o")}
)`;

// The totals of the sources below, from the checks' issue counts (issue-count-store.ts): a row
// per check, issue, own severity, state and suppression, RESOLVED ones left out as the sources
// leave them out. A total then costs the parent's distinct issues, not its findings.
const COUNTED_COLUMNS = sql`k.check_id, k.issue_id, c.run_id, c.analyzer_id, k.state, k.is_suppressed, k.occurrences AS n`;

const LOCATED_COUNTS = {
  from: sql`(
    SELECT ${COUNTED_COLUMNS}
    FROM check_issue_counts AS k
    JOIN checks AS c ON c.id = k.check_id
    WHERE k.state <> 'RESOLVED'
  )`,
  columns: ["check_id", "issue_id", "run_id", "analyzer_id", "state", "is_suppressed"],
};

const WITH_ISSUE_COUNTS = {
  from: sql`(
    SELECT ${COUNTED_COLUMNS}, i.category, coalesce(k.severity, i.severity) AS severity
    FROM check_issue_counts AS k
    JOIN checks AS c ON c.id = k.check_id
    JOIN issues AS i ON i.id = k.issue_id
    WHERE k.state <> 'RESOLVED'
  )`,
  columns: [...LOCATED_COUNTS.columns, "category", "severity"],
};

/** A check's occurrences in reading order. Parent: the check id. */
export const occurrencesOfCheck: ConnectionSource = {
  name: "occurrencesOfCheck",
  from: LOCATED,
  parentColumn: "check_id",
  order: READING_ORDER,
  direction: "asc",
  counted: LOCATED_COUNTS,
};

/** A run's occurrences across its checks, in reading order. Parent: the run id. */
export const occurrencesOfRun: ConnectionSource = {
  name: "occurrencesOfRun",
  from: LOCATED,
  parentColumn: "run_id",
  order: READING_ORDER,
  direction: "asc",
  counted: LOCATED_COUNTS,
};

/**
 * A repository's current findings (its current checks, one per analyzer: current-check-store.ts),
 * in reading order. Parent: the repository id.
 */
export const occurrencesOfRepository: ConnectionSource = {
  name: "occurrencesOfRepository",
  from: sql`(
    SELECT o.*, cur.run_id, cur.analyzer_id, repo.id AS repository_id
    FROM repositories AS repo
    CROSS JOIN LATERAL ${currentChecksOf("repo")} AS cur
    JOIN occurrences AS o ON o.check_id = cur.check_id
    WHERE o.state <> 'RESOLVED' AND ${isPublished("o")}
  )`,
  parentColumn: "repository_id",
  samePlanForEveryParent: true,
  order: READING_ORDER,
  direction: "asc",
  counted: {
    from: sql`(
      SELECT repo.id AS repository_id, k.check_id, k.issue_id, cur.run_id, cur.analyzer_id, k.state, k.is_suppressed,
        k.occurrences AS n
      FROM repositories AS repo
      CROSS JOIN LATERAL ${currentChecksOf("repo")} AS cur
      JOIN check_issue_counts AS k ON k.check_id = cur.check_id
      WHERE k.state <> 'RESOLVED'
    )`,
    columns: LOCATED_COUNTS.columns,
  },
};

/** The occurrences of one issue in one check, in reading order. Parent: `"<check id>:<issue id>"`. */
export const occurrencesOfIssueInCheck: ConnectionSource = {
  name: "occurrencesOfIssueInCheck",
  from: LOCATED,
  parentColumn: "check_id",
  secondParentColumn: "issue_id",
  order: READING_ORDER,
  direction: "asc",
  counted: LOCATED_COUNTS,
};

/** A check's findings as `AnalysisIssue` rows, in reading order. Parent: the check id. */
export const analysisIssuesOfCheck: ConnectionSource = {
  name: "analysisIssuesOfCheck",
  from: WITH_ISSUE,
  parentColumn: "check_id",
  order: READING_ORDER,
  direction: "asc",
  counted: WITH_ISSUE_COUNTS,
};

/** A run's findings as `AnalysisIssue` rows, in reading order (for pull requests). Parent: the run id. */
export const analysisIssuesOfRun: ConnectionSource = {
  name: "analysisIssuesOfRun",
  from: WITH_ISSUE,
  parentColumn: "run_id",
  order: READING_ORDER,
  direction: "asc",
  counted: WITH_ISSUE_COUNTS,
};

/** The filter arguments of `Check.issues` (and `PullRequest.issues`). */
export interface AnalysisIssueFilterArgs {
  source?: "STATIC" | "AI" | null;
  category?: IssueCategory | null;
  severity?: IssueSeverity | null;
  q?: string | null;
  isIntroduced?: boolean | null;
  isSuppressed?: boolean | null;
}

/**
 * Findings new in their run (INTRODUCED: not in the run's base) for true, already in the base
 * (EXISTING) for false; the connections leave RESOLVED rows out, so these two are all of them.
 */
function isIntroducedFilter(value: boolean | null | undefined): ConnectionFilter | undefined {
  if (value === null || value === undefined) return undefined;
  return equalsFilter("state", value ? "INTRODUCED" : "EXISTING");
}

/**
 * Findings silenced (in the source, by an ignore rule or a team suppression) for true, the others
 * for false. Every list of findings leaves the silenced ones out unless asked for them, as
 * DeepSource lists what needs attention: null and undefined mean false. The checks' issue counts
 * keep `is_suppressed`, so a total still reads them rather than the findings.
 */
function isSuppressedFilter(value: boolean | null | undefined): ConnectionFilter {
  const suppressed = value === true;
  return {
    key: `is_suppressed=${suppressed}`,
    condition: suppressed ? sql<boolean>`s.is_suppressed` : sql<boolean>`NOT s.is_suppressed`,
    columns: ["is_suppressed"],
  };
}

/** The filter arguments of the `Occurrence` connections. */
export interface OccurrenceFilterArgs {
  analyzerIn?: ReadonlyArray<string | null | undefined> | null;
  isSuppressed?: boolean | null;
}

/**
 * The filter of an `Occurrence` connection: `analyzerIn` (findings of those analyzers) and
 * `isSuppressed` (silenced findings for true; the others when false or left out, so a connection
 * without the argument, such as the deprecated `Check.occurrences`, lists what `Check.issues`
 * does). Both read columns of the checks' issue counts, so a total never counts findings.
 */
export function occurrenceFilter(args: OccurrenceFilterArgs): ConnectionFilter | undefined {
  return allOf(analyzerInFilter(args.analyzerIn), isSuppressedFilter(args.isSuppressed));
}

/**
 * The filter of an {@link AnalysisIssueRow} connection: exact `source`, `category` and `severity`,
 * `isIntroduced` (new in the run, or already in its base), `isSuppressed` (silenced findings for
 * true; the unsilenced ones when false or left out) and `q` as a case-insensitive substring of the
 * title, the path or the issue's shortcode. A `q` of only whitespace does not filter.
 */
export function analysisIssueFilter(args: AnalysisIssueFilterArgs): ConnectionFilter | undefined {
  const q = args.q?.trim() ?? "";
  const pattern = containsPattern(q);
  return allOf(
    equalsFilter("source", args.source),
    equalsFilter("category", args.category),
    equalsFilter("severity", args.severity),
    isIntroducedFilter(args.isIntroduced),
    isSuppressedFilter(args.isSuppressed),
    q === ""
      ? undefined
      : {
          key: `q:${JSON.stringify(q)}`,
          condition: sql<boolean>`(s.title ILIKE ${pattern} ESCAPE '\\' OR s.path ILIKE ${pattern} ESCAPE '\\' OR s.issue_shortcode ILIKE ${pattern} ESCAPE '\\')`,
        },
  );
}

/**
 * Deletes a check's copies of its base's findings: the RESOLVED ones (the base's findings it no
 * longer has) and the carried ones (kept EXISTING in files its tool could not analyze). They are
 * written again whenever the check's states are set; a check that lost what it was sent cannot
 * say which findings are gone, nor which files it did not see (docs/ingestion.md "Status"). The
 * check no longer holds what it was settled against (`checks.settled_against`): the next setting
 * of its states writes them all.
 */
export async function deleteResolvedOccurrencesOfCheck(db: Kysely<Database>, checkId: string): Promise<void> {
  await db
    .deleteFrom("occurrences")
    .where("check_id", "=", checkId)
    .where((eb) => eb.or([eb("state", "=", "RESOLVED"), eb("is_carried", "=", true)]))
    .execute();
  await db
    .updateTable("checks")
    .set({ settled_against: null })
    .where("id", "=", checkId)
    .where("settled_against", "is not", null)
    .execute();
}

/**
 * A check's INTRODUCED, unsuppressed occurrences that can fail it, counted per category (the
 * issue's), in category order: those whose category and priority the repository's settings let
 * fail checks (both can by default). A finding's priority follows its own severity, else its
 * issue's, through `priorityOfSeverity`. Read from the check's issue counts (issue-count-store.ts),
 * which its publication has just written.
 */
export async function countCheckFailingOccurrences(
  db: Kysely<Database>,
  repositoryId: string,
  checkId: string,
  priorityOfSeverity: Readonly<Record<IssueSeverity, string>>,
): Promise<Array<{ category: IssueCategory; count: number }>> {
  const priority = sql`CASE coalesce(k.severity, i.severity) ${sql.join(
    Object.entries(priorityOfSeverity).map(
      ([severity, value]) => sql`WHEN ${sql.lit(severity)} THEN ${sql.lit(value)}`,
    ),
    sql` `,
  )} END`;
  const result = await sql<{ category: IssueCategory; count: number }>`
    SELECT i.category, sum(k.occurrences)::int AS count
    FROM check_issue_counts AS k
    JOIN issues AS i ON i.id = k.issue_id
    LEFT JOIN repository_issue_category_settings AS cs
      ON cs.repository_id = ${repositoryId} AND cs.category = i.category
    LEFT JOIN repository_issue_priority_settings AS ps
      ON ps.repository_id = ${repositoryId} AND ps.priority_type = ${priority}
    WHERE k.check_id = ${checkId} AND k.state = 'INTRODUCED' AND NOT k.is_suppressed
      AND coalesce(cs.can_fail_check, true) AND coalesce(ps.can_fail_check, true)
    GROUP BY i.category
    ORDER BY i.category`.execute(db);
  return result.rows;
}

/**
 * The repository's current findings that are not silenced (non-RESOLVED, unsuppressed occurrences
 * of its current checks, what `Repository.issues` lists by default) counted per issue, by issue
 * id, from the checks' issue counts.
 */
export async function countPresentOccurrencesByIssue(
  db: Kysely<Database>,
  repositoryId: string,
): Promise<Map<string, number>> {
  const result = await sql<{ issue_id: string; count: number }>`
      SELECT k.issue_id::text AS issue_id, sum(k.occurrences)::int AS count
      FROM repositories AS repo
      CROSS JOIN LATERAL ${currentChecksOf("repo")} AS cur
      JOIN check_issue_counts AS k ON k.check_id = cur.check_id
      WHERE repo.id = ${repositoryId} AND k.state <> 'RESOLVED' AND NOT k.is_suppressed
      GROUP BY k.issue_id`.execute(db);
  return new Map(result.rows.map((row) => [row.issue_id, row.count]));
}

/**
 * For each of `issueIds`, the first `limit` of the repository's current findings of it that are
 * not silenced (non-RESOLVED, unsuppressed occurrences of its current checks), by path, line and
 * key: one statement for any number of issues. An issue's findings are in the current check of
 * its analyzer, read in the order of its (check, issue, path, line, key) index, which holds state
 * and suppression too, up to `limit` rows, so an issue with thousands of findings costs `limit`
 * rows, not a sort of all of them.
 */
export async function findPresentOccurrencesOfIssues(
  db: Kysely<Database>,
  repositoryId: string,
  issueIds: readonly string[],
  limit: number,
): Promise<Map<string, OccurrenceRow[]>> {
  const found = new Map<string, OccurrenceRow[]>(issueIds.map((id) => [id, []]));
  if (issueIds.length === 0) return found;
  const result = await sql<OccurrenceRow>`
    SELECT o.*
    FROM repositories AS repo
    CROSS JOIN LATERAL ${currentChecksOf("repo")} AS cur
    JOIN issues AS i ON i.analyzer_id = cur.analyzer_id AND i.id = ANY(cast(${issueIds} as bigint[]))
    CROSS JOIN LATERAL (
      SELECT o.* FROM occurrences AS o
      WHERE o.check_id = cur.check_id AND o.issue_id = i.id AND o.state <> 'RESOLVED' AND NOT o.is_suppressed
        AND ${isPublished("o")}
      ORDER BY o.path, o.begin_line, o.key
      LIMIT ${sql.lit(limit)}
    ) AS o
    WHERE repo.id = ${repositoryId}
    ORDER BY o.issue_id, o.path, o.begin_line, o.key`.execute(db);
  for (const row of result.rows) found.get(String(row.issue_id))?.push(row);
  return found;
}
