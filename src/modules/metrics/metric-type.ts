import type { MetricRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { registerNodeType } from "../../graphql/node.ts";
import { globalIdField, NodeInterface } from "../../graphql/relay.ts";
import { RepositoryRef } from "../repositories/repository-type.ts";
import { RepositoryMetricItemRef } from "./metric-item-type.ts";
import { metricByKey } from "./metric-loaders.ts";
import { METRIC_SHORTCODES } from "./metric-order.ts";
import {
  itemsOfRepositoryMetric,
  type MetricSettingView,
  metricSettingOf,
  metricSettingsOf,
  metricsOfRepository,
  type RepositoryMetricView,
} from "./metric-service.ts";

/** The contract's `MetricShortcode`. */
export const MetricShortcodeEnum = builder.enumType("MetricShortcode", {
  description:
    "A metric's code. LCV, BCV, CCV: line, branch and condition coverage; CPCV: composite coverage; DCV: documentation coverage; DDP: dependencies, how many external (third-party) packages the code depends on; the N-prefixed codes measure only code new in the change set.",
  values: METRIC_SHORTCODES,
});

const DirectionEnum = builder.enumType("Direction", {
  description: "Which way a metric improves: UPWARD when higher is better, DOWNWARD when lower is.",
  values: ["UPWARD", "DOWNWARD"] as const,
});

/** What every metric, global or seen from a repository, says about itself. */
export const MetricDefinitionRef = builder.interfaceRef<MetricRow>("MetricDefinition").implement({
  description: "What a metric measures and how its values read.",
  fields: (t) => ({
    name: t.string({ description: "Display name.", resolve: (m) => m.name }),
    shortcode: t.field({
      type: MetricShortcodeEnum,
      description: "The metric's code.",
      resolve: (m) => m.shortcode,
    }),
    description: t.string({ description: "What the metric measures.", resolve: (m) => m.description }),
    positiveDirection: t.field({
      type: DirectionEnum,
      description: "Which way the metric improves.",
      resolve: (m) => m.positive_direction,
    }),
    unit: t.string({
      nullable: true,
      description: "The unit values are given in, such as `%`; null for a bare number.",
      resolve: (m) => m.unit,
    }),
    minValueAllowed: t.int({
      nullable: true,
      description: "The lowest value the metric can take, if bounded.",
      resolve: (m) => m.min_value_allowed,
    }),
    maxValueAllowed: t.int({
      nullable: true,
      description: "The highest value the metric can take, if bounded.",
      resolve: (m) => m.max_value_allowed,
    }),
  }),
  resolveType: (metric) => ("repositoryId" in metric ? "RepositoryMetric" : "Metric"),
});

/** A metric of the global catalog. */
export const MetricRef = builder.objectRef<MetricRow>("Metric").implement({
  description: "A metric Assay can record for repositories, such as line coverage.",
  interfaces: [NodeInterface, MetricDefinitionRef],
  fields: (t) => ({
    id: t.id(globalIdField("Metric")),
  }),
});

/** A metric as one repository has it: its settings and its items. */
export const RepositoryMetricRef = builder.objectRef<RepositoryMetricView>("RepositoryMetric").implement({
  description: "A metric as one repository has it: whether it is reported and enforced, and its items.",
  interfaces: [MetricDefinitionRef],
  fields: (t) => ({
    isReported: t.boolean({
      description: "True when the repository reports the metric (the default when nothing is set).",
      resolve: async (m, _args, ctx) => (await metricSettingOf(ctx, m.repositoryId, m.shortcode)).is_reported,
    }),
    isThresholdEnforced: t.boolean({
      description: "True when missing a threshold fails the check (false when nothing is set).",
      resolve: async (m, _args, ctx) =>
        (await metricSettingOf(ctx, m.repositoryId, m.shortcode)).is_threshold_enforced,
    }),
    items: t.field({
      type: [RepositoryMetricItemRef],
      description:
        "The repository's items of this metric, AGGREGATE first, then languages by key. Under `Check.metrics`, only the items that check recorded a value for.",
      resolve: (m, _args, ctx) => itemsOfRepositoryMetric(ctx, m),
    }),
  }),
});

const MetricSettingRef = builder.objectRef<MetricSettingView>("MetricSetting").implement({
  description: "Whether a repository reports a metric and whether its thresholds can fail a check.",
  fields: (t) => ({
    metricShortcode: t.field({
      type: MetricShortcodeEnum,
      description: "The metric.",
      resolve: (s) => s.metric_shortcode,
    }),
    isReported: t.boolean({
      description: "True when the metric is reported.",
      resolve: (s) => s.is_reported,
    }),
    isThresholdEnforced: t.boolean({
      description: "True when a value missing its threshold fails the check.",
      resolve: (s) => s.is_threshold_enforced,
    }),
  }),
});

builder.objectField(RepositoryRef, "metrics", (t) =>
  t.field({
    type: [RepositoryMetricRef],
    description:
      "Every metric for the repository, in `MetricShortcode` order, whether or not values were recorded.",
    args: {
      shortcodeIn: t.arg({
        type: [MetricShortcodeEnum],
        required: { list: false, items: false },
        description: "Only these metrics; null or an empty list keeps all.",
      }),
    },
    resolve: (repository, args, ctx) => metricsOfRepository(ctx, repository.id, args.shortcodeIn),
  }),
);

builder.objectField(RepositoryRef, "metricSettings", (t) =>
  t.field({
    type: [MetricSettingRef],
    description:
      "The repository's setting for every metric, in `MetricShortcode` order; a metric never configured is reported and not enforced.",
    resolve: (repository, _args, ctx) => metricSettingsOf(ctx, repository.id),
  }),
);

registerNodeType("Metric", (ctx, key) => metricByKey(ctx).load(key));
