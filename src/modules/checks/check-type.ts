import type { CheckRow, CoverageReportRow, OccurrenceRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { registerNodeType } from "../../graphql/node.ts";
import {
  connectionArgs,
  connectionType,
  globalIdField,
  NodeInterface,
  pageArgs,
} from "../../graphql/relay.ts";
import { analyzerById } from "../catalog/catalog-loaders.ts";
import { AnalyzerRef, IssueCategoryEnum, IssueSeverityEnum } from "../catalog/catalog-type.ts";
import { AnalysisRunRef } from "../runs/run-type.ts";
import { checksOfRun } from "./check-store.ts";
import {
  checkSummaryByCheckId,
  coverageReportByRunId,
  runSummaryByRunId,
  visibleCheckByKey,
  vulnerabilitiesIntroducedByRunId,
} from "./checks-loaders.ts";
import { analyzerInFilter } from "./connection-filter-store.ts";
import {
  type AnalysisIssueRow,
  analysisIssueFilter,
  analysisIssuesOfCheck,
  occurrenceFilter,
  occurrencesOfCheck,
} from "./occurrence-store.ts";
import {
  AnalysisIssueConnection,
  analysisIssueArgs,
  analyzerInArg,
  OccurrenceConnection,
} from "./occurrence-type.ts";
import type { AnalyzerIntroduced, CategoryIntroduced, SeverityIntroduced } from "./summary.ts";

const CheckStatusEnum = builder.enumType("CheckStatus", {
  description:
    "A check's state: WAITING until its analyzer is scheduled, PENDING while it runs; SUCCESS or FAILURE by the quality gates; TIMEOUT when the analyzer never reported; CANCEL when stopped; READY when results are in but not yet published; NEUTRAL for an informational result that neither passes nor fails; ARTIFACT_TIMEOUT when an expected artifact (such as a coverage report) never arrived; SKIPPED when the analyzer had nothing to do.",
  values: [
    "WAITING",
    "PENDING",
    "SUCCESS",
    "FAILURE",
    "TIMEOUT",
    "CANCEL",
    "READY",
    "NEUTRAL",
    "ARTIFACT_TIMEOUT",
    "SKIPPED",
  ] as const,
});

const SUMMARY_RULES =
  "Introduced counts new findings that are not suppressed; resolved counts findings of the base that are gone; suppressed counts findings present but silenced.";

const CategoryDistribution = builder
  .objectRef<CategoryIntroduced>("OccurrenceDistributionByCategory")
  .implement({
    description: "How many findings one issue category introduced.",
    fields: (t) => ({
      category: t.field({
        type: IssueCategoryEnum,
        description: "The category.",
        resolve: (d) => d.category,
      }),
      introduced: t.int({ description: "Findings introduced in it.", resolve: (d) => d.introduced }),
    }),
  });

const SeverityDistribution = builder
  .objectRef<SeverityIntroduced>("OccurrenceDistributionBySeverity")
  .implement({
    description:
      "How many findings of one severity were introduced: each finding's own severity (the level the tool gave it), else its issue's.",
    fields: (t) => ({
      severity: t.field({
        type: IssueSeverityEnum,
        description: "The severity.",
        resolve: (d) => d.severity,
      }),
      introduced: t.int({ description: "Findings introduced with it.", resolve: (d) => d.introduced }),
    }),
  });

/** The severity distribution field, the same on check and run summaries. */
const SEVERITY_DISTRIBUTION_DESCRIPTION =
  "Introduced findings per severity, from CRITICAL to MINOR; severities with none are left out. An Assay extension: the category distribution's companion, so a gate or a bot can tell new critical findings from minor ones in one request.";

const AnalyzerDistribution = builder
  .objectRef<AnalyzerIntroduced>("OccurrenceDistributionByAnalyzer")
  .implement({
    description: "How many findings one analyzer introduced.",
    fields: (t) => ({
      analyzerShortcode: t.string({
        description: "The analyzer's shortcode.",
        resolve: (d) => d.analyzerShortcode,
      }),
      introduced: t.int({ description: "Findings it introduced.", resolve: (d) => d.introduced }),
    }),
  });

const CheckSummaryRef = builder.objectRef<{ checkId: string }>("CheckSummary").implement({
  description: `Totals of a check's findings. ${SUMMARY_RULES}`,
  fields: (t) => ({
    occurrencesIntroduced: t.int({
      description: "Findings new in this check and not suppressed.",
      resolve: async (s, _args, ctx) => (await checkSummaryByCheckId(ctx).load(s.checkId)).introduced,
    }),
    occurrencesResolved: t.int({
      description: "Findings of the base that this check no longer reports.",
      resolve: async (s, _args, ctx) => (await checkSummaryByCheckId(ctx).load(s.checkId)).resolved,
    }),
    occurrencesSuppressed: t.int({
      description: "Findings present but suppressed.",
      resolve: async (s, _args, ctx) => (await checkSummaryByCheckId(ctx).load(s.checkId)).suppressed,
    }),
    occurrenceDistributionByCategory: t.field({
      type: [CategoryDistribution],
      description:
        "Introduced findings per issue category, in the category enum's order; categories with none are left out.",
      resolve: async (s, _args, ctx) => (await checkSummaryByCheckId(ctx).load(s.checkId)).byCategory,
    }),
    occurrenceDistributionBySeverity: t.field({
      type: [SeverityDistribution],
      nullable: { list: false, items: false },
      description: SEVERITY_DISTRIBUTION_DESCRIPTION,
      resolve: async (s, _args, ctx) => (await checkSummaryByCheckId(ctx).load(s.checkId)).bySeverity,
    }),
  }),
});

/** One analyzer's part of an analysis run. */
export const CheckRef = builder.objectRef<CheckRow>("Check").implement({
  description: "One analyzer's part of an analysis run, with its findings.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("Check")),
    sequence: t.int({ description: "The check's position in its run, from 1.", resolve: (c) => c.sequence }),
    status: t.field({ type: CheckStatusEnum, description: "The check's state.", resolve: (c) => c.status }),
    analyzer: t.field({
      type: AnalyzerRef,
      description: "The analyzer that ran.",
      resolve: async (c, _args, ctx) => (await analyzerById(ctx).load(c.analyzer_id))!,
    }),
    createdAt: t.field({
      type: "DateTime",
      description: "When the check was created.",
      resolve: (c) => c.created_at,
    }),
    updatedAt: t.field({
      type: "DateTime",
      description: "When the check last changed.",
      resolve: (c) => c.updated_at,
    }),
    finishedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the check finished; null while it runs.",
      resolve: (c) => c.finished_at,
    }),
    summary: t.field({
      type: CheckSummaryRef,
      description: "Totals of the check's findings.",
      resolve: (c) => ({ checkId: c.id }),
    }),
    occurrences: t.field({
      type: OccurrenceConnection,
      deprecationReason: "Use `issues`, which carries each finding's code, category and severity.",
      description:
        "The check's findings (RESOLVED and silenced ones left out, as `issues` leaves them by default), by path, then line, then key.",
      args: { ...connectionArgs(t.arg), analyzerIn: analyzerInArg(t.arg, "findings") },
      resolve: (c, args, ctx) =>
        ctx.loaders.connections.load<OccurrenceRow>(
          occurrencesOfCheck,
          c.id,
          pageArgs(args),
          occurrenceFilter({ analyzerIn: args.analyzerIn }),
        ),
    }),
    issues: t.field({
      type: AnalysisIssueConnection,
      description:
        "The check's findings (RESOLVED ones left out, silenced ones unless `isSuppressed: true`) in the flat 2026 shape, by path, then line, then key.",
      args: { ...analysisIssueArgs(t.arg), ...connectionArgs(t.arg) },
      resolve: (c, args, ctx) =>
        ctx.loaders.connections.load<AnalysisIssueRow>(
          analysisIssuesOfCheck,
          c.id,
          pageArgs(args),
          analysisIssueFilter(args),
        ),
    }),
  }),
});

