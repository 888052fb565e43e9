import type { AnalysisRunRow, AnalysisRunStatus } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { registerNodeType } from "../../graphql/node.ts";
import { globalIdField, NodeInterface } from "../../graphql/relay.ts";
import { visibleRunByKey } from "../runs/run-loaders.ts";
import { AnalysisRunRef } from "../runs/run-type.ts";
import { type CoverageScore, type DimensionScore, type ReportCard, reportCardOf } from "./report-card.ts";
import { coverageValuesByRunId, openCountsByRunId } from "./report-loaders.ts";

/**
 * `AnalysisRun.reportCard`: the run's grades (formula in docs/reports.md). The node's id key is
 * the run's key, so it resolves through `node(id:)` exactly when the run does.
 */

/** A run whose report card is asked for; the card itself is computed on demand. */
type RunReportSource = AnalysisRunRow;

/**
 * What a run's status allows its card to say: grades once it analysed the code (SUCCESS,
 * FAILURE); PENDING while its results are not all in or not yet published (PENDING, READY); no
 * card at all when it ended without analysing (TIMEOUT, CANCEL, SKIPPED), since whatever its
 * checks hold is not the state of the code, and grading it would read a missing analyzer as a
 * clean one.
 */
type CardState = "GRADED" | "PENDING" | "NONE";

const CARD_STATES: Readonly<Record<AnalysisRunStatus, CardState>> = {
  SUCCESS: "GRADED",
  FAILURE: "GRADED",
  PENDING: "PENDING",
  READY: "PENDING",
  TIMEOUT: "NONE",
  CANCEL: "NONE",
  SKIPPED: "NONE",
};

/**
 * Whether a run has a card, and whether it is graded: by its status, except that a run a late
 * upload reopened after it finished (PENDING again, `reopened_from` SUCCESS or FAILURE) keeps the
 * grades of what it published, as it stays the repository's current state meanwhile
 * (docs/ingestion.md "A late upload to a finished run").
 */
function cardStateOf(run: Pick<AnalysisRunRow, "status" | "reopened_from">): CardState {
  if (run.status === "PENDING" && (run.reopened_from === "SUCCESS" || run.reopened_from === "FAILURE"))
    return "GRADED";
  return CARD_STATES[run.status];
}

const cards = new WeakMap<RunReportSource, Promise<ReportCard | null>>();

/** The run's grades, computed once per run row; null unless the run analysed the code. */
function cardOf(run: RunReportSource, ctx: GraphQLContext): Promise<ReportCard | null> {
  let card = cards.get(run);
  if (!card) {
    card =
      cardStateOf(run) !== "GRADED"
        ? Promise.resolve(null)
        : Promise.all([openCountsByRunId(ctx).load(run.id), coverageValuesByRunId(ctx).load(run.id)]).then(
            ([counts, coverage]) => reportCardOf(counts, coverage),
          );
    cards.set(run, card);
  }
  return card;
}

const RunReportDimensionRef = builder.objectRef<DimensionScore>("RunReportDimension").implement({
  description: "One issue dimension of a report card.",
  fields: (t) => ({
    grade: t.string({ nullable: true, description: "A, B, C or D.", resolve: (d) => d.grade }),
    score: t.int({
      nullable: true,
      description: "0 to 100; 100 means nothing open.",
      resolve: (d) => d.score,
    }),
    issuesCount: t.int({
      nullable: true,
      description: "Open occurrences the dimension counts.",
      resolve: (d) => d.issuesCount,
    }),
  }),
});

const RunReportCoverageRef = builder.objectRef<CoverageScore>("RunReportCoverage").implement({
  description: "The coverage dimension of a report card; null values when the run reported no coverage.",
  fields: (t) => ({
    grade: t.string({ nullable: true, description: "A, B, C or D.", resolve: (c) => c.grade }),
    score: t.int({
      nullable: true,
      description: "Mean of line and branch coverage, rounded.",
      resolve: (c) => c.score,
    }),
    lineCoverage: t.float({
      nullable: true,
      description: "Line coverage (LCV) in percent.",
      resolve: (c) => c.lineCoverage,
    }),
    branchCoverage: t.float({
      nullable: true,
      description: "Branch coverage (BCV) in percent.",
      resolve: (c) => c.branchCoverage,
    }),
  }),
});

