import type { RepositoryTargetRow } from "../../db/types.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { inTransaction, keyOfId } from "../../graphql/mutations.ts";
import { noSuchId, writableRepositoryByKey } from "../accounts/access.ts";
import { findMemberTargetByKey, updateTargetActivation } from "./target-store.ts";

/**
 * Switching a dependency target's scan on or off (docs/read-model.md "Current dependency scans").
 * The rule of the repository mutations applies: ADMIN or MEMBER of the repository's account, the
 * repository's row locked for the transaction; a target of an account the viewer is not in
 * answers exactly like an id never issued. No webhook event: the contract's catalogue has none
 * for targets.
 */

/**
 * Sets `is_activated` of the target behind the global id `targetId` (input field `targetId`) and
 * answers the target as it now is. Asking for the state it is already in succeeds and changes
 * nothing that can be seen.
 */
export function setTargetActivation(
  ctx: GraphQLContext,
  targetId: string | number,
  isActivated: boolean,
): Promise<RepositoryTargetRow> {
  const key = keyOfId(targetId, "RepositoryTarget", "targetId");
  const notVisible = () => noSuchId(targetId);
  return inTransaction(ctx, async (tx) => {
    const target = (await findMemberTargetByKey(tx, ctx.viewer.userId, key)) ?? notVisible();
    await writableRepositoryByKey(ctx, tx, target.repository_key, notVisible);
    return (await updateTargetActivation(tx, target.id, isActivated)) ?? notVisible();
  });
}
