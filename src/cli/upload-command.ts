import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pipeline, Readable } from "node:stream";
import { createGzip } from "node:zlib";
import type { VcsProvider } from "../db/types.ts";
import { VCS_PROVIDERS } from "../modules/accounts/vcs.ts";
import { CliError, type Command, type Flags, UsageError } from "./command.ts";
import {
  CLI_VERSION,
  formatBytes,
  interpretUploadAnswer,
  postGraphql,
  resolveRepositoryId,
} from "./upload-request.ts";

/**
 * `assay upload`: sends an analyzer or coverage report from CI to a running Assay server through
 * the `uploadArtifact` mutation, authenticated by a personal access token (docs/ingestion.md).
 * The file is streamed: read, gzipped, base64-encoded and written into the JSON request body as
 * it goes, so a report of any size costs a few megabytes of memory.
 */

/** The mutation sent; `data` is the base64 of the gzipped report. */
export const UPLOAD_MUTATION =
  "mutation Upload($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok message error artifactId run { id runUid status } } }";

const DEFAULT_URL = "http://localhost:4000";
const READ_CHUNK_BYTES = 1024 * 1024;
const COMMIT_PATTERN = /^[0-9a-fA-F]{7,64}$/;

/** Commit variables of the common CI services, in the order they are tried. */
const COMMIT_VARIABLES = [
  "GITHUB_SHA",
  "CI_COMMIT_SHA",
  "BITBUCKET_COMMIT",
  "BUILDKITE_COMMIT",
  "CIRCLE_SHA1",
  "GIT_COMMIT",
];
/** Branch variables, in order; GitHub's head ref (set on pull requests) before its ref name. */
const BRANCH_VARIABLES = [
  "GITHUB_HEAD_REF",
  "GITHUB_REF_NAME",
  "CI_COMMIT_REF_NAME",
  "BITBUCKET_BRANCH",
  "BUILDKITE_BRANCH",
  "CIRCLE_BRANCH",
  "GIT_BRANCH",
];

/** Short provider names of `--repository PROVIDER/LOGIN/NAME`, as the contract's CLI spells them. */
const PROVIDER_ALIASES: Record<string, VcsProvider> = {
  gh: "GITHUB",
  "github.com": "GITHUB",
  gl: "GITLAB",
  "gitlab.com": "GITLAB",
  bb: "BITBUCKET",
  "bitbucket.org": "BITBUCKET",
};

/** The environment variables a run sees. */
export type Env = Readonly<Record<string, string | undefined>>;

/** Runs git with `args` in the working directory: its trimmed output, or null when it failed. */
export type Git = (args: string[]) => string | null;

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
  workDir: string;
  /** The server's base URL, without a trailing slash. */
  url: string;
  token: string;
  progress: boolean;
}

/** Where the command runs: environment, directory, git, and whether stderr is a terminal. */
export interface UploadSurroundings {
  env: Env;
  cwd: string;
  git: Git;
  stderrIsTty: boolean;
}

/** The input fields of `uploadArtifact` other than `data` and `compression`. */
export interface UploadFields {
  repositoryId: string;
  commitOid: string;
  branch: string | null;
  analyzer: string;
  analyzerType: string | null;
  key: string | null;
  workDir: string;
  reporter: string;
  reporterVersion: string;
}

/** The first non-empty variable of `names` in `env`. */
function firstSet(env: Env, names: string[]): string | null {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return null;
}

/** The commit: the CI's variable (see {@link COMMIT_VARIABLES}), else `git rev-parse HEAD`. */
export function detectCommit(env: Env, git: Git): string | null {
  return firstSet(env, COMMIT_VARIABLES) ?? git(["rev-parse", "HEAD"]);
}

/**
 * The branch: the CI's variable (see {@link BRANCH_VARIABLES}; Jenkins' `origin/` prefix
 * dropped), else git's current branch, else null (a detached HEAD names none).
 */
