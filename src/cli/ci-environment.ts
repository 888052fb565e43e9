import { execFileSync } from "node:child_process";
import fs from "node:fs";

/**
 * What `assay upload` learns from the CI service it runs in, and from git: the commit and the
 * branch an upload belongs to (docs/ingestion.md "`assay upload`"). Pure functions over the
 * environment, a git runner and a file reader, so every service's rules are unit-tested.
 */

/** The environment variables a run sees. */
export type Env = Readonly<Record<string, string | undefined>>;

/** Runs git with `args` in the working directory: its trimmed output, or null when it failed. */
export type Git = (args: string[]) => string | null;

/** Reads a text file: its content, or null when it cannot be read. */
export type ReadText = (path: string) => string | null;

/**
 * Commit variables of the common CI services, in the order they are tried. GitLab's source-branch
 * SHA comes first: it is set only in merged-results pipelines, where CI_COMMIT_SHA names a merge
 * commit GitLab made and the pushed commit is this one.
 */
const COMMIT_VARIABLES = [
  "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA",
  "GITHUB_SHA",
  "CI_COMMIT_SHA",
  "BITBUCKET_COMMIT",
  "BUILDKITE_COMMIT",
  "CIRCLE_SHA1",
  "GIT_COMMIT",
];

/**
 * Branch variables, in order: a pull request's source branch first (GitHub's head ref, GitLab's
 * merge request source branch), then each service's branch name.
 */
const BRANCH_VARIABLES = [
  "GITHUB_HEAD_REF",
  "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME",
  "GITHUB_REF_NAME",
  "CI_COMMIT_REF_NAME",
  "BITBUCKET_BRANCH",
  "BUILDKITE_BRANCH",
  "CIRCLE_BRANCH",
  "GIT_BRANCH",
];

/** GitHub Actions events of a pull request, whose GITHUB_SHA is not the pull request's head commit. */
const GITHUB_PULL_REQUEST_EVENTS = new Set([
  "pull_request",
  "pull_request_target",
  "pull_request_review",
  "pull_request_review_comment",
]);

/** The first non-empty variable of `names` in `env`. */
function firstSet(env: Env, names: readonly string[]): string | null {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return null;
}

/** A pull request's head: the commit it shows and its source branch. */
export interface PullRequestHead {
  sha: string;
  branch: string | null;
}

/**
 * The head of the pull request a GitHub Actions job runs for, from the event payload
 * (`GITHUB_EVENT_PATH`), or null outside such a job. On `pull_request` GITHUB_SHA is the merge
 * commit GitHub made for the test run (on `pull_request_target`, the base branch's head), which
 * the team never pushed: results belong to the commit the pull request shows.
 */
export function githubPullRequestHead(env: Env, readText: ReadText): PullRequestHead | null {
  if (env.GITHUB_ACTIONS !== "true" || !GITHUB_PULL_REQUEST_EVENTS.has(env.GITHUB_EVENT_NAME ?? "")) {
    return null;
  }
  const eventPath = env.GITHUB_EVENT_PATH?.trim();
  const text = eventPath ? readText(eventPath) : null;
  if (text === null) return null;
  let head: { sha?: unknown; ref?: unknown } | undefined;
  try {
    head = (JSON.parse(text) as { pull_request?: { head?: { sha?: unknown; ref?: unknown } } }).pull_request
      ?.head;
  } catch {
    return null;
  }
  if (typeof head?.sha !== "string" || head.sha === "") return null;
  return { sha: head.sha, branch: typeof head.ref === "string" && head.ref !== "" ? head.ref : null };
}

/**
 * The commit: a GitHub pull request's head commit (see {@link githubPullRequestHead}), else the
 * CI's variable (see {@link COMMIT_VARIABLES}), else `git rev-parse HEAD`.
 */
export function detectCommit(env: Env, git: Git, readText: ReadText = () => null): string | null {
  return (
    githubPullRequestHead(env, readText)?.sha ?? firstSet(env, COMMIT_VARIABLES) ?? git(["rev-parse", "HEAD"])
  );
}

/**
 * The branch: a GitHub pull request's source branch, else the CI's variable (see
 * {@link BRANCH_VARIABLES}; Jenkins' `origin/` prefix dropped), else git's current branch, else
 * null (a detached HEAD names none).
 */
