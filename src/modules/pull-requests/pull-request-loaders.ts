import type { AnalysisRunRow, PullRequestRow } from "../../db/types.ts";
import { alignRows, defineLoader, groupRows } from "../../graphql/context.ts";
import {
  findCheckIdsOfRuns,
  findLatestRunsOfPullRequests,
  findPullRequestsByNumbers,
  findVisiblePullRequestsByKeys,
} from "./pull-request-store.ts";

/** Pull requests by key, limited to repositories the viewer can see. */
export const visiblePullRequestByKey = defineLoader<string, PullRequestRow | null>(
  "visiblePullRequestByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisiblePullRequestsByKeys(ctx.db, ctx.viewer.userId, keys), (pr) => pr.key),
);

/**
 * Pull requests by `"<repository id>:<number>"`; only for repositories the viewer already sees.
 */
export const pullRequestByNumber = defineLoader<string, PullRequestRow | null>(
  "pullRequestByNumber",
  async (ctx, keys) => {
    const pairs = keys.map((key) => {
      const [repositoryId = "", number = ""] = key.split(":");
      return { repositoryId, number: Number(number) };
    });
    const rows = await findPullRequestsByNumbers(ctx.db, pairs);
    return alignRows(keys, rows, (pr) => `${pr.repository_id}:${pr.number}`);
  },
);

/** A pull request's newest run by pull request id; null when it has none. */
export const latestRunByPullRequestId = defineLoader<string, AnalysisRunRow | null>(
  "latestRunByPullRequestId",
  async (ctx, ids) =>
    alignRows(ids, await findLatestRunsOfPullRequests(ctx.db, ids), (run) => String(run.pull_request_id)),
);

/** The ids of a run's checks, by run id. */
export const checkIdsByRunId = defineLoader<string, string[]>("checkIdsByRunId", async (ctx, runIds) =>
  groupRows(runIds, await findCheckIdsOfRuns(ctx.db, runIds), (row) => String(row.run_id)).map((rows) =>
    rows.map((row) => String(row.id)),
  ),
);
