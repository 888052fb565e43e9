import { type Kysely, sql } from "kysely";
import type {
  AccountRow,
  AccountType,
  Database,
  MembershipRow,
  NewAccount,
  TeamMemberRole,
  VcsProvider,
} from "../../db/types.ts";
import type { ConnectionSource } from "../../graphql/pagination.ts";

/** Accounts with these keys that `viewerId` is a member of. */
export function findVisibleAccountsByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<AccountRow[]> {
  return db
    .selectFrom("accounts as a")
    .innerJoin("memberships as m", "m.account_id", "a.id")
    .selectAll("a")
    .where("m.user_id", "=", viewerId)
    .where("a.key", "in", keys)
    .execute();
}

/** Accounts by internal id, for foreign keys the caller already had access through. */
export function findAccountsByIds(db: Kysely<Database>, ids: readonly string[]): Promise<AccountRow[]> {
  return db.selectFrom("accounts").selectAll().where("id", "in", ids).execute();
}

/** An account by provider and login (case-insensitive), if `viewerId` is a member. */
export function findVisibleAccountByLogin(
  db: Kysely<Database>,
  viewerId: string,
  login: string,
  vcsProvider: VcsProvider,
): Promise<AccountRow | undefined> {
  return db
    .selectFrom("accounts as a")
    .innerJoin("memberships as m", "m.account_id", "a.id")
    .selectAll("a")
    .where("m.user_id", "=", viewerId)
    .where("a.vcs_provider", "=", vcsProvider)
    .where(sql`lower(a.login)`, "=", login.toLowerCase())
    .executeTakeFirst();
}

/** An account by provider and login, regardless of who asks (admin CLI only). */
export function findAccountByLogin(
  db: Kysely<Database>,
  login: string,
  vcsProvider: VcsProvider,
): Promise<AccountRow | undefined> {
  return db
    .selectFrom("accounts")
    .selectAll()
    .where("vcs_provider", "=", vcsProvider)
    .where(sql`lower(login)`, "=", login.toLowerCase())
    .executeTakeFirst();
}

/** Memberships with these keys in accounts `viewerId` belongs to. */
export function findVisibleMembershipsByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<MembershipRow[]> {
  return db
    .selectFrom("memberships as t")
    .innerJoin("memberships as mine", "mine.account_id", "t.account_id")
    .selectAll("t")
    .where("mine.user_id", "=", viewerId)
    .where("t.key", "in", keys)
    .execute();
}

/** The viewer's membership rows for these accounts (their role in each). */
export function findMembershipsOfUser(
  db: Kysely<Database>,
  userId: string,
  accountIds: readonly string[],
): Promise<MembershipRow[]> {
  return db
    .selectFrom("memberships")
    .selectAll()
    .where("user_id", "=", userId)
    .where("account_id", "in", accountIds)
    .execute();
}

/** Inserts an account and returns the stored row. */
export function insertAccount(db: Kysely<Database>, account: NewAccount): Promise<AccountRow> {
  return db.insertInto("accounts").values(account).returningAll().executeTakeFirstOrThrow();
}

/** Adds `userId` to `accountId` with `role`, or changes the role of an existing member. */
export function upsertMembership(
  db: Kysely<Database>,
  membership: { key: string; accountId: string; userId: string; role: TeamMemberRole; isOwner?: boolean },
): Promise<MembershipRow> {
  return db
    .insertInto("memberships")
    .values({
      key: membership.key,
      account_id: membership.accountId,
      user_id: membership.userId,
      role: membership.role,
      is_owner: membership.isOwner ?? false,
    })
    .onConflict((oc) =>
      oc.columns(["account_id", "user_id"]).doUpdateSet((eb) => ({
        role: eb.ref("excluded.role"),
        is_owner: sql<boolean>`memberships.is_owner OR excluded.is_owner`,
      })),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A user's accounts, ordered by login then key. Parent: the user id. */
export const accountsOfUser: ConnectionSource = {
  name: "accountsOfUser",
  from: sql`(SELECT a.*, m.user_id AS member_user_id FROM accounts a JOIN memberships m ON m.account_id = a.id)`,
  parentColumn: "member_user_id",
  order: [
    { column: "login", kind: "text" },
    { column: "key", kind: "text" },
  ],
  direction: "asc",
};

/** An account's members, oldest membership first. Parent: the account id. */
export const membersOfAccount: ConnectionSource = {
  name: "membersOfAccount",
  from: sql`memberships`,
  parentColumn: "account_id",
  order: [
    { column: "joined_at", kind: "timestamptz" },
    { column: "key", kind: "text" },
  ],
  direction: "asc",
};

/** Filter for {@link accountsOfUser}: only accounts `viewerId` belongs to as well. */
export function sharedWithViewer(viewerId: string) {
  return {
    key: `shared:${viewerId}`,
    condition: sql<boolean>`EXISTS (SELECT 1 FROM memberships v WHERE v.account_id = s.id AND v.user_id = ${viewerId})`,
  };
}

/** An account by internal id; throws when it is gone. */
export function findAccountById(db: Kysely<Database>, accountId: string): Promise<AccountRow> {
  return db.selectFrom("accounts").selectAll().where("id", "=", accountId).executeTakeFirstOrThrow();
}

/** An account as the admin CLI lists it, with its owner and how many members and repositories it has. */
export interface AccountListing {
  key: string;
  login: string;
  vcs_provider: VcsProvider;
  type: AccountType;
  owner: string | null;
  members: number;
  repositories: number;
  created_at: Date;
}

/** Every account (of `provider` when given), by provider and login, for `assay account list`. */
export async function listAccounts(
  db: Kysely<Database>,
  provider: VcsProvider | undefined,
): Promise<AccountListing[]> {
  let query = db
    .selectFrom("accounts as a")
    .select(["a.key", "a.login", "a.vcs_provider", "a.type", "a.created_at"])
    .select((eb) => [
      eb
        .selectFrom("memberships as m")
        .innerJoin("users as u", "u.id", "m.user_id")
        .select("u.email")
        .whereRef("m.account_id", "=", "a.id")
        .where("m.is_owner", "=", true)
        .orderBy("m.id")
        .limit(1)
        .as("owner"),
      eb
        .selectFrom("memberships as m")
        .select(eb.fn.countAll<string>().as("n"))
        .whereRef("m.account_id", "=", "a.id")
        .as("members"),
      eb
        .selectFrom("repositories as r")
        .select(eb.fn.countAll<string>().as("n"))
        .whereRef("r.account_id", "=", "a.id")
        .as("repositories"),
    ])
    .orderBy("a.vcs_provider")
    .orderBy(sql`lower(a.login)`)
    .orderBy("a.id");
  if (provider) query = query.where("a.vcs_provider", "=", provider);
  const rows = await query.execute();
  return rows.map((row) => ({
    ...row,
    owner: row.owner ?? null,
    members: Number(row.members ?? 0),
    repositories: Number(row.repositories ?? 0),
  }));
}
