import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { inTransaction } from "../../graphql/mutations.ts";
import { type RepositoryAccess, writableRepository } from "../accounts/access.ts";

/**
 * Runs `change` on the repository behind the global id `id` (given in input field `field`) in one
 * transaction, once the viewer is known to be allowed to change it.
 */
export function changeRepository<T>(
  ctx: GraphQLContext,
  id: string | number,
  field: string,
  change: (tx: Kysely<Database>, access: RepositoryAccess) => Promise<T>,
): Promise<T> {
  return inTransaction(ctx, async (tx) => change(tx, await writableRepository(ctx, tx, id, field)));
}