const RunReportAggregateRef = builder.objectRef<ReportCard["aggregate"]>("RunReportAggregate").implement({
  description: "The overall grade: a weighted mean of the four issue dimensions.",
  fields: (t) => ({
    grade: t.string({ nullable: true, description: "A, B, C or D.", resolve: (a) => a.grade }),
    score: t.int({ nullable: true, description: "0 to 100.", resolve: (a) => a.score }),
  }),
});

const RunReportFocusAreaRef = builder
  .objectRef<NonNullable<ReportCard["focusArea"]>>("RunReportFocusArea")
  .implement({
    description: "The dimension that most needs work, with a suggestion.",
    fields: (t) => ({
      dimension: t.string({
        nullable: true,
        description: "SECURITY, RELIABILITY, COMPLEXITY or HYGIENE.",
        resolve: (f) => f.dimension,
      }),
      action: t.string({ nullable: true, description: "What to do about it.", resolve: (f) => f.action }),
    }),
  });

const RunReportRef = builder.objectRef<RunReportSource>("RunReport").implement({
  description: "Letter grades for one analysis run.",
  interfaces: [NodeInterface],
  fields: (t) => {
    const dimension = (name: "SECURITY" | "RELIABILITY" | "COMPLEXITY" | "HYGIENE", about: string) =>
      t.field({
        type: RunReportDimensionRef,
        nullable: true,
        description: about,
        resolve: async (run, _args, ctx) => (await cardOf(run, ctx))?.dimensions[name] ?? null,
      });
    return {
      id: t.id(globalIdField("RunReport")),
      status: t.string({
        nullable: true,
        description:
          "READY once the run has analysed the code and the grades are known (a finished run a late upload reopened keeps the grades of what it published); PENDING while its results are not all in or not yet published.",
        resolve: (run) => (cardStateOf(run) === "GRADED" ? "READY" : "PENDING"),
      }),
      security: dimension("SECURITY", "Security and secrets findings."),
      reliability: dimension("RELIABILITY", "Bug risks and type errors."),
      complexity: dimension("COMPLEXITY", "Anti-patterns and performance findings."),
      hygiene: dimension("HYGIENE", "Style and documentation findings."),
      coverage: t.field({
        type: RunReportCoverageRef,
        nullable: true,
        description: "Test coverage from the run's line and branch coverage metrics.",
        resolve: async (run, _args, ctx) => (await cardOf(run, ctx))?.coverage ?? null,
      }),
      aggregate: t.field({
        type: RunReportAggregateRef,
        nullable: true,
        description: "The overall grade.",
        resolve: async (run, _args, ctx) => (await cardOf(run, ctx))?.aggregate ?? null,
      }),
      focusArea: t.field({
        type: RunReportFocusAreaRef,
        nullable: true,
        description: "The weakest issue dimension; null when every dimension scores 100.",
        resolve: async (run, _args, ctx) => (await cardOf(run, ctx))?.focusArea ?? null,
      }),
    };
  },
});

// A copy: `node(id:)` tags the row with its type name, and the loader's row is the AnalysisRun.
// A run without a card answers like an id never issued.
registerNodeType("RunReport", async (ctx, key) => {
  const run = await visibleRunByKey(ctx).load(key);
  return run && cardStateOf(run) !== "NONE" ? { ...run } : null;
});

builder.objectField(AnalysisRunRef, "reportCard", (t) =>
  t.field({
    type: RunReportRef,
    nullable: true,
    description:
      "The run's report card: grades for security, reliability, complexity, hygiene and coverage. Null for a run that ended without analysing the code (TIMEOUT, CANCEL, SKIPPED): its checks say nothing reliable about it.",
    resolve: (run) => (cardStateOf(run) === "NONE" ? null : run),
  }),
);
