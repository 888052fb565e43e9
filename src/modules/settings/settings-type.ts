import { builder } from "../../graphql/builder.ts";
import { IssueCategoryEnum } from "../catalog/catalog-type.ts";
import { RepositoryRef } from "../repositories/repository-type.ts";
import {
  ISSUE_PRIORITY_TYPES,
  type IssueCategorySettingView,
  type IssuePrioritySettingView,
  issueCategorySettingsOf,
  issuePrioritySettingsOf,
} from "./settings-service.ts";

/** The contract's `IssuePriorityType`. */
export const IssuePriorityTypeEnum = builder.enumType("IssuePriorityType", {
  description: "A priority bucket issues are sorted into for the quality gates.",
  values: ISSUE_PRIORITY_TYPES,
});

const IssueCategorySettingRef = builder
  .objectRef<IssueCategorySettingView>("IssueCategorySetting")
  .implement({
    description: "Whether a repository reports issues of one category and whether they can fail a check.",
    fields: (t) => ({
      category: t.field({
        type: IssueCategoryEnum,
        description: "The category.",
        resolve: (s) => s.category,
      }),
      isReported: t.boolean({
        description: "True when issues of the category are reported (the default).",
        resolve: (s) => s.isReported,
      }),
      canFailCheck: t.boolean({
        description:
          "True when issues of the category fail the check (the default); only ever true when reported.",
        resolve: (s) => s.canFailCheck,
      }),
    }),
  });

const IssuePrioritySettingRef = builder
  .objectRef<IssuePrioritySettingView>("IssuePrioritySetting")
  .implement({
    description: "Whether a repository reports issues of one priority and whether they can fail a check.",
    fields: (t) => ({
      priorityType: t.field({
        type: IssuePriorityTypeEnum,
        description: "The priority.",
        resolve: (s) => s.priorityType,
      }),
      isReported: t.boolean({
        description: "True when issues of the priority are reported (the default).",
        resolve: (s) => s.isReported,
      }),
      canFailCheck: t.boolean({
        description:
          "True when issues of the priority fail the check (the default); only ever true when reported.",
        resolve: (s) => s.canFailCheck,
      }),
    }),
  });

builder.objectField(RepositoryRef, "issueCategorySettings", (t) =>
  t.field({
    type: [IssueCategorySettingRef],
    description:
      "The repository's quality-gate setting for every issue category, in `IssueCategory` order; a category never configured is reported and can fail the check.",
    resolve: (repository, _args, ctx) => issueCategorySettingsOf(ctx, repository.id),
  }),
);

builder.objectField(RepositoryRef, "issuePrioritySettings", (t) =>
  t.field({
    type: [IssuePrioritySettingRef],
    description:
      "The repository's quality-gate setting for LOW, MEDIUM and HIGH priority issues, in that order; a priority never configured is reported and can fail the check.",
    resolve: (repository, _args, ctx) => issuePrioritySettingsOf(ctx, repository.id),
  }),
);
