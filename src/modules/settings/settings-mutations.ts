import type { Kysely } from "kysely";
import type { Database, IssueCategory, MetricKey, MetricShortcode } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { badUserInput } from "../../graphql/errors.ts";
import { newRowKey } from "../../graphql/global-id.ts";
import { clientMutationIdInput, echoOf, type OkPayload, okPayloadType } from "../../graphql/mutations.ts";
import { IssueCategoryEnum } from "../catalog/catalog-type.ts";
import { MetricKeyEnum } from "../metrics/metric-item-type.ts";
import { findAllMetrics } from "../metrics/metric-store.ts";
import { MetricShortcodeEnum } from "../metrics/metric-type.ts";
import { changeRepository } from "../repositories/repository-service.ts";
import type { IssuePriorityType } from "./settings-service.ts";
import {
  clearMetricItemThreshold,
  type IssueSettingValues,
  upsertIssueCategorySetting,
  upsertIssuePrioritySetting,
  upsertMetricItemThreshold,
  upsertMetricSetting,
} from "./settings-store.ts";
import { IssuePriorityTypeEnum } from "./settings-type.ts";

/**
 * The contract's quality-gate mutations: issue category and priority settings, metric settings
 * and metric thresholds. Each needs the ADMIN or MEMBER role in the repository's account
 * (`changeRepository`), writes one row and answers `ok`. A setting never written reads as its
 * default (docs/read-model.md), so every write is an upsert.
 */

/** The fields every issue-setting input has besides what it configures. */
interface IssueSettingInput extends IssueSettingValues {
  repositoryId: string | number;
  clientMutationId?: string | null;
}

/** Issues that cannot fail a check unless they are reported: refuses the one inconsistent pair. */
function assertConsistentIssueSetting(values: IssueSettingValues): void {
  if (values.canFailCheck && !values.isReported) {
    throw badUserInput(
      "canFailCheck can only be true when isReported is true: issues that are not reported cannot fail a check.",
      "canFailCheck",
    );
  }
}

async function setIssueCategory(
  ctx: GraphQLContext,
  input: IssueSettingInput & { issueCategory: IssueCategory },
): Promise<OkPayload> {
  await changeRepository(ctx, input.repositoryId, "repositoryId", async (tx, { repository }) => {
    assertConsistentIssueSetting(input);
    await upsertIssueCategorySetting(tx, repository.id, input.issueCategory, input);
  });
  return { ok: true, ...echoOf(input) };
}

async function setIssuePriority(
  ctx: GraphQLContext,
  input: IssueSettingInput & { issuePriorityType: IssuePriorityType },
): Promise<OkPayload> {
  await changeRepository(ctx, input.repositoryId, "repositoryId", async (tx, { repository }) => {
    assertConsistentIssueSetting(input);
    await upsertIssuePrioritySetting(tx, repository.id, input.issuePriorityType, input);
  });
  return { ok: true, ...echoOf(input) };
}

async function setMetricSetting(
  ctx: GraphQLContext,
  input: {
    repositoryId: string | number;
    metricShortcode: MetricShortcode;
    isReported: boolean;
    isThresholdEnforced: boolean;
    clientMutationId?: string | null;
  },
): Promise<OkPayload> {
  await changeRepository(ctx, input.repositoryId, "repositoryId", (tx, { repository }) =>
    upsertMetricSetting(tx, repository.id, input.metricShortcode, input),
  );
  return { ok: true, ...echoOf(input) };
}

/**
 * Thresholds are whole numbers in the metric's own unit (percent for the coverage metrics, a count
 * of packages for DDP), compared directly with its values; they must lie within the bounds the
 * metric declares.
 */
async function assertThresholdInRange(
  tx: Kysely<Database>,
  shortcode: MetricShortcode,
  threshold: number,
): Promise<void> {
  const metric = (await findAllMetrics(tx)).find((m) => m.shortcode === shortcode);
  const min = metric?.min_value_allowed ?? null;
  const max = metric?.max_value_allowed ?? null;
  if ((min !== null && threshold < min) || (max !== null && threshold > max)) {
    const unit = metric?.unit ? ` (${metric.unit})` : "";
    const range =
      min !== null && max !== null
        ? `between ${min} and ${max}`
        : min !== null
          ? `at least ${min}`
          : `at most ${max}`;
    throw badUserInput(`thresholdValue must be ${range}${unit} for ${shortcode}.`, "thresholdValue");
  }
}

async function setMetricThreshold(
  ctx: GraphQLContext,
  input: {
    repositoryId: string | number;
    metricShortcode: MetricShortcode;
    metricKey: MetricKey;
    thresholdValue?: number | null;
    clientMutationId?: string | null;
  },
): Promise<OkPayload> {
  const threshold = input.thresholdValue ?? null;
  await changeRepository(ctx, input.repositoryId, "repositoryId", async (tx, { repository }) => {
    const item = {
      repositoryId: repository.id,
      shortcode: input.metricShortcode,
      metricKey: input.metricKey,
    };
    if (threshold === null) return clearMetricItemThreshold(tx, item);
    await assertThresholdInRange(tx, input.metricShortcode, threshold);
    await upsertMetricItemThreshold(tx, item, threshold, newRowKey());
  });
  return { ok: true, ...echoOf(input) };
}

const IssueSettingFields = {
  isReported: "True to report issues of this kind.",
  canFailCheck: "True to let issues of this kind fail the check; only allowed when `isReported` is true.",
} as const;

