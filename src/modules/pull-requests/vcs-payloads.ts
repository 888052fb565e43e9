/**
 * Reads the providers' webhook payloads (docs/vcs-events.md) into the few facts Assay keeps: which
 * repository, and what happened to a pull request or a branch. Pure: no database. Fields Assay
 * does not use are ignored; a payload missing a field it needs is a {@link PayloadError}.
 */

/** The providers whose webhooks Assay receives. */
export type VcsEventProvider = "GITHUB" | "GITLAB" | "BITBUCKET";

/** A pull (merge) request as an event reports it. */
export interface PullRequestFacts {
  number: number;
  title: string | null;
  state: "OPEN" | "CLOSED" | "MERGED";
  branch: string | null;
  baseBranch: string | null;
  headCommitOid: string | null;
  baseCommitOid: string | null;
  /** The merge base, when the provider says it. */
  mergeBaseOid: string | null;
  url: string | null;
  createdAt: Date | null;
  /** The provider's time of this change: an event older than what is stored is not applied. */
  updatedAt: Date | null;
  /** Whether the head is in another repository than the base (a fork); null when the event does not say. */
  isCrossRepository: boolean | null;
  /** The full name of the head's repository when it is another one and the event names it. */
  headRepository: string | null;
}

/** Where a pull request's head is, as {@link PullRequestFacts} holds it. */
type HeadRepository = Pick<PullRequestFacts, "isCrossRepository" | "headRepository">;

const UNKNOWN_HEAD_REPOSITORY: HeadRepository = { isCrossRepository: null, headRepository: null };

/** A provider's id of a repository or project: a number or a non-empty string; null otherwise. */
function identifier(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return text(value);
}

/**
 * Where the head is, from the two sides' repository ids (compared when both are known) and the
 * head repository's name. A head side without a repository (a deleted fork) is another one.
 */
function headRepositoryOf(
  head: { id: string | null; name: string | null } | null,
  base: { id: string | null },
): HeadRepository {
  if (head === null) return { isCrossRepository: true, headRepository: null };
  if (head.id === null || base.id === null) return UNKNOWN_HEAD_REPOSITORY;
  const isCrossRepository = head.id !== base.id;
  return { isCrossRepository, headRepository: isCrossRepository ? head.name : null };
}

/** What one delivery says. */
export type VcsEvent =
  | { kind: "ping" }
  | { kind: "pull_request"; action: string; pullRequest: PullRequestFacts }
  | {
      kind: "push";
      /** The refs the push moved (one for GitHub and GitLab; Bitbucket may report several). */
      refs: PushedRef[];
      /** When the provider says the push happened (GitHub's `repository.pushed_at`). */
      pushedAt: Date | null;
    }
  | { kind: "ignored"; event: string };

/** One ref a push moved. */
export interface PushedRef {
  /** The branch pushed to; null for a tag or another kind of ref. */
  branch: string | null;
  /** The branch's new head; null when the push deleted the branch. */
  after: string | null;
}

/** A delivery's repository, as its payload names it. */
export interface EventRepository {
  /** `owner/name` (GitHub's and Bitbucket's `full_name`, GitLab's `path_with_namespace`). */
  fullName: string;
}

/** A payload Assay cannot read. The message names the missing or malformed field. */
export class PayloadError extends Error {
  override name = "PayloadError";
}

const ZERO_OID = /^0+$/;
const OID = /^[0-9a-f]{7,64}$/i;

type Json = Record<string, unknown>;

function object(value: unknown, field: string): Json {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new PayloadError(`the payload has no object \`${field}\``);
  }
  return value as Json;
}

function optionalObject(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

function requiredText(value: unknown, field: string): string {
  const found = text(value);
  if (found === null) throw new PayloadError(`the payload has no text \`${field}\``);
  return found;
}

function positiveInteger(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value <= 0 || value > 2_147_483_647) {
    throw new PayloadError(`\`${field}\` must be a positive integer`);
  }
  return value;
}

function oid(value: unknown): string | null {
  const found = text(value);
  if (found === null || !OID.test(found) || ZERO_OID.test(found)) return null;
  return found.toLowerCase();
}

/**
 * A provider's timestamp: ISO 8601 (`2013-12-03T17:23:34Z`), GitLab's older
 * `2013-12-03 17:23:34 UTC`, or UNIX seconds (GitHub's push payloads). Null when absent or unreadable.
 */
export function providerTime(value: unknown): Date | null {
  if (typeof value === "number" && Number.isFinite(value)) return new Date(value * 1000);
  const found = text(value);
  if (found === null) return null;
  const iso = found.replace(
    /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?) ?(UTC|[+-]\d{2}:?\d{2})?$/,
    (_m, d, t, z) => `${d}T${t}${z === undefined || z === "UTC" ? "Z" : z}`,
  );
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** The branch of `refs/heads/<branch>`; null for any other ref. */
function branchOfRef(ref: unknown): string | null {
  const found = text(ref);
  return found?.startsWith("refs/heads/") ? found.slice("refs/heads/".length) || null : null;
}

