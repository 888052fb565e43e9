import path from "node:path";
import type { VcsProvider } from "../db/types.ts";
import { COVERAGE_ANALYZER, COVERAGE_LANGUAGE_KEYS } from "../ingestion/types.ts";
import { VCS_PROVIDERS } from "../modules/accounts/vcs.ts";
import {
  detectBranch,
  detectCommit,
  detectPullRequest,
  type Env,
  type Git,
  type ReadText,
} from "./ci-environment.ts";
import { CliError, type Flags, UsageError } from "./command.ts";
import { serverOf } from "./server-flags.ts";
import { type ChangesMode, parseChangesMode } from "./upload-changes.ts";

/**
 * The options of one `assay upload`: its flags, completed from the CI's variables and git, and
 * checked before any request is made.
 */

/** How long `--wait` waits when `--timeout` is not given: long enough for a large report in a queue. */
export const DEFAULT_WAIT_SECONDS = 600;
const MAX_WAIT_SECONDS = 6 * 3600;
const COMMIT_PATTERN = /^[0-9a-fA-F]{7,64}$/;

/** Short provider names of `--repository PROVIDER/LOGIN/NAME`, as the contract's CLI spells them. */
const PROVIDER_ALIASES: Record<string, VcsProvider> = {
  gh: "GITHUB",
  "github.com": "GITHUB",
  gl: "GITLAB",
  "gitlab.com": "GITLAB",
  bb: "BITBUCKET",
  "bitbucket.org": "BITBUCKET",
};

/** A repository as given: its global id, or provider, account login and name. */
export type RepositoryReference = { id: string } | { vcsProvider: VcsProvider; login: string; name: string };

/** Everything an upload needs, after defaults from the CI environment and git. */
export interface UploadOptions {
  /** An absolute path, or `-` for stdin. */
  file: string;
  repository: RepositoryReference;
  analyzer: string;
  analyzerType: string | null;
  key: string | null;
  commit: string;
  branch: string | null;
  /** `--pr`, else the CI's pull request; null outside one. */
  pullRequestNumber: number | null;
  /** `--base`, else the CI's target branch; null when unknown. */
  baseBranch: string | null;
  workDir: string;
  /**
   * The git checkout's root when `--work-dir` names a directory inside it other than the root;
   * null otherwise (`workDir` is then the root, or a directory outside the checkout).
   */
  repositoryRoot: string | null;
  /** The server's base URL, without a trailing slash. */
  url: string;
  token: string;
  progress: boolean;
  /** `--changes`: the changed lines sent beside the report (auto: a pull request's, from git). */
  changes: ChangesMode;
  /** With `--wait`: how long to wait for processing, in seconds; null without `--wait`. */
  waitSeconds: number | null;
  /**
   * The repository's `.deepsource.toml` to send: `--config PATH` (explicit: it must exist), else
   * the one at the git top level (else the work dir) when there is one; null for `--no-config`.
   */
  config: { path: string; explicit: boolean } | null;
}

/** Where the command runs: environment, directory, git, files, and whether stderr is a terminal. */
export interface UploadSurroundings {
  env: Env;
  cwd: string;
  git: Git;
  /** Reads the CI's own files (GitHub's event payload). */
  readText: ReadText;
  /** A directory's path with its symbolic links resolved; null when it does not exist. */
  realpath: (directory: string) => string | null;
  stderrIsTty: boolean;
}

/** `--repository`: `gh/acme/api` (or `GITHUB/acme/api`, `gitlab.com/acme/api`...), else an id. */
export function parseRepositoryReference(value: string): RepositoryReference {
  const parts = value.split("/");
  const provider = parts.length === 3 ? providerOf(parts[0]!) : null;
  if (provider && parts[1] && parts[2]) return { vcsProvider: provider, login: parts[1], name: parts[2] };
  if (parts.length === 3 && !value.startsWith("UmVwb3NpdG9yeT")) {
    throw new CliError(
      `--repository: "${parts[0]}" is not a provider; use gh, gl, bb or one of ${VCS_PROVIDERS.join(", ")}`,
    );
  }
  return { id: value };
}

function providerOf(name: string): VcsProvider | null {
  const alias = PROVIDER_ALIASES[name.toLowerCase()];
  if (alias) return alias;
  const upper = name.toUpperCase();
  return VCS_PROVIDERS.find((provider) => provider === upper) ?? null;
}

/**
 * `--key` for `--analyzer test-coverage`: required, and one of the language keys the server
 * knows. Refused here, before the file is read or anything is sent, naming the accepted keys.
 */
function coverageKeyOf(analyzer: string, flags: Flags): string | null {
  const key = flags.optional("key");
  if (analyzer !== COVERAGE_ANALYZER) return key ?? null;
  const accepted = Object.keys(COVERAGE_LANGUAGE_KEYS);
  if (key === undefined) {
    throw new UsageError(
      `--analyzer ${COVERAGE_ANALYZER} needs --key LANGUAGE, the language of the covered code: one of ${accepted.join(", ")}`,
      flags.command,
    );
  }
  if (!accepted.includes(key)) {
    throw new UsageError(
      `--key: unknown language "${key}"; use one of ${accepted.join(", ")}`,
      flags.command,
    );
  }
  return key;
}

