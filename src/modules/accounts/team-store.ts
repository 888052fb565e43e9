import type { Kysely } from "kysely";
import type { AccountRow, Database, MembershipRow, TeamMemberRole } from "../../db/types.ts";
import { newRowKey } from "../../graphql/global-id.ts";

/**
 * The SQL of team membership changes (team-mutations.ts). Reads that decide a change run after the
 * account row is locked, each as its own statement, so they see every change committed before the
 * lock was granted.
 */

/**
 * The account of the membership `membershipKey`, locked for update, if `viewerId` is a member of
 * that account too (otherwise the membership is not theirs to see).
 */
export function lockAccountOfMembership(
  db: Kysely<Database>,
  viewerId: string,
  membershipKey: string,
): Promise<AccountRow | undefined> {
  return db
    .selectFrom("memberships as t")
    .innerJoin("accounts as a", "a.id", "t.account_id")
    .innerJoin("memberships as mine", "mine.account_id", "a.id")
    .selectAll("a")
    .where("t.key", "=", membershipKey)
    .where("mine.user_id", "=", viewerId)
    .forNoKeyUpdate("a")
    .executeTakeFirst();
}

/** The membership `key` of `accountId`, locked for update, if it is still there. */
export function lockMembershipByKey(
  db: Kysely<Database>,
  accountId: string,
  key: string,
): Promise<MembershipRow | undefined> {
  return db
    .selectFrom("memberships")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("key", "=", key)
    .forUpdate()
    .executeTakeFirst();
}

/** How many ADMINs `accountId` has. */
export async function countAdmins(db: Kysely<Database>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom("memberships")
    .select((eb) => eb.fn.countAll<string>().as("admins"))
    .where("account_id", "=", accountId)
    .where("role", "=", "ADMIN")
    .executeTakeFirstOrThrow();
  return Number(row.admins);
}

/** Adds `userId` to `accountId` with `role`; undefined when they are a member already. */
export function insertMembership(
  db: Kysely<Database>,
  accountId: string,
  userId: string,
  role: TeamMemberRole,
): Promise<MembershipRow | undefined> {
  return db
    .insertInto("memberships")
    .values({ key: newRowKey(), account_id: accountId, user_id: userId, role })
    .onConflict((oc) => oc.columns(["account_id", "user_id"]).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Deletes the membership `id`. */
export async function deleteMembership(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom("memberships").where("id", "=", id).execute();
}

/** Sets the role of the membership `id`; answers the updated row. */
export function updateMembershipRole(
  db: Kysely<Database>,
  id: string,
  role: TeamMemberRole,
): Promise<MembershipRow> {
  return db
    .updateTable("memberships")
    .set({ role })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
