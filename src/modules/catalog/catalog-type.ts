import type { AnalyzerRow, IssueRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { notFound } from "../../graphql/errors.ts";
import { registerNodeType } from "../../graphql/node.ts";
import {
  connectionArgs,
  connectionType,
  globalIdField,
  NodeInterface,
  pageArgs,
} from "../../graphql/relay.ts";
import {
  analyzerById,
  analyzerByKey,
  analyzerByShortcode,
  analyzerIssueKey,
  visibleIssueByAnalyzerAndShortcode,
  visibleIssueByKey,
  visibleIssueCountsByAnalyzer,
} from "./catalog-loaders.ts";
import { allAnalyzers, CATALOG_ROOT, visibleIssuesOfAnalyzer } from "./catalog-store.ts";
import { type CategoryCount, distributionOf } from "./issue-categories.ts";

/** The error of `analyzer(shortcode:)` for a shortcode no analyzer has. */
export const ANALYZER_NOT_FOUND = "Analyzer matching query does not exist";
/**
 * The error of `Analyzer.issue(shortcode:)` for a shortcode the analyzer has no issue under that
 * the viewer may read.
 */
export const ISSUE_NOT_FOUND = "Issue matching query does not exist";

/** The contract's `IssueCategory`. */
export const IssueCategoryEnum = builder.enumType("IssueCategory", {
  description: "What kind of problem an issue is.",
  values: [
    "ANTI_PATTERN",
    "BUG_RISK",
    "PERFORMANCE",
    "SECURITY",
    "COVERAGE",
    "TYPECHECK",
    "STYLE",
    "DOCUMENTATION",
    "SECRETS",
  ] as const,
});

/** The contract's `IssueSeverity`. */
export const IssueSeverityEnum = builder.enumType("IssueSeverity", {
  description: "How serious an issue is.",
  values: ["CRITICAL", "MAJOR", "MINOR"] as const,
});

const AnalyzerTypeEnum = builder.enumType("AnalyzerType", {
  description:
    "CORE analyzers ship with Assay; COMMUNITY ones report through SARIF; CUSTOM ones belong to a team.",
  values: ["CORE", "COMMUNITY", "CUSTOM"] as const,
});

/** An analyzer: a tool that reports issues (or coverage) for some languages. */
export const AnalyzerRef = builder.objectRef<AnalyzerRow>("Analyzer").implement({
  description: "A tool that reports issues or metrics, such as a linter or a coverage reporter.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("Analyzer")),
    shortcode: t.string({ description: "Stable short name, e.g. `python`.", resolve: (a) => a.shortcode }),
    name: t.string({ description: "Display name.", resolve: (a) => a.name }),
    description: t.string({ description: "What the analyzer checks.", resolve: (a) => a.description }),
    version: t.string({ description: "The analyzer's version.", resolve: (a) => a.version }),
    metaSchema: t.field({
      type: "JSONString",
      description: "JSON Schema of the analyzer's configuration options, serialised as a string.",
      resolve: (a) => JSON.stringify(a.meta_schema ?? {}),
    }),
    exampleConfig: t.string({
      nullable: true,
      description: "An example configuration block.",
      resolve: (a) => a.example_config,
    }),
    logo: t.string({
      nullable: true,
      description: "URL of the analyzer's logo.",
      resolve: (a) => a.logo_url,
    }),
    type: t.field({
      type: AnalyzerTypeEnum,
      nullable: true,
      description: "Where the analyzer comes from.",
      resolve: (a) => a.type,
    }),
  }),
});

/** An issue of the catalog: one rule of one analyzer. */
export const IssueRef = builder.objectRef<IssueRow>("Issue").implement({
  description: "One rule of an analyzer, such as `PYL-W0611` (unused import).",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("Issue")),
    shortcode: t.string({ description: "The rule's code, e.g. `PYL-W0611`.", resolve: (i) => i.shortcode }),
    title: t.string({ description: "One-line title.", resolve: (i) => i.title }),
    analyzer: t.field({
      type: AnalyzerRef,
      description: "The analyzer the rule belongs to.",
      resolve: async (i, _args, ctx) => (await analyzerById(ctx).load(i.analyzer_id))!,
    }),
    category: t.field({
      type: IssueCategoryEnum,
      description: "What kind of problem it is.",
      resolve: (i) => i.category,
    }),
    severity: t.field({
      type: IssueSeverityEnum,
      description: "How serious it is.",
      resolve: (i) => i.severity,
    }),
    description: t.string({ description: "Full explanation, in Markdown.", resolve: (i) => i.description }),
    shortDescription: t.string({ description: "A sentence or two.", resolve: (i) => i.short_description }),
    autofixAvailable: t.boolean({
      description: "True when Autofix can fix it.",
      resolve: (i) => i.autofix_available,
    }),
    autofixAiAvailable: t.boolean({
      nullable: true,
      description: "True when AI Autofix can fix it; null when unknown.",
      resolve: (i) => i.autofix_ai_available,
    }),
    isRecommended: t.boolean({
      description: "True when the rule is in the recommended set.",
      resolve: (i) => i.is_recommended,
    }),
    tags: t.stringList({
      nullable: { list: false, items: true },
      description: "Tags, including CWE (`cwe-79`) and standard (`owasp-top-10-2021-a03`) tags.",
      resolve: (i) => i.tags,
    }),
  }),
});

