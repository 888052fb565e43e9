import type { MetricRow, MetricValueRow } from "../../db/types.ts";
import { alignRows, defineLoader, groupRows } from "../../graphql/context.ts";
import {
  type CheckMetricValue,
  findAllMetrics,
  findLatestValuesOfItems,
  findMetricItemsOfRepositories,
  findMetricSettingsOfRepositories,
  findMetricsByKeys,
  findMetricValuesOfChecks,
  findVisibleMetricItemsByKeys,
  findVisibleMetricValuesByKeys,
  type MetricItemRow,
  type MetricSettingRow,
  type MetricValueView,
} from "./metric-store.ts";

/** The whole metric catalog, read once per request (the only key is "all"). */
export const allMetrics = defineLoader<"all", MetricRow[]>("allMetrics", async (ctx, keys) => {
  const rows = await findAllMetrics(ctx.db);
  return keys.map(() => rows);
});

/** Metric definitions by key (global). */
export const metricByKey = defineLoader<string, MetricRow | null>("metricByKey", async (ctx, keys) =>
  alignRows(keys, await findMetricsByKeys(ctx.db, keys), (m) => m.key),
);

/** Each repository's metric items, by repository id (parents the viewer already sees). */
export const metricItemsOfRepository = defineLoader<string, MetricItemRow[]>(
  "metricItemsOfRepository",
  async (ctx, repositoryIds) =>
    groupRows(
      repositoryIds,
      await findMetricItemsOfRepositories(ctx.db, repositoryIds),
      (i) => i.repository_id,
    ),
);

/** Metric items by key, limited to repositories the viewer can see. */
export const visibleMetricItemByKey = defineLoader<string, MetricItemRow | null>(
  "visibleMetricItemByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleMetricItemsByKeys(ctx.db, ctx.viewer.userId, keys), (i) => i.key),
);

/** The newest recorded value of each item, by item id; null for an item with no value yet. */
export const latestValueOfItem = defineLoader<string, MetricValueRow | null>(
  "latestValueOfItem",
  async (ctx, itemIds) =>
    alignRows(itemIds, await findLatestValuesOfItems(ctx.db, itemIds), (v) => v.item_id),
);

/** Metric values by key, limited to repositories the viewer can see. */
export const visibleMetricValueByKey = defineLoader<string, MetricValueView | null>(
  "visibleMetricValueByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleMetricValuesByKeys(ctx.db, ctx.viewer.userId, keys), (v) => v.key),
);

/** The values each check recorded, with their items, by check id. */
export const metricValuesOfCheck = defineLoader<string, CheckMetricValue[]>(
  "metricValuesOfCheck",
  async (ctx, checkIds) =>
    groupRows(checkIds, await findMetricValuesOfChecks(ctx.db, checkIds), (row) =>
      String(row.value.check_id),
    ),
);

/** Each repository's stored metric settings, by repository id. */
export const metricSettingsOfRepository = defineLoader<string, MetricSettingRow[]>(
  "metricSettingsOfRepository",
  async (ctx, repositoryIds) =>
    groupRows(
      repositoryIds,
      await findMetricSettingsOfRepositories(ctx.db, repositoryIds),
      (s) => s.repository_id,
    ),
);
