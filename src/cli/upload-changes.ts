import path from "node:path";
import {
  ChangedLinesFormatError,
  countChangedLines,
  parseChangedLines,
  parseRenamedFiles,
} from "../ingestion/changes.ts";
import { CHANGES_ANALYZER } from "../ingestion/types.ts";
import type { Env, Git, ReadText } from "./ci-environment.ts";
import { CliError, type Command, UsageError } from "./command.ts";
import { uploadBody } from "./upload-body.ts";
import { CLI_VERSION, interpretUploadAnswer, postGraphql } from "./upload-request.ts";

/**
 * The changed lines `assay upload` sends beside a pull request's report (docs/ingestion.md
 * "Changed lines"): `git diff` from the merge base with the base branch to the uploaded commit,
 * uploaded as a CHANGES artifact (analyzer `changes`) of the same run, so the coverage check
 * gets its new-code metrics (NLCV...) without a separate step. Or the file `--changes FILE`
 * names. For a build of a branch that is no pull request's, the files the commit renamed against
 * its first parent, sent for their renames alone (docs/ingestion.md "Renamed files"). Computing
 * them never stops the report's own upload: what goes wrong is a warning.
 */

/** `--changes`: from git when the base branch is known (the default), never, or from a file. */
export type ChangesMode = { kind: "auto" } | { kind: "off" } | { kind: "file"; path: string };

/** Changed lines ready to send: the text, the root its paths are relative to, and what it holds. */
export interface PreparedChanges {
  text: string;
  workDir: string;
  files: number;
  lines: number;
  /**
   * Files the diff says were renamed (`rename from`/`rename to`): sent even when no line was
   * added, since a renamed file's findings are matched with its old path's (docs/ingestion.md
   * "Renamed files").
   */
  renamed: number;
  /** Where they come from, for the printed line: `against main@1a2b3c4` or `from changes.diff`. */
  origin: string;
  /** The merge base they were diffed from; null for a file's. */
  mergeBase: string | null;
  /**
   * For a diff sent for its renamed files alone, the commit it was made against (the first
   * parent), sent as `renamesBaseOid`; null for changed lines.
   */
  renamesBase: string | null;
}

/** What to do about changed lines: send them, or not (with the warning to print, if any). */
export type ChangesPlan = { send: PreparedChanges } | { skip: string | null };

/** What {@link planChanges} needs of the upload. */
export interface ChangesRequest {
  changes: ChangesMode;
  analyzer: string;
  commit: string;
  pullRequestNumber: number | null;
  baseBranch: string | null;
  /** The upload's root: the one a `--changes FILE`'s paths are relative to. */
  workDir: string;
}

/** Where the plan is made: git in the working directory, the CI's variables, and a file reader. */
export interface ChangesSurroundings {
  git: Git;
  env: Env;
  readText: ReadText;
}

/** `--changes auto|off|FILE` (default auto); a FILE is resolved against `cwd`. */
export function parseChangesMode(value: string | undefined, cwd: string, command?: Command): ChangesMode {
  if (value === undefined || value === "auto") return { kind: "auto" };
  if (value === "off") return { kind: "off" };
  if (value.trim() === "") throw new UsageError('--changes must be "auto", "off" or a file', command);
  return { kind: "file", path: path.resolve(cwd, value) };
}

/**
 * Decides what changed lines go with the upload. `--changes FILE` is read and checked now, so a
 * file that cannot be used stops the command before anything is sent ({@link CliError}); in
 * `auto` mode a pull request's (or `--base`'s) changes are computed from git, and anything
 * missing becomes a warning saying how to fix it. A branch build (no pull request, no base
 * branch) sends the files its commit renamed against its first parent, when there are any.
 */
export function planChanges(request: ChangesRequest, around: ChangesSurroundings): ChangesPlan {
  const mode = request.changes;
  if (mode.kind === "off") return { skip: null };
  if (request.analyzer === CHANGES_ANALYZER) {
    if (mode.kind === "file") {
      throw new CliError(
        "--changes FILE goes with another analyzer's report; this upload is the changes itself",
      );
    }
    return { skip: null };
  }
  if (mode.kind === "file") return { send: changesFromFile(mode.path, request.workDir, around.readText) };
  if (request.baseBranch === null) {
    if (request.pullRequestNumber === null) return renamesFromGit(around.git, request.commit);
    return {
      skip: `${NOT_SENT}: the branch pull request ${request.pullRequestNumber} merges into is not known; give --base BRANCH`,
    };
  }
  return changesFromGit(around, request.commit, request.baseBranch);
}

const NOT_SENT = "changed lines not sent";

function changesFromFile(file: string, workDir: string, readText: ReadText): PreparedChanges {
  const text = readText(file);
  if (text === null) throw new CliError(`--changes: cannot read ${file}`);
  const counted = countLines(text, workDir);
  if (typeof counted === "string") throw new CliError(`--changes: ${file}: ${counted}`);
  return {
    text,
    workDir,
    ...counted,
    origin: `from ${path.basename(file)}`,
    mergeBase: null,
    renamesBase: null,
  };
}

