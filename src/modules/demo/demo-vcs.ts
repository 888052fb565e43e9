import { createHmac, randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import {
  applyVcsDelivery,
  authenticateVcsDelivery,
  type VcsDelivery,
} from "../pull-requests/vcs-event-service.ts";
import type { PlannedPullRequest, PlannedRepository } from "./plan-types.ts";

/**
 * The demo's pull requests and branch heads as their providers report them: webhook payloads in
 * GitHub's and GitLab's documented shapes (only the fields a receiver commonly reads), signed the
 * way each provider signs (GitHub's HMAC-SHA256 of the body, GitLab's token header) with the
 * repository's secret, then authenticated, read and applied by the same code the webhook endpoint
 * runs (docs/vcs-events.md). Only the transaction differs: the demo's, not one per delivery.
 */

/** A repository as the payloads describe it, with the secret its deliveries are signed with. */
export interface DeliveryTarget {
  repository: PlannedRepository;
  secret: string;
}

/** A pull request event: what happened, and the pull request's head at that moment. */
export interface PullRequestChange {
  action: "opened" | "synchronize" | "closed";
  pr: PlannedPullRequest;
  headOid: string;
  at: Date;
}

const ZERO_OID = "0".repeat(40);

function iso(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, "Z");
}

function owner(repository: PlannedRepository): string {
  return repository.fullName.split("/")[0]!;
}

function githubRepository(repository: PlannedRepository, pushedAt?: Date) {
  return {
    name: repository.name,
    full_name: repository.fullName,
    private: repository.isPrivate,
    owner: { login: owner(repository) },
    html_url: repository.vcsUrl,
    default_branch: repository.defaultBranch,
    ...(pushedAt && { pushed_at: Math.floor(pushedAt.getTime() / 1000) }),
  };
}

function gitlabProject(repository: PlannedRepository) {
  return {
    name: repository.name,
    namespace: owner(repository),
    path_with_namespace: repository.fullName,
    web_url: repository.vcsUrl,
    default_branch: repository.defaultBranch,
    visibility_level: repository.isPrivate ? 0 : 20,
  };
}

/** GitHub's `pull_request` event payload. */
function githubPullRequest(repository: PlannedRepository, change: PullRequestChange) {
  const { pr, at } = change;
  const closed = change.action === "closed";
  const merged = closed && pr.state === "MERGED";
  return {
    action: change.action,
    number: pr.number,
    pull_request: {
      html_url: pr.vcsUrl,
      number: pr.number,
      state: closed ? "closed" : "open",
      title: pr.title,
      created_at: iso(pr.createdAt),
      updated_at: iso(at),
      closed_at: closed ? iso(at) : null,
      merged_at: merged ? iso(at) : null,
      merged,
      draft: false,
      head: { ref: pr.branch, sha: change.headOid, label: `${owner(repository)}:${pr.branch}` },
      base: { ref: pr.baseBranch, sha: pr.mergeBaseOid, label: `${owner(repository)}:${pr.baseBranch}` },
    },
    repository: githubRepository(repository),
    sender: { login: owner(repository) },
  };
}

/** GitLab's `Merge Request Hook` payload. */
function gitlabMergeRequest(repository: PlannedRepository, change: PullRequestChange) {
  const { pr, at } = change;
  const closed = change.action === "closed";
  const state = closed ? (pr.state === "MERGED" ? "merged" : "closed") : "opened";
  const action =
    change.action === "opened" ? "open" : closed ? (state === "merged" ? "merge" : "close") : "update";
  return {
    object_kind: "merge_request",
    event_type: "merge_request",
    user: { username: owner(repository) },
    project: gitlabProject(repository),
    object_attributes: {
      iid: pr.number,
      title: pr.title,
      state,
      action,
      source_branch: pr.branch,
      target_branch: pr.baseBranch,
      url: pr.vcsUrl,
      created_at: iso(pr.createdAt),
      updated_at: iso(at),
      last_commit: { id: change.headOid, timestamp: iso(at) },
      diff_refs: { base_sha: pr.mergeBaseOid, start_sha: pr.mergeBaseOid, head_sha: change.headOid },
    },
  };
}

/** Sends one delivery through the webhook code; throws when it is not applied. */
async function deliver(
  tx: Kysely<Database>,
  pepper: string,
  target: DeliveryTarget,
  event: string,
  payload: unknown,
): Promise<void> {
  const body = Buffer.from(JSON.stringify(payload));
  const github = target.repository.provider !== "GITLAB";
  const delivery: VcsDelivery = github
    ? {
        provider: "GITHUB",
        event,
        deliveryId: randomUUID(),
        credential: `sha256=${createHmac("sha256", target.secret).update(body).digest("hex")}`,
        contentType: "application/json",
        body,
      }
    : {
        provider: "GITLAB",
        event,
        deliveryId: randomUUID(),
        credential: target.secret,
        contentType: "application/json",
        body,
      };
  const checked = await authenticateVcsDelivery(tx, pepper, delivery);
  const answer = "answer" in checked ? checked.answer : await applyVcsDelivery(tx, checked.accepted);
  if (answer.status !== 200) {
    throw new Error(
      `the demo's ${event} delivery to ${target.repository.fullName} failed: ${answer.message}`,
    );
  }
}

/** True when Assay receives the repository's provider's webhooks (not Bitbucket's). */
export function receivesWebhooks(repository: PlannedRepository): boolean {
  return repository.provider === "GITHUB" || repository.provider === "GITLAB";
}

/** Delivers a pull request event. */
export function deliverPullRequestChange(
  tx: Kysely<Database>,
  pepper: string,
  target: DeliveryTarget,
  change: PullRequestChange,
): Promise<void> {
  return target.repository.provider === "GITLAB"
    ? deliver(tx, pepper, target, "Merge Request Hook", gitlabMergeRequest(target.repository, change))
    : deliver(tx, pepper, target, "pull_request", githubPullRequest(target.repository, change));
}

/** Delivers a push of `branch` to `headOid` (its previous head unknown, as for a first push). */
export function deliverPush(
  tx: Kysely<Database>,
  pepper: string,
  target: DeliveryTarget,
  push: { branch: string; headOid: string; at: Date },
): Promise<void> {
  const { repository } = target;
  const common = { ref: `refs/heads/${push.branch}`, before: ZERO_OID, after: push.headOid };
  if (repository.provider === "GITLAB") {
    return deliver(tx, pepper, target, "Push Hook", {
      object_kind: "push",
      event_name: "push",
      ...common,
      checkout_sha: push.headOid,
      project: gitlabProject(repository),
      total_commits_count: 1,
    });
  }
  return deliver(tx, pepper, target, "push", {
    ...common,
    created: true,
    deleted: false,
    forced: false,
    head_commit: { id: push.headOid, timestamp: iso(push.at) },
    repository: githubRepository(repository, push.at),
    sender: { login: owner(repository) },
  });
}
