import type { IgnoreRuleRow, TeamSuppressedIssueRow } from "../../db/types.ts";
import { alignRows, defineLoader, groupRows } from "../../graphql/context.ts";
import {
  findIssueCategorySettingsOfRepositories,
  findIssuePrioritySettingsOfRepositories,
  findVisibleIgnoreRulesByKeys,
  findVisibleSuppressedIssuesByKeys,
  type IssueCategorySettingRow,
  type IssuePrioritySettingRow,
} from "./settings-store.ts";

/** Each repository's stored issue-category settings, by repository id. */
export const issueCategorySettingsOfRepository = defineLoader<string, IssueCategorySettingRow[]>(
  "issueCategorySettingsOfRepository",
  async (ctx, ids) =>
    groupRows(ids, await findIssueCategorySettingsOfRepositories(ctx.db, ids), (s) => s.repository_id),
);

/** Each repository's stored issue-priority settings, by repository id. */
export const issuePrioritySettingsOfRepository = defineLoader<string, IssuePrioritySettingRow[]>(
  "issuePrioritySettingsOfRepository",
  async (ctx, ids) =>
    groupRows(ids, await findIssuePrioritySettingsOfRepositories(ctx.db, ids), (s) => s.repository_id),
);

/** Ignore rules by key, limited to repositories the viewer can see. */
export const visibleIgnoreRuleByKey = defineLoader<string, IgnoreRuleRow | null>(
  "visibleIgnoreRuleByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleIgnoreRulesByKeys(ctx.db, ctx.viewer.userId, keys), (r) => r.key),
);

/** Team suppressions by key, limited to accounts the viewer belongs to. */
export const visibleSuppressedIssueByKey = defineLoader<string, TeamSuppressedIssueRow | null>(
  "visibleSuppressedIssueByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleSuppressedIssuesByKeys(ctx.db, ctx.viewer.userId, keys), (t) => t.key),
);
