import { type Kysely, sql } from "kysely";

/**
 * Name, table and columns of an index for each foreign key that had none leading with its column.
 * `ignore_rules` adds the repository after the issue: `ignoreRules(issueShortcode:)` then finds a
 * repository's rules of one issue exactly, where the issue alone would find them in every
 * repository and the planner would intersect it with the repository's index.
 */
const FOREIGN_KEY_INDEXES: ReadonlyArray<readonly [string, string, readonly string[]]> = [
  ["checks_analyzer_idx", "checks", ["analyzer_id"]],
  ["code_formatters_analyzer_idx", "code_formatters", ["analyzer_id"]],
  ["ignore_rules_created_by_idx", "ignore_rules", ["created_by"]],
  ["ignore_rules_issue_idx", "ignore_rules", ["issue_id", "repository_id"]],
  ["repository_metric_items_metric_idx", "repository_metric_items", ["metric_shortcode"]],
  ["repository_metric_settings_metric_idx", "repository_metric_settings", ["metric_shortcode"]],
  ["sca_checks_target_idx", "sca_checks", ["target_id"]],
  ["team_suppressed_issues_issue_idx", "team_suppressed_issues", ["issue_id"]],
  ["team_suppressed_issues_user_idx", "team_suppressed_issues", ["user_id"]],
  ["vulnerability_occurrences_package_version_idx", "vulnerability_occurrences", ["package_version_id"]],
  ["vulnerability_occurrences_vulnerability_idx", "vulnerability_occurrences", ["vulnerability_id"]],
];

/**
 * Indexes that `npm run bench:plans` found missing on the large data set (docs/benchmarks.md,
 * "Connection plans and deep pages").
 *
 * - `RepositoryIssue.occurrences` pages one issue's findings in one check by path, line and key.
 *   With only `(check_id, issue_id)` indexed, PostgreSQL read and sorted all of them for every
 *   page (11,400 findings: about 40 ms a page, deep or not). The covering index of 0003 gets the
 *   order columns after its own two, so one index serves that keyset order and every per-check
 *   and per-issue count it served before (index-only, as before).
 * - Every foreign key gets an index that leads with its column. Without one, deleting a
 *   referenced row (or changing its key) scans the referencing table once per row: deleting
 *   12,000 users scanned `ignore_rules` and `team_suppressed_issues` 12,000 times.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX occurrences_check_issue_order_idx
    ON occurrences (check_id, issue_id, path, begin_line, key) INCLUDE (state, is_suppressed)`.execute(db);
  await sql`DROP INDEX occurrences_check_counts_idx`.execute(db);
  for (const [name, table, columns] of FOREIGN_KEY_INDEXES) {
    await sql`CREATE INDEX ${sql.id(name)} ON ${sql.table(table)} (${sql.join(columns.map((c) => sql.id(c)))})`.execute(
      db,
    );
  }
}

/** Drops the indexes of {@link up} and restores the covering index of 0003. */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name] of FOREIGN_KEY_INDEXES) {
    await sql`DROP INDEX IF EXISTS ${sql.id(name)}`.execute(db);
  }
  await sql`CREATE INDEX occurrences_check_counts_idx ON occurrences (check_id, issue_id)
    INCLUDE (state, is_suppressed)`.execute(db);
  await sql`DROP INDEX IF EXISTS occurrences_check_issue_order_idx`.execute(db);
}