export function detectBranch(env: Env, git: Git): string | null {
  const fromCi = firstSet(env, BRANCH_VARIABLES);
  if (fromCi) return fromCi.replace(/^origin\//, "");
  const fromGit = git(["rev-parse", "--abbrev-ref", "HEAD"]);
  return fromGit && fromGit !== "HEAD" ? fromGit : null;
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

/** The options of one invocation: flags first, then the CI's variables and git. */
export function resolveUploadOptions(flags: Flags, around: UploadSurroundings): UploadOptions {
  const fileFlag = flags.required("file");
  const analyzer = flags.required("analyzer");
  const repository = parseRepositoryReference(flags.required("repository"));
  if (flags.isSet("progress") && flags.isSet("no-progress")) {
    throw new UsageError("give --progress or --no-progress, not both", uploadCommand);
  }
  const commit = flags.optional("commit") ?? detectCommit(around.env, around.git);
  if (commit === null) {
    throw new CliError("cannot tell the commit: give --commit SHA, or run inside a git checkout");
  }
  if (!COMMIT_PATTERN.test(commit)) {
    throw new CliError(`the commit must be 7 to 64 hexadecimal characters, got "${commit}"`);
  }
  const token = flags.optional("token") ?? around.env.ASSAY_TOKEN?.trim();
  if (!token) {
    throw new CliError(
      "no token: set ASSAY_TOKEN to a personal access token with write access to the repository",
    );
  }
  const url = (flags.optional("url") ?? around.env.ASSAY_URL?.trim() ?? DEFAULT_URL).replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]/.test(url)) throw new CliError(`--url must be an http or https URL, got "${url}"`);
  const workDirFlag = flags.optional("work-dir");
  return {
    file: fileFlag === "-" ? "-" : path.resolve(around.cwd, fileFlag),
    repository,
    analyzer,
    analyzerType: flags.optional("analyzer-type") ?? null,
    key: flags.optional("key") ?? null,
    commit: commit.toLowerCase(),
    branch: flags.optional("branch") ?? detectBranch(around.env, around.git),
    workDir: workDirFlag
      ? path.resolve(around.cwd, workDirFlag)
      : (around.git(["rev-parse", "--show-toplevel"]) ?? around.cwd),
    url,
    token,
    progress: flags.isSet("progress") || (!flags.isSet("no-progress") && around.stderrIsTty),
  };
}

/** Runs git in `cwd`; null when git is missing or fails (not a checkout, no commits). */
export function gitIn(cwd: string): Git {
  return (args) => {
    try {
      const out = execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
      return out.trim() || null;
    } catch {
      return null;
    }
  };
}

/** Hooks of {@link uploadBody}: the file's bytes read so far, and the body's size when it is all out. */
export interface BodyHooks {
  onRead?(bytesRead: number): void;
  onEnd?(bodyBytes: number): void;
}

/**
 * The request body, streamed: `{"query": ..., "variables": {"input": {...fields, "compression":
 * "GZIP", "data": "<base64 of the gzipped report>"}}}`. Reads `report` only as fast as the body
 * is consumed.
 */
export async function* uploadBody(
  report: AsyncIterable<Uint8Array>,
  fields: UploadFields,
  hooks: BodyHooks = {},
): AsyncGenerator<Uint8Array> {
  const input = JSON.stringify({ ...fields, compression: "GZIP" });
  const head = `{"query":${JSON.stringify(UPLOAD_MUTATION)},"variables":{"input":${input.slice(0, -1)},"data":"`;
  let sent = 0;
  const out = (text: string) => {
    sent += text.length;
    return Buffer.from(text, "latin1");
  };
  yield out(head);
  for await (const text of base64Of(gzipOf(counted(report, hooks.onRead)))) yield out(text);
  yield out(`"}}}`);
  hooks.onEnd?.(sent);
}

async function* counted(
  chunks: AsyncIterable<Uint8Array>,
  onRead: ((bytesRead: number) => void) | undefined,
): AsyncGenerator<Uint8Array> {
  let read = 0;
  for await (const chunk of chunks) {
    read += chunk.length;
    onRead?.(read);
    yield chunk;
  }
}

async function* gzipOf(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  // Errors reach the iteration below; the callback only keeps `pipeline` from throwing them again.
  const gzip = pipeline(Readable.from(chunks, { objectMode: false }), createGzip(), () => {});
  try {
    for await (const chunk of gzip) yield chunk as Buffer;
  } finally {
    gzip.destroy();
  }
}

/** Base64 of the concatenated chunks, piece by piece: bytes past a multiple of 3 wait for the next. */
export async function* base64Of(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  let carry = Buffer.alloc(0);
  for await (const chunk of chunks) {
    const bytes = Buffer.concat([carry, chunk]);
    const whole = bytes.length - (bytes.length % 3);
    if (whole > 0) yield bytes.subarray(0, whole).toString("base64");
    carry = Buffer.from(bytes.subarray(whole));
  }
  if (carry.length > 0) yield carry.toString("base64");
}

/** How progress is shown: where it goes, how often, and whether lines overwrite each other. */
export interface ProgressOptions {
  label: string;
  /** The file's size, or null for stdin. */
  total: number | null;
  write(text: string): void;
  /** On a terminal one line is redrawn; elsewhere (a CI log) each update is a line. */
  interactive: boolean;
  now?: () => number;
}

/** Reports bytes read, a few times a second on a terminal and every few seconds in a log. */
export function createProgress(options: ProgressOptions): {
  read(bytes: number): void;
  done(bodyBytes: number): void;
} {
  const now = options.now ?? Date.now;
  const interval = options.interactive ? 250 : 3000;
  const started = now();
  let last: number | null = null;
  let bytesRead = 0;
  const show = (line: string, final: boolean) => {
    if (options.interactive) options.write(`\r${line}\u001b[K${final ? "\n" : ""}`);
    else options.write(`${line}\n`);
  };
  const of = () => {
    if (options.total === null) return formatBytes(bytesRead);
    const percent = options.total === 0 ? 100 : Math.floor((bytesRead / options.total) * 100);
    return `${formatBytes(bytesRead)} / ${formatBytes(options.total)} (${percent}%)`;
  };
  return {
    read(bytes) {
      bytesRead = bytes;
      const at = now();
      if (last !== null && at - last < interval) return;
      last = at;
      show(`Uploading ${options.label}: ${of()}`, false);
    },
    done(bodyBytes) {
      const seconds = ((now() - started) / 1000).toFixed(1);
      show(`Uploaded ${options.label}: ${of()}, ${formatBytes(bodyBytes)} sent in ${seconds} s`, true);
    },
  };
}

