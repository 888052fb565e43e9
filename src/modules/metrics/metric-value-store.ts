import type { Kysely } from "kysely";
import type { Database, MetricKey, MetricShortcode } from "../../db/types.ts";
import { newRowKey } from "../../graphql/global-id.ts";

/** One metric value a check measured. */
export interface CheckMetricValueSpec {
  shortcode: MetricShortcode;
  key: MetricKey;
  value: number;
}

/** The check the values belong to, with what each value records about where it was measured. */
export interface MeasuredCheck {
  id: string;
  repositoryId: string;
  commitOid: string;
  onDefaultBranch: boolean;
}

/**
 * Replaces the check's values of `shortcodes` with `values`: the repository's item of each
 * (metric, key) is created when missing, and each value stores the item's threshold as it is now
 * (the threshold in force when it was measured).
 */
export async function replaceMetricValuesOfCheck(
  tx: Kysely<Database>,
  check: MeasuredCheck,
  shortcodes: readonly MetricShortcode[],
  values: readonly CheckMetricValueSpec[],
): Promise<void> {
  if (shortcodes.length > 0) {
    await tx
      .deleteFrom("metric_values")
      .where("check_id", "=", check.id)
      .where("item_id", "in", (eb) =>
        eb
          .selectFrom("repository_metric_items")
          .select("id")
          .where("repository_id", "=", check.repositoryId)
          .where("metric_shortcode", "in", shortcodes),
      )
      .execute();
  }
  if (values.length === 0) return;
  await tx
    .insertInto("repository_metric_items")
    .values(
      values.map((v) => ({
        key: newRowKey(),
        repository_id: check.repositoryId,
        metric_shortcode: v.shortcode,
        metric_key: v.key,
        threshold: null,
      })),
    )
    .onConflict((oc) => oc.columns(["repository_id", "metric_shortcode", "metric_key"]).doNothing())
    .execute();
  const items = await tx
    .selectFrom("repository_metric_items")
    .select(["id", "metric_shortcode", "metric_key", "threshold"])
    .where("repository_id", "=", check.repositoryId)
    .where("metric_shortcode", "in", [...new Set(values.map((v) => v.shortcode))])
    .execute();
  const itemOf = new Map(items.map((item) => [`${item.metric_shortcode}:${item.metric_key}`, item]));
  await tx
    .insertInto("metric_values")
    .values(
      values.map((v) => {
        const item = itemOf.get(`${v.shortcode}:${v.key}`)!;
        return {
          key: newRowKey(),
          item_id: item.id,
          check_id: check.id,
          commit_oid: check.commitOid,
          value: v.value,
          threshold: item.threshold,
          on_default_branch: check.onDefaultBranch,
        };
      }),
    )
    .execute();
}
