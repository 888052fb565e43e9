import type { ArgBuilder } from "@pothos/core";
import type { OccurrenceRow } from "../../db/types.ts";
import { type BuilderTypes, builder } from "../../graphql/builder.ts";
import { registerNodeType } from "../../graphql/node.ts";
import { connectionType, globalIdField, NodeInterface } from "../../graphql/relay.ts";
import { issueById } from "../catalog/catalog-loaders.ts";
import { IssueCategoryEnum, IssueRef, IssueSeverityEnum } from "../catalog/catalog-type.ts";
import { visibleOccurrenceByKey } from "./checks-loaders.ts";
import type { AnalysisIssueRow } from "./occurrence-store.ts";

/** The `analyzerIn: [String]` argument of the occurrence and check connections. */
export function analyzerInArg(t: ArgBuilder<BuilderTypes>, what: string) {
  return t.stringList({
    required: { list: false, items: false },
    description: `Only ${what} of analyzers with these shortcodes (e.g. \`python\`). Null or an empty list does not filter.`,
  });
}

/** What `isSuppressed` says of a finding, on `Occurrence` and `AnalysisIssue` alike. */
const SUPPRESSED_DESCRIPTION =
  "Whether the finding is silenced: by a suppression comment in the source (a SARIF inSource or external suppression), a repository's ignore rule or a team's suppression of its issue. Silenced findings count in a summary's suppressed total, not its introduced one, and every list of findings leaves them out (one with an `isSuppressed` argument lists them for `isSuppressed: true`). An Assay extension.";

/**
 * The `isSuppressed: Boolean` argument of every list of findings (`Check.issues`, the `Occurrence`
 * connections), described the same way on each.
 */
export function isSuppressedArg(t: ArgBuilder<BuilderTypes>) {
  return t.boolean({
    required: false,
    description:
      "Only silenced findings (true) or only the others (false). Left out or null means false: a list shows what needs attention, as DeepSource's do, and its total counts the same. An Assay extension.",
  });
}

/** One finding of a check: an issue at a place in a file. */
export const OccurrenceRef = builder.objectRef<OccurrenceRow>("Occurrence").implement({
  description: "One finding of a check: an issue reported at a span of a file.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("Occurrence")),
    path: t.string({ description: "The file, relative to the repository root.", resolve: (o) => o.path }),
    beginLine: t.int({ description: "First line of the span (1-based).", resolve: (o) => o.begin_line }),
    beginColumn: t.int({
      description: "First column of the span (1-based).",
      resolve: (o) => o.begin_column,
    }),
    endLine: t.int({ description: "Last line of the span.", resolve: (o) => o.end_line }),
    endColumn: t.int({ description: "Last column of the span.", resolve: (o) => o.end_column }),
    issue: t.field({
      type: IssueRef,
      description: "The rule this finding breaks.",
      resolve: async (o, _args, ctx) => (await issueById(ctx).load(o.issue_id))!,
    }),
    title: t.string({
      description: "The message for this place, which may be more specific than the issue's title.",
      resolve: (o) => o.title,
    }),
    isSuppressed: t.boolean({
      description: SUPPRESSED_DESCRIPTION,
      resolve: (o) => o.is_suppressed,
    }),
  }),
});

/** `OccurrenceConnection`, for every connection of occurrences. */
export const OccurrenceConnection = connectionType("Occurrence", OccurrenceRef, "occurrence");

/** The contract's `AnalysisIssueSource`. */
export const AnalysisIssueSourceEnum = builder.enumType("AnalysisIssueSource", {
  description: "Who found a finding: STATIC for an analyzer's rules, AI for AI review.",
  values: ["STATIC", "AI"] as const,
});

/** A finding in the 2026 flat shape (`Check.issues`, `PullRequest.issues`). */
export const AnalysisIssueRef = builder.objectRef<AnalysisIssueRow>("AnalysisIssue").implement({
  description:
    "One finding with its issue's code and category and its own severity inlined: the flat shape that replaces `Check.occurrences`.",
  fields: (t) => ({
    source: t.field({
      type: AnalysisIssueSourceEnum,
      description: "Whether an analyzer's rules or AI review found it.",
      resolve: (o) => o.source,
    }),
    path: t.string({ description: "The file, relative to the repository root.", resolve: (o) => o.path }),
    beginLine: t.int({ description: "First line of the span (1-based).", resolve: (o) => o.begin_line }),
    beginColumn: t.int({
      description: "First column of the span (1-based).",
      resolve: (o) => o.begin_column,
    }),
    endLine: t.int({ description: "Last line of the span.", resolve: (o) => o.end_line }),
    endColumn: t.int({ description: "Last column of the span.", resolve: (o) => o.end_column }),
    title: t.string({ description: "The message for this place.", resolve: (o) => o.title }),
    shortcode: t.string({
      description: "The issue's code, e.g. `PYL-W0611`.",
      resolve: (o) => o.issue_shortcode,
    }),
    category: t.field({
      type: IssueCategoryEnum,
      description: "The issue's category.",
      resolve: (o) => o.category,
    }),
    severity: t.field({
      type: IssueSeverityEnum,
      description:
        "The finding's severity: as its report graded it (a rule can be an error in one repository and a warning in another), else its issue's.",
      resolve: (o) => o.severity,
    }),
    isIntroduced: t.boolean({
      description:
        "Whether the run introduced the finding: true when its base (the commit or branch it was compared against) did not have it, false when the base already had it. An Assay extension, so a review can tell what a change brought from what was there.",
      resolve: (o) => o.state === "INTRODUCED",
    }),
    isSuppressed: t.boolean({
      description: SUPPRESSED_DESCRIPTION,
      resolve: (o) => o.is_suppressed,
    }),
    explanation: t.string({
      nullable: true,
      description: "Why this place was flagged, when the analyzer or AI review said more than the title.",
      resolve: (o) => o.explanation,
    }),
    issue: t.field({
      type: IssueRef,
      description: "The issue (rule) found.",
      resolve: async (o, _args, ctx) => (await issueById(ctx).load(o.issue_id))!,
    }),
  }),
});

/** `AnalysisIssueConnection`. */
export const AnalysisIssueConnection = connectionType("AnalysisIssue", AnalysisIssueRef, "finding");

/** The filter arguments of `Check.issues` (and `PullRequest.issues`). */
export function analysisIssueArgs(t: ArgBuilder<BuilderTypes>) {
  return {
    source: t({
      type: AnalysisIssueSourceEnum,
      required: false,
      description: "Only findings from this source.",
    }),
    category: t({ type: IssueCategoryEnum, required: false, description: "Only issues of this category." }),
    severity: t({
      type: IssueSeverityEnum,
      required: false,
      description: "Only findings of this severity (each finding's own, else its issue's).",
    }),
    isIntroduced: t.boolean({
      required: false,
      description:
        "Only findings the run introduced (true) or only those its base already had (false); both when left out.",
    }),
    isSuppressed: isSuppressedArg(t),
    q: t.string({
      required: false,
      description:
        "Only findings whose title, file path or issue code contains this text (case-insensitive; surrounding whitespace ignored).",
    }),
  };
}

registerNodeType("Occurrence", (ctx, key) => visibleOccurrenceByKey(ctx).load(key));
