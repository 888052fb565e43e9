import type { MetricKey } from "../../db/types.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import type { ConnectionArgs, ConnectionResult } from "../../graphql/pagination.ts";
import { coveragePercent } from "../metrics/metric-format.ts";
import { currentCoverageCheckByRepositoryId } from "./coverage-file-loaders.ts";
import {
  COVERAGE_FILE_SOURCES,
  type CoverageFileRow,
  type CoverageFileSortKey,
  coverageFileFilter,
} from "./coverage-file-store.ts";

/**
 * Per-file coverage as the API answers it (docs/ingestion-coverage.md "Per-file coverage"). The
 * parent (a check or a repository) was already loaded for the viewer, so every file under it is
 * the viewer's to see; this layer turns the arguments into an order and a filter.
 */

/** The arguments of the `coverageFiles` fields. */
export interface CoverageFileArgs extends ConnectionArgs {
  q?: string | null;
  key?: MetricKey | null;
  sortKey?: CoverageFileSortKey | null;
}

/** The files a coverage check counted, in the order and with the filter `args` ask for. */
export function coverageFilesOfCheck(
  ctx: GraphQLContext,
  checkId: string,
  args: CoverageFileArgs,
): Promise<ConnectionResult<CoverageFileRow>> {
  const { q, key, sortKey, ...page } = args;
  return ctx.loaders.connections.load<CoverageFileRow>(
    COVERAGE_FILE_SOURCES[sortKey ?? "PATH"],
    checkId,
    page,
    coverageFileFilter(q?.trim() ?? "", key ?? null),
  );
}

/**
 * The files of the coverage check whose values the repository's metrics show (its newest line
 * coverage on the default branch); null when the repository has none.
 */
export async function coverageFilesOfRepository(
  ctx: GraphQLContext,
  repositoryId: string,
  args: CoverageFileArgs,
): Promise<ConnectionResult<CoverageFileRow> | null> {
  const checkId = await currentCoverageCheckByRepositoryId(ctx).load(repositoryId);
  return checkId === null ? null : coverageFilesOfCheck(ctx, checkId, args);
}

/** `covered / total` as a percentage rounded to two decimals, as the coverage metrics are; null when `total` is 0. */
export function coverageRate(covered: number, total: number): number | null {
  return coveragePercent(covered, total);
}
