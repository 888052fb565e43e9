import type { MetricKey, MetricShortcode } from "../../db/types.ts";

/** The ten metric shortcodes, in the contract's `MetricShortcode` order: the order metrics list in. */
export const METRIC_SHORTCODES = [
  "BCV",
  "CCV",
  "DCV",
  "DDP",
  "LCV",
  "CPCV",
  "NLCV",
  "NBCV",
  "NCCV",
  "NCPCV",
] as const satisfies readonly MetricShortcode[];

/** The contract's `MetricKey` values: the whole repository, then one per language. */
export const METRIC_KEYS = [
  "AGGREGATE",
  "C_AND_CPP",
  "CSHARP",
  "GO",
  "JAVA",
  "JAVASCRIPT",
  "PHP",
  "PYTHON",
  "RUBY",
  "RUST",
  "SCALA",
  "KOTLIN",
  "SWIFT",
] as const satisfies readonly MetricKey[];

// Fails to compile when the database types gain a shortcode or key the lists above lack.
type Missing<All, Listed> = Exclude<All, Listed> extends never ? true : never;
const everyShortcodeListed: Missing<MetricShortcode, (typeof METRIC_SHORTCODES)[number]> = true;
const everyKeyListed: Missing<MetricKey, (typeof METRIC_KEYS)[number]> = true;
void everyShortcodeListed;
void everyKeyListed;

/** Orders metrics by their shortcode's place in {@link METRIC_SHORTCODES}. */
export function compareShortcodes(a: MetricShortcode, b: MetricShortcode): number {
  return METRIC_SHORTCODES.indexOf(a) - METRIC_SHORTCODES.indexOf(b);
}

/** Orders metric items: AGGREGATE first, then the language keys by name (code-point order). */
export function compareMetricKeys(a: MetricKey, b: MetricKey): number {
  if (a === b) return 0;
  if (a === "AGGREGATE") return -1;
  if (b === "AGGREGATE") return 1;
  return a < b ? -1 : 1;
}