/** The repository a GitHub delivery is about (`repository.full_name`). */
export function githubRepository(payload: unknown): EventRepository {
  const repository = object(object(payload, "(body)").repository, "repository");
  return { fullName: requiredText(repository.full_name, "repository.full_name") };
}

/**
 * The account login a GitHub App's installation-level delivery names (`installation.account.login`
 * of `installation` and `installation_repositories` events), which name no single repository.
 */
export function githubInstallationAccount(payload: unknown): string | undefined {
  const body = optionalObject(payload);
  const account = optionalObject(optionalObject(body?.installation)?.account);
  return text(account?.login) ?? undefined;
}

/** A GitHub delivery of event `event` (the `X-GitHub-Event` header). */
export function readGithubEvent(event: string, payload: unknown): VcsEvent {
  const body = object(payload, "(body)");
  if (event === "ping") return { kind: "ping" };
  if (event === "push") {
    const deleted = body.deleted === true || ZERO_OID.test(String(body.after ?? ""));
    const repository = optionalObject(body.repository);
    return {
      kind: "push",
      refs: [{ branch: branchOfRef(body.ref), after: deleted ? null : oid(body.after) }],
      pushedAt: providerTime(repository?.pushed_at),
    };
  }
  if (event !== "pull_request") return { kind: "ignored", event };
  const action = requiredText(body.action, "action");
  const pr = object(body.pull_request, "pull_request");
  const head = optionalObject(pr.head);
  const base = optionalObject(pr.base);
  const merged = pr.merged === true || text(pr.merged_at) !== null;
  const state = text(pr.state) === "open" ? "OPEN" : merged ? "MERGED" : "CLOSED";
  // `head.repo` is null once a fork is deleted; repository ids survive renames, names do not.
  const headRepo = head && "repo" in head ? optionalObject(head.repo) : undefined;
  const baseRepo = optionalObject(base?.repo);
  const where =
    head && "repo" in head && head.repo === null
      ? headRepositoryOf(null, { id: null })
      : headRepositoryOf(
          headRepo
            ? { id: identifier(headRepo.id), name: text(headRepo.full_name) }
            : { id: null, name: null },
          { id: identifier(baseRepo?.id) },
        );
  return {
    kind: "pull_request",
    action,
    pullRequest: {
      number: positiveInteger(pr.number ?? body.number, "pull_request.number"),
      title: text(pr.title),
      state,
      branch: text(head?.ref),
      baseBranch: text(base?.ref),
      headCommitOid: oid(head?.sha),
      baseCommitOid: oid(base?.sha),
      mergeBaseOid: null,
      url: text(pr.html_url),
      createdAt: providerTime(pr.created_at),
      updatedAt: providerTime(pr.updated_at),
      ...where,
    },
  };
}

/** The repository a GitLab delivery is about (`project.path_with_namespace`). */
export function gitlabRepository(payload: unknown): EventRepository {
  const project = object(object(payload, "(body)").project, "project");
  return { fullName: requiredText(project.path_with_namespace, "project.path_with_namespace") };
}

const GITLAB_STATES: Record<string, PullRequestFacts["state"]> = {
  opened: "OPEN",
  locked: "OPEN",
  reopened: "OPEN",
  closed: "CLOSED",
  merged: "MERGED",
};

/** A GitLab delivery of event `event` (the `X-Gitlab-Event` header: `Merge Request Hook`, `Push Hook`...). */
export function readGitlabEvent(event: string, payload: unknown): VcsEvent {
  const body = object(payload, "(body)");
  if (event === "Push Hook") {
    const after = text(body.after);
    return {
      kind: "push",
      refs: [
        { branch: branchOfRef(body.ref), after: after === null || ZERO_OID.test(after) ? null : oid(after) },
      ],
      pushedAt: null,
    };
  }
  if (event !== "Merge Request Hook") return { kind: "ignored", event };
  const attributes = object(body.object_attributes, "object_attributes");
  const state = GITLAB_STATES[requiredText(attributes.state, "object_attributes.state")];
  if (state === undefined) throw new PayloadError("`object_attributes.state` is not a merge request state");
  const lastCommit = optionalObject(attributes.last_commit);
  const diffRefs = optionalObject(attributes.diff_refs);
  // `source` is null once the source project (a fork) is deleted; its id stays.
  const where = headRepositoryOf(
    {
      id: identifier(attributes.source_project_id),
      name: text(optionalObject(attributes.source)?.path_with_namespace),
    },
    { id: identifier(attributes.target_project_id) },
  );
  return {
    kind: "pull_request",
    action: text(attributes.action) ?? "update",
    pullRequest: {
      number: positiveInteger(attributes.iid, "object_attributes.iid"),
      title: text(attributes.title),
      state,
      branch: text(attributes.source_branch),
      baseBranch: text(attributes.target_branch),
      headCommitOid: oid(lastCommit?.id) ?? oid(diffRefs?.head_sha),
      baseCommitOid: oid(diffRefs?.start_sha),
      mergeBaseOid: oid(diffRefs?.base_sha),
      url: text(attributes.url),
      createdAt: providerTime(attributes.created_at),
      updatedAt: providerTime(attributes.updated_at),
      ...where,
    },
  };
}

