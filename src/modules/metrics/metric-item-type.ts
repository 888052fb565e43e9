import { builder } from "../../graphql/builder.ts";
import { registerNodeType } from "../../graphql/node.ts";
import {
  connectionArgs,
  connectionType,
  globalIdField,
  NodeInterface,
  pageArgs,
} from "../../graphql/relay.ts";
import { formatMetricValue, thresholdStatusOf } from "./metric-format.ts";
import { visibleMetricItemByKey, visibleMetricValueByKey } from "./metric-loaders.ts";
import { METRIC_KEYS } from "./metric-order.ts";
import { itemThresholdStatus, type MetricItemView, readingOf } from "./metric-service.ts";
import { commitOidFilter, type MetricValueView, valuesOfMetricItem } from "./metric-store.ts";

/** The contract's `MetricKey`. */
export const MetricKeyEnum = builder.enumType("MetricKey", {
  description: "What a metric item measures: the whole repository (AGGREGATE) or the code of one language.",
  values: METRIC_KEYS,
});

/** The contract's `MetricThresholdStatus`. */
export const MetricThresholdStatusEnum = builder.enumType("MetricThresholdStatus", {
  description:
    "Whether a value meets its threshold in the metric's positive direction: at or above it for an UPWARD metric, at or below it for a DOWNWARD one.",
  values: ["PASSING", "FAILING"] as const,
});

/** One recorded value of a metric item. */
export const MetricValueRef = builder.objectRef<MetricValueView>("MetricValue").implement({
  description: "A value of a repository metric item, recorded by the analysis of one commit.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("MetricValue")),
    value: t.float({ description: "The measured value.", resolve: (v) => v.value }),
    valueDisplay: t.string({
      description: "The value with its unit, as people read it: one decimal for percentages (`83.4%`).",
      resolve: (v) => formatMetricValue(v.value, v.metric_unit),
    }),
    threshold: t.int({
      nullable: true,
      description: "The item's threshold when the value was recorded; null when none was set.",
      resolve: (v) => v.threshold,
    }),
    thresholdStatus: t.field({
      type: MetricThresholdStatusEnum,
      nullable: true,
      description: "The value against the threshold in force when it was recorded; null when there was none.",
      resolve: (v) => thresholdStatusOf(v.value, v.threshold, v.metric_direction),
    }),
    commitOid: t.string({
      description: "SHA of the commit the value was measured on.",
      resolve: (v) => v.commit_oid,
    }),
    createdAt: t.field({
      type: "DateTime",
      description: "When the value was recorded.",
      resolve: (v) => v.created_at,
    }),
  }),
});

const MetricValueConnection = connectionType("MetricValue", MetricValueRef, "metric value");

/** One metric of one repository for one key (the whole repository or a language). */
export const RepositoryMetricItemRef = builder.objectRef<MetricItemView>("RepositoryMetricItem").implement({
  description:
    "A metric of a repository for one key (AGGREGATE or a language), with its threshold and recorded values. Under `Check.metrics` it reads the value that check recorded, against the threshold in force then.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("RepositoryMetricItem")),
    key: t.field({
      type: MetricKeyEnum,
      description: "AGGREGATE for the whole repository, or the language measured.",
      resolve: (i) => i.metric_key,
    }),
    threshold: t.int({
      nullable: true,
      description:
        "The threshold the value is held to; null when none is set. Under `Check.metrics`, the threshold in force when the check recorded its value.",
      resolve: (i) => (i.recorded ? i.recorded.threshold : i.threshold),
    }),
    latestValue: t.float({
      nullable: true,
      description:
        "The newest value recorded on the default branch by a run that has analysed the code (finished SUCCESS or FAILURE: a run still waiting for a report, or ended TIMEOUT or CANCEL, sets none); null when there is none. Under `Check.metrics`, the value that check recorded.",
      resolve: async (i, _args, ctx) => (await readingOf(ctx, i)).value,
    }),
    latestValueDisplay: t.string({
      nullable: true,
      description: "`latestValue` with its unit, as people read it (`83.4%`); null when there is no value.",
      resolve: async (i, _args, ctx) => {
        const { value } = await readingOf(ctx, i);
        return value === null ? null : formatMetricValue(value, i.metric_unit);
      },
    }),
    thresholdStatus: t.field({
      type: MetricThresholdStatusEnum,
      nullable: true,
      description: "`latestValue` against `threshold`; null when either is missing.",
      resolve: (i, _args, ctx) => itemThresholdStatus(ctx, i),
    }),
    values: t.field({
      type: MetricValueConnection,
      nullable: true,
      description:
        "Every value recorded for the item on the default branch by a run that has analysed the code, newest first.",
      args: {
        ...connectionArgs(t.arg),
        commitOidIn: t.arg({
          type: ["String"],
          required: { list: false, items: false },
          description: "Only values measured on these commits; null or an empty list keeps all.",
        }),
      },
      resolve: (i, args, ctx) =>
        ctx.loaders.connections.load<MetricValueView>(
          valuesOfMetricItem,
          i.id,
          pageArgs(args),
          commitOidFilter(args.commitOidIn),
        ),
    }),
  }),
});

registerNodeType("RepositoryMetricItem", (ctx, key) => visibleMetricItemByKey(ctx).load(key));
registerNodeType("MetricValue", (ctx, key) => visibleMetricValueByKey(ctx).load(key));