/** The report's bytes and size: the file (checked readable now), or stdin. */
async function openReport(file: string): Promise<{ chunks: AsyncIterable<Uint8Array>; size: number | null }> {
  if (file === "-") return { chunks: process.stdin, size: null };
  let size: number;
  try {
    const stat = await fs.promises.stat(file);
    if (!stat.isFile()) throw new CliError(`--file: ${file} is not a file`);
    size = stat.size;
    await fs.promises.access(file, fs.constants.R_OK);
  } catch (error) {
    if (error instanceof CliError) throw error;
    const code = (error as { code?: string }).code;
    const reason =
      code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : (code ?? String(error));
    throw new CliError(`--file: cannot read ${file}: ${reason}`);
  }
  return { chunks: readFile(file), size };
}

async function* readFile(file: string): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of fs.createReadStream(file, { highWaterMark: READ_CHUNK_BYTES }))
      yield chunk as Buffer;
  } catch (error) {
    throw new CliError(`--file: reading ${file} failed: ${(error as Error).message}`);
  }
}

/** The `upload` command. */
export const uploadCommand: Command = {
  name: "upload",
  summary:
    "Upload an analyzer (SARIF) or coverage report to an Assay server, for CI. Streams the file gzipped; the token comes from ASSAY_TOKEN. Commit and branch default to the CI's variables, then git.",
  flags: {
    file: { type: "string", placeholder: "PATH", required: true, description: "The report; - reads stdin." },
    analyzer: {
      type: "string",
      placeholder: "SHORTCODE",
      required: true,
      description: "The analyzer (eslint, test-coverage, changes...).",
    },
    repository: {
      type: "string",
      placeholder: "ID|PROVIDER/LOGIN/NAME",
      required: true,
      description: "The repository: its id, or e.g. gh/acme/api.",
    },
    "analyzer-type": {
      type: "string",
      placeholder: "TYPE",
      description: "community for analyzers outside the catalog.",
    },
    key: {
      type: "string",
      placeholder: "LANGUAGE",
      description: "Coverage: the language (javascript, go, python...).",
    },
    commit: {
      type: "string",
      placeholder: "SHA",
      description: "The commit (default: the CI's variable, else git HEAD).",
    },
    branch: {
      type: "string",
      placeholder: "NAME",
      description: "The branch (default: the CI's variable, else git).",
    },
    "work-dir": {
      type: "string",
      placeholder: "DIR",
      description: "Root the report's paths are relative to (default: git top level).",
    },
    url: {
      type: "string",
      placeholder: "URL",
      description: `The server (default: ASSAY_URL, else ${DEFAULT_URL}).`,
    },
    token: {
      type: "string",
      placeholder: "TOKEN",
      description: "Personal access token (default: ASSAY_TOKEN; prefer the variable).",
    },
    progress: {
      type: "boolean",
      description: "Show progress on stderr (default when stderr is a terminal).",
    },
    "no-progress": { type: "boolean", description: "Do not show progress." },
  },
  async run({ flags, print }) {
    const cwd = process.env.INIT_CWD ?? process.cwd();
    const options = resolveUploadOptions(flags, {
      env: process.env,
      cwd,
      git: gitIn(cwd),
      stderrIsTty: process.stderr.isTTY === true,
    });
    const report = await openReport(options.file);
    const repositoryId = await resolveRepositoryId(options);
    const progress = options.progress
      ? createProgress({
          label: options.file === "-" ? "stdin" : path.basename(options.file),
          total: report.size,
          write: (text) => process.stderr.write(text),
          interactive: process.stderr.isTTY === true,
        })
      : null;
    let sentBytes: number | null = null;
    const body = uploadBody(
      report.chunks,
      {
        repositoryId,
        commitOid: options.commit,
        branch: options.branch,
        analyzer: options.analyzer,
        analyzerType: options.analyzerType,
        key: options.key,
        workDir: options.workDir,
        reporter: "assay-cli",
        reporterVersion: CLI_VERSION,
      },
      {
        onRead: (bytes) => progress?.read(bytes),
        onEnd: (bytes) => {
          sentBytes = bytes;
          progress?.done(bytes);
        },
      },
    );
    const answer = interpretUploadAnswer(await postGraphql(options.url, options.token, body), sentBytes);
    print(answer.message);
    if (answer.run) print(`Run ${answer.run.runUid}: ${answer.run.status}`);
  },
};