/** The repository a Bitbucket Cloud delivery is about (`repository.full_name`, `workspace/slug`). */
export function bitbucketRepository(payload: unknown): EventRepository {
  const repository = object(object(payload, "(body)").repository, "repository");
  return { fullName: requiredText(repository.full_name, "repository.full_name") };
}

const BITBUCKET_STATES: Record<string, PullRequestFacts["state"]> = {
  OPEN: "OPEN",
  MERGED: "MERGED",
  DECLINED: "CLOSED",
  SUPERSEDED: "CLOSED",
};

const BITBUCKET_PULL_REQUEST_EVENTS = new Set([
  "pullrequest:created",
  "pullrequest:updated",
  "pullrequest:fulfilled",
  "pullrequest:rejected",
]);

/** One entry of a `repo:push` payload's `push.changes`: a branch moved, created or deleted. */
function bitbucketPushedRef(change: unknown): PushedRef {
  const entry = optionalObject(change);
  const next = optionalObject(entry?.new);
  const previous = optionalObject(entry?.old);
  if (next) {
    return next.type === "branch"
      ? { branch: text(next.name), after: oid(optionalObject(next.target)?.hash) }
      : { branch: null, after: null };
  }
  // No `new`: the ref was deleted (`closed: true`).
  return { branch: previous?.type === "branch" ? text(previous.name) : null, after: null };
}

/**
 * A Bitbucket repository's id for comparing it with `other`: its uuid when both have one, else
 * its full name (lower case, as Bitbucket's slugs are).
 */
function bitbucketRepositoryId(repository: Json | undefined, other: Json | undefined): string | null {
  const uuid = text(repository?.uuid);
  if (uuid !== null && text(other?.uuid) !== null) return uuid;
  return text(repository?.full_name)?.toLowerCase() ?? null;
}

/**
 * A Bitbucket Cloud delivery of event `event` (the `X-Event-Key` header: `repo:push`,
 * `pullrequest:created`, ...). Commit hashes in pull request payloads are abbreviated (12
 * characters); they are kept as given.
 */
export function readBitbucketEvent(event: string, payload: unknown): VcsEvent {
  const body = object(payload, "(body)");
  if (event === "repo:push") {
    const push = object(body.push, "push");
    if (!Array.isArray(push.changes)) throw new PayloadError("the payload has no list `push.changes`");
    // Bitbucket dates commits, not pushes: pushes apply in arrival order.
    return { kind: "push", refs: push.changes.map(bitbucketPushedRef), pushedAt: null };
  }
  if (!BITBUCKET_PULL_REQUEST_EVENTS.has(event)) return { kind: "ignored", event };
  const pr = object(body.pullrequest, "pullrequest");
  const state = BITBUCKET_STATES[requiredText(pr.state, "pullrequest.state")];
  if (state === undefined) throw new PayloadError("`pullrequest.state` is not a pull request state");
  const source = optionalObject(pr.source);
  const destination = optionalObject(pr.destination);
  const links = optionalObject(pr.links);
  // Each side names its repository; the uuid stays when a repository is renamed.
  const sourceRepository = optionalObject(source?.repository);
  const destinationRepository = optionalObject(destination?.repository);
  const where =
    source && "repository" in source && source.repository === null
      ? headRepositoryOf(null, { id: null })
      : headRepositoryOf(
          {
            id: bitbucketRepositoryId(sourceRepository, destinationRepository),
            name: text(sourceRepository?.full_name),
          },
          { id: bitbucketRepositoryId(destinationRepository, sourceRepository) },
        );
  return {
    kind: "pull_request",
    action: event.slice("pullrequest:".length),
    pullRequest: {
      number: positiveInteger(pr.id, "pullrequest.id"),
      title: text(pr.title),
      state,
      branch: text(optionalObject(source?.branch)?.name),
      baseBranch: text(optionalObject(destination?.branch)?.name),
      headCommitOid: oid(optionalObject(source?.commit)?.hash),
      baseCommitOid: oid(optionalObject(destination?.commit)?.hash),
      mergeBaseOid: null,
      url: text(optionalObject(links?.html)?.href),
      createdAt: providerTime(pr.created_on),
      updatedAt: providerTime(pr.updated_on),
      ...where,
    },
  };
}
