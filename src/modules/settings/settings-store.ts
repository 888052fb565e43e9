import { type Kysely, type RawBuilder, type Selectable, sql } from "kysely";
import type {
  Database,
  IgnoreRuleRow,
  IssueCategory,
  MetricKey,
  MetricShortcode,
  RepositoryIssueCategorySettingsTable,
  RepositoryIssuePrioritySettingsTable,
  RepositoryMetricItemRow,
  TeamSuppressedIssueRow,
} from "../../db/types.ts";
import type { ConnectionSource } from "../../graphql/pagination.ts";

/**
 * A repository's quality-gate settings per issue category and priority, its ignore rules, and
 * the issues its account suppressed for the whole team.
 */

/** A stored issue-category setting of a repository. */
export type IssueCategorySettingRow = Selectable<RepositoryIssueCategorySettingsTable>;
/** A stored issue-priority setting of a repository. */
export type IssuePrioritySettingRow = Selectable<RepositoryIssuePrioritySettingsTable>;

/** The stored issue-category settings of these repositories. */
export function findIssueCategorySettingsOfRepositories(
  db: Kysely<Database>,
  repositoryIds: readonly string[],
): Promise<IssueCategorySettingRow[]> {
  return db
    .selectFrom("repository_issue_category_settings")
    .selectAll()
    .where("repository_id", "in", repositoryIds)
    .execute();
}

/** The stored issue-priority settings of these repositories. */
export function findIssuePrioritySettingsOfRepositories(
  db: Kysely<Database>,
  repositoryIds: readonly string[],
): Promise<IssuePrioritySettingRow[]> {
  return db
    .selectFrom("repository_issue_priority_settings")
    .selectAll()
    .where("repository_id", "in", repositoryIds)
    .execute();
}

/** Ignore rules with these keys in repositories `viewerId` can see. */
export function findVisibleIgnoreRulesByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<IgnoreRuleRow[]> {
  return db
    .selectFrom("ignore_rules as g")
    .innerJoin("repositories as r", "r.id", "g.repository_id")
    .innerJoin("memberships as m", "m.account_id", "r.account_id")
    .selectAll("g")
    .where("m.user_id", "=", viewerId)
    .where("g.key", "in", keys)
    .execute();
}

/** Team suppressions with these keys in accounts `viewerId` belongs to. */
export function findVisibleSuppressedIssuesByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<TeamSuppressedIssueRow[]> {
  return db
    .selectFrom("team_suppressed_issues as t")
    .innerJoin("memberships as m", "m.account_id", "t.account_id")
    .selectAll("t")
    .where("m.user_id", "=", viewerId)
    .where("t.key", "in", keys)
    .execute();
}

/** A repository's ignore rules, newest first. Parent: the repository id. */
export const ignoreRulesOfRepository: ConnectionSource = {
  name: "ignoreRulesOfRepository",
  from: sql`ignore_rules`,
  parentColumn: "repository_id",
  order: [
    { column: "created_at", kind: "timestamptz" },
    { column: "key", kind: "text" },
  ],
  direction: "desc",
};

/** An account's team-wide suppressed issues, newest first. Parent: the account id. */
export const suppressedIssuesOfAccount: ConnectionSource = {
  name: "suppressedIssuesOfAccount",
  from: sql`team_suppressed_issues`,
  parentColumn: "account_id",
  order: [
    { column: "created_at", kind: "timestamptz" },
    { column: "key", kind: "text" },
  ],
  direction: "desc",
};

/** A connection filter: `key` names it within a request, `condition` applies it to alias `s`. */
export interface RowFilter {
  key: string;
  condition: RawBuilder<boolean>;
}

/**
 * Rows whose issue has this shortcode (in any analyzer). Null and the empty string mean "no
 * filter", as the contract's server treats an empty lookup.
 */
export function issueShortcodeFilter(shortcode: string | null | undefined): RowFilter | undefined {
  if (!shortcode) return undefined;
  return {
    key: `issueShortcode=${JSON.stringify(shortcode)}`,
    condition: sql<boolean>`s.issue_id IN (SELECT id FROM issues WHERE shortcode = ${shortcode})`,
  };
}

/** Ignore rules of exactly this file (FILE-level rules); null and "" mean "no filter". */
export function filePathFilter(filePath: string | null | undefined): RowFilter | undefined {
  if (!filePath) return undefined;
  return { key: `filePath=${JSON.stringify(filePath)}`, condition: sql<boolean>`s.file_path = ${filePath}` };
}

