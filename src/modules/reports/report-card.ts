import type { IssueCategory, IssueSeverity } from "../../db/types.ts";

/**
 * The run report card (docs/reports.md): four issue dimensions scored from the run's open
 * occurrences, a coverage dimension from its LCV/BCV values, an aggregate and a focus area.
 */

export type Grade = "A" | "B" | "C" | "D";
export type DimensionName = "SECURITY" | "RELIABILITY" | "COMPLEXITY" | "HYGIENE";

/** The issue categories each dimension counts. COVERAGE findings belong to no dimension. */
export const DIMENSION_CATEGORIES: Readonly<Record<DimensionName, readonly IssueCategory[]>> = {
  SECURITY: ["SECURITY", "SECRETS"],
  RELIABILITY: ["BUG_RISK", "TYPECHECK"],
  COMPLEXITY: ["ANTI_PATTERN", "PERFORMANCE"],
  HYGIENE: ["STYLE", "DOCUMENTATION"],
};

/** Penalty points per open occurrence of each severity. */
export const SEVERITY_WEIGHTS: Readonly<Record<IssueSeverity, number>> = { CRITICAL: 10, MAJOR: 3, MINOR: 1 };

/** Penalty points that halve a dimension's score. */
export const HALF_LIFE_POINTS = 25;

/** How much each dimension weighs in the aggregate (they sum to 1). */
export const AGGREGATE_WEIGHTS: Readonly<Record<DimensionName, number>> = {
  SECURITY: 0.35,
  RELIABILITY: 0.3,
  COMPLEXITY: 0.2,
  HYGIENE: 0.15,
};

/** The highest aggregate score while a critical security finding or a secret is open (a C). */
export const AGGREGATE_CAP = 74;

/** The letter of a score: A ≥ 90, B ≥ 75, C ≥ 50, else D. */
export function gradeOf(score: number): Grade {
  if (score >= 90) return "A";
  if (score >= 75) return "B";
  if (score >= 50) return "C";
  return "D";
}

/** A score from penalty points: 100 × 0.5^(points / HALF_LIFE_POINTS), rounded. */
export function scoreOfPenalty(points: number): number {
  return Math.round(100 * 0.5 ** (points / HALF_LIFE_POINTS));
}

/** One open-occurrence count of a run. */
export interface OpenCount {
  category: IssueCategory;
  severity: IssueSeverity;
  open: number;
}

export interface DimensionScore {
  grade: Grade;
  score: number;
  issuesCount: number;
}

export interface CoverageScore {
  grade: Grade | null;
  score: number | null;
  lineCoverage: number | null;
  branchCoverage: number | null;
}

export interface ReportCard {
  dimensions: Record<DimensionName, DimensionScore>;
  coverage: CoverageScore;
  aggregate: { grade: Grade; score: number };
  focusArea: { dimension: DimensionName; action: string } | null;
}

/** What to do about the weakest dimension. */
export const FOCUS_ACTIONS: Readonly<Record<DimensionName, string>> = {
  SECURITY: "Fix the open security findings and remove any secrets from the code, critical ones first.",
  RELIABILITY: "Fix the open bug risks and type errors, critical ones first.",
  COMPLEXITY: "Simplify the code flagged for anti-patterns and performance problems.",
  HYGIENE: "Clean up the style and documentation findings.",
};

const DIMENSIONS = Object.keys(DIMENSION_CATEGORIES) as DimensionName[];

/** The report card of a run from its open counts and its coverage values (null when unknown). */
export function reportCardOf(
  counts: readonly OpenCount[],
  coverage: { lcv: number | null; bcv: number | null } | null,
): ReportCard {
  const dimensions = {} as Record<DimensionName, DimensionScore>;
  for (const dimension of DIMENSIONS) {
    const rows = counts.filter((row) => DIMENSION_CATEGORIES[dimension].includes(row.category));
    const points = rows.reduce((sum, row) => sum + SEVERITY_WEIGHTS[row.severity] * row.open, 0);
    const score = scoreOfPenalty(points);
    dimensions[dimension] = {
      grade: gradeOf(score),
      score,
      issuesCount: rows.reduce((s, r) => s + r.open, 0),
    };
  }
  let aggregateScore = Math.round(
    DIMENSIONS.reduce((sum, d) => sum + AGGREGATE_WEIGHTS[d] * dimensions[d].score, 0),
  );
  const capped = counts.some(
    (row) =>
      row.open > 0 &&
      (row.category === "SECRETS" || (row.category === "SECURITY" && row.severity === "CRITICAL")),
  );
  if (capped) aggregateScore = Math.min(aggregateScore, AGGREGATE_CAP);
  const weakest = DIMENSIONS.reduce((low, d) => (dimensions[d].score < dimensions[low].score ? d : low));
  const lineCoverage = coverage?.lcv ?? null;
  const branchCoverage = coverage?.bcv ?? null;
  const known = [lineCoverage, branchCoverage].filter((v): v is number => v !== null);
  const coverageScore =
    known.length === 0 ? null : Math.round(known.reduce((a, b) => a + b, 0) / known.length);
  return {
    dimensions,
    coverage: {
      grade: coverageScore === null ? null : gradeOf(coverageScore),
      score: coverageScore,
      lineCoverage,
      branchCoverage,
    },
    aggregate: { grade: gradeOf(aggregateScore), score: aggregateScore },
    focusArea:
      dimensions[weakest].score === 100 ? null : { dimension: weakest, action: FOCUS_ACTIONS[weakest] },
  };
}
