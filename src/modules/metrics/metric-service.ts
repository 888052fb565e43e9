import type { MetricRow, MetricShortcode } from "../../db/types.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { thresholdStatusOf } from "./metric-format.ts";
import {
  allMetrics,
  latestValueOfItem,
  metricItemsOfRepository,
  metricSettingsOfRepository,
  metricValuesOfCheck,
} from "./metric-loaders.ts";
import { compareMetricKeys, compareShortcodes, METRIC_SHORTCODES } from "./metric-order.ts";
import type { CheckMetricValue, MetricItemRow, MetricValueView } from "./metric-store.ts";

/**
 * A repository metric item as a field answers it. Under `Repository.metrics` (and `node`) it
 * reads the item's newest value against its current threshold. Under `Check.metrics` it carries
 * `recorded`, the value that check recorded, and reads that value against the threshold in force
 * when it was recorded: a check shows what it measured, not what the repository shows today.
 */
export interface MetricItemView extends MetricItemRow {
  recorded?: MetricValueView;
}

/** A metric definition as seen from one repository (`RepositoryMetric`). */
export interface RepositoryMetricView extends MetricRow {
  repositoryId: string;
  /** Under `Check.metrics`: only the items that check recorded a value for. */
  checkItems?: MetricItemView[];
}

/** The value an item reports and the threshold it is compared with. */
export interface MetricReading {
  value: number | null;
  threshold: number | null;
}

/** What a repository has when no setting row is stored for a metric: reported, not enforced. */
export const METRIC_SETTING_DEFAULTS = { is_reported: true, is_threshold_enforced: false } as const;

/** A repository's setting for one metric, stored or default. */
export interface MetricSettingView {
  metric_shortcode: MetricShortcode;
  is_reported: boolean;
  is_threshold_enforced: boolean;
}

/**
 * Every metric definition for a repository, in the contract's shortcode order, whether or not it
 * has values. `shortcodeIn` keeps only the listed metrics; null, an empty list and a list of
 * nulls keep all (as the contract's server treats an empty `__in` lookup).
 */
export async function metricsOfRepository(
  ctx: GraphQLContext,
  repositoryId: string,
  shortcodeIn: ReadonlyArray<MetricShortcode | null | undefined> | null | undefined,
): Promise<RepositoryMetricView[]> {
  const wanted = new Set((shortcodeIn ?? []).filter((s): s is MetricShortcode => typeof s === "string"));
  const metrics = await allMetrics(ctx).load("all");
  return metrics
    .filter((metric) => wanted.size === 0 || wanted.has(metric.shortcode))
    .sort((a, b) => compareShortcodes(a.shortcode, b.shortcode))
    .map((metric) => ({ ...metric, repositoryId }));
}

/** The repository's items of one metric: AGGREGATE first, then languages by key. */
export async function itemsOfRepositoryMetric(
  ctx: GraphQLContext,
  metric: RepositoryMetricView,
): Promise<MetricItemView[]> {
  if (metric.checkItems) return metric.checkItems;
  const items = await metricItemsOfRepository(ctx).load(metric.repositoryId);
  return items
    .filter((item) => item.metric_shortcode === metric.shortcode)
    .sort((a, b) => compareMetricKeys(a.metric_key, b.metric_key));
}

/** The value an item reports (see {@link MetricItemView}) and the threshold it is held to. */
export async function readingOf(ctx: GraphQLContext, item: MetricItemView): Promise<MetricReading> {
  if (item.recorded) return { value: item.recorded.value, threshold: item.recorded.threshold };
  const latest = await latestValueOfItem(ctx).load(item.id);
  return { value: latest?.value ?? null, threshold: item.threshold };
}

/** PASSING or FAILING for an item's reading; null without a threshold or a value. */
export async function itemThresholdStatus(ctx: GraphQLContext, item: MetricItemView) {
  const reading = await readingOf(ctx, item);
  return thresholdStatusOf(reading.value, reading.threshold, item.metric_direction);
}

/** A repository's setting for every metric, in shortcode order, defaults where nothing is stored. */
export async function metricSettingsOf(
  ctx: GraphQLContext,
  repositoryId: string,
): Promise<MetricSettingView[]> {
  const stored = await metricSettingsOfRepository(ctx).load(repositoryId);
  return METRIC_SHORTCODES.map((shortcode) => {
    const row = stored.find((s) => s.metric_shortcode === shortcode);
    return {
      metric_shortcode: shortcode,
      is_reported: row?.is_reported ?? METRIC_SETTING_DEFAULTS.is_reported,
      is_threshold_enforced: row?.is_threshold_enforced ?? METRIC_SETTING_DEFAULTS.is_threshold_enforced,
    };
  });
}

/** A repository's setting for one metric, stored or default. */
export async function metricSettingOf(
  ctx: GraphQLContext,
  repositoryId: string,
  shortcode: MetricShortcode,
): Promise<MetricSettingView> {
  const settings = await metricSettingsOf(ctx, repositoryId);
  return settings.find((s) => s.metric_shortcode === shortcode)!;
}

function isNewer(a: MetricValueView, b: MetricValueView): boolean {
  const at = a.created_at.getTime();
  const bt = b.created_at.getTime();
  return at !== bt ? at > bt : a.key > b.key;
}

/**
 * The metrics these checks recorded values for, in shortcode order, each with only the items
 * they recorded and, per item, the newest value among them. `Check.metrics` passes one check; a
 * run or pull request may pass all of its checks.
 */
export async function metricsRecordedByChecks(
  ctx: GraphQLContext,
  checkIds: readonly string[],
): Promise<RepositoryMetricView[]> {
  const [metrics, recorded] = await Promise.all([
    allMetrics(ctx).load("all"),
    Promise.all(checkIds.map((id) => metricValuesOfCheck(ctx).load(id))),
  ]);
  const newestPerItem = new Map<string, CheckMetricValue>();
  for (const row of recorded.flat()) {
    const seen = newestPerItem.get(row.item.id);
    if (!seen || isNewer(row.value, seen.value)) newestPerItem.set(row.item.id, row);
  }
  const views: RepositoryMetricView[] = [];
  for (const metric of [...metrics].sort((a, b) => compareShortcodes(a.shortcode, b.shortcode))) {
    const rows = [...newestPerItem.values()].filter((row) => row.item.metric_shortcode === metric.shortcode);
    if (rows.length === 0) continue;
    const items = rows
      .map((row): MetricItemView => ({ ...row.item, recorded: row.value }))
      .sort((a, b) => compareMetricKeys(a.metric_key, b.metric_key));
    views.push({ ...metric, repositoryId: items[0]!.repository_id, checkItems: items });
  }
  return views;
}
