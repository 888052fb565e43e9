import { type Kysely, sql } from "kysely";
import type { AccountRow, Database, RepositoryRow, VcsProvider } from "../../db/types.ts";

/**
 * The locking reads behind the write-side checks of access.ts: a row the user is a member of,
 * locked `FOR NO KEY UPDATE` until the transaction ends. The role is read separately, after the
 * lock (access.ts says why).
 */

/** The repository with `key` in an account `userId` belongs to, locked; undefined when not visible. */
export function lockMemberRepositoryByKey(
  tx: Kysely<Database>,
  userId: string,
  key: string,
): Promise<RepositoryRow | undefined> {
  return tx
    .selectFrom("repositories as r")
    .innerJoin("memberships as m", "m.account_id", "r.account_id")
    .selectAll("r")
    .where("r.key", "=", key)
    .where("m.user_id", "=", userId)
    .forNoKeyUpdate("r")
    .executeTakeFirst();
}

/**
 * The account `login` (any case) on `vcsProvider`, if `userId` belongs to it, locked; undefined
 * otherwise.
 */
export function lockMemberAccountByLogin(
  tx: Kysely<Database>,
  userId: string,
  where: { login: string; vcsProvider: VcsProvider },
): Promise<AccountRow | undefined> {
  return tx
    .selectFrom("accounts as a")
    .innerJoin("memberships as m", "m.account_id", "a.id")
    .selectAll("a")
    .where("a.vcs_provider", "=", where.vcsProvider)
    .where(sql`lower(a.login)`, "=", where.login.toLowerCase())
    .where("m.user_id", "=", userId)
    .forNoKeyUpdate("a")
    .executeTakeFirst();
}
