import type { AccountRow, RepositoryRow } from "../../db/types.ts";
import { encodeGlobalId } from "../../graphql/global-id.ts";
import { accountObject } from "../accounts/account-events.ts";
import { accountVcsUrl, repositoryPageUrl } from "../accounts/vcs.ts";
import type { WebhookObject } from "../events/outbox.ts";

/**
 * A repository as webhook payloads show it (the rules of every payload object:
 * src/modules/webhooks/payloads.ts). Here, beside the mutations that cause
 * `repository.analysis.*` events, so this module depends on the outbox and not on the webhooks
 * module.
 */

/**
 * `Repository`, with its account. `latestCommitOid` is the API's: the newest analysed commit on
 * the default branch, which the caller reads in its transaction (runs/run-store.ts
 * `findLatestDefaultBranchRuns`), never the stored `repositories.latest_commit_oid`, which only
 * the demo writes.
 */
export function repositoryObject(
  repository: RepositoryRow,
  account: AccountRow,
  latestCommitOid: string | null,
): WebhookObject {
  const accountUrl = accountVcsUrl(account);
  return {
    id: encodeGlobalId("Repository", repository.key),
    object: "Repository",
    name: repository.name,
    vcsProvider: account.vcs_provider,
    vcsUrl: repository.vcs_url ?? (accountUrl ? repositoryPageUrl(accountUrl, repository.name) : null),
    defaultBranch: repository.default_branch,
    latestCommitOid,
    isPrivate: repository.is_private,
    isActivated: repository.is_activated,
    account: accountObject(account),
  };
}
