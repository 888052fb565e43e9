import type { IssueCategory, IssueSeverity } from "../../db/types.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { ISSUE_CATEGORIES } from "../catalog/issue-categories.ts";
import { issueCategorySettingsOfRepository, issuePrioritySettingsOfRepository } from "./settings-loaders.ts";

/** The contract's `IssuePriorityType`, lowest first: the order priority settings list in. */
export const ISSUE_PRIORITY_TYPES = ["LOW", "MEDIUM", "HIGH"] as const;
export type IssuePriorityType = (typeof ISSUE_PRIORITY_TYPES)[number];

/** The priority an issue's severity has for the priority settings (docs/ingestion.md "Quality gates"). */
export const PRIORITY_OF_SEVERITY: Readonly<Record<IssueSeverity, IssuePriorityType>> = {
  CRITICAL: "HIGH",
  MAJOR: "MEDIUM",
  MINOR: "LOW",
};

/**
 * What a repository has for a category or priority no setting is stored for: issues of it are
 * reported and can fail the check.
 */
export const ISSUE_SETTING_DEFAULTS = { isReported: true, canFailCheck: true } as const;

/** A repository's quality-gate setting for one issue category. */
export interface IssueCategorySettingView {
  category: IssueCategory;
  isReported: boolean;
  canFailCheck: boolean;
}

/** A repository's quality-gate setting for one issue priority. */
export interface IssuePrioritySettingView {
  priorityType: IssuePriorityType;
  isReported: boolean;
  canFailCheck: boolean;
}

/** The repository's setting for every issue category, in `IssueCategory` order, defaults filled in. */
export async function issueCategorySettingsOf(
  ctx: GraphQLContext,
  repositoryId: string,
): Promise<IssueCategorySettingView[]> {
  const stored = await issueCategorySettingsOfRepository(ctx).load(repositoryId);
  return ISSUE_CATEGORIES.map((category) => {
    const row = stored.find((s) => s.category === category);
    return {
      category,
      isReported: row?.is_reported ?? ISSUE_SETTING_DEFAULTS.isReported,
      canFailCheck: row?.can_fail_check ?? ISSUE_SETTING_DEFAULTS.canFailCheck,
    };
  });
}

/** The repository's setting for LOW, MEDIUM and HIGH priority issues, defaults filled in. */
export async function issuePrioritySettingsOf(
  ctx: GraphQLContext,
  repositoryId: string,
): Promise<IssuePrioritySettingView[]> {
  const stored = await issuePrioritySettingsOfRepository(ctx).load(repositoryId);
  return ISSUE_PRIORITY_TYPES.map((priorityType) => {
    const row = stored.find((s) => s.priority_type === priorityType);
    return {
      priorityType,
      isReported: row?.is_reported ?? ISSUE_SETTING_DEFAULTS.isReported,
      canFailCheck: row?.can_fail_check ?? ISSUE_SETTING_DEFAULTS.canFailCheck,
    };
  });
}
