import type { ObjectRef } from "@pothos/core";
import { type BuilderTypes, builder } from "../../graphql/builder.ts";
import { AccountRef } from "../accounts/account-type.ts";
import { RepositoryRef } from "../repositories/repository-type.ts";
import { autofixedView } from "./insight-views.ts";
import { checkFactsOf, preventedViewOf } from "./report-loaders.ts";
import {
  complianceView,
  currentCountsWithPrefix,
  currentValueOf,
  type DailyValues,
  distributionView,
  healthTrendView,
  type ItemStat,
  itemStatsOf,
  type ReportScope,
  type ReportView,
  statusOf,
  trendsOfView,
  valuesOf,
} from "./report-service.ts";
import type { TrendValue } from "./series.ts";
import type { ComplianceReportKey } from "./standards.ts";

/** The contract's `ReportKey` enum. */
export const ReportKeyEnum = builder.enumType("ReportKey", {
  description: "Which report: the three compliance standards and the insight reports.",
  values: [
    "OWASP_TOP_10",
    "SANS_TOP_25",
    "MISRA_C",
    "CODE_COVERAGE",
    "CODE_HEALTH_TREND",
    "ISSUE_DISTRIBUTION",
    "ISSUES_PREVENTED",
    "ISSUES_AUTOFIXED",
  ] as const,
});

/** The contract's `ReportStatus` enum. */
export const ReportStatusEnum = builder.enumType("ReportStatus", {
  description:
    "PASSING when the report counts no open finding, FAILING when it counts some, NOOP when nothing in scope has been analysed yet (no finished default-branch run with a report that could be read and placed).",
  values: ["PASSING", "FAILING", "NOOP"] as const,
});

const ReportValueRef = builder.objectRef<{ key: string; value: number }>("ReportValue").implement({
  description: "One series of a report on one day.",
  fields: (t) => ({
    key: t.string({
      description: "The series, e.g. an OWASP category key or an issue category.",
      resolve: (v) => v.key,
    }),
    value: t.int({ description: "Its count at the end of the day.", resolve: (v) => v.value }),
  }),
});

/** `ReportValueItem`: one day of a report's daily series. */
export const ReportValueItemRef = builder.objectRef<DailyValues>("ReportValueItem").implement({
  description:
    "A report's series on one day (UTC), as of the repositories' current findings at the end of it (per analyzer, its newest report on the default branch that could be read and placed).",
  fields: (t) => ({
    date: t.field({ type: "Date", description: "The day.", resolve: (d) => d.date }),
    values: t.field({
      type: [ReportValueRef],
      nullable: true,
      description:
        "Each series' count. A series with no known value that day is left out: a snapshot report lists none before any repository in scope has an analysed run.",
      resolve: (d) => d.values,
    }),
  }),
});

/** `Trend`: the headline number some months ago and the change since. */
export const TrendRef = builder.objectRef<TrendValue>("Trend").implement({
  description: "The report's headline number at a past moment and how today's compares with it.",
  fields: (t) => ({
    label: t.string({
      nullable: true,
      description: "The moment, e.g. `3 months ago`.",
      resolve: (v) => v.label,
    }),
    value: t.int({
      nullable: true,
      description:
        "The headline number then; null when it was unknown (before any repository in scope had an analysed run).",
      resolve: (v) => v.value,
    }),
    changePercentage: t.float({
      nullable: true,
      description:
        "Change from then to now in percent (two decimals); null when the value then was 0, or either value is unknown.",
      resolve: (v) => v.changePercentage,
    }),
    rate: t.float({
      nullable: true,
      description: "The same as `changePercentage`.",
      deprecationReason: "Deprecated in favor of `changePercentage`.",
      resolve: (v) => v.changePercentage,
    }),
  }),
});

/**
 * The counts of one item's open occurrences by severity, each null while nothing in scope has been
 * analysed: the fields of `SeverityDistribution` and of the older `ComplianceIssueOccurrenceCount`.
 */
export function severityCountFields(
  t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, ItemStat["occurrence"]>,
) {
  const unknown = "null while nothing in scope has been analysed.";
  return {
    critical: t.int({
      nullable: true,
      description: `CRITICAL occurrences; ${unknown}`,
      resolve: (o) => o.critical,
    }),
    major: t.int({ nullable: true, description: `MAJOR occurrences; ${unknown}`, resolve: (o) => o.major }),
    minor: t.int({ nullable: true, description: `MINOR occurrences; ${unknown}`, resolve: (o) => o.minor }),
    total: t.int({ nullable: true, description: `All of them; ${unknown}`, resolve: (o) => o.total }),
  };
}

