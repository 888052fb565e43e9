import { alignRows, defineLoader, type GraphQLContext, groupRows } from "../../graphql/context.ts";
import { type ReportScope, type RunFact, runFactsOfScopes } from "./report-service.ts";
import {
  countOpenOccurrencesOfRuns,
  findCoverageValuesOfRuns,
  findScopeRunIssueCounts,
  type RunCategoryCountRow,
  type RunCoverageRow,
} from "./report-store.ts";

/** The finished default-branch runs of all repositories of each account, with their counts. */
export const reportRunsByAccountId = defineLoader<string, RunFact[]>(
  "reportRunsByAccountId",
  async (ctx, ids) => runFactsOfScopes(ids, await findScopeRunIssueCounts(ctx.db, "account_id", ids)),
);

/** The finished default-branch runs of each repository, with their counts. */
export const reportRunsByRepositoryId = defineLoader<string, RunFact[]>(
  "reportRunsByRepositoryId",
  async (ctx, ids) => runFactsOfScopes(ids, await findScopeRunIssueCounts(ctx.db, "id", ids)),
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

/** The run facts of a scope, through the batched loaders. */
export function runFactsOf(ctx: GraphQLContext, scope: ReportScope): Promise<RunFact[]> {
  return scope.kind === "account"
    ? reportRunsByAccountId(ctx).load(scope.id)
    : reportRunsByRepositoryId(ctx).load(scope.id);
}
