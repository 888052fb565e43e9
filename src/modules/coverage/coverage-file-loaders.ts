import { defineLoader } from "../../graphql/context.ts";
import { findCurrentCoverageChecks } from "./coverage-file-store.ts";

/**
 * The coverage check whose values a repository's metrics show, by repository id; null when the
 * repository has no coverage on its default branch. One statement for every repository of a request.
 */
export const currentCoverageCheckByRepositoryId = defineLoader<string, string | null>(
  "currentCoverageCheckByRepositoryId",
  async (ctx, repositoryIds) => {
    const found = new Map(
      (await findCurrentCoverageChecks(ctx.db, repositoryIds)).map((row) => [
        row.repository_id,
        row.check_id,
      ]),
    );
    return repositoryIds.map((id) => found.get(id) ?? null);
  },
);
