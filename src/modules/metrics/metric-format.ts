/**
 * How a metric value reads and whether it meets its threshold. Pure functions, shared by the
 * repository's metric items (latest value) and the recorded values (their history).
 */

/** Which way a metric improves: coverage goes UPWARD, duplication DOWNWARD. */
export type Direction = "UPWARD" | "DOWNWARD";

/** The contract's `MetricThresholdStatus`. */
export type ThresholdStatus = "PASSING" | "FAILING";

/**
 * Compares `value` with `threshold` in the metric's positive direction: an UPWARD metric passes
 * at or above its threshold, a DOWNWARD one at or below it. Null when there is no threshold or
 * no value to compare.
 */
export function thresholdStatusOf(
  value: number | null | undefined,
  threshold: number | null | undefined,
  direction: Direction,
): ThresholdStatus | null {
  if (value === null || value === undefined || threshold === null || threshold === undefined) return null;
  const passes = direction === "UPWARD" ? value >= threshold : value <= threshold;
  return passes ? "PASSING" : "FAILING";
}

/**
 * `covered / total` as a percentage from 0 to 100 rounded to two decimals, a half up (23 of 160 is
 * 14.375%, so 14.38); null when `total` is 0 (nothing to measure). Computed on the integers, so
 * no binary fraction decides a half: `Math.round(23 / 160 * 100 * 100) / 100` gives 14.37. Every
 * coverage percentage Assay stores or answers (the metric values, each file's figures) is this one.
 */
export function coveragePercent(covered: number, total: number): number | null {
  if (total === 0) return null;
  // floor((percentage × 100) + ½) = floor((20,000 × covered + total) / (2 × total)); the quotient of
  // two integers is exact enough here that the floor never lands on the wrong side.
  return Math.floor((20_000 * covered + total) / (2 * total)) / 100;
}

/** `value` rounded to `decimals` places, without trailing zeros (and never "-0"). */
function trimmed(value: number, decimals: number): string {
  const text = value.toFixed(decimals);
  const short = text.includes(".") ? text.replace(/\.?0+$/, "") : text;
  return short === "-0" ? "0" : short;
}

/**
 * A value as people read it: a percentage with one or two decimals and the sign attached (`83.4%`,
 * `79.96%`: percentages are stored to the hundredth, and one decimal would show 79.96 as `80.0%`
 * beside a threshold of 80 it fails); any other unit after up to two decimals and a space
 * (`12.5 ms`); a bare number when the metric has no unit (`12`, `0.25`).
 */
export function formatMetricValue(value: number, unit: string | null | undefined): string {
  if (unit === "%") {
    const hundredths = value.toFixed(2);
    const text = hundredths.endsWith("0") ? hundredths.slice(0, -1) : hundredths;
    return `${text === "-0.0" ? "0.0" : text}%`;
  }
  const number = trimmed(value, 2);
  return unit ? `${number} ${unit}` : number;
}
