import { type Kysely, sql } from "kysely";
import type { Database, NewUser, UserRow } from "../../db/types.ts";

/** Users `viewerId` may see: themselves and members of a team they share. */
function visibleUsers(db: Kysely<Database>, viewerId: string) {
  return db
    .selectFrom("users as u")
    .selectAll("u")
    .where((eb) =>
      eb.or([
        eb("u.id", "=", viewerId),
        eb.exists(
          eb
            .selectFrom("memberships as theirs")
            .innerJoin("memberships as mine", "mine.account_id", "theirs.account_id")
            .select(sql.lit(1).as("one"))
            .whereRef("theirs.user_id", "=", "u.id")
            .where("mine.user_id", "=", viewerId),
        ),
      ]),
    );
}

/** Users with these keys that `viewerId` may see: themselves and members of a team they share. */
export function findVisibleUsersByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<UserRow[]> {
  return visibleUsers(db, viewerId).where("u.key", "in", keys).execute();
}

/**
 * Users with these internal ids that `viewerId` may see, for references (such as who suppressed an
 * issue) that must not outlive the person's membership of a team the viewer shares.
 */
export function findVisibleUsersByIds(
  db: Kysely<Database>,
  viewerId: string,
  ids: readonly string[],
): Promise<UserRow[]> {
  return visibleUsers(db, viewerId).where("u.id", "in", ids).execute();
}

/** Users by internal id, for foreign keys the caller already had access through. */
export function findUsersByIds(db: Kysely<Database>, ids: readonly string[]): Promise<UserRow[]> {
  return db.selectFrom("users").selectAll().where("id", "in", ids).execute();
}

/** A user by e-mail address, case-insensitively. */
export function findUserByEmail(db: Kysely<Database>, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom("users")
    .selectAll()
    .where(sql`lower(email)`, "=", email.toLowerCase())
    .executeTakeFirst();
}

/** Inserts a user and returns the stored row. */
export function insertUser(db: Kysely<Database>, user: NewUser): Promise<UserRow> {
  return db.insertInto("users").values(user).returningAll().executeTakeFirstOrThrow();
}

/** A user as the admin CLI lists them: the row's public fields and how many accounts they belong to. */
export interface UserListing {
  key: string;
  email: string;
  first_name: string;
  last_name: string;
  created_at: Date;
  accounts: number;
}

/** Every user, by e-mail address, with their number of account memberships (for `assay user list`). */
export async function listUsers(db: Kysely<Database>): Promise<UserListing[]> {
  const rows = await db
    .selectFrom("users as u")
    .select(["u.key", "u.email", "u.first_name", "u.last_name", "u.created_at"])
    .select((eb) =>
      eb
        .selectFrom("memberships as m")
        .select(eb.fn.countAll<string>().as("n"))
        .whereRef("m.user_id", "=", "u.id")
        .as("accounts"),
    )
    .orderBy(sql`lower(u.email)`)
    .orderBy("u.id")
    .execute();
  return rows.map((row) => ({ ...row, accounts: Number(row.accounts ?? 0) }));
}

/** How many users the instance has. */
export async function countUsers(db: Kysely<Database>): Promise<number> {
  const users = await db
    .selectFrom("users")
    .select(db.fn.countAll<string>().as("count"))
    .executeTakeFirstOrThrow();
  return Number(users.count);
}
