import { createHmac, randomUUID } from "node:crypto";

/**
 * Webhook payloads in the providers' documented shapes (GitHub's "Webhook events and payloads":
 * `pull_request`, `push`, `ping`; GitLab's "Webhook events": Merge Request Hook, Push Hook),
 * including the many fields Assay ignores, and the headers each provider sends with them, signed
 * as the provider signs.
 */

const GITHUB_USER = {
  login: "octocat",
  id: 1,
  node_id: "MDQ6VXNlcjE=",
  avatar_url: "https://github.com/images/error/octocat_happy.gif",
  gravatar_id: "",
  url: "https://api.github.com/users/octocat",
  html_url: "https://github.com/octocat",
  type: "User",
  site_admin: false,
};

function githubRepositoryObject(owner: string, name: string) {
  return {
    id: 1296269,
    node_id: "MDEwOlJlcG9zaXRvcnkxMjk2MjY5",
    name,
    full_name: `${owner}/${name}`,
    private: true,
    owner: { ...GITHUB_USER, login: owner, type: "Organization" },
    html_url: `https://github.com/${owner}/${name}`,
    description: "This your first repo!",
    fork: false,
    url: `https://api.github.com/repos/${owner}/${name}`,
    created_at: "2011-01-26T19:01:12Z",
    updated_at: "2011-01-26T19:14:43Z",
    pushed_at: "2011-01-26T19:06:43Z",
    git_url: `git://github.com/${owner}/${name}.git`,
    ssh_url: `git@github.com:${owner}/${name}.git`,
    clone_url: `https://github.com/${owner}/${name}.git`,
    default_branch: "main",
    visibility: "private",
    open_issues_count: 0,
    language: "TypeScript",
    topics: [],
    archived: false,
    disabled: false,
  };
}

/** A `pull_request` event body. */
export function githubPullRequestPayload(options: {
  owner: string;
  name: string;
  action: "opened" | "synchronize" | "reopened" | "edited" | "closed";
  number: number;
  title?: string;
  state?: "open" | "closed";
  merged?: boolean;
  head: { ref: string; sha: string };
  base: { ref: string; sha: string };
  createdAt?: string;
  updatedAt: string;
  /**
   * The head's repository when it is a fork: its owner and name (GitHub gives a fork its own
   * repository id and `fork: true`), or null for a fork since deleted (`head.repo` null).
   */
  fork?: { owner: string; name: string; id: number } | null;
}) {
  const repository = githubRepositoryObject(options.owner, options.name);
  const headRepository =
    options.fork === undefined
      ? repository
      : options.fork === null
        ? null
        : {
            ...githubRepositoryObject(options.fork.owner, options.fork.name),
            id: options.fork.id,
            node_id: "R_kgDOfork0001",
            private: false,
            visibility: "public",
            fork: true,
          };
  const headOwner = options.fork ? options.fork.owner : options.owner;
  const merged = options.merged ?? false;
  const state = options.state ?? (options.action === "closed" ? "closed" : "open");
  const closedAt = state === "closed" ? options.updatedAt : null;
  return {
    action: options.action,
    number: options.number,
    pull_request: {
      url: `${repository.url}/pulls/${options.number}`,
      id: 1000 + options.number,
      node_id: "MDExOlB1bGxSZXF1ZXN0MQ==",
      html_url: `${repository.html_url}/pull/${options.number}`,
      diff_url: `${repository.html_url}/pull/${options.number}.diff`,
      patch_url: `${repository.html_url}/pull/${options.number}.patch`,
      issue_url: `${repository.url}/issues/${options.number}`,
      number: options.number,
      state,
      locked: false,
      title: options.title ?? "Amazing new feature",
      user: GITHUB_USER,
      body: "Please pull these awesome changes in!",
      created_at: options.createdAt ?? "2026-11-20T10:00:00Z",
      updated_at: options.updatedAt,
      closed_at: closedAt,
      merged_at: merged ? closedAt : null,
      merge_commit_sha: merged ? "e5bd3914e2e596debea16f433f57875b5b90bcd6" : null,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      labels: [],
      milestone: null,
      draft: false,
      commits_url: `${repository.url}/pulls/${options.number}/commits`,
      head: {
        label: `${headOwner}:${options.head.ref}`,
        ref: options.head.ref,
        sha: options.head.sha,
        user: options.fork ? { ...GITHUB_USER, login: options.fork.owner } : GITHUB_USER,
        repo: headRepository,
      },
      base: {
        label: `${options.owner}:${options.base.ref}`,
        ref: options.base.ref,
        sha: options.base.sha,
        user: GITHUB_USER,
        repo: repository,
      },
      author_association: options.fork === undefined ? "OWNER" : "CONTRIBUTOR",
      auto_merge: null,
      merged,
      mergeable: null,
      rebaseable: null,
      mergeable_state: "unknown",
      merged_by: merged ? GITHUB_USER : null,
      comments: 0,
      review_comments: 0,
      maintainer_can_modify: false,
      commits: 1,
      additions: 10,
      deletions: 2,
      changed_files: 1,
    },
    repository,
    organization: { login: options.owner, id: 9919, node_id: "MDEyOk9yZ2FuaXphdGlvbjk5MTk=" },
    sender: GITHUB_USER,
  };
}

