import { builder } from "../../graphql/builder.ts";
import { AccountRef } from "../accounts/account-type.ts";
import { RepositoryRef } from "../repositories/repository-type.ts";
import { reportViewOf } from "./report-loaders.ts";
import { type ItemStat, itemStatsOf, type ReportView } from "./report-service.ts";
import { ReportInterfaceRef, ReportKeyEnum, ReportStatusEnum, severityCountFields } from "./report-type.ts";

/**
 * The deprecated `report(key:)` of accounts and repositories and the types only it answers:
 * `ComplianceReport` (OWASP Top 10, SANS Top 25, MISRA C), `InsightReport` (code health trend,
 * issues prevented, issues autofixed, code coverage); the issue distribution answers as
 * `IssueDistributionReport`. Each reads the same view as its field under `reports`
 * (docs/reports.md, "The older report(key:)").
 */

const DEPRECATED = "Deprecated in favor of `reports`.";

const ComplianceIssueOccurrenceCountRef = builder
  .objectRef<ItemStat["occurrence"]>("ComplianceIssueOccurrenceCount")
  .implement({
    description: "Open occurrences of one item of a compliance standard, by severity.",
    fields: severityCountFields,
  });

const ComplianceIssueStatRef = builder.objectRef<ItemStat>("ComplianceIssueStat").implement({
  description:
    "One item of a compliance standard with its open occurrences by severity (the older shape of `SecurityIssueStat`).",
  fields: (t) => ({
    key: t.string({
      nullable: true,
      description: "The item: an OWASP category (`A03`), a CWE id (`CWE-89`) or a MISRA rule group (`10`).",
      resolve: (s) => s.key,
    }),
    title: t.string({ nullable: true, description: "The item's name.", resolve: (s) => s.title }),
    occurrence: t.field({
      type: ComplianceIssueOccurrenceCountRef,
      nullable: true,
      description: "Its open occurrences.",
      resolve: (s) => s.occurrence,
    }),
  }),
});

builder.objectRef<ReportView>("ComplianceReport").implement({
  description:
    "A compliance report (OWASP Top 10, CWE/SANS Top 25 or MISRA C) in the older shape `report(key:)` answers: the same numbers as `owaspTop10`, `sansTop25` and `misraC`.",
  interfaces: [ReportInterfaceRef],
  fields: (t) => ({
    complianceIssueStats: t.field({
      type: [ComplianceIssueStatRef],
      nullable: { list: true, items: true },
      description: "Every item of the standard, in its order, with open occurrences by severity.",
      resolve: itemStatsOf,
    }),
  }),
});

builder.objectRef<ReportView>("InsightReport").implement({
  description:
    "An insight report (code health trend, issues prevented, issues autofixed or code coverage) in the older shape `report(key:)` answers. Code coverage reads the mean of the repositories' latest line coverage, in whole percent.",
  interfaces: [ReportInterfaceRef],
  fields: (t) => ({
    status: t.field({
      type: ReportStatusEnum,
      nullable: true,
      description: "Always null: an insight report measures, it does not pass or fail.",
      resolve: () => null,
    }),
  }),
});

builder.objectField(AccountRef, "report", (t) =>
  t.field({
    type: ReportInterfaceRef,
    description: "One of the account's reports (over all its repositories) by its key.",
    deprecationReason: DEPRECATED,
    args: { key: t.arg({ type: ReportKeyEnum, required: true, description: "Which report." }) },
    resolve: (account, args, ctx) => reportViewOf(ctx, { kind: "account", id: account.id }, args.key),
  }),
);

builder.objectField(RepositoryRef, "report", (t) =>
  t.field({
    type: ReportInterfaceRef,
    description: "One of the repository's reports by its key.",
    deprecationReason: DEPRECATED,
    args: { key: t.arg({ type: ReportKeyEnum, required: true, description: "Which report." }) },
    resolve: (repository, args, ctx) =>
      reportViewOf(ctx, { kind: "repository", id: repository.id }, args.key),
  }),
);
