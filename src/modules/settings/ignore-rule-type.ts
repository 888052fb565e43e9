import type { IgnoreRuleRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { registerNodeType } from "../../graphql/node.ts";
import {
  connectionArgs,
  connectionType,
  globalIdField,
  NodeInterface,
  pageArgs,
} from "../../graphql/relay.ts";
import { issueById } from "../catalog/catalog-loaders.ts";
import { IssueRef } from "../catalog/catalog-type.ts";
import { RepositoryRef } from "../repositories/repository-type.ts";
import { visibleIgnoreRuleByKey } from "./settings-loaders.ts";
import {
  bothFilters,
  filePathFilter,
  ignoreRulesOfRepository,
  issueShortcodeFilter,
} from "./settings-store.ts";

/** The contract's `IgnoreRuleLevel` enum. */
export const IgnoreRuleLevelEnum = builder.enumType("IgnoreRuleLevel", {
  description: "Where an ignore rule applies: the whole repository, or one file.",
  values: ["REPOSITORY", "FILE"] as const,
});

/** The contract's `IgnoreRuleType` enum. */
export const IgnoreRuleTypeEnum = builder.enumType("IgnoreRuleType", {
  description:
    "How an ignore rule matches: FOREVER everywhere in its scope; PATTERN in paths matching its glob; TEST_PATTERN in the test files its glob names (matched like PATTERN).",
  values: ["FOREVER", "PATTERN", "TEST_PATTERN"] as const,
});

/** A rule that keeps one issue from being reported in a repository or a file. */
export const IgnoreRuleRef = builder.objectRef<IgnoreRuleRow>("IgnoreRule").implement({
  description: "A rule that stops one issue from being reported, in a whole repository or in one file.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    createdAt: t.field({
      type: "DateTime",
      description: "When the rule was made.",
      resolve: (r) => r.created_at,
    }),
    id: t.id(globalIdField("IgnoreRule")),
    level: t.field({
      type: IgnoreRuleLevelEnum,
      description: "Where the rule applies.",
      resolve: (r) => r.level,
    }),
    type: t.field({ type: IgnoreRuleTypeEnum, description: "How the rule matches.", resolve: (r) => r.type }),
    issue: t.field({
      type: IssueRef,
      description: "The issue the rule ignores.",
      resolve: async (r, _args, ctx) => (await issueById(ctx).load(r.issue_id))!,
    }),
    filePath: t.string({
      nullable: true,
      description: "The file the rule applies to, for FILE-level rules.",
      resolve: (r) => r.file_path,
    }),
    globPattern: t.string({
      nullable: true,
      description:
        "The glob paths must match, for PATTERN rules, and for TEST_PATTERN rules made with a glob of their own; null for a TEST_PATTERN rule whose test files the configuration's `test_patterns` name.",
      resolve: (r) => r.glob_pattern,
    }),
  }),
});

const IgnoreRuleConnection = connectionType("IgnoreRule", IgnoreRuleRef, "ignore rule");

builder.objectField(RepositoryRef, "ignoreRules", (t) =>
  t.field({
    type: IgnoreRuleConnection,
    nullable: true,
    description: "The repository's ignore rules, newest first.",
    args: {
      ...connectionArgs(t.arg),
      issueShortcode: t.arg.string({
        required: false,
        description: "Only rules for issues with this shortcode (such as `PYL-W0611`).",
      }),
      filePath: t.arg.string({
        required: false,
        description: "Only FILE-level rules for exactly this path.",
      }),
    },
    resolve: (repository, args, ctx) =>
      ctx.loaders.connections.load<IgnoreRuleRow>(
        ignoreRulesOfRepository,
        repository.id,
        pageArgs(args),
        bothFilters(issueShortcodeFilter(args.issueShortcode), filePathFilter(args.filePath)),
      ),
  }),
);

registerNodeType("IgnoreRule", (ctx, key) => visibleIgnoreRuleByKey(ctx).load(key));