/** A `push` event body (`after` all zeros for a deleted branch). */
export function githubPushPayload(options: {
  owner: string;
  name: string;
  ref: string;
  before: string;
  after: string;
  pushedAt: number;
}) {
  const deleted = /^0+$/.test(options.after);
  const repository = {
    ...githubRepositoryObject(options.owner, options.name),
    pushed_at: options.pushedAt,
    created_at: 1296068472,
  };
  const commit = {
    id: options.after,
    tree_id: "f9d2a07e9488b91af2641b26b9407fe22a451433",
    distinct: true,
    message: "Update README.md",
    timestamp: "2026-11-20T10:05:00+00:00",
    url: `${repository.html_url}/commit/${options.after}`,
    author: { name: "Octo Cat", email: "octocat@example.com", username: "octocat" },
    committer: { name: "GitHub", email: "noreply@github.com", username: "web-flow" },
    added: [],
    removed: [],
    modified: ["README.md"],
  };
  return {
    ref: options.ref,
    before: options.before,
    after: options.after,
    repository,
    pusher: { name: "octocat", email: "octocat@example.com" },
    organization: { login: options.owner, id: 9919 },
    sender: GITHUB_USER,
    created: /^0+$/.test(options.before),
    deleted,
    forced: false,
    base_ref: null,
    compare: `${repository.html_url}/compare/${options.before.slice(0, 12)}...${options.after.slice(0, 12)}`,
    commits: deleted ? [] : [commit],
    head_commit: deleted ? null : commit,
  };
}

/** A `ping` event body. */
export function githubPingPayload(owner: string, name: string) {
  return {
    zen: "Keep it logically awesome.",
    hook_id: 30,
    hook: {
      type: "Repository",
      id: 30,
      name: "web",
      active: true,
      events: ["pull_request", "push"],
      config: { content_type: "json", insecure_ssl: "0", url: "https://assay.example.com/webhooks/github" },
      updated_at: "2026-11-20T10:00:00Z",
      created_at: "2026-11-20T10:00:00Z",
    },
    repository: githubRepositoryObject(owner, name),
    sender: GITHUB_USER,
  };
}

/** The headers GitHub sends with `body`, signed with `secret`. */
export function githubHeaders(
  event: string,
  body: string,
  secret: string,
  deliveryId: string = randomUUID(),
) {
  return {
    "content-type": "application/json",
    "user-agent": "GitHub-Hookshot/044aadd",
    "x-github-event": event,
    "x-github-delivery": deliveryId,
    "x-github-hook-id": "30",
    "x-github-hook-installation-target-type": "repository",
    "x-hub-signature": `sha1=${createHmac("sha1", secret).update(body).digest("hex")}`,
    "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
  };
}

function gitlabProject(path: string) {
  const name = path.split("/").at(-1) as string;
  return {
    id: 15,
    name,
    description: "",
    web_url: `https://gitlab.example.com/${path}`,
    avatar_url: null,
    git_ssh_url: `git@gitlab.example.com:${path}.git`,
    git_http_url: `https://gitlab.example.com/${path}.git`,
    namespace: path.split("/")[0],
    visibility_level: 0,
    path_with_namespace: path,
    default_branch: "main",
    ci_config_path: "",
    homepage: `https://gitlab.example.com/${path}`,
    url: `git@gitlab.example.com:${path}.git`,
    ssh_url: `git@gitlab.example.com:${path}.git`,
    http_url: `https://gitlab.example.com/${path}.git`,
  };
}

const GITLAB_USER = {
  id: 1,
  name: "Administrator",
  username: "root",
  avatar_url: "http://www.gravatar.com/avatar/e64c7d89f26bd1972efa854d13d7dd61?s=40&d=identicon",
  email: "admin@example.com",
};