export const CheckConnection = connectionType("Check", CheckRef, "check");

builder.objectField(AnalysisRunRef, "checks", (t) =>
  t.field({
    type: CheckConnection,
    nullable: true,
    description: "The run's checks, one per analyzer, by sequence.",
    args: { ...connectionArgs(t.arg), analyzerIn: analyzerInArg(t.arg, "checks") },
    resolve: (run, args, ctx) =>
      ctx.loaders.connections.load<CheckRow>(
        checksOfRun,
        run.id,
        pageArgs(args),
        analyzerInFilter(args.analyzerIn),
      ),
  }),
);

const AnalysisRunSummaryRef = builder.objectRef<{ runId: string }>("AnalysisRunSummary").implement({
  description: `Totals of a run's findings across its checks. ${SUMMARY_RULES}`,
  fields: (t) => ({
    occurrencesIntroduced: t.int({
      description: "Findings new in this run and not suppressed.",
      resolve: async (s, _args, ctx) => (await runSummaryByRunId(ctx).load(s.runId)).introduced,
    }),
    occurrencesResolved: t.int({
      description: "Findings of the base that this run no longer reports.",
      resolve: async (s, _args, ctx) => (await runSummaryByRunId(ctx).load(s.runId)).resolved,
    }),
    occurrencesSuppressed: t.int({
      description: "Findings present but suppressed.",
      resolve: async (s, _args, ctx) => (await runSummaryByRunId(ctx).load(s.runId)).suppressed,
    }),
    occurrenceDistributionByAnalyzer: t.field({
      type: [AnalyzerDistribution],
      description: "Introduced findings per analyzer, by shortcode; analyzers with none are left out.",
      resolve: async (s, _args, ctx) => (await runSummaryByRunId(ctx).load(s.runId)).byAnalyzer,
    }),
    occurrenceDistributionByCategory: t.field({
      type: [CategoryDistribution],
      description:
        "Introduced findings per issue category, in the category enum's order; categories with none are left out.",
      resolve: async (s, _args, ctx) => (await runSummaryByRunId(ctx).load(s.runId)).byCategory,
    }),
    occurrenceDistributionBySeverity: t.field({
      type: [SeverityDistribution],
      nullable: { list: false, items: false },
      description: SEVERITY_DISTRIBUTION_DESCRIPTION,
      resolve: async (s, _args, ctx) => (await runSummaryByRunId(ctx).load(s.runId)).bySeverity,
    }),
    vulnerabilitiesIntroduced: t.int({
      description: "Dependency vulnerability occurrences the run's SCA checks introduced.",
      resolve: (s, _args, ctx) => vulnerabilitiesIntroducedByRunId(ctx).load(s.runId),
    }),
  }),
});