/** `--timeout SECONDS`, only with `--wait`; the default when `--wait` is given alone. */
function waitSecondsOf(flags: Flags): number | null {
  const timeout = flags.optional("timeout");
  if (!flags.isSet("wait")) {
    if (timeout !== undefined) throw new UsageError("--timeout needs --wait", flags.command);
    return null;
  }
  if (timeout === undefined) return DEFAULT_WAIT_SECONDS;
  const seconds = /^\d+$/.test(timeout) ? Number(timeout) : Number.NaN;
  if (!(seconds >= 1 && seconds <= MAX_WAIT_SECONDS)) {
    throw new UsageError(
      `--timeout must be a whole number of seconds from 1 to ${MAX_WAIT_SECONDS}, got "${timeout}"`,
      flags.command,
    );
  }
  return seconds;
}

/**
 * `--pr N` and `--base BRANCH`, else the CI's pull request. `--pr` replaces the CI's pull request
 * (and its target branch, unless `--base` is given too); `--base` alone names the branch to
 * compare with.
 */
function pullRequestOf(
  flags: Flags,
  around: UploadSurroundings,
): { pullRequestNumber: number | null; baseBranch: string | null } {
  const prFlag = flags.optional("pr");
  const baseFlag = flags.optional("base") ?? null;
  if (prFlag !== undefined) {
    const number = /^\d{1,10}$/.test(prFlag) ? Number(prFlag) : Number.NaN;
    if (!(number >= 1 && number <= 2_147_483_647)) {
      throw new UsageError(`--pr must be a pull request number, got "${prFlag}"`, flags.command);
    }
    return { pullRequestNumber: number, baseBranch: baseFlag };
  }
  const detected = detectPullRequest(around.env, around.readText);
  return {
    pullRequestNumber: detected?.number ?? null,
    baseBranch: baseFlag ?? detected?.baseBranch ?? null,
  };
}

/** `directory`'s path below `root`, when it lies strictly inside it; null otherwise. */
function below(root: string, directory: string): string | null {
  const relative = path.relative(root, directory);
  const outside = relative === "" || relative === ".." || relative.startsWith(`..${path.sep}`);
  return outside || path.isAbsolute(relative) ? null : relative;
}

/**
 * The checkout's root to send beside `workDir` when `workDir` lies inside the checkout, below its
 * root (docs/ingestion.md "Where the report's paths lead"); null otherwise. git names the top
 * level by its real path, while a tool writes paths under the directory it was given: a work
 * directory reached through a symbolic link (a runner's `/builds`, macOS's `/var`, a checkout
 * linked into a workspace) is placed by its real path, and the root is sent as reached through
 * the same link, so that the report's absolute paths still fall under it. When the link lies
 * inside the checkout, no such root exists, and none is sent.
 */
function repositoryRootOf(
  workDir: string,
  topLevel: string,
  realpath: UploadSurroundings["realpath"],
): string | null {
  if (below(topLevel, workDir) !== null) return topLevel;
  const real = realpath(workDir);
  if (real === null || real === workDir || below(topLevel, real) === null) return null;
  const root = path.resolve(workDir, path.relative(real, topLevel));
  return realpath(root) === topLevel ? root : null;
}

/** The options of one invocation: flags first, then the CI's variables and git. */
export function resolveUploadOptions(flags: Flags, around: UploadSurroundings): UploadOptions {
  const fileFlag = flags.required("file");
  const analyzer = flags.required("analyzer");
  const repository = parseRepositoryReference(flags.required("repository"));
  const key = coverageKeyOf(analyzer, flags);
  if (flags.isSet("progress") && flags.isSet("no-progress")) {
    throw new UsageError("give --progress or --no-progress, not both", flags.command);
  }
  const waitSeconds = waitSecondsOf(flags);
  const commit = flags.optional("commit") ?? detectCommit(around.env, around.git, around.readText);
  if (commit === null) {
    throw new CliError("cannot tell the commit: give --commit SHA, or run inside a git checkout");
  }
  if (!COMMIT_PATTERN.test(commit)) {
    throw new CliError(`the commit must be 7 to 64 hexadecimal characters, got "${commit}"`);
  }
  const { url, token } = serverOf(
    flags,
    around.env,
    "a personal access token with write access to the repository",
  );
  const workDirFlag = flags.optional("work-dir");
  const topLevel = around.git(["rev-parse", "--show-toplevel"]);
  const workDir = workDirFlag ? path.resolve(around.cwd, workDirFlag) : (topLevel ?? around.cwd);
  const repositoryRoot = topLevel === null ? null : repositoryRootOf(workDir, topLevel, around.realpath);
  return {
    file: fileFlag === "-" ? "-" : path.resolve(around.cwd, fileFlag),
    repository,
    analyzer,
    analyzerType: flags.optional("analyzer-type") ?? null,
    key,
    commit: commit.toLowerCase(),
    branch: flags.optional("branch") ?? detectBranch(around.env, around.git, around.readText),
    ...pullRequestOf(flags, around),
    workDir,
    repositoryRoot,
    url,
    token,
    progress: flags.isSet("progress") || (!flags.isSet("no-progress") && around.stderrIsTty),
    changes: parseChangesMode(flags.optional("changes"), around.cwd, flags.command),
    waitSeconds,
    config: configOf(flags, around.cwd, topLevel ?? workDir),
  };
}

/** `--config PATH` or `--no-config`, else `.deepsource.toml` at the repository's root. */
function configOf(flags: Flags, cwd: string, root: string): UploadOptions["config"] {
  const given = flags.optional("config");
  if (flags.isSet("no-config")) {
    if (given !== undefined) throw new UsageError("give --config or --no-config, not both", flags.command);
    return null;
  }
  if (given !== undefined) return { path: path.resolve(cwd, given), explicit: true };
  return { path: path.join(root, ".deepsource.toml"), explicit: false };
}
