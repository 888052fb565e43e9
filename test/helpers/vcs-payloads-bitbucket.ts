import { createHmac, randomUUID } from "node:crypto";

/**
 * Bitbucket Cloud webhook payloads in the shapes Atlassian documents ("Event payloads":
 * `repo:push`, `pullrequest:*`), with the fields Assay ignores, and the headers Bitbucket sends
 * with them, signed as Bitbucket signs (`X-Hub-Signature: sha256=<hex>`).
 */

const BITBUCKET_USER = {
  display_name: "Anna Brandt",
  links: {
    self: { href: "https://api.bitbucket.org/2.0/users/%7Bb1b7beef-77ca-452d-b059-fa092504ebd7%7D" },
    avatar: { href: "https://avatar-management.example/initials/AB-2.png" },
    html: { href: "https://bitbucket.org/%7Bb1b7beef-77ca-452d-b059-fa092504ebd7%7D/" },
  },
  type: "user",
  uuid: "{b1b7beef-77ca-452d-b059-fa092504ebd7}",
  account_id: "70121:3046ad5f-946f-48fa-bcb4-a399eef48f0e",
  nickname: "Anna Brandt",
};

function bitbucketRepositoryObject(workspace: string, slug: string) {
  return {
    type: "repository",
    full_name: `${workspace}/${slug}`,
    links: {
      self: { href: `https://api.bitbucket.org/2.0/repositories/${workspace}/${slug}` },
      html: { href: `https://bitbucket.org/${workspace}/${slug}` },
      avatar: {
        href: "https://bytebucket.org/ravatar/%7B26554729-595f-47d1-aedd-302625cb4a97%7D?ts=default",
      },
    },
    name: slug,
    scm: "git",
    website: null,
    owner: BITBUCKET_USER,
    workspace: {
      type: "workspace",
      uuid: "{b1b7beef-77ca-452d-b059-fa092504ebd7}",
      name: workspace,
      slug: workspace,
      links: { html: { href: `https://bitbucket.org/${workspace}/` } },
    },
    is_private: true,
    project: {
      type: "project",
      key: "PROJ",
      uuid: "{3fa6429f-95e1-4c5a-875c-1753abcd8ace}",
      name: "Project",
    },
    uuid: "{26554729-595f-47d1-aedd-302625cb4a97}",
    parent: null,
  };
}

function bitbucketCommit(workspace: string, slug: string, hash: string) {
  return {
    type: "commit",
    hash,
    links: {
      self: { href: `https://api.bitbucket.org/2.0/repositories/${workspace}/${slug}/commit/${hash}` },
      html: { href: `https://bitbucket.org/${workspace}/${slug}/commits/${hash}` },
    },
  };
}

/**
 * A `pullrequest:*` event body as Bitbucket Cloud sends it: commit hashes abbreviated to 12
 * characters, as Bitbucket does in pull request payloads.
 */
export function bitbucketPullRequestPayload(options: {
  workspace: string;
  slug: string;
  id: number;
  title?: string;
  state: "OPEN" | "MERGED" | "DECLINED" | "SUPERSEDED";
  sourceBranch: string;
  sourceHash: string;
  destinationBranch: string;
  destinationHash: string;
  updatedOn: string;
  /** The source repository when it is a fork: its workspace, slug and uuid. */
  fork?: { workspace: string; slug: string; uuid: string };
}) {
  const repository = bitbucketRepositoryObject(options.workspace, options.slug);
  const short = (hash: string) => hash.slice(0, 12);
  const api = `https://api.bitbucket.org/2.0/repositories/${options.workspace}/${options.slug}`;
  const forkRepository = options.fork
    ? {
        ...bitbucketRepositoryObject(options.fork.workspace, options.fork.slug),
        uuid: options.fork.uuid,
      }
    : repository;
  const side = (branch: string, hash: string, of: typeof repository) => ({
    branch: { name: branch },
    commit: bitbucketCommit(options.workspace, options.slug, short(hash)),
    repository: {
      type: "repository",
      full_name: of.full_name,
      links: of.links,
      name: of.name,
      uuid: of.uuid,
    },
  });
  const closed = options.state !== "OPEN";
  return {
    repository,
    actor: BITBUCKET_USER,
    pullrequest: {
      comment_count: 0,
      task_count: 0,
      type: "pullrequest",
      id: options.id,
      title: options.title ?? "README.md edited online with Bitbucket",
      description: "",
      rendered: { title: { type: "rendered", raw: options.title ?? "", markup: "markdown", html: "" } },
      state: options.state,
      merge_commit:
        options.state === "MERGED" ? bitbucketCommit(options.workspace, options.slug, "006704dbeab2") : null,
      close_source_branch: false,
      closed_by: closed ? BITBUCKET_USER : null,
      author: BITBUCKET_USER,
      reason: "",
      created_on: "2026-11-20T10:00:00.000000+00:00",
      updated_on: options.updatedOn,
      destination: side(options.destinationBranch, options.destinationHash, repository),
      source: side(options.sourceBranch, options.sourceHash, forkRepository),
      reviewers: [],
      participants: [],
      links: {
        self: { href: `${api}/pullrequests/${options.id}` },
        html: {
          href: `https://bitbucket.org/${options.workspace}/${options.slug}/pull-requests/${options.id}`,
        },
        commits: { href: `${api}/pullrequests/${options.id}/commits` },
        diff: { href: `${api}/pullrequests/${options.id}/diff` },
      },
      summary: { type: "rendered", raw: "", markup: "markdown", html: "" },
    },
  };
}

/** One entry of a `repo:push` body's `push.changes`; `after` null deletes the branch. */
export interface BitbucketChange {
  type: "branch" | "tag";
  name: string;
  before: string | null;
  after: string | null;
}

/** A `repo:push` event body (full 40-character hashes, as Bitbucket sends in pushes). */
export function bitbucketPushPayload(options: {
  workspace: string;
  slug: string;
  changes: BitbucketChange[];
}) {
  const state = (type: string, name: string, hash: string) => ({
    name,
    target: {
      ...bitbucketCommit(options.workspace, options.slug, hash),
      date: "2026-11-20T10:05:00+00:00",
      author: { type: "author", raw: "Anna Brandt <anna@example.com>", user: BITBUCKET_USER },
      message: "Update README.md\n",
      parents: [],
    },
    links: { html: { href: `https://bitbucket.org/${options.workspace}/${options.slug}/branch/${name}` } },
    type,
  });
  return {
    actor: BITBUCKET_USER,
    repository: bitbucketRepositoryObject(options.workspace, options.slug),
    push: {
      changes: options.changes.map((change) => ({
        old: change.before === null ? null : state(change.type, change.name, change.before),
        new: change.after === null ? null : state(change.type, change.name, change.after),
        truncated: false,
        created: change.before === null,
        forced: false,
        closed: change.after === null,
        links: {},
        commits: [],
      })),
    },
  };
}

/** The headers Bitbucket Cloud sends with `body`, signed with `secret`. */
export function bitbucketHeaders(
  event: string,
  body: string,
  secret: string,
  requestUuid: string = randomUUID(),
) {
  return {
    "content-type": "application/json",
    "user-agent": "Bitbucket-Webhooks/2.0",
    "x-event-key": event,
    "x-hook-uuid": "cb6e3b2e-7a1c-4b52-9b65-0b2a4c1d2e3f",
    "x-request-uuid": requestUuid,
    "x-attempt-number": "1",
    "x-hub-signature": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
  };
}