/** Files and lines of a change set, and the files it renames, or what is wrong with it. */
function countLines(
  text: string,
  workDir: string,
): { files: number; lines: number; renamed: number } | string {
  try {
    const changed = parseChangedLines(text, workDir);
    return {
      files: changed.size,
      lines: countChangedLines(changed),
      renamed: parseRenamedFiles(text, workDir).size,
    };
  } catch (error) {
    if (error instanceof ChangedLinesFormatError) return error.message;
    throw error;
  }
}

/**
 * `git diff` from the merge base of `commit` and the base branch (`origin/<base>`, else
 * `<base>`) to `commit`, with no context lines, colour, external diff or text conversion, and
 * git's own `a/` `b/` prefixes whatever the configuration says.
 */
function changesFromGit(around: ChangesSurroundings, commit: string, base: string): ChangesPlan {
  const { git } = around;
  const topLevel = git(["rev-parse", "--show-toplevel"]);
  if (topLevel === null) return { skip: `${NOT_SENT}: this directory is not in a git work tree` };
  const located = locateMergeBase(git, commit, base);
  if (located.kind === "no-commit") {
    return {
      skip: `${NOT_SENT}: the commit ${commit.slice(0, 12)} is not in this clone; ${fetchHint(around, base)}`,
    };
  }
  if (located.kind === "no-base") {
    return {
      skip: `${NOT_SENT}: the base branch ${base} is not in this clone (neither origin/${base} nor ${base}); ${fetchHint(around, base)}`,
    };
  }
  if (located.kind === "no-ancestor") {
    const shallow = git(["rev-parse", "--is-shallow-repository"]) === "true" ? " (the clone is shallow)" : "";
    return {
      skip: `${NOT_SENT}: ${commit.slice(0, 12)} and ${located.ref} have no common ancestor in this clone${shallow}; ${fetchHint(around, base)}`,
    };
  }
  const { head, mergeBase } = located;
  const origin = `against ${base}@${mergeBase.slice(0, 7)}`;
  const diff = git(diffArgs([], mergeBase, head));
  if (diff === null) {
    // git prints nothing for no difference, and the runner gives null for that too.
    if (git(["rev-parse", `${mergeBase}^{tree}`]) === git(["rev-parse", `${head}^{tree}`])) {
      return {
        send: {
          text: "",
          workDir: topLevel,
          files: 0,
          lines: 0,
          renamed: 0,
          origin,
          mergeBase,
          renamesBase: null,
        },
      };
    }
    return { skip: `${NOT_SENT}: git diff ${mergeBase.slice(0, 12)} ${head.slice(0, 12)} failed` };
  }
  const counted = countLines(diff, topLevel);
  if (typeof counted === "string") return { skip: `${NOT_SENT}: git's diff could not be read: ${counted}` };
  return { send: { text: `${diff}\n`, workDir: topLevel, ...counted, origin, mergeBase, renamesBase: null } };
}

/**
 * `git diff --find-renames --unified=0` from `from` to `to` as the server reads it, whatever the
 * user's configuration: no colour, external diff or text conversion, git's own `a/` `b/` prefixes.
 */
function diffArgs(filter: string[], from: string, to: string): string[] {
  return [
    "diff",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--find-renames",
    ...filter,
    "--unified=0",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    from,
    to,
  ];
}

/**
 * The files `commit` renamed against its first parent: `git diff --find-renames
 * --diff-filter=R`, only the renamed files' sections (with their edits, which the server does not
 * count as changed lines). On a branch where every commit is analysed, the first parent is the
 * run's base commit, and the server matches the renames only when it is. Nothing to send, and
 * nothing said, when there is no rename, no parent (a root commit, a clone of depth 1) or no git:
 * the upload goes on as before.
 */
function renamesFromGit(git: Git, commit: string): ChangesPlan {
  const topLevel = git(["rev-parse", "--show-toplevel"]);
  const head = topLevel === null ? null : git(["rev-parse", "--verify", "--quiet", `${commit}^{commit}`]);
  const parent = head === null ? null : git(["rev-parse", "--verify", "--quiet", `${head}^1^{commit}`]);
  if (topLevel === null || head === null || parent === null) return { skip: null };
  // git prints nothing when no file was renamed, and the runner gives null for that.
  const diff = git(diffArgs(["--diff-filter=R"], parent, head));
  if (diff === null) return { skip: null };
  const counted = countLines(diff, topLevel);
  if (typeof counted === "string") return { skip: `${NOT_SENT}: git's diff could not be read: ${counted}` };
  if (counted.renamed === 0) return { skip: null };
  return {
    send: {
      text: `${diff}\n`,
      workDir: topLevel,
      files: 0,
      lines: 0,
      renamed: counted.renamed,
      origin: `against the parent ${parent.slice(0, 7)}`,
      mergeBase: null,
      renamesBase: parent,
    },
  };
}

/**
 * Where `commit`'s history meets the base branch's: `git merge-base` with `origin/<base>`, else
 * `<base>`; or why this clone cannot tell (the commit or the base branch is not in it, or they
 * share no ancestor here: `ref` is the first base ref tried).
 */
