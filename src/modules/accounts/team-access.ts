import type { Kysely } from "kysely";
import type { AccountRow, Database, MembershipRow, VcsProvider } from "../../db/types.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { badUserInput } from "../../graphql/errors.ts";
import { keyOfId } from "../../graphql/mutations.ts";
import { administeredAccount, noSuchId, requireAdmin } from "./access.ts";
import { countAdmins, lockAccountOfMembership, lockMembershipByKey } from "./team-store.ts";

/**
 * The checks of team membership changes (docs/permissions.md, "Team"): the caller is an ADMIN of
 * the team, the account is a TEAM, and the team keeps an ADMIN. The account row is locked first;
 * every fact a decision rests on (the caller's role, the member, the number of ADMINs) is read
 * after that, so concurrent changes to one team apply one after the other and each sees the
 * previous one: two ADMINs demoting each other at once cannot leave the team without one.
 */

const ADMIN_ONLY = "Only ADMINs of this account may manage its members.";

/** The TEAM account (`login`, `vcsProvider`), locked, if the viewer is one of its ADMINs. */
export async function administeredTeam(
  ctx: GraphQLContext,
  tx: Kysely<Database>,
  where: { login: string; vcsProvider: VcsProvider },
): Promise<AccountRow> {
  const { account } = await administeredAccount(ctx, tx, where, ADMIN_ONLY);
  requireTeam(account, "login");
  return account;
}

/** A member and their team, locked, as a change to that member sees them. */
export interface MemberInTeam {
  account: AccountRow;
  member: MembershipRow;
}

/**
 * The member `teamMemberId` (a TeamMember global id, in input field `field`) and their team,
 * both locked, if the viewer is an ADMIN of that team. Wrong type → BAD_USER_INPUT; not visible →
 * NOT_FOUND as for any missing id; not ADMIN → FORBIDDEN; personal account → BAD_USER_INPUT.
 */
export async function memberOfAdministeredTeam(
  ctx: GraphQLContext,
  tx: Kysely<Database>,
  teamMemberId: string | number,
  field: string,
): Promise<MemberInTeam> {
  const key = keyOfId(teamMemberId, "TeamMember", field);
  const account = await lockAccountOfMembership(tx, ctx.viewer.userId, key);
  if (!account) noSuchId(teamMemberId);
  await requireAdmin(ctx, tx, account, () => noSuchId(teamMemberId), ADMIN_ONLY);
  requireTeam(account, field);
  const member = await lockMembershipByKey(tx, account.id, key);
  if (!member) noSuchId(teamMemberId);
  return { account, member };
}

/**
 * Refuses to take the ADMIN role away from `member` (by removal or by another role) when they
 * are the team's last ADMIN. BAD_USER_INPUT naming `field`.
 */
export async function requireAnotherAdmin(
  tx: Kysely<Database>,
  account: AccountRow,
  member: MembershipRow,
  field: string,
): Promise<void> {
  if (member.role !== "ADMIN") return;
  if ((await countAdmins(tx, account.id)) > 1) return;
  throw badUserInput(
    "This member is the team's last ADMIN, and a team keeps at least one: make another member ADMIN first.",
    field,
  );
}

/** A personal account has exactly its owner as member: its membership is not managed here. */
function requireTeam(account: AccountRow, field: string): void {
  if (account.type === "TEAM") return;
  throw badUserInput(
    "This is a personal account, whose only member is its owner; members are managed in TEAM accounts only.",
    field,
  );
}
