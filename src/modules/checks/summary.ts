import type { IssueCategory, IssueSeverity } from "../../db/types.ts";
import { ISSUE_CATEGORIES } from "../catalog/issue-categories.ts";

/**
 * Check and run summaries, folded from grouped counts of occurrences (docs/read-model.md):
 * introduced = state INTRODUCED and not suppressed; resolved = state RESOLVED; suppressed =
 * suppressed and not RESOLVED. The SQL groups by category and by the finding's severity (its own,
 * else its issue's), and by analyzer for runs; the totals and the distributions are sums over
 * those groups, so one statement answers every field.
 */

/** Severities from the most severe, the order the severity distribution is given in. */
const SEVERITIES: readonly IssueSeverity[] = ["CRITICAL", "MAJOR", "MINOR"];

/** Counts of one group of occurrences: one category and severity, and for runs one analyzer. */
export interface OccurrenceCountRow {
  category: IssueCategory;
  severity: IssueSeverity;
  analyzerShortcode?: string;
  introduced: number;
  resolved: number;
  suppressed: number;
}

/** `OccurrenceDistributionByCategory`. */
export interface CategoryIntroduced {
  category: IssueCategory;
  introduced: number;
}

/** `OccurrenceDistributionBySeverity`. */
export interface SeverityIntroduced {
  severity: IssueSeverity;
  introduced: number;
}

/** `OccurrenceDistributionByAnalyzer`. */
export interface AnalyzerIntroduced {
  analyzerShortcode: string;
  introduced: number;
}

/** What `CheckSummary` and `AnalysisRunSummary` answer about occurrences. */
export interface OccurrenceSummary {
  introduced: number;
  resolved: number;
  suppressed: number;
  /** Categories in the enum's order; those with nothing introduced left out. */
  byCategory: CategoryIntroduced[];
  /** Severities from CRITICAL to MINOR; those with nothing introduced left out. */
  bySeverity: SeverityIntroduced[];
  /** Analyzers by shortcode; those with nothing introduced left out. */
  byAnalyzer: AnalyzerIntroduced[];
}

/** The summary of a check or run without occurrences. */
export const EMPTY_SUMMARY: OccurrenceSummary = Object.freeze({
  introduced: 0,
  resolved: 0,
  suppressed: 0,
  byCategory: [],
  bySeverity: [],
  byAnalyzer: [],
});

/** Folds grouped counts into totals and distributions. */
export function summariseOccurrences(rows: readonly OccurrenceCountRow[]): OccurrenceSummary {
  const byCategory = new Map<IssueCategory, number>();
  const bySeverity = new Map<IssueSeverity, number>();
  const byAnalyzer = new Map<string, number>();
  let introduced = 0;
  let resolved = 0;
  let suppressed = 0;
  for (const row of rows) {
    introduced += row.introduced;
    resolved += row.resolved;
    suppressed += row.suppressed;
    byCategory.set(row.category, (byCategory.get(row.category) ?? 0) + row.introduced);
    bySeverity.set(row.severity, (bySeverity.get(row.severity) ?? 0) + row.introduced);
    if (row.analyzerShortcode !== undefined) {
      byAnalyzer.set(row.analyzerShortcode, (byAnalyzer.get(row.analyzerShortcode) ?? 0) + row.introduced);
    }
  }
  return {
    introduced,
    resolved,
    suppressed,
    byCategory: ISSUE_CATEGORIES.filter((category) => (byCategory.get(category) ?? 0) > 0).map(
      (category) => ({ category, introduced: byCategory.get(category) ?? 0 }),
    ),
    bySeverity: SEVERITIES.filter((severity) => (bySeverity.get(severity) ?? 0) > 0).map((severity) => ({
      severity,
      introduced: bySeverity.get(severity) ?? 0,
    })),
    byAnalyzer: [...byAnalyzer]
      .filter(([, count]) => count > 0)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([analyzerShortcode, count]) => ({ analyzerShortcode, introduced: count })),
  };
}

/** Groups `rows` by `parentOf` and summarises each group; parents without rows get the empty summary. */
export function summariseByParent<R extends OccurrenceCountRow>(
  parents: readonly string[],
  rows: readonly R[],
  parentOf: (row: R) => string,
): OccurrenceSummary[] {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const parent = parentOf(row);
    const group = groups.get(parent);
    if (group) group.push(row);
    else groups.set(parent, [row]);
  }
  return parents.map((parent) => {
    const group = groups.get(parent);
    return group ? summariseOccurrences(group) : EMPTY_SUMMARY;
  });
}