function locateMergeBase(
  git: Git,
  commit: string,
  base: string,
):
  | { kind: "found"; head: string; mergeBase: string }
  | { kind: "no-commit" }
  | { kind: "no-base" }
  | { kind: "no-ancestor"; ref: string } {
  const head = git(["rev-parse", "--verify", "--quiet", `${commit}^{commit}`]);
  if (head === null) return { kind: "no-commit" };
  const refs = [`origin/${base}`, base].filter((ref) =>
    git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]),
  );
  if (refs.length === 0) return { kind: "no-base" };
  for (const ref of refs) {
    const mergeBase = git(["merge-base", ref, head]);
    if (mergeBase !== null) return { kind: "found", head, mergeBase };
  }
  return { kind: "no-ancestor", ref: refs[0]! };
}

/**
 * The merge base sent with the upload, so the run is compared with that commit's run; null when
 * this clone cannot tell (the planned changes say why, when they are computed).
 */
export function findMergeBase(git: Git, commit: string, base: string): string | null {
  const located = locateMergeBase(git, commit, base);
  return located.kind === "found" ? located.mergeBase : null;
}

/** How to get the history the merge base needs, in the words of the CI the command runs in. */
function fetchHint(around: ChangesSurroundings, base: string): string {
  if (around.env.GITHUB_ACTIONS === "true") {
    return 'check out the full history: "fetch-depth: 0" on actions/checkout';
  }
  if (around.env.GITLAB_CI === "true") {
    return `set the variable GIT_DEPTH to 0 and run "git fetch origin ${base}" before the upload`;
  }
  return `fetch the base branch and its history first: "git fetch origin ${base}" ("git fetch --unshallow origin ${base}" in a shallow clone)`;
}

/**
 * The line printed for changed lines that were sent: `Changed lines: 3 files, 41 lines against
 * main@1a2b3c4`, with `, 1 renamed file` before the origin when the diff renames files; for
 * renames sent alone, `Renamed files: 1 against the parent 1a2b3c4`.
 */
export function changedLinesSummary(prepared: PreparedChanges): string {
  if (prepared.renamesBase !== null) return `Renamed files: ${prepared.renamed} ${prepared.origin}`;
  const files = `${prepared.files} file${prepared.files === 1 ? "" : "s"}`;
  const lines = `${prepared.lines} line${prepared.lines === 1 ? "" : "s"}`;
  const renamed =
    prepared.renamed > 0 ? `, ${prepared.renamed} renamed file${prepared.renamed === 1 ? "" : "s"}` : "";
  return `Changed lines: ${files}, ${lines}${renamed} ${prepared.origin}`;
}

async function* chunksOf(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text, "utf8");
}

/** The upload's identity the changed lines are filed under: the same run as the report's. */
export interface ChangesTarget {
  url: string;
  token: string;
  repositoryId: string;
  commit: string;
  branch: string | null;
  pullRequestNumber: number | null;
  baseBranch: string | null;
  /** Where the commit meets the base branch, when git could tell. */
  mergeBaseOid: string | null;
  /** The commit's first-parent ancestors, when it is no pull request's and git could list them. */
  ancestorOids?: string[] | null;
  /** The configuration the report carries: the changed lines may open the run, which keeps it. */
  configToml?: string | null;
}

/**
 * Uploads the changed lines as a CHANGES artifact of the report's run. A change set that adds no
 * line and renames no file is not sent (there is nothing to measure or match). Returns the warning to print when the server could not
 * take them: the report's own upload goes ahead either way.
 */
export async function sendChanges(
  target: ChangesTarget,
  prepared: PreparedChanges,
): Promise<{ printed: string } | { warning: string }> {
  if (prepared.lines === 0 && prepared.renamed === 0) {
    return { printed: `Changed lines: none ${prepared.origin} (nothing sent)` };
  }
  const body = uploadBody(chunksOf(prepared.text), {
    repositoryId: target.repositoryId,
    commitOid: target.commit,
    branch: target.branch,
    ...(target.pullRequestNumber === null ? {} : { pullRequestNumber: target.pullRequestNumber }),
    ...(target.baseBranch === null ? {} : { baseBranch: target.baseBranch }),
    ...(target.mergeBaseOid === null ? {} : { mergeBaseOid: target.mergeBaseOid }),
    ...(target.ancestorOids ? { ancestorOids: target.ancestorOids } : {}),
    ...(prepared.renamesBase === null ? {} : { renamesBaseOid: prepared.renamesBase }),
    analyzer: CHANGES_ANALYZER,
    analyzerType: null,
    key: null,
    workDir: prepared.workDir,
    reporter: "assay-cli",
    reporterVersion: CLI_VERSION,
    ...(target.configToml ? { configToml: target.configToml } : {}),
  });
  try {
    interpretUploadAnswer(await postGraphql(target.url, target.token, body), null);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return { warning: `${NOT_SENT}: ${error.message}` };
  }
  return { printed: changedLinesSummary(prepared) };
}
