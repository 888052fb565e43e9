import type { CheckRow, CoverageReportRow, OccurrenceRow } from "../../db/types.ts";
import { alignRows, defineLoader } from "../../graphql/context.ts";
import {
  countOccurrencesOfChecks,
  countOccurrencesOfRuns,
  countVulnerabilitiesIntroduced,
  findCoverageReportsOfRuns,
  findVisibleChecksByKeys,
} from "./check-store.ts";
import { findVisibleOccurrencesByKeys } from "./occurrence-store.ts";
import { findVisibleRepositoryIssuesByKeys, type RepositoryIssueRow } from "./repository-issue-store.ts";
import { type OccurrenceSummary, summariseByParent } from "./summary.ts";

/** Checks by key, limited to repositories the viewer can see. */
export const visibleCheckByKey = defineLoader<string, CheckRow | null>(
  "visibleCheckByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleChecksByKeys(ctx.db, ctx.viewer.userId, keys), (c) => c.key),
);

/** Occurrences by key, limited to repositories the viewer can see. */
export const visibleOccurrenceByKey = defineLoader<string, OccurrenceRow | null>(
  "visibleOccurrenceByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleOccurrencesByKeys(ctx.db, ctx.viewer.userId, keys), (o) => o.key),
);

/** Repository issues by key, limited to repositories the viewer can see. */
export const visibleRepositoryIssueByKey = defineLoader<string, RepositoryIssueRow | null>(
  "visibleRepositoryIssueByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleRepositoryIssuesByKeys(ctx.db, ctx.viewer.userId, keys), (i) => i.key),
);

/** A check's summary by check id: one statement for every check of the request. */
export const checkSummaryByCheckId = defineLoader<string, OccurrenceSummary>(
  "checkSummaryByCheckId",
  async (ctx, checkIds) =>
    summariseByParent(checkIds, await countOccurrencesOfChecks(ctx.db, checkIds), (row) => row.check_id),
);

/** A run's occurrence summary by run id: one statement for every run of the request. */
export const runSummaryByRunId = defineLoader<string, OccurrenceSummary>(
  "runSummaryByRunId",
  async (ctx, runIds) =>
    summariseByParent(
      runIds,
      (await countOccurrencesOfRuns(ctx.db, runIds)).map((row) => ({
        ...row,
        analyzerShortcode: row.analyzer_shortcode,
      })),
      (row) => row.run_id,
    ),
);

/** Vulnerability occurrences introduced, by run id. */
export const vulnerabilitiesIntroducedByRunId = defineLoader<string, number>(
  "vulnerabilitiesIntroducedByRunId",
  async (ctx, runIds) => {
    const counts = new Map(
      (await countVulnerabilitiesIntroduced(ctx.db, runIds)).map((row) => [row.run_id, row.introduced]),
    );
    return runIds.map((id) => counts.get(id) ?? 0);
  },
);

/** A run's coverage report by run id; null when the run has none. */
export const coverageReportByRunId = defineLoader<string, CoverageReportRow | null>(
  "coverageReportByRunId",
  async (ctx, runIds) => alignRows(runIds, await findCoverageReportsOfRuns(ctx.db, runIds), (r) => r.run_id),
);