/** A Merge Request Hook body. */
export function gitlabMergeRequestPayload(options: {
  path: string;
  action: "open" | "update" | "reopen" | "close" | "merge";
  iid: number;
  title?: string;
  state: "opened" | "closed" | "merged";
  sourceBranch: string;
  targetBranch: string;
  lastCommit: string;
  updatedAt: string;
  /** The source project when it is a fork (its own id and path), or null for a deleted fork. */
  sourceProject?: { id: number; path: string } | null;
}) {
  const project = gitlabProject(options.path);
  const source =
    options.sourceProject === undefined
      ? project
      : options.sourceProject === null
        ? null
        : { ...gitlabProject(options.sourceProject.path), id: options.sourceProject.id };
  const sourceProjectId =
    options.sourceProject === undefined ? project.id : (options.sourceProject?.id ?? 27);
  return {
    object_kind: "merge_request",
    event_type: "merge_request",
    user: GITLAB_USER,
    project,
    repository: {
      name: project.name,
      url: project.url,
      description: "",
      homepage: project.homepage,
    },
    object_attributes: {
      id: 99,
      iid: options.iid,
      target_branch: options.targetBranch,
      source_branch: options.sourceBranch,
      source_project_id: sourceProjectId,
      author_id: 1,
      assignee_ids: [],
      assignee_id: null,
      reviewer_ids: [],
      title: options.title ?? "MS-Viewport",
      created_at: "2026-11-20 10:00:00 UTC",
      updated_at: options.updatedAt,
      last_edited_at: null,
      milestone_id: null,
      state_id: options.state === "opened" ? 1 : options.state === "closed" ? 2 : 3,
      state: options.state,
      blocking_discussions_resolved: true,
      work_in_progress: false,
      draft: false,
      first_contribution: false,
      merge_status: "can_be_merged",
      detailed_merge_status: "mergeable",
      target_project_id: 15,
      description: "",
      url: `${project.web_url}/-/merge_requests/${options.iid}`,
      source,
      target: project,
      last_commit: {
        id: options.lastCommit,
        message: "fixed readme",
        title: "fixed readme",
        timestamp: "2026-11-20T10:00:00+00:00",
        url: `${project.web_url}/-/commit/${options.lastCommit}`,
        author: { name: "GitLab dev user", email: "gitlabdev@dv6020.(none)" },
      },
      labels: [],
      action: options.action,
    },
    labels: [],
    changes: {},
  };
}

/** A Push Hook body. */
export function gitlabPushPayload(options: { path: string; ref: string; before: string; after: string }) {
  const project = gitlabProject(options.path);
  return {
    object_kind: "push",
    event_name: "push",
    before: options.before,
    after: options.after,
    ref: options.ref,
    ref_protected: true,
    checkout_sha: /^0+$/.test(options.after) ? null : options.after,
    user_id: 4,
    user_name: "John Smith",
    user_username: "jsmith",
    user_email: "john@example.com",
    user_avatar: "https://s.gravatar.com/avatar/d4c74594d841139328695756648b6bd6?s=8",
    project_id: 15,
    project,
    commits: [],
    total_commits_count: 0,
    repository: { name: project.name, url: project.url, description: "", homepage: project.homepage },
  };
}

/** The headers GitLab sends with a delivery, with `token` as the secret token. */
export function gitlabHeaders(event: string, token: string, deliveryId: string = randomUUID()) {
  return {
    "content-type": "application/json",
    "user-agent": "GitLab/17.5.0",
    "x-gitlab-event": event,
    "x-gitlab-instance": "https://gitlab.example.com",
    "x-gitlab-webhook-uuid": randomUUID(),
    "x-gitlab-event-uuid": randomUUID(),
    "idempotency-key": deliveryId,
    "x-gitlab-token": token,
  };
}

/** A GitHub `pull_request` body as a GitHub App's webhook sends it: with its `installation`. */
export function githubAppPullRequestPayload(
  options: Parameters<typeof githubPullRequestPayload>[0],
  installationId: number,
) {
  return {
    ...githubPullRequestPayload(options),
    installation: { id: installationId, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ==" },
  };
}

/** An `installation` event body (a GitHub App installed on `owner`'s account), which names no single repository. */
export function githubInstallationPayload(
  owner: string,
  action: "created" | "deleted",
  repositories: string[],
) {
  return {
    action,
    installation: {
      id: 4242,
      account: { ...GITHUB_USER, login: owner, type: "Organization" },
      repository_selection: "selected",
      access_tokens_url: "https://api.github.com/app/installations/4242/access_tokens",
      repositories_url: "https://api.github.com/installation/repositories",
      html_url: `https://github.com/organizations/${owner}/settings/installations/4242`,
      app_id: 1066,
      app_slug: "assay-example",
      target_id: 9919,
      target_type: "Organization",
      permissions: { metadata: "read", pull_requests: "read", contents: "read" },
      events: ["pull_request", "push"],
      created_at: "2026-11-20T10:00:00.000Z",
      updated_at: "2026-11-20T10:00:00.000Z",
      single_file_name: null,
      suspended_at: null,
    },
    repositories: repositories.map((name, index) => ({
      id: 1296269 + index,
      node_id: "MDEwOlJlcG9zaXRvcnkxMjk2MjY5",
      name,
      full_name: `${owner}/${name}`,
      private: true,
    })),
    requester: null,
    sender: GITHUB_USER,
  };
}
