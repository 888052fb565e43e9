import type { Kysely } from "kysely";
import type { Database, RepositoryTargetRow } from "../../db/types.ts";

/**
 * What the target mutations read and write (docs/read-model.md "Current dependency scans"): a
 * target looked up for a change, and its `is_activated`. The permission check is the service's.
 */

/** A repository target with the key of its repository, for the repository's write check. */
export type TargetOfRepository = RepositoryTargetRow & { repository_key: string };

/** The target with `key` in a repository of an account `userId` belongs to; undefined when not visible. */
export function findMemberTargetByKey(
  tx: Kysely<Database>,
  userId: string,
  key: string,
): Promise<TargetOfRepository | undefined> {
  return tx
    .selectFrom("repository_targets as t")
    .innerJoin("repositories as repo", "repo.id", "t.repository_id")
    .innerJoin("memberships as m", "m.account_id", "repo.account_id")
    .selectAll("t")
    .select("repo.key as repository_key")
    .where("m.user_id", "=", userId)
    .where("t.key", "=", key)
    .executeTakeFirst();
}

/** Switches the scan of target `targetId` on or off; answers the target as it now is. */
export function updateTargetActivation(
  tx: Kysely<Database>,
  targetId: string,
  isActivated: boolean,
): Promise<RepositoryTargetRow | undefined> {
  return tx
    .updateTable("repository_targets")
    .set({ is_activated: isActivated })
    .where("id", "=", targetId)
    .returningAll()
    .executeTakeFirst();
}