/** `XConnection` of analyzers, for `analyzers`. */
export const AnalyzerConnection = connectionType("Analyzer", AnalyzerRef, "analyzer");

/** `XConnection` of an analyzer's issues, for `Analyzer.issues`. */
export const IssueConnection = connectionType("Issue", IssueRef, "issue");

const IssueDistributionItemRef = builder.objectRef<CategoryCount>("IssueDistributionItem").implement({
  description: "How many issues of a set fall in one category.",
  fields: (t) => ({
    category: t.field({ type: IssueCategoryEnum, description: "The category.", resolve: (d) => d.category }),
    title: t.string({
      description: "The category's display name, e.g. `Bug Risk`.",
      resolve: (d) => d.title,
    }),
    count: t.int({ description: "How many issues fall in the category.", resolve: (d) => d.count }),
  }),
});

// An analyzer's issues, for each viewer: the shared catalog's and those of the viewer's accounts
// (docs/api.md "The catalog", docs/decisions.md "The catalog's lists show the viewer's accounts'
// issues").
builder.objectFields(AnalyzerRef, (t) => ({
  numIssues: t.int({
    description:
      "How many issues (rules) the analyzer has that you can read: the shared catalog's, and those your accounts' uploads filed.",
    resolve: async (a, _args, ctx) => {
      let total = 0;
      for (const count of (await visibleIssueCountsByAnalyzer(ctx).load(a.id)).values()) total += count;
      return total;
    },
  }),
  issues: t.field({
    type: IssueConnection,
    nullable: true,
    description:
      "The analyzer's issues (rules) that you can read, ordered by shortcode: the shared catalog's, and those your accounts' uploads filed (a shortcode appears once for each account of yours that has it).",
    args: connectionArgs(t.arg),
    resolve: (a, args, ctx) =>
      ctx.loaders.connections.load<IssueRow>(
        visibleIssuesOfAnalyzer(ctx.viewer.userId),
        a.id,
        pageArgs(args),
      ),
  }),
  issue: t.field({
    type: IssueRef,
    nullable: true,
    description: `One of the analyzer's issues that you can read, by its shortcode: the shared catalog's when it has one, else the first your accounts' uploads filed. An unknown shortcode answers null with the error "${ISSUE_NOT_FOUND}".`,
    args: {
      shortcode: t.arg.string({ required: true, description: "The issue's shortcode, e.g. `PYL-W0611`." }),
    },
    resolve: async (a, args, ctx) => {
      const issue = await visibleIssueByAnalyzerAndShortcode(ctx).load(
        analyzerIssueKey(a.id, args.shortcode),
      );
      if (!issue) throw notFound(ISSUE_NOT_FOUND);
      return issue;
    },
  }),
  issueDistribution: t.field({
    type: [IssueDistributionItemRef],
    description:
      "How many of the analyzer's issues that you can read (those `numIssues` counts) fall in each category, in the `IssueCategory` order; categories with none are left out.",
    resolve: async (a, _args, ctx) => distributionOf(await visibleIssueCountsByAnalyzer(ctx).load(a.id)),
  }),
}));

builder.queryField("analyzer", (t) =>
  t.field({
    type: AnalyzerRef,
    nullable: true,
    description: `An analyzer by its shortcode. An unknown shortcode answers null with the error "${ANALYZER_NOT_FOUND}".`,
    args: {
      shortcode: t.arg.string({ required: true, description: "The analyzer's shortcode, e.g. `python`." }),
    },
    resolve: async (_root, args, ctx) => {
      const analyzer = await analyzerByShortcode(ctx).load(args.shortcode);
      if (!analyzer) throw notFound(ANALYZER_NOT_FOUND);
      return analyzer;
    },
  }),
);

builder.queryField("analyzers", (t) =>
  t.field({
    type: AnalyzerConnection,
    nullable: true,
    description: "Every analyzer of the catalog, ordered by shortcode.",
    args: connectionArgs(t.arg),
    resolve: (_root, args, ctx) =>
      ctx.loaders.connections.load<AnalyzerRow>(allAnalyzers, CATALOG_ROOT, pageArgs(args)),
  }),
);

registerNodeType("Analyzer", (ctx, key) => analyzerByKey(ctx).load(key));
registerNodeType("Issue", (ctx, key) => visibleIssueByKey(ctx).load(key));