builder.objectField(AnalysisRunRef, "summary", (t) =>
  t.field({
    type: AnalysisRunSummaryRef,
    description: "Totals of the run's findings.",
    resolve: (run) => ({ runId: run.id }),
  }),
);

interface CoverageCounts {
  overall: number | null;
  overallCovered: number | null;
  new: number | null;
  newCovered: number | null;
}

const ChangesetStatsCountsRef = builder.objectRef<CoverageCounts>("ChangesetStatsCounts").implement({
  description: "Coverage counts of one kind (lines, branches or conditions). Null means not reported.",
  fields: (t) => ({
    overall: t.int({
      nullable: true,
      description: "How many there are in the whole repository.",
      resolve: (c) => c.overall,
    }),
    overallCovered: t.int({
      nullable: true,
      description: "How many of those the tests cover.",
      resolve: (c) => c.overallCovered,
    }),
    new: t.int({
      nullable: true,
      description: "How many the change set adds or changes.",
      resolve: (c) => c.new,
    }),
    newCovered: t.int({
      nullable: true,
      description: "How many of those the tests cover.",
      resolve: (c) => c.newCovered,
    }),
  }),
});

const ChangesetStatsRef = builder.objectRef<CoverageReportRow>("ChangesetStats").implement({
  description: "Test coverage of the repository and of the run's change set, from the run's coverage report.",
  fields: (t) => ({
    lines: t.field({
      type: ChangesetStatsCountsRef,
      description: "Executable lines.",
      resolve: (r) => ({
        overall: r.lines_total,
        overallCovered: r.lines_covered,
        new: r.lines_new,
        newCovered: r.lines_new_covered,
      }),
    }),
    branches: t.field({
      type: ChangesetStatsCountsRef,
      description: "Branches.",
      resolve: (r) => ({
        overall: r.branches_total,
        overallCovered: r.branches_covered,
        new: r.branches_new,
        newCovered: r.branches_new_covered,
      }),
    }),
    conditions: t.field({
      type: ChangesetStatsCountsRef,
      description: "Boolean conditions.",
      resolve: (r) => ({
        overall: r.conditions_total,
        overallCovered: r.conditions_covered,
        new: r.conditions_new,
        newCovered: r.conditions_new_covered,
      }),
    }),
  }),
});

builder.objectField(AnalysisRunRef, "changesetStats", (t) =>
  t.field({
    type: ChangesetStatsRef,
    nullable: true,
    description:
      "Coverage counts from the report of the run's `test-coverage` check; null when the run has no coverage report.",
    resolve: (run, _args, ctx) => coverageReportByRunId(ctx).load(run.id),
  }),
);

registerNodeType("Check", (ctx, key) => visibleCheckByKey(ctx).load(key));
