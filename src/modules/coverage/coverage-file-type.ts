import type { ArgBuilder } from "@pothos/core";
import { type BuilderTypes, builder } from "../../graphql/builder.ts";
import { connectionArgs, connectionType, pageArgs } from "../../graphql/relay.ts";
import { CheckRef } from "../checks/check-type.ts";
import { MetricKeyEnum } from "../metrics/metric-item-type.ts";
import { RepositoryRef } from "../repositories/repository-type.ts";
import { coverageFilesOfCheck, coverageFilesOfRepository, coverageRate } from "./coverage-file-service.ts";
import type { CoverageFileRow } from "./coverage-file-store.ts";

/** Counts of one kind (lines, branch outcomes, condition outcomes) of one file. */
interface FileCounts {
  total: number;
  covered: number;
  new: number | null;
  newCovered: number | null;
}

const CoverageFileCountsRef = builder.objectRef<FileCounts>("CoverageFileCounts").implement({
  description: "Coverage counts of one kind (lines, branch outcomes or condition outcomes) in one file.",
  fields: (t) => ({
    total: t.int({ description: "How many the file has.", resolve: (c) => c.total }),
    covered: t.int({ description: "How many of those the tests cover.", resolve: (c) => c.covered }),
    new: t.int({
      nullable: true,
      description:
        "How many are on lines the run's change set adds or changes; null when the run has no changed lines.",
      resolve: (c) => c.new,
    }),
    newCovered: t.int({
      nullable: true,
      description: "How many of those the tests cover; null when the run has no changed lines.",
      resolve: (c) => c.newCovered,
    }),
  }),
});

const CoverageFileRef = builder.objectRef<CoverageFileRow>("CoverageFile").implement({
  description:
    "One source file as a coverage check counted it: the figures its coverage reports give for the file, which add up to the check's coverage values. A file several reports of one language name is merged, as the totals merge it: a line is covered when any report ran it. Files outside the repository are not counted and not listed (the artifact's result counts them).",
  fields: (t) => ({
    path: t.string({
      description:
        "The file's path as its report names it, made relative to the repository root. JaCoCo names a file from its package (`com/acme/Cart.java`), without the source root it lies under, which the report does not say; such a path is kept as it is. A Cobertura file that lies under one of several of the report's sources, without the report saying which, is written with its places in braces, as a shell writes alternatives: `{invoices,tests}/totals.py`.",
      resolve: (f) => f.path,
    }),
    key: t.field({
      type: MetricKeyEnum,
      description: "The language the file was reported under (the upload's language key).",
      resolve: (f) => f.metric_key,
    }),
    reportCount: t.int({
      description: "How many of the check's coverage reports of that language name the file.",
      resolve: (f) => f.reports,
    }),
    lineCoverage: t.float({
      nullable: true,
      description:
        "Covered lines as a percentage from 0 to 100, rounded to two decimals like the LCV metric; null when the file has no executable line.",
      resolve: (f) => coverageRate(f.lines_covered, f.lines_total),
    }),
    branchCoverage: t.float({
      nullable: true,
      description:
        "Covered branch outcomes as a percentage, like the BCV metric; null when the file has no branch.",
      resolve: (f) => coverageRate(f.branches_covered, f.branches_total),
    }),
    conditionCoverage: t.float({
      nullable: true,
      description:
        "Met condition outcomes as a percentage, like the CCV metric; null when the report gives no conditions or the file has none.",
      resolve: (f) =>
        f.conditions_total === null ? null : coverageRate(f.conditions_covered ?? 0, f.conditions_total),
    }),
    lines: t.field({
      type: CoverageFileCountsRef,
      description: "Executable lines: those the report gives an execution count.",
      resolve: (f) => ({
        total: f.lines_total,
        covered: f.lines_covered,
        new: f.lines_new,
        newCovered: f.lines_new_covered,
      }),
    }),
    branches: t.field({
      type: CoverageFileCountsRef,
      description: "Branch outcomes.",
      resolve: (f) => ({
        total: f.branches_total,
        covered: f.branches_covered,
        new: f.branches_new,
        newCovered: f.branches_new_covered,
      }),
    }),
    conditions: t.field({
      type: CoverageFileCountsRef,
      nullable: true,
      description: "Boolean condition outcomes; null when the report gives none (LCOV, Go).",
      resolve: (f) =>
        f.conditions_total === null
          ? null
          : {
              total: f.conditions_total,
              covered: f.conditions_covered ?? 0,
              new: f.conditions_new,
              newCovered: f.conditions_new_covered,
            },
    }),
    uncoveredLines: t.intList({
      description: "The executable lines no test ran, in ascending order.",
      resolve: (f) => f.uncovered_lines,
    }),
  }),
});

const CoverageFileSortKeyEnum = builder.enumType("CoverageFileSortKey", {
  description:
    "Orders of a coverage check's files. Every order ends by path; files with nothing to measure in the sorted figure come last.",
  values: {
    PATH: { description: "By path (the default)." },
    LCV_ASCENDING: { description: "Least line coverage first." },
    LCV_DESCENDING: { description: "Most line coverage first." },
    BCV_ASCENDING: { description: "Least branch coverage first." },
    BCV_DESCENDING: { description: "Most branch coverage first." },
    UNCOVERED_LINES_DESCENDING: {
      description: "Most uncovered lines first: where tests would add the most.",
    },
  } as const,
});

const CoverageFileConnection = connectionType("CoverageFile", CoverageFileRef, "coverage file");

/** The arguments of both `coverageFiles` fields. */
function coverageFileArgs(t: ArgBuilder<BuilderTypes>) {
  return {
    ...connectionArgs(t),
    q: t.string({
      required: false,
      description: "Only files whose path contains this text, ignoring case.",
    }),
    key: t({
      type: MetricKeyEnum,
      required: false,
      description: "Only files of this language; AGGREGATE (or none) lists every language.",
    }),
    sortKey: t({
      type: CoverageFileSortKeyEnum,
      required: false,
      description: "The order; by path when not given.",
    }),
  };
}

builder.objectField(CheckRef, "coverageFiles", (t) =>
  t.field({
    type: CoverageFileConnection,
    description:
      "The files this check's coverage reports counted, with each file's figures: what the check's coverage values (`metrics`, the run's `changesetStats`) add up, language by language. A file reported under two languages is listed under each, while the AGGREGATE values count it once, so the files of every language can add up to more. Empty for checks of other analyzers.",
    args: coverageFileArgs(t.arg),
    resolve: (check, args, ctx) =>
      coverageFilesOfCheck(ctx, check.id, {
        ...pageArgs(args),
        q: args.q,
        key: args.key,
        sortKey: args.sortKey,
      }),
  }),
);

builder.objectField(RepositoryRef, "coverageFiles", (t) =>
  t.field({
    type: CoverageFileConnection,
    nullable: true,
    description:
      "The files counted by the coverage whose values the repository's metrics show (its newest line coverage on the default branch), with each file's figures, a file reported under two languages listed under each as in `Check.coverageFiles`; null when the default branch has no coverage.",
    args: coverageFileArgs(t.arg),
    resolve: (repository, args, ctx) =>
      coverageFilesOfRepository(ctx, repository.id, {
        ...pageArgs(args),
        q: args.q,
        key: args.key,
        sortKey: args.sortKey,
      }),
  }),
);
