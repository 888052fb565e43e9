import { type Kysely, sql } from "kysely";
import type { AnalysisRunRow, Database, IssueCategory, IssueSeverity } from "../../db/types.ts";
import { ROW_KEY_LENGTH } from "../../graphql/global-id.ts";
import type { ConnectionSource } from "../../graphql/pagination.ts";
import { latestDefaultBranchRun } from "../runs/run-store.ts";
import { allOf, analyzerInFilter, type ConnectionFilter } from "./connection-filter-store.ts";
import { normaliseNames, normalisePath } from "./filters.ts";
import { isPublished } from "./occurrence-store.ts";

/**
 * Repository issues: the distinct issues present in a repository's latest finished run on its
 * default branch, with that run's occurrences of them. They have no table; a row is derived from
 * the run's non-RESOLVED occurrences (their checks' issue counts), and its key is the repository key followed by the issue key.
 */

/** One issue present in one run, as `RepositoryIssue` answers it. */
export interface RepositoryIssueRow {
  /** Repository key + issue key: the key inside the global id. */
  key: string;
  run_id: string;
  /** The run's check of the issue's analyzer, where its occurrences are. */
  check_id: string;
  issue_id: string;
  repository_id: string;
  shortcode: string;
  analyzer_id: string;
  tags: string[];
}

/** Splits a repository issue key into its repository and issue keys; undefined when too short. */
export function splitRepositoryIssueKey(
  key: string,
): { repositoryKey: string; issueKey: string } | undefined {
  if (key.length <= ROW_KEY_LENGTH) return undefined;
  return { repositoryKey: key.slice(0, ROW_KEY_LENGTH), issueKey: key.slice(ROW_KEY_LENGTH) };
}

/**
 * The latest analysed run (`isAnalysedRun`: finished SUCCESS or FAILURE, also while a late
 * artifact makes it PENDING again) on the default branch of each of these repositories that has
 * one.
 */
export async function findLatestDefaultBranchRuns(
  db: Kysely<Database>,
  repositoryIds: readonly string[],
): Promise<AnalysisRunRow[]> {
  const result = await sql<AnalysisRunRow>`
    SELECT r.*
    FROM repositories AS repo
    CROSS JOIN LATERAL ${latestDefaultBranchRun("repo")} AS r
    WHERE repo.id = ANY(cast(${repositoryIds} as bigint[]))`.execute(db);
  return result.rows;
}

// The issues present in each run: an issue counts in the run's check of its own analyzer (one per
// run), when that check has a non-RESOLVED occurrence of it. Read from the checks' issue counts
// (issue-count-store.ts), so a run's issues cost its distinct issues, not its findings.
const ISSUES_OF_RUNS = sql`(
  SELECT g.run_id, g.check_id, g.issue_id, r.repository_id, repo.key || i.key AS key,
    i.shortcode, i.analyzer_id, i.tags, i.category, i.severity
  FROM (
    SELECT DISTINCT c.run_id, k.check_id, c.analyzer_id, k.issue_id
    FROM check_issue_counts AS k
    JOIN checks AS c ON c.id = k.check_id
    WHERE k.state <> 'RESOLVED'
  ) AS g
  JOIN issues AS i ON i.id = g.issue_id AND i.analyzer_id = g.analyzer_id
  JOIN analysis_runs AS r ON r.id = g.run_id
  JOIN repositories AS repo ON repo.id = r.repository_id
)`;

/** The distinct issues of a run, by issue shortcode then key. Parent: the run id. */
export const repositoryIssuesOfRun: ConnectionSource = {
  name: "repositoryIssuesOfRun",
  from: ISSUES_OF_RUNS,
  parentColumn: "run_id",
  order: [
    { column: "shortcode", kind: "text" },
    { column: "key", kind: "text" },
  ],
  direction: "asc",
};

/** The arguments of `Repository.issues` that filter. */
export interface RepositoryIssueFilterArgs {
  path?: string | null;
  category?: IssueCategory | null;
  severity?: IssueSeverity | null;
  tags?: ReadonlyArray<string | null | undefined> | null;
  analyzerIn?: ReadonlyArray<string | null | undefined> | null;
}

/**
 * The filter of `Repository.issues`: `path` keeps issues with an occurrence at that file or under
 * that directory; `tags` keeps issues carrying every one of the tags; `analyzerIn` keeps issues of
 * those analyzers; `category` and `severity` keep issues whose catalog entry has that category or
 * severity.
 */
export function repositoryIssueFilter(args: RepositoryIssueFilterArgs): ConnectionFilter | undefined {
  const path = normalisePath(args.path);
  const tags = normaliseNames(args.tags);
  return allOf(
    path === ""
      ? undefined
      : {
          key: `path:${JSON.stringify(path)}`,
          condition: sql<boolean>`EXISTS (SELECT 1 FROM occurrences AS po
            WHERE po.check_id = s.check_id AND po.issue_id = s.issue_id AND po.state <> 'RESOLVED'
              AND ${isPublished("po")}
              AND (po.path = ${path} OR starts_with(po.path, ${`${path}/`})))`,
        },
    tags.length === 0
      ? undefined
      : { key: `tags:${JSON.stringify(tags)}`, condition: sql<boolean>`s.tags @> cast(${tags} as text[])` },
    analyzerInFilter(args.analyzerIn),
    args.category
      ? { key: `category:${args.category}`, condition: sql<boolean>`s.category = ${args.category}` }
      : undefined,
    args.severity
      ? { key: `severity:${args.severity}`, condition: sql<boolean>`s.severity = ${args.severity}` }
      : undefined,
  );
}

/**
 * Repository issues by key, when `viewerId` can see the repository and the issue is present in
 * its latest finished default-branch run.
 */
export async function findVisibleRepositoryIssuesByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<RepositoryIssueRow[]> {
  const parts = keys.flatMap((key) => splitRepositoryIssueKey(key) ?? []);
  if (parts.length === 0) return [];
  const result = await sql<RepositoryIssueRow>`
    SELECT r.id AS run_id, c.id AS check_id, i.id AS issue_id, repo.id AS repository_id,
      repo.key || i.key AS key, i.shortcode, i.analyzer_id, i.tags
    FROM unnest(cast(${parts.map((p) => p.repositoryKey)} as text[]), cast(${parts.map((p) => p.issueKey)} as text[]))
      AS w(repository_key, issue_key)
    JOIN repositories AS repo ON repo.key = w.repository_key
    JOIN memberships AS m ON m.account_id = repo.account_id AND m.user_id = ${viewerId}
    CROSS JOIN LATERAL ${latestDefaultBranchRun("repo")} AS r
    JOIN issues AS i ON i.key = w.issue_key
    JOIN checks AS c ON c.run_id = r.id AND c.analyzer_id = i.analyzer_id
    WHERE EXISTS (SELECT 1 FROM check_issue_counts AS k
      WHERE k.check_id = c.id AND k.issue_id = i.id AND k.state <> 'RESOLVED')`.execute(db);
  return result.rows;
}