const SeverityDistributionRef = builder.objectRef<ItemStat["occurrence"]>("SeverityDistribution").implement({
  description: "Open occurrences by severity.",
  fields: severityCountFields,
});

const SecurityIssueStatRef = builder.objectRef<ItemStat>("SecurityIssueStat").implement({
  description: "One item of a compliance standard with its open occurrences by severity.",
  fields: (t) => ({
    key: t.string({
      description: "The item: an OWASP category (`A03`), a CWE id (`CWE-89`) or a MISRA rule group (`10`).",
      resolve: (s) => s.key,
    }),
    title: t.string({ description: "The item's name.", resolve: (s) => s.title }),
    occurrence: t.field({
      type: SeverityDistributionRef,
      description: "Its open occurrences.",
      resolve: (s) => s.occurrence,
    }),
  }),
});

const HistoricalValueRef = builder.objectRef<{ key: string; value: number }>("HistoricalValue").implement({
  description: "One series of a report on one day (the older shape of `ReportValue`).",
  fields: (t) => ({
    key: t.string({ nullable: true, description: "The series.", resolve: (v) => v.key }),
    value: t.int({
      nullable: true,
      description: "Its count at the end of the day.",
      resolve: (v) => v.value,
    }),
  }),
});

const HistoricalValueItemRef = builder.objectRef<DailyValues>("HistoricalValueItem").implement({
  description: "A report's series on one day (the older shape of `ReportValueItem`).",
  fields: (t) => ({
    date: t.field({ type: "Date", nullable: true, description: "The day.", resolve: (d) => d.date }),
    values: t.field({
      type: [HistoricalValueRef],
      nullable: true,
      description: "Each series' count; a series with no known value that day is left out, as in `values`.",
      resolve: (d) => d.values,
    }),
  }),
});

/** The GraphQL type a report view is shown as when it is answered through the `Report` interface. */
export function reportTypeName(view: ReportView): string {
  if (view.typeName) return view.typeName;
  return view.key === "ISSUE_DISTRIBUTION" ? "IssueDistributionReport" : "InsightReport";
}

/** The contract's deprecated `Report` interface. */
export const ReportInterfaceRef = builder.interfaceRef<ReportView>("Report").implement({
  description: "What every report of the older `report(key:)` field answers.",
  fields: (t) => ({
    key: t.field({ type: ReportKeyEnum, description: "Which report this is.", resolve: (r) => r.key }),
    title: t.string({ description: "The report's display title.", resolve: (r) => r.title }),
    currentValue: t.int({
      nullable: true,
      description:
        "The headline number now: what the report of this key under `reports` answers as `currentValue`.",
      resolve: currentValueOf,
    }),
    status: t.field({
      type: ReportStatusEnum,
      nullable: true,
      description: "Whether the report counts anything open now; NOOP before any finished run.",
      resolve: statusOf,
    }),
    historicalValues: t.field({
      type: [HistoricalValueItemRef],
      nullable: true,
      description: "The daily series from `startDate` to `endDate` (both included, at most 366 days).",
      args: {
        startDate: t.arg({ type: "Date", required: true, description: "The first day." }),
        endDate: t.arg({ type: "Date", required: true, description: "The last day." }),
      },
      resolve: (r, args) => valuesOf(r, args.startDate, args.endDate),
    }),
    trends: t.field({
      type: [TrendRef],
      nullable: { list: true, items: false },
      description: "The headline number 1, 3, 6 and 12 months ago, against now.",
      resolve: trendsOfView,
    }),
  }),
  resolveType: reportTypeName,
});

const IssueDistributionRef = builder
  .objectRef<{ key: string; value: number }>("IssueDistribution")
  .implement({
    description: "Open occurrences under one key (an analyzer shortcode or an issue category).",
    fields: (t) => ({
      key: t.string({
        nullable: true,
        description: "The analyzer shortcode or issue category.",
        resolve: (v) => v.key,
      }),
      value: t.int({ nullable: true, description: "Its open occurrences now.", resolve: (v) => v.value }),
    }),
  });

/** The descriptions of a report's `currentValue`, `values` and `trends`: what its numbers count. */
interface SeriesDescriptions {
  currentValue: string;
  values: string;
  trends: string;
}

