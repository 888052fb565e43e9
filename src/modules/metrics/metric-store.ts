import { type Kysely, type RawBuilder, type Selectable, sql } from "kysely";
import { compareCodeUnits, insertMissing } from "../../db/insert-missing.ts";
import type {
  Database,
  MetricKey,
  MetricRow,
  MetricShortcode,
  MetricValueRow,
  RepositoryMetricItemRow,
  RepositoryMetricSettingsTable,
} from "../../db/types.ts";
import { newRowKey } from "../../graphql/global-id.ts";
import type { ConnectionSource } from "../../graphql/pagination.ts";

/**
 * Metric definitions (a global catalog of ten), each repository's metric items with their
 * thresholds, the values recorded for them, and the repository's metric settings. Items and
 * values carry their metric's unit and direction, so formatting and threshold checks need no
 * further lookup.
 */

type Direction = MetricRow["positive_direction"];

/** A repository metric item with what its metric says about reading its values. */
export interface MetricItemRow extends RepositoryMetricItemRow {
  metric_unit: string | null;
  metric_direction: Direction;
}

/** A recorded value with its metric's unit and direction. */
export interface MetricValueView extends MetricValueRow {
  metric_unit: string | null;
  metric_direction: Direction;
}

/** A value recorded by a check, with the item it belongs to. */
export interface CheckMetricValue {
  value: MetricValueView;
  item: MetricItemRow;
}

/** A stored metric setting of a repository. */
export type MetricSettingRow = Selectable<RepositoryMetricSettingsTable>;

/** Every metric definition. */
export function findAllMetrics(db: Kysely<Database>): Promise<MetricRow[]> {
  return db.selectFrom("metrics").selectAll().execute();
}

/** Metric definitions by key; the catalog is global, so no viewer applies. */
export function findMetricsByKeys(db: Kysely<Database>, keys: readonly string[]): Promise<MetricRow[]> {
  return db.selectFrom("metrics").selectAll().where("key", "in", keys).execute();
}

function metricItems(db: Kysely<Database>) {
  return db
    .selectFrom("repository_metric_items as i")
    .innerJoin("metrics as m", "m.shortcode", "i.metric_shortcode")
    .selectAll("i")
    .select(["m.unit as metric_unit", "m.positive_direction as metric_direction"]);
}

/** The metric items of these repositories (parents the caller already sees). */
export function findMetricItemsOfRepositories(
  db: Kysely<Database>,
  repositoryIds: readonly string[],
): Promise<MetricItemRow[]> {
  return metricItems(db).where("i.repository_id", "in", repositoryIds).execute();
}

/** Metric items with these keys in repositories `viewerId` can see. */
export function findVisibleMetricItemsByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<MetricItemRow[]> {
  return metricItems(db)
    .innerJoin("repositories as r", "r.id", "i.repository_id")
    .innerJoin("memberships as ms", "ms.account_id", "r.account_id")
    .where("ms.user_id", "=", viewerId)
    .where("i.key", "in", keys)
    .execute();
}

/**
 * SQL true when the metric value aliased `value` is the repository's to show (docs/read-model.md
 * "Metrics"): its check's run analysed the code (`isAnalysedRun`: finished SUCCESS or FAILURE,
 * also while a late upload makes it PENDING again), as the repository's findings and dependency
 * scans require. A run still waiting for a report, or one that ended TIMEOUT or CANCEL, sets no
 * latest value and leaves no point in the history. A value of no check (stored before values had
 * one) counts. The database keeps the answer on the value (`of_analysed_run`, migration 0032), so
 * a read of many values looks up no check and no run.
 */
export function isValueOfAnalysedRun(value: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(`${value}.of_analysed_run`)}`;
}

/**
 * A lateral subquery of one `metric_values` row, or none: the newest value of item `itemId` that
 * the repository shows ({@link isValueOfAnalysedRun}), read from `metric_values_item_order_idx`
 * newest first, so it costs the item's few newest values, not its whole history.
 */
export function latestShownValueOf(itemId: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(
    SELECT mv.* FROM metric_values AS mv
    WHERE mv.item_id = ${itemId} AND mv.on_default_branch AND ${isValueOfAnalysedRun("mv")}
    ORDER BY mv.created_at DESC, mv.key DESC
    LIMIT 1
  )`;
}

/**
 * The newest value of each of these items that the repository shows ({@link latestShownValueOf}),
 * in one statement; items without such values are absent. (A `DISTINCT ON (item_id)` read every
 * value of the item, and judged each one's run: docs/benchmarks.md "Metric values of analysed
 * runs".)
 */
export async function findLatestValuesOfItems(
  db: Kysely<Database>,
  itemIds: readonly string[],
): Promise<MetricValueRow[]> {
  return (await latestValuesOfItems(itemIds).execute(db)).rows;
}

/** The statement {@link findLatestValuesOfItems} runs (its test reads the statement's plan). */
export function latestValuesOfItems(itemIds: readonly string[]): RawBuilder<MetricValueRow> {
  return sql<MetricValueRow>`
    SELECT v.* FROM unnest(cast(${itemIds} as bigint[])) AS item(id)
    CROSS JOIN LATERAL ${latestShownValueOf(sql.ref("item.id"))} AS v`;
}

