import type { RepositoryRow, RepositoryTargetRow } from "../../db/types.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { notFound } from "../../graphql/errors.ts";
import { decodeGlobalId } from "../../graphql/global-id.ts";
import { visibleTargetByKey, visibleVulnerabilityOccurrenceByKey } from "./dependencies-loaders.ts";
import type { LocatedVulnerabilityOccurrence } from "./dependencies-store.ts";

/**
 * Lookups of one object of a repository by its global id. An id that is malformed, of another
 * type, of a missing object, of another repository of the same account or of an account the
 * viewer is not in all get the same NOT_FOUND error, so the answer tells nothing about the id.
 */

/** The error text of `Repository.dependencyVulnerabilityOccurrence` for any id it cannot answer. */
export const VULNERABILITY_OCCURRENCE_NOT_FOUND = "Vulnerability occurrence matching query does not exist";

/** The error text of `Repository.target` for any id it cannot answer. */
export const TARGET_NOT_FOUND = "Repository target matching query does not exist";

/** The key inside `id` when it is a global id of `typeName`. */
function keyOf(id: string, typeName: string): string | undefined {
  const decoded = decodeGlobalId(id);
  return decoded?.typeName === typeName ? decoded.key : undefined;
}

/** A vulnerability occurrence of any run of `repository`, by global id. */
export async function findRepositoryVulnerabilityOccurrence(
  ctx: GraphQLContext,
  repository: RepositoryRow,
  id: string,
): Promise<LocatedVulnerabilityOccurrence> {
  const key = keyOf(id, "VulnerabilityOccurrence");
  const occurrence = key ? await visibleVulnerabilityOccurrenceByKey(ctx).load(key) : null;
  if (!occurrence || occurrence.repository_id !== repository.id) {
    throw notFound(VULNERABILITY_OCCURRENCE_NOT_FOUND);
  }
  return occurrence;
}

/** A target of `repository`, by global id. */
export async function findRepositoryTarget(
  ctx: GraphQLContext,
  repository: RepositoryRow,
  id: string,
): Promise<RepositoryTargetRow> {
  const key = keyOf(id, "RepositoryTarget");
  const target = key ? await visibleTargetByKey(ctx).load(key) : null;
  if (!target || target.repository_id !== repository.id) throw notFound(TARGET_NOT_FOUND);
  return target;
}
