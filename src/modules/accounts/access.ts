import type { Kysely } from "kysely";
import type { AccountRow, Database, MembershipRow, RepositoryRow, VcsProvider } from "../../db/types.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { forbidden, notFound } from "../../graphql/errors.ts";
import { keyOfId } from "../../graphql/mutations.ts";
import { lockMemberAccountByLogin, lockMemberRepositoryByKey } from "./access-store.ts";
import { findMembershipsOfUser } from "./account-store.ts";

/**
 * Who may change what (docs/permissions.md). Read access is membership of the account; these are
 * the write-side checks mutations make inside their transaction. Each locks the row it authorises
 * (`FOR NO KEY UPDATE`), so two concurrent changes to one repository or team apply one after the
 * other, while rows that merely reference it (runs, metric items, memberships) can still be
 * written by others: no key of these rows ever changes, and a stronger lock only invites deadlocks.
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

/**
 * The viewer's membership in `accountId`, read in `tx` after the account's or repository's row is
 * locked. Read separately on purpose: a locking read re-checks only the locked row once the lock
 * is granted, so a role joined into that read could predate a change that committed meanwhile.
 */
async function viewerMembershipAfterLock(
  ctx: GraphQLContext,
  tx: Kysely<Database>,
  accountId: string,
): Promise<MembershipRow | undefined> {
  return (await findMembershipsOfUser(tx, ctx.viewer.userId, [accountId]))[0];
}

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
  return writableRepositoryByKey(ctx, tx, key, () => noSuchId(id));
}

/**
 * {@link writableRepository} for a repository known by its row key, for mutations on an object
 * of the repository (a dependency target): the same lock and roles, and `notVisible()` when the
 * viewer is not a member of its account, so the object answers as if it did not exist.
 */
export async function writableRepositoryByKey(
  ctx: GraphQLContext,
  tx: Kysely<Database>,
  key: string,
  notVisible: () => never,
): Promise<RepositoryAccess> {
  const repository = await lockMemberRepositoryByKey(tx, ctx.viewer.userId, key);
  if (!repository) return notVisible();
  const membership = await viewerMembershipAfterLock(ctx, tx, repository.account_id);
  if (!membership) return notVisible();
  if (!REPOSITORY_WRITE_ROLES.has(membership.role)) {
    throw forbidden("Changing this repository needs the ADMIN or MEMBER role in its account.");
  }
  return { repository, membership };
}

/**
 * Requires the viewer to be an ADMIN of `account`, whose row the caller has locked in `tx`:
 * no membership any more → `notVisible()`; another role → FORBIDDEN with `message`.
 */
export async function requireAdmin(
  ctx: GraphQLContext,
  tx: Kysely<Database>,
  account: AccountRow,
  notVisible: () => never,
  message = "Only ADMINs of this account may do this.",
): Promise<MembershipRow> {
  const membership = await viewerMembershipAfterLock(ctx, tx, account.id);
  if (!membership) notVisible();
  if (membership.role !== "ADMIN") throw forbidden(message);
  return membership;
}

/** A team account and the caller's membership in it. */
export interface TeamAccess {
  account: AccountRow;
  membership: MembershipRow;
}

/**
 * The account named by (`login`, `vcsProvider`), locked for update, if the viewer is one of its
 * ADMINs. Not a member (or no such account) → NOT_FOUND naming what was asked for; a member
 * without ADMIN → FORBIDDEN with `adminOnlyMessage`. Whether a personal (INDIVIDUAL) account is
 * acceptable is the caller's decision: the account's `type` is in the answer. The owner of a
 * personal account is its ADMIN.
 */
export async function administeredAccount(
  ctx: GraphQLContext,
  tx: Kysely<Database>,
  where: { login: string; vcsProvider: VcsProvider },
  adminOnlyMessage?: string,
): Promise<TeamAccess> {
  const notVisible = (): never => {
    throw notFound(`No account "${where.login}" on ${where.vcsProvider} exists.`);
  };
  const account = await lockMemberAccountByLogin(tx, ctx.viewer.userId, where);
  if (!account) return notVisible();
  const membership = await requireAdmin(ctx, tx, account, notVisible, adminOnlyMessage);
  return { account, membership };
}
