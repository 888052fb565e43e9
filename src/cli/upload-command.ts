import fs from "node:fs";
import path from "node:path";
import { CONFIG_MAX_BYTES } from "../formats/deepsource-config/limits.ts";
import { SNIFF_HEAD_BYTES, sniffFormat } from "../formats/sniff.ts";
import { wrongFormatMessage } from "../ingestion/errors.ts";
import { artifactKindOf } from "../ingestion/types.ts";
import { gitIn, readTextFile, realDirectory } from "./ci-environment.ts";
import { CliError, type Command, EXIT_OK } from "./command.ts";
import { SERVER_FLAGS } from "./server-flags.ts";
import { peekHead, uploadBody } from "./upload-body.ts";
import { findMergeBase, planChanges, sendChanges } from "./upload-changes.ts";
import { goModulesNote, goModulesOf } from "./upload-go-module.ts";
import { findFirstParentAncestors } from "./upload-history.ts";
import { planLockfiles } from "./upload-lockfiles.ts";
import { DEFAULT_WAIT_SECONDS, resolveUploadOptions, type UploadOptions } from "./upload-options.ts";
import { createProgress } from "./upload-progress.ts";
import { failureReason, formatOutcome } from "./upload-report.ts";
import { CLI_VERSION, interpretUploadAnswer, postGraphql, resolveRepositoryId } from "./upload-request.ts";
import { verdictOf, waitForUpload } from "./upload-wait.ts";

/**
 * `assay upload`: sends an analyzer or coverage report from CI to a running Assay server through
 * the `uploadArtifact` mutation, authenticated by a personal access token (docs/ingestion.md).
 * The file is streamed (src/cli/upload-body.ts); the options come from the flags, the CI's
 * variables and git (src/cli/upload-options.ts).
 */

const READ_CHUNK_BYTES = 1024 * 1024;

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

/**
 * The `.deepsource.toml` to send, read now: null for `--no-config`, or when the repository has
 * none and `--config` did not name one. One that cannot be read, or is over the server's limit, is
 * an error before anything is sent; the server checks the rest (TOML, shape).
 */
async function readConfig(config: UploadOptions["config"]): Promise<string | null> {
  if (config === null) return null;
  let text: string;
  try {
    text = await fs.promises.readFile(config.path, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOENT" && !config.explicit) return null;
    const reason =
      code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : (code ?? String(error));
    throw new CliError(`--config: cannot read ${config.path}: ${reason}`);
  }
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > CONFIG_MAX_BYTES) {
    throw new CliError(
      `${config.path} is ${bytes} bytes; a .deepsource.toml of at most ${CONFIG_MAX_BYTES} is accepted (--no-config sends none)`,
    );
  }
  return text;
}