/** Joins filters with AND; undefined when there is none. */
export function bothFilters(...filters: Array<RowFilter | undefined>): RowFilter | undefined {
  const present = filters.filter((f): f is RowFilter => f !== undefined);
  if (present.length === 0) return undefined;
  return {
    key: JSON.stringify(present.map((f) => f.key)),
    condition: sql<boolean>`(${sql.join(
      present.map((f) => f.condition),
      sql` AND `,
    )})`,
  };
}

/** A quality-gate setting as a mutation stores it. */
export interface IssueSettingValues {
  isReported: boolean;
  canFailCheck: boolean;
}

/** Stores a repository's setting for one issue category, replacing any stored before. */
export async function upsertIssueCategorySetting(
  db: Kysely<Database>,
  repositoryId: string,
  category: IssueCategory,
  values: IssueSettingValues,
): Promise<void> {
  await db
    .insertInto("repository_issue_category_settings")
    .values({
      repository_id: repositoryId,
      category,
      is_reported: values.isReported,
      can_fail_check: values.canFailCheck,
    })
    .onConflict((oc) =>
      oc.columns(["repository_id", "category"]).doUpdateSet({
        is_reported: values.isReported,
        can_fail_check: values.canFailCheck,
      }),
    )
    .execute();
}

/** Stores a repository's setting for one issue priority, replacing any stored before. */
export async function upsertIssuePrioritySetting(
  db: Kysely<Database>,
  repositoryId: string,
  priorityType: IssuePrioritySettingRow["priority_type"],
  values: IssueSettingValues,
): Promise<void> {
  await db
    .insertInto("repository_issue_priority_settings")
    .values({
      repository_id: repositoryId,
      priority_type: priorityType,
      is_reported: values.isReported,
      can_fail_check: values.canFailCheck,
    })
    .onConflict((oc) =>
      oc.columns(["repository_id", "priority_type"]).doUpdateSet({
        is_reported: values.isReported,
        can_fail_check: values.canFailCheck,
      }),
    )
    .execute();
}

/** Stores a repository's setting for one metric, replacing any stored before. */
export async function upsertMetricSetting(
  db: Kysely<Database>,
  repositoryId: string,
  shortcode: MetricShortcode,
  values: { isReported: boolean; isThresholdEnforced: boolean },
): Promise<void> {
  await db
    .insertInto("repository_metric_settings")
    .values({
      repository_id: repositoryId,
      metric_shortcode: shortcode,
      is_reported: values.isReported,
      is_threshold_enforced: values.isThresholdEnforced,
    })
    .onConflict((oc) =>
      oc.columns(["repository_id", "metric_shortcode"]).doUpdateSet({
        is_reported: values.isReported,
        is_threshold_enforced: values.isThresholdEnforced,
      }),
    )
    .execute();
}

/** Which metric item of a repository a threshold belongs to. */
export interface MetricItemAddress {
  repositoryId: string;
  shortcode: MetricShortcode;
  metricKey: MetricKey;
}

/**
 * Sets the threshold of a repository's metric item, creating the item (with `newKey`) when the
 * repository has none for that metric and key yet.
 */
export function upsertMetricItemThreshold(
  db: Kysely<Database>,
  item: MetricItemAddress,
  threshold: number,
  newKey: string,
): Promise<RepositoryMetricItemRow> {
  return db
    .insertInto("repository_metric_items")
    .values({
      key: newKey,
      repository_id: item.repositoryId,
      metric_shortcode: item.shortcode,
      metric_key: item.metricKey,
      threshold,
    })
    .onConflict((oc) =>
      oc.columns(["repository_id", "metric_shortcode", "metric_key"]).doUpdateSet({ threshold }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Removes the threshold of a repository's metric item; an item that does not exist stays absent. */
export async function clearMetricItemThreshold(db: Kysely<Database>, item: MetricItemAddress): Promise<void> {
  await db
    .updateTable("repository_metric_items")
    .set({ threshold: null })
    .where("repository_id", "=", item.repositoryId)
    .where("metric_shortcode", "=", item.shortcode)
    .where("metric_key", "=", item.metricKey)
    .execute();
}

/** The issue categories the repository does not report (`isReported: false`). */
export async function findUnreportedIssueCategories(
  db: Kysely<Database>,
  repositoryId: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom("repository_issue_category_settings")
    .select("category")
    .where("repository_id", "=", repositoryId)
    .where("is_reported", "=", false)
    .execute();
  return rows.map((row) => row.category);
}

/** The issue priorities the repository does not report (`isReported: false`). */
export async function findUnreportedIssuePriorities(
  db: Kysely<Database>,
  repositoryId: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom("repository_issue_priority_settings")
    .select("priority_type")
    .where("repository_id", "=", repositoryId)
    .where("is_reported", "=", false)
    .execute();
  return rows.map((row) => row.priority_type);
}
