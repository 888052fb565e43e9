import { alignRows, defineLoader, type GraphQLContext, groupRows } from "../../graphql/context.ts";
import {
  autofixedView,
  type CoverageFact,
  coverageFactsOfScopes,
  coverageInsightView,
  type PreventionFact,
  preventedView,
  preventionFactsOfScopes,
} from "./insight-views.ts";
import {
  type CheckFact,
  checkFactsOfScopes,
  complianceView,
  distributionView,
  healthTrendView,
  type ReportKey,
  type ReportScope,
  type ReportView,
} from "./report-service.ts";
import {
  countOpenOccurrencesOfRuns,
  findCoverageValuesOfRuns,
  findScopeCheckIssueCounts,
  findScopeLineCoverage,
  findScopePreventions,
  type RunCategoryCountRow,
  type RunCoverageRow,
} from "./report-store.ts";

/**
 * The checks that can hold the current findings of all repositories of each account, with their
 * counts.
 */
export const reportChecksByAccountId = defineLoader<string, CheckFact[]>(
  "reportChecksByAccountId",
  async (ctx, ids) => checkFactsOfScopes(ids, await findScopeCheckIssueCounts(ctx.db, "account_id", ids)),
);

/** The checks that can hold the current findings of each repository, with their counts. */
export const reportChecksByRepositoryId = defineLoader<string, CheckFact[]>(
  "reportChecksByRepositoryId",
  async (ctx, ids) => checkFactsOfScopes(ids, await findScopeCheckIssueCounts(ctx.db, "id", ids)),
);

/** The pull-request runs that prevented findings in any repository of each account. */
const preventionsByAccountId = defineLoader<string, PreventionFact[]>(
  "preventionsByAccountId",
  async (ctx, ids) => preventionFactsOfScopes(ids, await findScopePreventions(ctx.db, "account_id", ids)),
);

/** The pull-request runs that prevented findings in each repository. */
const preventionsByRepositoryId = defineLoader<string, PreventionFact[]>(
  "preventionsByRepositoryId",
  async (ctx, ids) => preventionFactsOfScopes(ids, await findScopePreventions(ctx.db, "id", ids)),
);

/** The AGGREGATE line coverage values of all repositories of each account. */
const lineCoverageByAccountId = defineLoader<string, CoverageFact[]>(
  "lineCoverageByAccountId",
  async (ctx, ids) => coverageFactsOfScopes(ids, await findScopeLineCoverage(ctx.db, "account_id", ids)),
);

/** The AGGREGATE line coverage values of each repository. */
const lineCoverageByRepositoryId = defineLoader<string, CoverageFact[]>(
  "lineCoverageByRepositoryId",
  async (ctx, ids) => coverageFactsOfScopes(ids, await findScopeLineCoverage(ctx.db, "id", ids)),
);

/** A run's open occurrence counts by category and severity, by run id. */
export const openCountsByRunId = defineLoader<string, RunCategoryCountRow[]>(
  "openCountsByRunId",
  async (ctx, ids) => groupRows(ids, await countOpenOccurrencesOfRuns(ctx.db, ids), (row) => row.run_id),
);

/** A run's AGGREGATE line and branch coverage, by run id; null when it recorded neither. */
export const coverageValuesByRunId = defineLoader<string, RunCoverageRow | null>(
  "coverageValuesByRunId",
  async (ctx, ids) => alignRows(ids, await findCoverageValuesOfRuns(ctx.db, ids), (row) => row.run_id),
);

/** The check facts of a scope, through the batched loaders. */
export function checkFactsOf(ctx: GraphQLContext, scope: ReportScope): Promise<CheckFact[]> {
  return scope.kind === "account"
    ? reportChecksByAccountId(ctx).load(scope.id)
    : reportChecksByRepositoryId(ctx).load(scope.id);
}

/** The issues prevented report of a scope. */
export async function preventedViewOf(ctx: GraphQLContext, scope: ReportScope): Promise<ReportView> {
  const loader = scope.kind === "account" ? preventionsByAccountId : preventionsByRepositoryId;
  return preventedView(await loader(ctx).load(scope.id), new Date());
}

/**
 * Any report of a scope by its key, as `report(key:)` answers it. Every report reads its facts
 * through the batched loaders, so asking many scopes costs one statement per kind of fact.
 */
export async function reportViewOf(
  ctx: GraphQLContext,
  scope: ReportScope,
  key: ReportKey,
): Promise<ReportView> {
  const now = new Date();
  switch (key) {
    case "OWASP_TOP_10":
    case "SANS_TOP_25":
    case "MISRA_C":
      return { ...complianceView(key, await checkFactsOf(ctx, scope), now), typeName: "ComplianceReport" };
    case "ISSUE_DISTRIBUTION":
      return distributionView(await checkFactsOf(ctx, scope), now);
    case "CODE_HEALTH_TREND":
      return healthTrendView(await checkFactsOf(ctx, scope), now);
    case "ISSUES_PREVENTED":
      return preventedViewOf(ctx, scope);
    case "ISSUES_AUTOFIXED":
      return autofixedView(now);
    case "CODE_COVERAGE": {
      const loader = scope.kind === "account" ? lineCoverageByAccountId : lineCoverageByRepositoryId;
      return coverageInsightView(await loader(ctx).load(scope.id), now);
    }
  }
}
