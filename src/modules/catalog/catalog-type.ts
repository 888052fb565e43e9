import type { AnalyzerRow, IssueRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { registerNodeType } from "../../graphql/node.ts";
import { globalIdField, NodeInterface } from "../../graphql/relay.ts";
import { analyzerById, analyzerByKey, issueByKey } from "./catalog-loaders.ts";

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

registerNodeType("Analyzer", (ctx, key) => analyzerByKey(ctx).load(key));
registerNodeType("Issue", (ctx, key) => issueByKey(ctx).load(key));
