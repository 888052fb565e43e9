import { createHash, randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type {
  AccountRow,
  Database,
  IgnoreRuleRow,
  IssueCategory,
  IssueRow,
  MetricKey,
  MetricShortcode,
  MetricValueRow,
  RepositoryMetricItemRow,
  RepositoryRow,
  TeamSuppressedIssueRow,
  UserRow,
} from "../../src/db/types.ts";
import { newRowKey } from "../../src/graphql/global-id.ts";

/**
 * Builders for metrics (items, values, settings), issue settings, ignore rules and team
 * suppressions. Metric definitions need none: the migration seeds all ten.
 */

/** A fresh commit SHA. */
export function aCommitOid(): string {
  return createHash("sha1").update(randomUUID()).digest("hex");
}

/** Inserts a metric item of `repository` for `shortcode` and `key` (AGGREGATE by default). */
export function aMetricItem(
  db: Kysely<Database>,
  repository: RepositoryRow,
  shortcode: MetricShortcode,
  fields: Partial<{ key: MetricKey; threshold: number | null }> = {},
): Promise<RepositoryMetricItemRow> {
  return db
    .insertInto("repository_metric_items")
    .values({
      key: newRowKey(),
      repository_id: repository.id,
      metric_shortcode: shortcode,
      metric_key: fields.key ?? "AGGREGATE",
      threshold: fields.threshold ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** What a test may set on a recorded value. */
export interface MetricValueFields {
  value: number;
  threshold: number | null;
  commitOid: string;
  createdAt: Date | string;
  checkId: string | null;
  /** Whether it was measured on the default branch as it was then (true by default). */
  onDefaultBranch: boolean;
}

/** Inserts values of `item` in one statement; answers them in the order given. */
export async function metricValuesOf(
  db: Kysely<Database>,
  item: RepositoryMetricItemRow,
  values: ReadonlyArray<Partial<MetricValueFields>>,
): Promise<MetricValueRow[]> {
  if (values.length === 0) return [];
  const rows = values.map((f, i) => ({
    key: newRowKey(),
    item_id: item.id,
    check_id: f.checkId ?? null,
    commit_oid: f.commitOid ?? aCommitOid(),
    value: f.value ?? 50 + i,
    threshold: f.threshold === undefined ? item.threshold : f.threshold,
    created_at: f.createdAt ?? new Date(Date.UTC(2025, 0, 1) + i * 60_000),
    on_default_branch: f.onDefaultBranch ?? true,
  }));
  const inserted = await db.insertInto("metric_values").values(rows).returningAll().execute();
  const byKey = new Map(inserted.map((row) => [row.key, row]));
  return rows.map((row) => byKey.get(row.key)!);
}

/** Inserts one value of `item`. */
export async function aMetricValue(
  db: Kysely<Database>,
  item: RepositoryMetricItemRow,
  fields: Partial<MetricValueFields> = {},
): Promise<MetricValueRow> {
  const [value] = await metricValuesOf(db, item, [fields]);
  return value!;
}

/** Stores `repository`'s setting for one metric. */
export async function aMetricSetting(
  db: Kysely<Database>,
  repository: RepositoryRow,
  shortcode: MetricShortcode,
  fields: { isReported: boolean; isThresholdEnforced: boolean },
): Promise<void> {
  await db
    .insertInto("repository_metric_settings")
    .values({
      repository_id: repository.id,
      metric_shortcode: shortcode,
      is_reported: fields.isReported,
      is_threshold_enforced: fields.isThresholdEnforced,
    })
    .execute();
}

/** Stores `repository`'s quality-gate setting for one issue category. */
export async function anIssueCategorySetting(
  db: Kysely<Database>,
  repository: RepositoryRow,
  category: IssueCategory,
  fields: { isReported: boolean; canFailCheck: boolean },
): Promise<void> {
  await db
    .insertInto("repository_issue_category_settings")
    .values({
      repository_id: repository.id,
      category,
      is_reported: fields.isReported,
      can_fail_check: fields.canFailCheck,
    })
    .execute();
}

/** Stores `repository`'s quality-gate setting for one issue priority. */
export async function anIssuePrioritySetting(
  db: Kysely<Database>,
  repository: RepositoryRow,
  priorityType: "LOW" | "MEDIUM" | "HIGH",
  fields: { isReported: boolean; canFailCheck: boolean },
): Promise<void> {
  await db
    .insertInto("repository_issue_priority_settings")
    .values({
      repository_id: repository.id,
      priority_type: priorityType,
      is_reported: fields.isReported,
      can_fail_check: fields.canFailCheck,
    })
    .execute();
}

/** What a test may set on an ignore rule. */
export interface IgnoreRuleFields {
  level: "REPOSITORY" | "FILE";
  type: "FOREVER" | "PATTERN" | "TEST_PATTERN";
  filePath: string | null;
  globPattern: string | null;
  createdBy: UserRow | null;
  createdAt: Date | string;
}

/**
 * Inserts an ignore rule of `issue` in `repository`: a repository-wide FOREVER rule unless told
 * otherwise (a FILE rule needs `filePath`, a PATTERN rule `globPattern`).
 */
export function anIgnoreRule(
  db: Kysely<Database>,
  repository: RepositoryRow,
  issue: IssueRow,
  fields: Partial<IgnoreRuleFields> = {},
): Promise<IgnoreRuleRow> {
  return db
    .insertInto("ignore_rules")
    .values({
      key: newRowKey(),
      repository_id: repository.id,
      issue_id: issue.id,
      level: fields.level ?? (fields.filePath ? "FILE" : "REPOSITORY"),
      type: fields.type ?? (fields.globPattern ? "PATTERN" : "FOREVER"),
      file_path: fields.filePath ?? null,
      glob_pattern: fields.globPattern ?? null,
      created_by: fields.createdBy?.id ?? null,
      created_at: fields.createdAt ?? new Date(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Inserts a team-wide suppression of `issue` in `account`, made by `user` (or nobody known). */
export function aSuppressedIssue(
  db: Kysely<Database>,
  account: AccountRow,
  issue: IssueRow,
  fields: Partial<{ user: UserRow | null; createdAt: Date | string }> = {},
): Promise<TeamSuppressedIssueRow> {
  return db
    .insertInto("team_suppressed_issues")
    .values({
      key: newRowKey(),
      account_id: account.id,
      issue_id: issue.id,
      user_id: fields.user?.id ?? null,
      created_at: fields.createdAt ?? new Date(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}