function metricValues(db: Kysely<Database>) {
  return db
    .selectFrom("metric_values as v")
    .innerJoin("repository_metric_items as i", "i.id", "v.item_id")
    .innerJoin("metrics as m", "m.shortcode", "i.metric_shortcode")
    .selectAll("v")
    .select(["m.unit as metric_unit", "m.positive_direction as metric_direction"]);
}

/** Metric values with these keys in repositories `viewerId` can see. */
export function findVisibleMetricValuesByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<MetricValueView[]> {
  return metricValues(db)
    .innerJoin("repositories as r", "r.id", "i.repository_id")
    .innerJoin("memberships as ms", "ms.account_id", "r.account_id")
    .where("ms.user_id", "=", viewerId)
    .where("v.key", "in", keys)
    .execute();
}

/** Every value these checks recorded, with its item, in one statement. */
export async function findMetricValuesOfChecks(
  db: Kysely<Database>,
  checkIds: readonly string[],
): Promise<CheckMetricValue[]> {
  const rows = await metricValues(db)
    .select([
      "i.key as item_key",
      "i.repository_id as item_repository_id",
      "i.metric_shortcode as item_metric_shortcode",
      "i.metric_key as item_metric_key",
      "i.threshold as item_threshold",
    ])
    .where("v.check_id", "in", checkIds)
    .execute();
  return rows.map(
    ({ item_key, item_repository_id, item_metric_shortcode, item_metric_key, item_threshold, ...value }) => ({
      value,
      item: {
        id: value.item_id,
        key: item_key,
        repository_id: item_repository_id,
        metric_shortcode: item_metric_shortcode,
        metric_key: item_metric_key,
        threshold: item_threshold,
        metric_unit: value.metric_unit,
        metric_direction: value.metric_direction,
      },
    }),
  );
}

/** The stored metric settings of these repositories. */
export function findMetricSettingsOfRepositories(
  db: Kysely<Database>,
  repositoryIds: readonly string[],
): Promise<MetricSettingRow[]> {
  return db
    .selectFrom("repository_metric_settings")
    .selectAll()
    .where("repository_id", "in", repositoryIds)
    .execute();
}

/**
 * An item's recorded values on the default branch that the repository shows
 * ({@link isValueOfAnalysedRun}), newest first, with their metric's unit and direction. Parent:
 * the item id.
 */
export const valuesOfMetricItem: ConnectionSource = {
  name: "valuesOfMetricItem",
  from: sql`(SELECT v.*, m.unit AS metric_unit, m.positive_direction AS metric_direction
    FROM metric_values v
    JOIN repository_metric_items i ON i.id = v.item_id
    JOIN metrics m ON m.shortcode = i.metric_shortcode
    WHERE v.on_default_branch AND ${isValueOfAnalysedRun("v")})`,
  parentColumn: "item_id",
  order: [
    { column: "created_at", kind: "timestamptz" },
    { column: "key", kind: "text" },
  ],
  direction: "desc",
};

/**
 * The filter `values(commitOidIn:)` applies. Null, an empty list and a list of nulls mean "no
 * filter", as the contract's server treats an empty `__in` lookup.
 */
export function commitOidFilter(commitOids: ReadonlyArray<string | null | undefined> | null | undefined) {
  const wanted = [
    ...new Set((commitOids ?? []).filter((oid): oid is string => typeof oid === "string")),
  ].sort();
  if (wanted.length === 0) return undefined;
  return {
    key: `commitOidIn:${JSON.stringify(wanted)}`,
    condition: sql<boolean>`s.commit_oid = ANY(cast(${wanted} as text[]))`,
  };
}

/** The check's values that have a threshold its repository enforces, with how to judge them. */
export function findEnforcedThresholdValuesOfCheck(
  db: Kysely<Database>,
  checkId: string,
): Promise<
  Array<{
    value: number;
    threshold: number | null;
    metric_shortcode: MetricShortcode;
    metric_key: MetricKey;
    positive_direction: Direction;
    unit: string | null;
  }>
> {
  return db
    .selectFrom("metric_values as v")
    .innerJoin("repository_metric_items as i", "i.id", "v.item_id")
    .innerJoin("metrics as m", "m.shortcode", "i.metric_shortcode")
    .innerJoin("repository_metric_settings as s", (join) =>
      join
        .onRef("s.repository_id", "=", "i.repository_id")
        .onRef("s.metric_shortcode", "=", "i.metric_shortcode"),
    )
    .select([
      "v.value",
      "v.threshold",
      "i.metric_shortcode",
      "i.metric_key",
      "m.positive_direction",
      "m.unit",
    ])
    .where("v.check_id", "=", checkId)
    .where("v.threshold", "is not", null)
    .where("s.is_threshold_enforced", "=", true)
    .execute();
}

/** One value to record for a check. */
export interface NewCheckMetricValue {
  shortcode: MetricShortcode;
  key: MetricKey;
  value: number;
}