const UpdateRepositoryIssueCategorySettingInput = builder.inputType(
  "UpdateRepositoryIssueCategorySettingInput",
  {
    description: "A repository's quality-gate setting for one issue category.",
    fields: (t) => ({
      repositoryId: t.id({ required: true, description: "The global id of the repository." }),
      issueCategory: t.field({ type: IssueCategoryEnum, required: true, description: "The category." }),
      isReported: t.boolean({ required: true, description: IssueSettingFields.isReported }),
      canFailCheck: t.boolean({ required: true, description: IssueSettingFields.canFailCheck }),
      clientMutationId: clientMutationIdInput(t),
    }),
  },
);

const UpdateRepositoryIssueCategorySettingPayload = okPayloadType(
  "UpdateRepositoryIssueCategorySettingPayload",
  "The answer of `updateRepositoryIssueCategorySetting`.",
  "True when the setting is stored.",
);

builder.mutationField("updateRepositoryIssueCategorySetting", (t) =>
  t.field({
    type: UpdateRepositoryIssueCategorySettingPayload,
    nullable: true,
    description:
      "Sets whether a repository reports issues of one category and whether they can fail its checks. Needs the ADMIN or MEMBER role in the repository's account.",
    args: {
      input: t.arg({
        type: UpdateRepositoryIssueCategorySettingInput,
        required: true,
        description: "The repository, the category and its setting.",
      }),
    },
    resolve: (_root, { input }, ctx) => setIssueCategory(ctx, input),
  }),
);

const UpdateRepositoryIssuePrioritySettingInput = builder.inputType(
  "UpdateRepositoryIssuePrioritySettingInput",
  {
    description: "A repository's quality-gate setting for one issue priority.",
    fields: (t) => ({
      repositoryId: t.id({ required: true, description: "The global id of the repository." }),
      issuePriorityType: t.field({
        type: IssuePriorityTypeEnum,
        required: true,
        description: "The priority.",
      }),
      isReported: t.boolean({ required: true, description: IssueSettingFields.isReported }),
      canFailCheck: t.boolean({ required: true, description: IssueSettingFields.canFailCheck }),
      clientMutationId: clientMutationIdInput(t),
    }),
  },
);

const UpdateRepositoryIssuePrioritySettingPayload = okPayloadType(
  "UpdateRepositoryIssuePrioritySettingPayload",
  "The answer of `updateRepositoryIssuePrioritySetting`.",
  "True when the setting is stored.",
);

builder.mutationField("updateRepositoryIssuePrioritySetting", (t) =>
  t.field({
    type: UpdateRepositoryIssuePrioritySettingPayload,
    nullable: true,
    description:
      "Sets whether a repository reports issues of one priority and whether they can fail its checks. Needs the ADMIN or MEMBER role in the repository's account.",
    args: {
      input: t.arg({
        type: UpdateRepositoryIssuePrioritySettingInput,
        required: true,
        description: "The repository, the priority and its setting.",
      }),
    },
    resolve: (_root, { input }, ctx) => setIssuePriority(ctx, input),
  }),
);

const UpdateRepositoryMetricSettingInput = builder.inputType("UpdateRepositoryMetricSettingInput", {
  description: "A repository's setting for one metric.",
  fields: (t) => ({
    repositoryId: t.id({ required: true, description: "The global id of the repository." }),
    metricShortcode: t.field({ type: MetricShortcodeEnum, required: true, description: "The metric." }),
    isReported: t.boolean({ required: true, description: "True to report the metric." }),
    isThresholdEnforced: t.boolean({
      required: true,
      description: "True to fail the check when a value misses its item's threshold.",
    }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

const UpdateRepositoryMetricSettingPayload = okPayloadType(
  "UpdateRepositoryMetricSettingPayload",
  "The answer of `updateRepositoryMetricSetting`.",
  "True when the setting is stored.",
);

builder.mutationField("updateRepositoryMetricSetting", (t) =>
  t.field({
    type: UpdateRepositoryMetricSettingPayload,
    nullable: true,
    description:
      "Sets whether a repository reports a metric and whether missing its thresholds fails a check. Needs the ADMIN or MEMBER role in the repository's account.",
    args: {
      input: t.arg({
        type: UpdateRepositoryMetricSettingInput,
        required: true,
        description: "The repository, the metric and its setting.",
      }),
    },
    resolve: (_root, { input }, ctx) => setMetricSetting(ctx, input),
  }),
);

const SetRepositoryMetricThresholdInput = builder.inputType("SetRepositoryMetricThresholdInput", {
  description: "The threshold of one metric item of a repository.",
  fields: (t) => ({
    repositoryId: t.id({ required: true, description: "The global id of the repository." }),
    metricShortcode: t.field({ type: MetricShortcodeEnum, required: true, description: "The metric." }),
    metricKey: t.field({
      type: MetricKeyEnum,
      required: true,
      description: "AGGREGATE for the whole repository, or the language.",
    }),
    thresholdValue: t.int({
      required: false,
      description:
        "The threshold, a whole number in the metric's unit within its `minValueAllowed`..`maxValueAllowed` (0 to 100 for the percentage metrics); null removes the threshold.",
    }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

const SetRepositoryMetricThresholdPayload = okPayloadType(
  "SetRepositoryMetricThresholdPayload",
  "The answer of `setRepositoryMetricThreshold`.",
  "True when the threshold is stored (or removed).",
  { nullable: true },
);

builder.mutationField("setRepositoryMetricThreshold", (t) =>
  t.field({
    type: SetRepositoryMetricThresholdPayload,
    nullable: true,
    description:
      "Sets or removes the threshold of a repository's metric item (one metric, one key), creating the item if the repository has none yet. Needs the ADMIN or MEMBER role in the repository's account.",
    args: {
      input: t.arg({
        type: SetRepositoryMetricThresholdInput,
        required: true,
        description: "The repository, the metric item and its threshold.",
      }),
    },
    resolve: (_root, { input }, ctx) => setMetricThreshold(ctx, input),
  }),
);
