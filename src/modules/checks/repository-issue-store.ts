import { type Kysely, sql } from "kysely";
import type { Database, IssueCategory, IssueSeverity } from "../../db/types.ts";
import { ROW_KEY_LENGTH } from "../../graphql/global-id.ts";
import type { ConnectionSource } from "../../graphql/pagination.ts";
import { allOf } from "../../graphql/row-filter-store.ts";
import { analyzerInFilter, type ConnectionFilter } from "./connection-filter-store.ts";
import { currentChecksOf } from "./current-check-store.ts";
import { normaliseNames, normalisePath } from "./filters.ts";
import { isPublished } from "./occurrence-store.ts";

/**
 * Repository issues: the distinct issues present in a repository's current findings (its current
 * checks, one per analyzer: current-check-store.ts), with those checks' occurrences of them. They
 * have no table; a row is derived from the current checks' non-RESOLVED issue counts, and its key
 * is the repository key followed by the issue key.
 */

/** One issue present in a repository, as `RepositoryIssue` answers it. */
export interface RepositoryIssueRow {
  /** Repository key + issue key: the key inside the global id. */
  key: string;
  /** The run of `check_id`. */
  run_id: string;
  /** The current check of the issue's analyzer, where its occurrences are. */
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

// The issues present in each repository: an issue counts in the current check of its own analyzer
// (one per analyzer) when that check has a non-RESOLVED occurrence of it; `has_unsuppressed` and
// `has_suppressed` say whether one of them is not silenced, and whether one is. Read from the
// checks' issue counts (issue-count-store.ts), which hold the suppression, so a repository's
// issues and either filter cost its current checks' distinct issues, not their findings.
const ISSUES_OF_REPOSITORIES = sql`(
  SELECT repo.id AS repository_id, cur.run_id, cur.check_id, i.id AS issue_id, repo.key || i.key AS key,
    i.shortcode, i.analyzer_id, i.tags, i.category, i.severity, g.has_unsuppressed, g.has_suppressed
  FROM repositories AS repo
  CROSS JOIN LATERAL ${currentChecksOf("repo")} AS cur
  CROSS JOIN LATERAL (
    SELECT k.issue_id, bool_or(NOT k.is_suppressed) AS has_unsuppressed, bool_or(k.is_suppressed) AS has_suppressed
    FROM check_issue_counts AS k
    WHERE k.check_id = cur.check_id AND k.state <> 'RESOLVED'
    GROUP BY k.issue_id
  ) AS g
  JOIN issues AS i ON i.id = g.issue_id AND i.analyzer_id = cur.analyzer_id
)`;

/** The distinct issues of a repository's current findings, by issue shortcode then key. Parent: the repository id. */
export const repositoryIssuesOfRepository: ConnectionSource = {
  name: "repositoryIssuesOfRepository",
  from: ISSUES_OF_REPOSITORIES,
  parentColumn: "repository_id",
  samePlanForEveryParent: true,
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
  isSuppressed?: boolean | null;
}

/**
 * The filter of `Repository.issues`: `isSuppressed` keeps issues with a silenced finding for true,
 * else (false, null or left out) issues with a finding that is not silenced, so the default list
 * is the issues of `issueOccurrences`' default list; `path` keeps issues with such a finding at
 * that file or under that directory; `tags` keeps issues carrying every one of the tags;
 * `analyzerIn` keeps issues of those analyzers; `category` and `severity` keep issues whose
 * catalog entry has that category or severity.
 */
export function repositoryIssueFilter(args: RepositoryIssueFilterArgs): ConnectionFilter | undefined {
  const path = normalisePath(args.path);
  const tags = normaliseNames(args.tags);
  const suppressed = args.isSuppressed === true;
  const ofKind = suppressed ? sql<boolean>`po.is_suppressed` : sql<boolean>`NOT po.is_suppressed`;
  return allOf(
    {
      key: `is_suppressed=${suppressed}`,
      condition: suppressed ? sql<boolean>`s.has_suppressed` : sql<boolean>`s.has_unsuppressed`,
    },
    path === ""
      ? undefined
      : {
          key: `path:${JSON.stringify(path)}`,
          condition: sql<boolean>`EXISTS (SELECT 1 FROM occurrences AS po
            WHERE po.check_id = s.check_id AND po.issue_id = s.issue_id AND po.state <> 'RESOLVED'
              AND ${ofKind} AND ${isPublished("po")}
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
 * its current findings, silenced or not: `Repository.issues` lists it for one kind or the other.
 */
export async function findVisibleRepositoryIssuesByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<RepositoryIssueRow[]> {
  const parts = keys.flatMap((key) => splitRepositoryIssueKey(key) ?? []);
  if (parts.length === 0) return [];
  // One key, the usual lookup, as plain parameters: PostgreSQL then keeps a generic plan for the
  // statement instead of planning it at every run, as for a connection of one repository
  // (docs/decisions.md "One repository's page as a plain parameter"); several keys as arrays.
  const only = parts.length === 1 ? parts[0] : undefined;
  const wanted = only
    ? sql`(SELECT cast(${only.repositoryKey} as text), cast(${only.issueKey} as text))`
    : sql`unnest(cast(${parts.map((p) => p.repositoryKey)} as text[]), cast(${parts.map((p) => p.issueKey)} as text[]))`;
  const result = await sql<RepositoryIssueRow>`
    SELECT cur.run_id, cur.check_id, i.id AS issue_id, repo.id AS repository_id,
      repo.key || i.key AS key, i.shortcode, i.analyzer_id, i.tags
    FROM ${wanted} AS w(repository_key, issue_key)
    JOIN repositories AS repo ON repo.key = w.repository_key
    JOIN memberships AS m ON m.account_id = repo.account_id AND m.user_id = ${viewerId}
    JOIN issues AS i ON i.key = w.issue_key
    CROSS JOIN LATERAL ${currentChecksOf("repo")} AS cur
    WHERE cur.analyzer_id = i.analyzer_id AND EXISTS (SELECT 1 FROM check_issue_counts AS k
      WHERE k.check_id = cur.check_id AND k.issue_id = i.id AND k.state <> 'RESOLVED')`.execute(db);
  return result.rows;
}