/**
 * Replaces the check's metric values (only those of `shortcodes` when given, else all of them):
 * the repository's item of each (metric, key) is created when missing, and each value stores the
 * item's threshold as it is now (the threshold in force when it was measured). A value is dated
 * by its run (`measuredAt`, the run's `placed_at`), not by when it was written: a run's coverage
 * or SBOM that arrives after a newer run's, or is computed again, keeps its run's place in the
 * history, and the latest value stays the newest run's.
 */
export async function replaceMetricValuesOfCheck(
  tx: Kysely<Database>,
  check: { id: string; repositoryId: string; commitOid: string; onDefaultBranch: boolean; measuredAt: Date },
  values: readonly NewCheckMetricValue[],
  shortcodes?: readonly MetricShortcode[],
): Promise<void> {
  let replaced = tx.deleteFrom("metric_values").where("check_id", "=", check.id);
  if (shortcodes) {
    replaced = replaced.where("item_id", "in", (eb) =>
      eb
        .selectFrom("repository_metric_items")
        .select("id")
        .where("repository_id", "=", check.repositoryId)
        .where("metric_shortcode", "in", shortcodes),
    );
  }
  await replaced.execute();
  if (values.length === 0) return;
  const wanted = [...new Map(values.map((v) => [`${v.shortcode}:${v.key}`, v])).values()].sort(
    (a, b) => compareCodeUnits(a.shortcode, b.shortcode) || compareCodeUnits(a.key, b.key),
  );
  const items = await insertMissing(
    tx,
    sql<{ id: string; metric_shortcode: string; metric_key: string; threshold: number | null }>`
      WITH wanted AS (
        SELECT * FROM unnest(${wanted.map(() => newRowKey())}::text[], ${wanted.map((v) => v.shortcode)}::text[],
          ${wanted.map((v) => v.key)}::text[]) WITH ORDINALITY AS w (key, metric_shortcode, metric_key, position)
      ), inserted AS (
        INSERT INTO repository_metric_items (key, repository_id, metric_shortcode, metric_key, threshold)
        SELECT key, ${check.repositoryId}::bigint, metric_shortcode, metric_key, NULL FROM wanted ORDER BY position
        ON CONFLICT (repository_id, metric_shortcode, metric_key) DO NOTHING
        RETURNING id, metric_shortcode, metric_key, threshold
      )
      SELECT id, metric_shortcode, metric_key, threshold FROM inserted
      UNION ALL
      SELECT i.id, i.metric_shortcode, i.metric_key, i.threshold FROM repository_metric_items AS i
      JOIN wanted AS w ON i.metric_shortcode = w.metric_shortcode AND i.metric_key = w.metric_key
      WHERE i.repository_id = ${check.repositoryId}`,
    wanted.length,
    (found) => {
      const seen = new Set(found.map((item) => `${item.metric_shortcode}:${item.metric_key}`));
      const rest = wanted.filter((v) => !seen.has(`${v.shortcode}:${v.key}`));
      return sql`
        SELECT i.id, i.metric_shortcode, i.metric_key, i.threshold FROM repository_metric_items AS i
        JOIN unnest(${rest.map((v) => v.shortcode)}::text[], ${rest.map((v) => v.key)}::text[]) AS w (metric_shortcode, metric_key)
          ON i.metric_shortcode = w.metric_shortcode AND i.metric_key = w.metric_key
        WHERE i.repository_id = ${check.repositoryId}`;
    },
  );
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
          created_at: check.measuredAt,
        };
      }),
    )
    .execute();
}

/**
 * Sets the check's recorded value of `shortcode`'s `key` item to `value`, when it has one and it
 * differs; the value keeps its row, its date and the threshold stored with it. Answers whether it
 * changed.
 */
export async function updateMetricValueOfCheck(
  tx: Kysely<Database>,
  checkId: string,
  item: { shortcode: MetricShortcode; key: MetricKey },
  value: number,
): Promise<boolean> {
  const updated = await sql`
    UPDATE metric_values AS v SET value = ${value}
    FROM repository_metric_items AS i
    WHERE v.check_id = ${checkId} AND i.id = v.item_id
      AND i.metric_shortcode = ${item.shortcode} AND i.metric_key = ${item.key}
      AND v.value IS DISTINCT FROM ${value}`.execute(tx);
  return Number(updated.numAffectedRows ?? 0) > 0;
}

/**
 * Marks the metric values of run `runId`'s checks as the default branch's or not, after the run
 * moved to another branch; only the values whose mark changes are rewritten.
 */
export async function markMetricValuesOfRun(
  tx: Kysely<Database>,
  runId: string,
  onDefaultBranch: boolean,
): Promise<void> {
  await sql`
    UPDATE metric_values AS v SET on_default_branch = ${onDefaultBranch}
    FROM checks AS c
    WHERE c.run_id = ${runId} AND v.check_id = c.id AND v.on_default_branch IS DISTINCT FROM ${onDefaultBranch}`.execute(
    tx,
  );
}
