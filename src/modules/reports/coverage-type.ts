import { builder } from "../../graphql/builder.ts";
import { alignRows, defineLoader } from "../../graphql/context.ts";
import { registerNodeType } from "../../graphql/node.ts";
import {
  connectionArgs,
  connectionType,
  globalIdField,
  NodeInterface,
  pageArgs,
} from "../../graphql/relay.ts";
import {
  COVERAGE_SOURCES,
  type CoverageRepositoryRow,
  coverageNameFilter,
  findVisibleCoverageRowsByKeys,
} from "./coverage-store.ts";
import { AccountReportsNamespaceRef, ReportKeyEnum } from "./report-type.ts";

/** Coverage rows by repository key, limited to repositories the viewer can see. */
const visibleCoverageRowByKey = defineLoader<string, CoverageRepositoryRow | null>(
  "visibleCoverageRowByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleCoverageRowsByKeys(ctx.db, ctx.viewer.userId, keys), (r) => r.key),
);

/** Whether `value` meets `threshold`; null when either is unknown. */
export function isPassing(value: number | null, threshold: number | null): boolean | null {
  if (value === null || threshold === null) return null;
  return value >= threshold;
}

const CodeCoverageReportRepositoryRef = builder
  .objectRef<CoverageRepositoryRow>("CodeCoverageReportRepository")
  .implement({
    description:
      "A repository with its latest repository-wide (AGGREGATE) line and branch coverage and whether each meets its threshold.",
    interfaces: [NodeInterface],
    fields: (t) => ({
      id: t.id(globalIdField("CodeCoverageReportRepository")),
      name: t.string({ description: "The repository's name.", resolve: (r) => r.name }),
      lcvMetricValue: t.float({
        nullable: true,
        description: "The latest AGGREGATE line coverage value; null when none was recorded.",
        resolve: (r) => r.lcv,
      }),
      bcvMetricValue: t.float({
        nullable: true,
        description: "The latest AGGREGATE branch coverage value; null when none was recorded.",
        resolve: (r) => r.bcv,
      }),
      isLcvPassing: t.boolean({
        nullable: true,
        description: "True when the line coverage meets its threshold; null without a value or a threshold.",
        resolve: (r) => isPassing(r.lcv, r.lcv_threshold),
      }),
      isBcvPassing: t.boolean({
        nullable: true,
        description:
          "True when the branch coverage meets its threshold; null without a value or a threshold.",
        resolve: (r) => isPassing(r.bcv, r.bcv_threshold),
      }),
    }),
  });

registerNodeType("CodeCoverageReportRepository", (ctx, key) => visibleCoverageRowByKey(ctx).load(key));

const CoverageSortKeyEnum = builder.enumType("CodeCoverageReportRepositorySortKey", {
  description: "Orders of the coverage report's repositories; repositories without a value come last.",
  values: ["LCV_ASCENDING", "LCV_DESCENDING", "BCV_ASCENDING", "BCV_DESCENDING"] as const,
});

const CoverageConnectionRef = connectionType(
  "CodeCoverageReportRepository",
  CodeCoverageReportRepositoryRef,
  "repository with its coverage",
);

const CodeCoverageReportRef = builder.objectRef<{ accountId: string }>("CodeCoverageReport").implement({
  description: "The latest line and branch coverage of each of the account's repositories.",
  fields: (t) => ({
    key: t.field({
      type: ReportKeyEnum,
      description: "Always CODE_COVERAGE.",
      resolve: () => "CODE_COVERAGE" as const,
    }),
    title: t.string({ description: "The report's display title.", resolve: () => "Code Coverage" }),
    repositories: t.field({
      type: CoverageConnectionRef,
      description: "The account's repositories with their coverage; by name unless `sortKey` is given.",
      args: {
        q: t.arg.string({
          required: false,
          description: "Only repositories whose name contains this (any case).",
        }),
        sortKey: t.arg({
          type: CoverageSortKeyEnum,
          required: false,
          description: "Order by a coverage value.",
        }),
        ...connectionArgs(t.arg),
      },
      resolve: (report, args, ctx) =>
        ctx.loaders.connections.load<CoverageRepositoryRow>(
          COVERAGE_SOURCES[args.sortKey ?? "NAME"],
          report.accountId,
          pageArgs(args),
          coverageNameFilter(args.q),
        ),
    }),
  }),
});

builder.objectField(AccountReportsNamespaceRef, "codeCoverage", (t) =>
  t.field({
    type: CodeCoverageReportRef,
    description: "Line and branch coverage of each repository.",
    resolve: (scope) => ({ accountId: scope.id }),
  }),
);
