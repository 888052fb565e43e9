import type { AccountRow, MembershipRow, TeamMemberRole, UserRow } from "../../db/types.ts";
import { encodeGlobalId } from "../../graphql/global-id.ts";
import { type NewEvent, unixSeconds, type WebhookObject } from "../events/outbox.ts";
import { accountAvatarUrl, accountVcsUrl } from "./vcs.ts";

/**
 * Accounts, users and team members as webhook payloads show them (the rules of every payload
 * object: src/modules/webhooks/payloads.ts). Here, beside the team mutations that cause
 * `team_member.*` events, so this module depends on the outbox and not on the webhooks module.
 */

/** `Account`. */
export function accountObject(account: AccountRow): WebhookObject {
  return {
    id: encodeGlobalId("Account", account.key),
    object: "Account",
    login: account.login,
    vcsProvider: account.vcs_provider,
    type: account.type,
    avatarUrl: accountAvatarUrl(account),
    vcsUrl: accountVcsUrl(account),
  };
}

/** `User`, as embedded in a team member. */
export function userObject(user: UserRow): WebhookObject {
  return {
    id: encodeGlobalId("User", user.key),
    object: "User",
    email: user.email,
    firstName: user.first_name,
    lastName: user.last_name,
  };
}

/** `TeamMember`: a membership with its team and user (the samples give the member no id). */
export function teamMemberObject(membership: MembershipRow, team: AccountRow, user: UserRow): WebhookObject {
  return {
    object: "TeamMember",
    role: membership.role,
    isOwner: membership.is_owner,
    joinedAt: unixSeconds(membership.joined_at),
    team: accountObject(team),
    user: userObject(user),
  };
}

/** `team_member.updated`, with the role before and after. */
export function teamMemberUpdatedEvent(
  membership: MembershipRow,
  team: AccountRow,
  user: UserRow,
  oldRole: TeamMemberRole,
): NewEvent {
  return {
    accountId: team.id,
    type: "team_member.updated",
    data: { object: teamMemberObject(membership, team, user), oldRole, newRole: membership.role },
  };
}