export function detectBranch(env: Env, git: Git, readText: ReadText = () => null): string | null {
  const fromEvent = githubPullRequestHead(env, readText)?.branch;
  if (fromEvent) return fromEvent;
  const fromCi = firstSet(env, BRANCH_VARIABLES);
  if (fromCi) return fromCi.replace(/^origin\//, "");
  const fromGit = git(["rev-parse", "--abbrev-ref", "HEAD"]);
  return fromGit && fromGit !== "HEAD" ? fromGit : null;
}

/** The most git output read: a pull request's whole diff (`assay upload --changes`) must fit. */
const GIT_MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

/** Runs git in `cwd`; null when git is missing or fails (not a checkout, no commits). */
export function gitIn(cwd: string): Git {
  return (args) => {
    try {
      const out = execFileSync("git", args, {
        cwd,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
        maxBuffer: GIT_MAX_OUTPUT_BYTES,
      });
      return out.trim() || null;
    } catch {
      return null;
    }
  };
}

/** Reads a file as UTF-8; null when it cannot be read. */
export function readTextFile(path: string): string | null {
  try {
    return fs.readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** A directory's path with its symbolic links resolved; null when it cannot be read. */
export function realDirectory(directory: string): string | null {
  try {
    return fs.realpathSync(directory);
  } catch {
    return null;
  }
}

/** The pull request a CI job runs for: its number and the branch it merges into (when said). */
export interface DetectedPullRequest {
  number: number;
  baseBranch: string | null;
}

/** A pull request number as CI variables give it: digits, or a URL ending in `/<digits>`. */
function pullRequestNumberOf(value: string | undefined): number | null {
  const match = /(?:^|\/)(\d{1,10})\/?$/.exec(value?.trim() ?? "");
  const number = match ? Number(match[1]) : Number.NaN;
  return Number.isInteger(number) && number > 0 && number <= 2_147_483_647 ? number : null;
}

/** A branch variable without a `refs/heads/` prefix (Azure Pipelines gives the full ref). */
function branchOf(value: string | undefined): string | null {
  const trimmed = value?.trim().replace(/^refs\/heads\//, "");
  return trimmed ? trimmed : null;
}

/** GitHub Actions: `pull_request.number` and `pull_request.base.ref` of the event payload. */
function githubPullRequest(env: Env, readText: ReadText): DetectedPullRequest | null {
  if (env.GITHUB_ACTIONS !== "true" || !GITHUB_PULL_REQUEST_EVENTS.has(env.GITHUB_EVENT_NAME ?? "")) {
    return null;
  }
  const eventPath = env.GITHUB_EVENT_PATH?.trim();
  const text = eventPath ? readText(eventPath) : null;
  if (text === null) return null;
  try {
    const pr = (JSON.parse(text) as { pull_request?: { number?: unknown; base?: { ref?: unknown } } })
      .pull_request;
    const number = typeof pr?.number === "number" ? pullRequestNumberOf(String(pr.number)) : null;
    if (number === null) return null;
    const base = typeof pr?.base?.ref === "string" ? pr.base.ref : env.GITHUB_BASE_REF;
    return { number, baseBranch: branchOf(base) };
  } catch {
    return null;
  }
}

/**
 * Each service's pull request variables, in the order they are tried: the number, and the
 * variable naming the branch it merges into (CircleCI names none).
 */
const PULL_REQUEST_VARIABLES: ReadonlyArray<{ number: readonly string[]; base: string | null }> = [
  { number: ["CI_MERGE_REQUEST_IID"], base: "CI_MERGE_REQUEST_TARGET_BRANCH_NAME" },
  { number: ["BITBUCKET_PR_ID"], base: "BITBUCKET_PR_DESTINATION_BRANCH" },
  // On a GitHub repository Azure's PULLREQUESTID is its own id and PULLREQUESTNUMBER the number.
  {
    number: ["SYSTEM_PULLREQUEST_PULLREQUESTNUMBER", "SYSTEM_PULLREQUEST_PULLREQUESTID"],
    base: "SYSTEM_PULLREQUEST_TARGETBRANCH",
  },
  { number: ["CHANGE_ID"], base: "CHANGE_TARGET" },
  { number: ["BUILDKITE_PULL_REQUEST"], base: "BUILDKITE_PULL_REQUEST_BASE_BRANCH" },
  { number: ["CIRCLE_PULL_REQUEST"], base: null },
];

/**
 * The pull request the job runs for: GitHub Actions' event payload, else the first service whose
 * variables name one (GitLab, Bitbucket, Azure Pipelines, Jenkins, Buildkite, CircleCI), else null.
 * Buildkite's `false` and other values that are no number name none.
 */
export function detectPullRequest(env: Env, readText: ReadText = () => null): DetectedPullRequest | null {
  const fromGithub = githubPullRequest(env, readText);
  if (fromGithub) return fromGithub;
  for (const service of PULL_REQUEST_VARIABLES) {
    for (const name of service.number) {
      const number = pullRequestNumberOf(env[name]);
      if (number !== null) return { number, baseBranch: service.base ? branchOf(env[service.base]) : null };
    }
  }
  return null;
}