/** The `upload` command. */
export const uploadCommand: Command = {
  name: "upload",
  summary:
    "Upload an analyzer (SARIF, cppcheck or checkstyle XML, go vet, GCC, ShellCheck, pylint, Bandit or ESLint JSON) or coverage report, or an SBOM (analyzer sca), to an Assay server, for CI. Streams the file gzipped; the token comes from ASSAY_TOKEN. Commit, branch and pull request default to the CI's variables, then git. For a pull request it also sends the changed lines from git, for a branch build the files its commit renamed (see --changes). With --wait, waits for processing and exits by the check's verdict: 0 passed, 1 failed, 3 not known in time.",
  flags: {
    file: { type: "string", placeholder: "PATH", required: true, description: "The report; - reads stdin." },
    analyzer: {
      type: "string",
      placeholder: "SHORTCODE",
      required: true,
      description: "The analyzer (eslint, test-coverage, changes, sca...).",
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
      description:
        "Coverage: the language (javascript, go, python...); sca: cyclonedx or spdx (else detected).",
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
    pr: {
      type: "string",
      placeholder: "N",
      description:
        "The pull request the commit belongs to (default: the CI's pull request, on GitHub Actions, GitLab, Bitbucket, Azure Pipelines, Jenkins, CircleCI or Buildkite).",
    },
    base: {
      type: "string",
      placeholder: "BRANCH",
      description:
        "The branch the pull request merges into, whose results the run is compared with (default: the CI's).",
    },
    changes: {
      type: "string",
      placeholder: "auto|off|FILE",
      description:
        "Changed lines sent with the report, for new-code coverage and renamed files: auto (default) sends, for a pull request or --base, git diff from the merge base with the base branch (origin/BRANCH, else BRANCH) to the commit, and warns without stopping when the clone lacks that history (fetch-depth: 0); for a branch build without either, only the files the commit renamed against its first parent (git diff --find-renames --diff-filter=R), so their findings keep their states, and no changed line; off sends none; FILE sends a unified diff or JSON ranges.",
    },
    "work-dir": {
      type: "string",
      placeholder: "DIR",
      description:
        "The directory the report was made in (default: git top level). Inside the git checkout, its relative paths are read from there and the checkout's root is sent too; outside it, it is taken as the repository's root. For a Go cover profile whose files lie under the module path of the go.mod there, that module path.",
    },
    config: {
      type: "string",
      placeholder: "PATH",
      description:
        "The repository's .deepsource.toml, sent with the report (default: the one at the git top level, else the work dir, when there is one).",
    },
    "no-config": { type: "boolean", description: "Send no .deepsource.toml." },
    "no-lockfiles": {
      type: "boolean",
      description:
        "With an SBOM: send no list of the lockfiles git tracks at the commit (sent by default, so a target whose lockfile is gone stops counting).",
    },
    ...SERVER_FLAGS,
    progress: {
      type: "boolean",
      description: "Show progress on stderr (default when stderr is a terminal).",
    },
    "no-progress": { type: "boolean", description: "Do not show progress." },
    wait: {
      type: "boolean",
      description:
        "Wait for processing; exit 1 when the check fails, 3 when its outcome is not known in time.",
    },
    timeout: {
      type: "string",
      placeholder: "SECONDS",
      description: `With --wait: how long to wait (default ${DEFAULT_WAIT_SECONDS}).`,
    },
  },
  async run({ flags, print, note }) {
    const cwd = process.env.INIT_CWD ?? process.cwd();
    const git = gitIn(cwd);
    const options = resolveUploadOptions(flags, {
      env: process.env,
      cwd,
      git,
      readText: readTextFile,
      realpath: realDirectory,
      stderrIsTty: process.stderr.isTTY === true,
    });
    const changes = planChanges(options, { git, env: process.env, readText: readTextFile });
    // Where the pull request meets its base branch: its run is compared with that commit's.
    const mergeBaseOid =
      "send" in changes && changes.send.mergeBase !== null
        ? changes.send.mergeBase
        : options.baseBranch === null
          ? null
          : findMergeBase(git, options.commit, options.baseBranch);
    // A build of a branch, not of a pull request: the commit's history places its run among the
    // branch's (a late run of an older commit is compared with its own ancestor, not a newer run).
    const ancestorOids =
      options.pullRequestNumber === null && options.baseBranch === null
        ? findFirstParentAncestors(git, options.commit)
        : null;
    const opened = await openReport(options.file);
    const { head, chunks } = await peekHead(opened.chunks, SNIFF_HEAD_BYTES);
    // The server's own words, before anything is sent: an LCOV file given as SARIF and the like.
    const wrong = wrongFormatMessage(artifactKindOf(options.analyzer), sniffFormat(head.toString("utf8")));
    if (wrong !== undefined) throw new CliError(wrong);
    const goModules =
      options.analyzer === "test-coverage" && options.key === "go"
        ? goModulesOf(head.toString("utf8"), {
            root: git(["rev-parse", "--show-toplevel"]) ?? options.workDir,
            git,
            readText: readTextFile,
          })
        : null;
    if (goModules !== null) note(goModulesNote(goModules));
    const report = { chunks, size: opened.size };
    const configToml = await readConfig(options.config);
    const lockfiles = planLockfiles(
      { analyzer: options.analyzer, commit: options.commit, off: flags.isSet("no-lockfiles") },
      git,
    );
    if ("skip" in lockfiles && lockfiles.skip !== null) note(`warning: ${lockfiles.skip}`);
    const repositoryId = await resolveRepositoryId(options);
    if ("skip" in changes) {
      if (changes.skip !== null) note(`warning: ${changes.skip}`);
    } else {
      // Sent first, so the report's processing (and --wait's answer) already counts them.
      const sent = await sendChanges(
        { ...options, repositoryId, configToml, mergeBaseOid, ancestorOids },
        changes.send,
      );
      if ("warning" in sent) note(`warning: ${sent.warning}`);
      else print(sent.printed);
    }
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
        ...(options.pullRequestNumber === null ? {} : { pullRequestNumber: options.pullRequestNumber }),
        ...(options.baseBranch === null ? {} : { baseBranch: options.baseBranch }),
        ...(mergeBaseOid === null ? {} : { mergeBaseOid }),
        ...(ancestorOids === null ? {} : { ancestorOids }),
        analyzer: options.analyzer,
        analyzerType: options.analyzerType,
        key: options.key,
        workDir: options.workDir,
        ...(options.repositoryRoot === null ? {} : { repositoryRoot: options.repositoryRoot }),
        ...(goModules === null ? {} : { goModules: goModules.modules }),
        reporter: "assay-cli",
        reporterVersion: CLI_VERSION,
        ...(configToml === null ? {} : { configToml }),
        ...("send" in lockfiles ? { lockfilePaths: lockfiles.send } : {}),
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
    if (options.waitSeconds === null) return;
    if (!answer.run || !answer.artifactId) {
      throw new CliError("the server's answer names no run and artifact to wait for");
    }
    note(`Waiting up to ${options.waitSeconds} s for processing...`);
    const outcome = await waitForUpload({
      url: options.url,
      token: options.token,
      runUid: answer.run.runUid,
      artifactId: answer.artifactId,
      analyzer: options.analyzer,
      timeoutSeconds: options.waitSeconds,
    });
    for (const line of formatOutcome(outcome)) print(line);
    if (verdictOf(outcome) !== EXIT_OK) throw new CliError(failureReason(outcome));
  },
};
