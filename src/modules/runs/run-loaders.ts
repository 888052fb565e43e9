import type { AnalysisRunRow } from "../../db/types.ts";
import { alignRows, defineLoader } from "../../graphql/context.ts";
import { findLatestDefaultBranchRuns, findVisibleRunsByKeys } from "./run-store.ts";

/** Runs by key, limited to repositories the viewer can see. */
export const visibleRunByKey = defineLoader<string, AnalysisRunRow | null>(
  "visibleRunByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleRunsByKeys(ctx.db, ctx.viewer.userId, keys), (r) => r.key),
);

/**
 * The commit of each repository's newest analysed run on its default branch (the run the
 * repository's issue announcements call the latest), by repository id; null when the branch has
 * none. Derived, not read from `repositories.latest_commit_oid`, which only the demo ever wrote.
 */
export const latestCommitOidByRepositoryId = defineLoader<string, string | null>(
  "latestCommitOidByRepositoryId",
  async (ctx, ids) =>
    alignRows(ids, await findLatestDefaultBranchRuns(ctx.db, ids), (run) => String(run.repository_id)).map(
      (run) => run?.commit_oid ?? null,
    ),
);
