import type { Kysely } from "kysely";
import type { Database, MetricKey, MetricShortcode } from "../../db/types.ts";
import {
  coveragePercent,
  formatMetricValue,
  thresholdStatusOf,
} from "../../modules/metrics/metric-format.ts";
import { compareMetricKeys, compareShortcodes } from "../../modules/metrics/metric-order.ts";
import { findEnforcedThresholdValuesOfCheck } from "../../modules/metrics/metric-store.ts";
import type { CoverageSummary, CoverageTally } from "./tallies.ts";

/** A coverage check's metric values (LCV, BCV, CCV, CPCV and the new-code ones) and its quality gate. */

/** One metric value computed for the check. */
export interface CoverageMetricValue {
  shortcode: MetricShortcode;
  key: MetricKey;
  /** A percentage from 0 to 100, rounded to two decimals. */
  value: number;
}

/** `covered / total` as a percentage rounded half up to two decimals; null when there is nothing to measure. */
const percentage = coveragePercent;

/**
 * The metric values of one key's summary. Each is a percentage (0-100, two decimals) and is left
 * out when there is nothing to measure (no lines, no branches, no conditions, no changed lines).
 * CPCV, composite coverage, is (covered lines + covered branch outcomes) / (lines + branch
 * outcomes): conditions are left out because every format that reports them counts the same
 * outcomes as its branches, which would count them twice. NCPCV is the same over changed lines.
 */
export function metricValuesOf(key: MetricKey, summary: CoverageSummary): CoverageMetricValue[] {
  const values: CoverageMetricValue[] = [];
  const record = (shortcode: MetricShortcode, value: number | null) => {
    if (value !== null) values.push({ shortcode, key, value });
  };
  const composite = (t: CoverageTally) =>
    percentage(t.lines.covered + t.branches.covered, t.lines.total + t.branches.total);
  const { overall, changed } = summary;
  record("LCV", percentage(overall.lines.covered, overall.lines.total));
  record("BCV", percentage(overall.branches.covered, overall.branches.total));
  if (overall.conditions) record("CCV", percentage(overall.conditions.covered, overall.conditions.total));
  record("CPCV", composite(overall));
  if (changed) {
    record("NLCV", percentage(changed.lines.covered, changed.lines.total));
    record("NBCV", percentage(changed.branches.covered, changed.branches.total));
    if (changed.conditions) record("NCCV", percentage(changed.conditions.covered, changed.conditions.total));
    record("NCPCV", composite(changed));
  }
  return values;
}

/**
 * The quality gate of a coverage check: one reason per recorded value that misses its threshold
 * (below it for UPWARD metrics, above for DOWNWARD) when the repository enforces that metric's
 * threshold; empty when the check passes.
 */
export async function coverageGateFailures(tx: Kysely<Database>, checkId: string): Promise<string[]> {
  const rows = await findEnforcedThresholdValuesOfCheck(tx, checkId);
  return rows
    .filter((row) => thresholdStatusOf(row.value, row.threshold, row.positive_direction) === "FAILING")
    .sort(
      (a, b) =>
        compareShortcodes(a.metric_shortcode, b.metric_shortcode) ||
        compareMetricKeys(a.metric_key, b.metric_key),
    )
    .map((row) => {
      const side = row.positive_direction === "UPWARD" ? "below" : "above";
      const threshold = `${row.threshold}${row.unit === "%" ? "%" : row.unit ? ` ${row.unit}` : ""}`;
      return `${row.metric_shortcode} ${row.metric_key} ${formatMetricValue(row.value, row.unit)} is ${side} the threshold ${threshold}`;
    });
}
