import type { IssueCategory } from "../../db/types.ts";

/**
 * Every issue category with its human name, in the order lists of categories are shown
 * (`Analyzer.issueDistribution`, reports). The order is the contract's `IssueCategory` enum order.
 */
export const ISSUE_CATEGORY_TITLES: Readonly<Record<IssueCategory, string>> = {
  ANTI_PATTERN: "Anti-pattern",
  BUG_RISK: "Bug Risk",
  PERFORMANCE: "Performance",
  SECURITY: "Security",
  COVERAGE: "Coverage",
  TYPECHECK: "Type Check",
  STYLE: "Style",
  DOCUMENTATION: "Documentation",
  SECRETS: "Secrets",
};

/** The categories in display order. */
export const ISSUE_CATEGORIES = Object.keys(ISSUE_CATEGORY_TITLES) as IssueCategory[];

/** One category's share of a set of issues, as `IssueDistributionItem` answers it. */
export interface CategoryCount {
  category: IssueCategory;
  title: string;
  count: number;
}

/**
 * Turns per-category counts into distribution items: categories in display order, those with no
 * issues left out.
 */
export function distributionOf(counts: ReadonlyMap<IssueCategory, number>): CategoryCount[] {
  return ISSUE_CATEGORIES.filter((category) => (counts.get(category) ?? 0) > 0).map((category) => ({
    category,
    title: ISSUE_CATEGORY_TITLES[category],
    count: counts.get(category) ?? 0,
  }));
}