const SNAPSHOT_DESCRIPTIONS: SeriesDescriptions = {
  currentValue:
    "The headline number now, from each repository's current findings on its default branch (per analyzer, its newest report that could be read and placed); null while nothing in scope has been analysed.",
  values: "The daily series from `startDate` to `endDate` (both included, at most 366 days).",
  trends: "The headline number 1, 3, 6 and 12 months ago, against now.",
};

/** The fields every report with a daily series shares. */
function seriesFields(
  t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, ReportView>,
  about: SeriesDescriptions = SNAPSHOT_DESCRIPTIONS,
) {
  return {
    key: t.field({ type: ReportKeyEnum, description: "Which report this is.", resolve: (r) => r.key }),
    title: t.string({ description: "The report's display title.", resolve: (r) => r.title }),
    currentValue: t.int({ nullable: true, description: about.currentValue, resolve: currentValueOf }),
    values: t.field({
      type: [ReportValueItemRef],
      description: about.values,
      args: {
        startDate: t.arg({ type: "Date", required: true, description: "The first day." }),
        endDate: t.arg({ type: "Date", required: true, description: "The last day." }),
      },
      resolve: (r, args) => valuesOf(r, args.startDate, args.endDate),
    }),
    trends: t.field({ type: [TrendRef], description: about.trends, resolve: trendsOfView }),
  };
}

function complianceReportType(name: string, description: string, items: string) {
  return builder.objectRef<ReportView>(name).implement({
    description,
    fields: (t) => ({
      ...seriesFields(t),
      status: t.field({
        type: ReportStatusEnum,
        description: "Whether anything in scope is open.",
        resolve: statusOf,
      }),
      securityIssueStats: t.field({
        type: [SecurityIssueStatRef],
        description: `${items}, in the standard's order, with open occurrences by severity.`,
        resolve: itemStatsOf,
      }),
    }),
  });
}

const OwaspTop10ReportRef = complianceReportType(
  "OwaspTop10Report",
  "Open findings of weaknesses in the OWASP Top 10 (2021).",
  "Every category A01 to A10",
);
const SansTop25ReportRef = complianceReportType(
  "SansTop25Report",
  "Open findings of weaknesses on the 2023 CWE/SANS Top 25 list.",
  "Every CWE entry of the list",
);
const MisraCReportRef = complianceReportType(
  "MisraCReport",
  "Open findings of MISRA C:2012 rules, grouped by section.",
  "Every rule group",
);

const IssueDistributionReportRef = builder.objectRef<ReportView>("IssueDistributionReport").implement({
  description:
    "Open occurrences in scope, by issue category (the daily series) and by analyzer, from each repository's current findings on its default branch (per analyzer, its newest report that could be read and placed).",
  interfaces: [ReportInterfaceRef],
  fields: (t) => ({
    ...seriesFields(t),
    status: t.field({
      type: ReportStatusEnum,
      nullable: true,
      description: "PASSING when nothing is open, FAILING otherwise, NOOP before any finished run.",
      deprecationReason: "Report doesn't have a status.",
      resolve: statusOf,
    }),
    historicalValues: t.field({
      type: [HistoricalValueItemRef],
      nullable: true,
      description: "The same daily series as `values`.",
      deprecationReason: "Deprecated in favor of `values`.",
      args: {
        startDate: t.arg({ type: "Date", required: true, description: "The first day." }),
        endDate: t.arg({ type: "Date", required: true, description: "The last day." }),
      },
      resolve: (r, args) => valuesOf(r, args.startDate, args.endDate),
    }),
    issueDistributionByAnalyzer: t.field({
      type: [IssueDistributionRef],
      nullable: { list: true, items: false },
      description: "Open occurrences per analyzer shortcode, most first (analyzers with none are left out).",
      resolve: (r) => sortedDistribution(currentCountsWithPrefix(r, "analyzer:")),
    }),
    issueDistributionByCategory: t.field({
      type: [IssueDistributionRef],
      nullable: { list: true, items: false },
      description: "Open occurrences per issue category, most first (categories with none are left out).",
      resolve: (r) => sortedDistribution(currentCountsWithPrefix(r, "category:")),
    }),
  }),
});

