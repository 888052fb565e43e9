import type { AccountRow, MembershipRow, RepositoryRow, UserRow } from "../../db/types.ts";
import { encodeGlobalId } from "../../graphql/global-id.ts";

/**
 * Webhook objects as the contract's samples show them (api-notes §10.4): every object carries an
 * `object` discriminator with its GraphQL type name, timestamps are UNIX seconds, ids are the same
 * global ids as the API's, nested lists are plain arrays. Built inside the transaction that makes
 * the change, so an event shows the state that change produced.
 */

/** A JSON object in a webhook payload. */
export type WebhookObject = { object: string } & Record<string, unknown>;

/** UNIX seconds of a timestamp, as webhook payloads carry them. */
export function unixSeconds(at: Date | string | null): number | null {
  if (at === null) return null;
  return Math.floor(new Date(at).getTime() / 1000);
}

/** `Account`. */
export function accountObject(account: AccountRow): WebhookObject {
  return {
    id: encodeGlobalId("Account", account.key),
    object: "Account",
    login: account.login,
    vcsProvider: account.vcs_provider,
    type: account.type,
    avatarUrl: account.avatar_url,
    vcsUrl: account.vcs_url,
  };
}

/** `Repository`, with its account. */
export function repositoryObject(repository: RepositoryRow, account: AccountRow): WebhookObject {
  return {
    id: encodeGlobalId("Repository", repository.key),
    object: "Repository",
    name: repository.name,
    vcsProvider: account.vcs_provider,
    vcsUrl: repository.vcs_url,
    defaultBranch: repository.default_branch,
    latestCommitOid: repository.latest_commit_oid,
    isPrivate: repository.is_private,
    isActivated: repository.is_activated,
    account: accountObject(account),
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
