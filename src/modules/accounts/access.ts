import { type Kysely, sql } from "kysely";
import type { AccountRow, Database, MembershipRow, RepositoryRow, VcsProvider } from "../../db/types.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { forbidden, notFound } from "../../graphql/errors.ts";
import { keyOfId } from "../../graphql/mutations.ts";

/**
 * Who may change what (docs/permissions.md). Read access is membership of the account; these are
 * the write-side checks mutations make inside their transaction. Each locks the row it authorises
 * (`FOR UPDATE`), so two concurrent changes to one repository or team apply one after the other.
 *
 * An object the caller cannot see answers exactly like one that does not exist (NOT_FOUND with the
 * message `node(id:)` uses); FORBIDDEN is only for objects the caller can see but may not change.
 */

/** The message of every NOT_FOUND for an id, the same as `node(id:)` answers. */
export function noSuchId(id: string | number): never {
  throw notFound(`No node with id "${String(id)}" exists.`);
}

/** Roles that may change a repository's settings and run its workflows. */
export const REPOSITORY_WRITE_ROLES: ReadonlySet<MembershipRow["role"]> = new Set(["ADMIN", "MEMBER"]);

/** A repository and the caller's membership in its account. */
export interface RepositoryAccess {
  repository: RepositoryRow;
  membership: MembershipRow;
}

/**
 * The repository behind `id` (the global id given in input field `field`), locked for update, if
 * the viewer may change it: ADMIN or MEMBER of its account. Wrong type → BAD_USER_INPUT; not
 * visible → NOT_FOUND; CONTRIBUTOR → FORBIDDEN.
 */
export async function writableRepository(
  ctx: GraphQLContext,
  tx: Kysely<Database>,
  id: string | number,
  field: string,
): Promise<RepositoryAccess> {
  const key = keyOfId(id, "Repository", field);
  const row = await tx
    .selectFrom("repositories as r")
    .innerJoin("memberships as m", "m.account_id", "r.account_id")
    .selectAll("r")
    .select([
      "m.id as m_id",
      "m.key as m_key",
      "m.account_id as m_account_id",
      "m.user_id as m_user_id",
      "m.role as m_role",
      "m.is_owner as m_is_owner",
      "m.joined_at as m_joined_at",
    ])
    .where("r.key", "=", key)
    .where("m.user_id", "=", ctx.viewer.userId)
    .forUpdate("r")
    .executeTakeFirst();
  if (!row) noSuchId(id);
  const { m_id, m_key, m_account_id, m_user_id, m_role, m_is_owner, m_joined_at, ...repository } = row;
  const membership: MembershipRow = {
    id: m_id,
    key: m_key,
    account_id: m_account_id,
    user_id: m_user_id,
    role: m_role,
    is_owner: m_is_owner,
    joined_at: m_joined_at,
  };
  if (!REPOSITORY_WRITE_ROLES.has(membership.role)) {
    throw forbidden("Changing this repository needs the ADMIN or MEMBER role in its account.");
  }
  return { repository, membership };
}

/** A team account and the caller's membership in it. */
export interface TeamAccess {
  account: AccountRow;
  membership: MembershipRow;
}

/**
 * The account named by (`login`, `vcsProvider`), locked for update, if the viewer is one of its
 * ADMINs. Not a member (or no such account) → NOT_FOUND naming what was asked for; a member
 * without ADMIN → FORBIDDEN. Whether a personal (INDIVIDUAL) account is acceptable is the caller's
 * decision: the account's `type` is in the answer. The owner of a personal account is its ADMIN.
 */
export async function administeredAccount(
  ctx: GraphQLContext,
  tx: Kysely<Database>,
  where: { login: string; vcsProvider: VcsProvider },
): Promise<TeamAccess> {
  const row = await tx
    .selectFrom("accounts as a")
    .innerJoin("memberships as m", "m.account_id", "a.id")
    .selectAll("a")
    .select([
      "m.id as m_id",
      "m.key as m_key",
      "m.account_id as m_account_id",
      "m.user_id as m_user_id",
      "m.role as m_role",
      "m.is_owner as m_is_owner",
      "m.joined_at as m_joined_at",
    ])
    .where("a.vcs_provider", "=", where.vcsProvider)
    .where(sql`lower(a.login)`, "=", where.login.toLowerCase())
    .where("m.user_id", "=", ctx.viewer.userId)
    .forUpdate("a")
    .executeTakeFirst();
  if (!row) throw notFound(`No account "${where.login}" on ${where.vcsProvider} exists.`);
  const { m_id, m_key, m_account_id, m_user_id, m_role, m_is_owner, m_joined_at, ...account } = row;
  const membership: MembershipRow = {
    id: m_id,
    key: m_key,
    account_id: m_account_id,
    user_id: m_user_id,
    role: m_role,
    is_owner: m_is_owner,
    joined_at: m_joined_at,
  };
  if (membership.role !== "ADMIN") throw forbidden("Only ADMINs of this account may do this.");
  return { account, membership };
}