function sortedDistribution(entries: Array<{ key: string; value: number }>) {
  return entries.sort((a, b) => b.value - a.value || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

const CodeHealthTrendReportRef = builder.objectRef<ReportView>("CodeHealthTrendReport").implement({
  description:
    "Open (active) occurrences in each repository's current findings on its default branch (per analyzer, its newest report that could be read and placed), and occurrences resolved, over time; the headline is the active count.",
  fields: (t) =>
    seriesFields(t, {
      ...SNAPSHOT_DESCRIPTIONS,
      values:
        "Per day from `startDate` to `endDate` (both included, at most 366 days): `active`, the open occurrences at the end of the day, and `resolved`, the occurrences the default-branch runs created that day were the first to find fixed: open in each analyzer's previous report that could be read and placed, gone from the run's (each fix counted once). A day before any repository in scope was analysed has neither.",
      trends: "The active count 1, 3, 6 and 12 months ago, against now.",
    }),
});

const IssuesPreventedReportRef = builder.objectRef<ReportView>("IssuesPreventedReport").implement({
  description:
    "Findings caught in pull requests and fixed before they reached the default branch: introduced (unsuppressed) by a run of a pull request and gone from a later run of the same pull request, counted once per finding and pull request.",
  fields: (t) =>
    seriesFields(t, {
      currentValue: "Every finding prevented in scope so far.",
      values:
        "Per day from `startDate` to `endDate` (both included, at most 366 days): `prevented`, the findings whose fixing run was created that day, and `total`, all prevented by the end of it.",
      trends: "The total prevented 1, 3, 6 and 12 months ago, against now.",
    }),
});

const IssuesAutofixedReportRef = builder.objectRef<ReportView>("IssuesAutofixedReport").implement({
  description:
    "Findings fixed by autofix. Assay stores no autofix facts (it receives findings, not fixes), so this report has no numbers: it answers null and empty series rather than invented ones.",
  fields: (t) =>
    seriesFields(t, {
      currentValue: "Always null: no autofix facts are stored.",
      values: "Always empty (no autofix facts are stored); the range is still checked.",
      trends: "The usual four periods, each with a null value and change.",
    }),
});

const COMPLIANCE_FIELDS: ReadonlyArray<
  [string, ComplianceReportKey, ObjectRef<BuilderTypes, ReportView>, string]
> = [
  ["owaspTop10", "OWASP_TOP_10", OwaspTop10ReportRef, "The OWASP Top 10 report."],
  ["sansTop25", "SANS_TOP_25", SansTop25ReportRef, "The CWE/SANS Top 25 report."],
  ["misraC", "MISRA_C", MisraCReportRef, "The MISRA C report."],
];

function namespaceType(name: string, description: string) {
  return builder.objectRef<ReportScope>(name).implement({
    description,
    fields: (t) => ({
      ...Object.fromEntries(
        COMPLIANCE_FIELDS.map(([field, key, ref, about]) => [
          field,
          t.field({
            type: ref,
            description: about,
            resolve: async (scope, _args, ctx) =>
              complianceView(key, await checkFactsOf(ctx, scope), new Date()),
          }),
        ]),
      ),
      issueDistribution: t.field({
        type: IssueDistributionReportRef,
        description: "Open occurrences by category and by analyzer.",
        resolve: async (scope, _args, ctx) => distributionView(await checkFactsOf(ctx, scope), new Date()),
      }),
      issuesPrevented: t.field({
        type: IssuesPreventedReportRef,
        description: "Findings fixed in pull requests before they reached the default branch.",
        resolve: (scope, _args, ctx) => preventedViewOf(ctx, scope),
      }),
      issuesAutofixed: t.field({
        type: IssuesAutofixedReportRef,
        description: "Findings fixed by autofix (not stored: null values).",
        resolve: () => autofixedView(new Date()),
      }),
      codeHealthTrend: t.field({
        type: CodeHealthTrendReportRef,
        description: "Active and resolved occurrences over time.",
        resolve: async (scope, _args, ctx) => healthTrendView(await checkFactsOf(ctx, scope), new Date()),
      }),
    }),
  });
}

/** `Account.reports`. */
export const AccountReportsNamespaceRef = namespaceType(
  "AccountReportsNamespace",
  "The account's reports, over all its repositories.",
);

/** `Repository.reports`. */
export const RepositoryReportsNamespaceRef = namespaceType(
  "RepositoryReportsNamespace",
  "The repository's reports.",
);

builder.objectField(AccountRef, "reports", (t) =>
  t.field({
    type: AccountReportsNamespaceRef,
    description: "Compliance and insight reports over all of the account's repositories.",
    resolve: (a): ReportScope => ({ kind: "account", id: a.id }),
  }),
);

builder.objectField(RepositoryRef, "reports", (t) =>
  t.field({
    type: RepositoryReportsNamespaceRef,
    description: "Compliance and insight reports of this repository.",
    resolve: (r): ReportScope => ({ kind: "repository", id: r.id }),
  }),
);
