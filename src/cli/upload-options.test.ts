import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { fakeGit } from "../../test/helpers/fake-git.ts";
import type { Env } from "./ci-environment.ts";
import { CliError, Flags, UsageError } from "./command.ts";
import { uploadCommand } from "./upload-command.ts";
import { parseRepositoryReference, resolveUploadOptions, type UploadSurroundings } from "./upload-options.ts";

const SHA = "0123456789abcdef0123456789abcdef01234567";
const NO_GIT = fakeGit({});

/** The flags of one `assay upload` command line, as the entry point hands them over. */
function flagsOf(values: Record<string, string | boolean>): Flags {
  return new Flags(uploadCommand, values);
}

describe("options", () => {
  const around = (overrides: Partial<UploadSurroundings> = {}): UploadSurroundings => ({
    env: { ASSAY_TOKEN: "assay_pat_fromenv", GITHUB_SHA: SHA, GITHUB_REF_NAME: "main" },
    cwd: "/ci/checkout/sub",
    git: fakeGit({ "rev-parse --show-toplevel": "/ci/checkout" }),
    readText: () => null,
    realpath: (directory) => directory,
    stderrIsTty: false,
    ...overrides,
  });
  const required = { file: "report.sarif", analyzer: "eslint", repository: "gh/acme/api" };

  test("defaults come from the CI environment and git, flags win over them", () => {
    const options = resolveUploadOptions(flagsOf(required), around());
    assert.deepEqual(options, {
      file: "/ci/checkout/sub/report.sarif",
      repository: { vcsProvider: "GITHUB", login: "acme", name: "api" },
      analyzer: "eslint",
      analyzerType: null,
      key: null,
      commit: SHA,
      branch: "main",
      pullRequestNumber: null,
      baseBranch: null,
      workDir: "/ci/checkout",
      repositoryRoot: null,
      url: "http://localhost:4000",
      token: "assay_pat_fromenv",
      progress: false,
      changes: { kind: "auto" },
      waitSeconds: null,
      config: { path: "/ci/checkout/.deepsource.toml", explicit: false },
    });
    const given = resolveUploadOptions(
      flagsOf({
        ...required,
        file: "-",
        "analyzer-type": "community",
        key: "javascript",
        commit: "ABCDEF1",
        branch: "pr-7",
        "work-dir": "../other",
        url: "https://assay.example.com/",
        token: "assay_pat_fromflag",
      }),
      around({ env: { ASSAY_URL: "http://ignored:4000", ASSAY_TOKEN: "ignored" } }),
    );
    assert.equal(given.file, "-");
    assert.equal(given.commit, "abcdef1");
    assert.equal(given.branch, "pr-7");
    assert.equal(given.workDir, "/ci/checkout/other");
    assert.equal(given.url, "https://assay.example.com");
    assert.equal(given.token, "assay_pat_fromflag");
    assert.equal(given.analyzerType, "community");
    assert.equal(given.key, "javascript");
    const fromEnv = resolveUploadOptions(
      flagsOf(required),
      around({ env: { ...around().env, ASSAY_URL: "http://a:1//" } }),
    );
    assert.equal(fromEnv.url, "http://a:1");
    assert.equal(
      resolveUploadOptions(flagsOf(required), around({ git: NO_GIT })).workDir,
      "/ci/checkout/sub",
    );
  });

  test("--work-dir inside the checkout sends the checkout's root as repositoryRoot", () => {
    const placed = (workDir: string | undefined, overrides: Partial<UploadSurroundings> = {}) => {
      const flags = workDir === undefined ? required : { ...required, "work-dir": workDir };
      const options = resolveUploadOptions(flagsOf(flags), around(overrides));
      return { workDir: options.workDir, repositoryRoot: options.repositoryRoot };
    };
    // Run in the checkout's `sub` directory: `.` is that subdirectory of the root.
    assert.deepEqual(placed("."), { workDir: "/ci/checkout/sub", repositoryRoot: "/ci/checkout" });
    assert.deepEqual(placed("/ci/checkout/web/app"), {
      workDir: "/ci/checkout/web/app",
      repositoryRoot: "/ci/checkout",
    });
    // The root itself, the default, a directory outside the checkout, no git: workDir is the root.
    assert.deepEqual(placed(".."), { workDir: "/ci/checkout", repositoryRoot: null });
    assert.deepEqual(placed(undefined), { workDir: "/ci/checkout", repositoryRoot: null });
    assert.deepEqual(placed("/ci/build"), { workDir: "/ci/build", repositoryRoot: null });
    assert.deepEqual(placed("/ci/checkout-2/web"), { workDir: "/ci/checkout-2/web", repositoryRoot: null });
    assert.deepEqual(placed(".", { git: NO_GIT }), { workDir: "/ci/checkout/sub", repositoryRoot: null });
  });

  test("a work directory reached through a symbolic link is placed by its real path, its root sent through the link", () => {
    // git names the checkout /ci/checkout; the job reaches it as /builds/acme, and clang wrote
    // the report's paths under $PWD, /builds/acme/sub.
    const links: Record<string, string> = {
      "/builds/acme": "/ci/checkout",
      "/builds/acme/sub": "/ci/checkout/sub",
      "/ci/checkout/linked": "/ci/checkout/sub",
      "/mnt/elsewhere": "/opt/elsewhere",
    };
    const realpath = (directory: string) => links[directory] ?? directory;
    const placed = (workDir: string) => {
      const options = resolveUploadOptions(
        flagsOf({ ...required, "work-dir": workDir }),
        around({ realpath }),
      );
      return { workDir: options.workDir, repositoryRoot: options.repositoryRoot };
    };
    assert.deepEqual(placed("/builds/acme/sub"), {
      workDir: "/builds/acme/sub",
      repositoryRoot: "/builds/acme",
    });
    // A link inside the checkout is a directory of it like any other.
    assert.deepEqual(placed("/ci/checkout/linked"), {
      workDir: "/ci/checkout/linked",
      repositoryRoot: "/ci/checkout",
    });
    // The root through the link, and a link to somewhere else: workDir is the root, as before.
    assert.deepEqual(placed("/builds/acme"), { workDir: "/builds/acme", repositoryRoot: null });
    assert.deepEqual(placed("/mnt/elsewhere"), { workDir: "/mnt/elsewhere", repositoryRoot: null });
  });

  test("the .deepsource.toml sent is the repository root's, --config's, or none with --no-config", () => {
    const configOf = (flags: Record<string, string | boolean>, overrides: Partial<UploadSurroundings> = {}) =>
      resolveUploadOptions(flagsOf({ ...required, ...flags }), around(overrides)).config;
    assert.deepEqual(configOf({}), { path: "/ci/checkout/.deepsource.toml", explicit: false });
    // Outside git: the work dir's.
    assert.deepEqual(configOf({}, { git: NO_GIT }), {
      path: "/ci/checkout/sub/.deepsource.toml",
      explicit: false,
    });
    assert.deepEqual(configOf({ "work-dir": "/elsewhere" }, { git: NO_GIT }), {
      path: "/elsewhere/.deepsource.toml",
      explicit: false,
    });
    assert.deepEqual(configOf({ config: "conf/ds.toml" }), {
      path: "/ci/checkout/sub/conf/ds.toml",
      explicit: true,
    });
    assert.equal(configOf({ "no-config": true }), null);
    assert.throws(() => configOf({ config: "x.toml", "no-config": true }), UsageError);
  });

  test("progress is on for a terminal unless --no-progress, and on anywhere with --progress", () => {
    const progressOf = (flags: Record<string, boolean>, stderrIsTty: boolean) =>
      resolveUploadOptions(flagsOf({ ...required, ...flags }), around({ stderrIsTty })).progress;
    assert.equal(progressOf({}, true), true);
    assert.equal(progressOf({}, false), false);
    assert.equal(progressOf({ "no-progress": true }, true), false);
    assert.equal(progressOf({ progress: true }, false), true);
    assert.throws(() => progressOf({ progress: true, "no-progress": true }, true), UsageError);
  });

  test("missing or wrong values are refused with a message naming them", () => {
    const refused = (
      values: Record<string, string>,
      env: Env,
      error: new (message: string) => Error,
      message: RegExp,
    ) =>
      assert.throws(
        () => resolveUploadOptions(flagsOf(values), around({ env, git: NO_GIT })),
        (e: unknown) => e instanceof error && message.test(e.message),
      );
    const env = { ASSAY_TOKEN: "t", GITHUB_SHA: SHA };
    refused({ analyzer: "eslint", repository: "x" }, env, UsageError, /missing --file PATH/);
    refused({ file: "f", repository: "x" }, env, UsageError, /missing --analyzer SHORTCODE/);
    refused({ file: "f", analyzer: "eslint" }, env, UsageError, /missing --repository/);
    refused(required, { ASSAY_TOKEN: "t" }, CliError, /^cannot tell the commit: give --commit SHA/);
    refused({ ...required, commit: "main" }, env, CliError, /7 to 64 hexadecimal characters, got "main"/);
    refused(required, { GITHUB_SHA: SHA }, CliError, /^no token: set ASSAY_TOKEN/);
    refused({ ...required, url: "localhost:4000" }, env, CliError, /--url must be an http or https URL/);
    refused(
      { ...required, repository: "hub/acme/api" },
      env,
      CliError,
      /"hub" is not a provider; use gh, gl, bb/,
    );
  });

  test("a repository is an id, or a provider (short or enum name), login and name", () => {
    assert.deepEqual(parseRepositoryReference("gl/acme/api"), {
      vcsProvider: "GITLAB",
      login: "acme",
      name: "api",
    });
    assert.deepEqual(parseRepositoryReference("bitbucket.org/acme/api"), {
      vcsProvider: "BITBUCKET",
      login: "acme",
      name: "api",
    });
    assert.deepEqual(parseRepositoryReference("github_enterprise/acme/api"), {
      vcsProvider: "GITHUB_ENTERPRISE",
      login: "acme",
      name: "api",
    });
    assert.deepEqual(parseRepositoryReference("UmVwb3NpdG9yeTphYmNkZWZnaGlq"), {
      id: "UmVwb3NpdG9yeTphYmNkZWZnaGlq",
    });
  });

  test("--wait waits ten minutes unless --timeout says otherwise; --timeout alone is refused", () => {
    const waitOf = (flags: Record<string, string | boolean>) =>
      resolveUploadOptions(flagsOf({ ...required, ...flags }), around()).waitSeconds;
    assert.equal(waitOf({}), null);
    assert.equal(waitOf({ wait: true }), 600);
    assert.equal(waitOf({ wait: true, timeout: "45" }), 45);
    const usage = (flags: Record<string, string | boolean>, message: RegExp) =>
      assert.throws(
        () => waitOf(flags),
        (e: unknown) => e instanceof UsageError && message.test(e.message),
      );
    usage({ timeout: "45" }, /^upload: --timeout needs --wait$/);
    for (const bad of ["0", "-5", "1.5", "10m", "21601"]) {
      usage({ wait: true, timeout: bad }, /--timeout must be a whole number of seconds from 1 to 21600/);
    }
  });

  test("coverage without --key, or with a key the server does not know, is refused naming the keys", () => {
    const coverage = { ...required, analyzer: "test-coverage" };
    const refused = (flags: Record<string, string>, message: RegExp) =>
      assert.throws(
        () => resolveUploadOptions(flagsOf(flags), around()),
        (e: unknown) => e instanceof UsageError && message.test(e.message),
      );
    refused(
      coverage,
      /^upload: --analyzer test-coverage needs --key LANGUAGE, the language of the covered code: one of python, go, javascript, ruby, java, scala, php, csharp, cxx, rust, swift, kotlin$/,
    );
    refused(
      { ...coverage, key: "typescript" },
      /^upload: --key: unknown language "typescript"; use one of python, go/,
    );
    assert.equal(resolveUploadOptions(flagsOf({ ...coverage, key: "go" }), around()).key, "go");
  });

  test("a GitHub pull request's head commit and branch are taken from the event payload", () => {
    const event = JSON.stringify({
      number: 42,
      pull_request: {
        number: 42,
        head: { sha: "c".repeat(40), ref: "feature/login" },
        base: { ref: "main" },
      },
    });
    const options = resolveUploadOptions(
      flagsOf(required),
      around({
        env: {
          ASSAY_TOKEN: "t",
          GITHUB_ACTIONS: "true",
          GITHUB_EVENT_NAME: "pull_request",
          GITHUB_EVENT_PATH: "/runner/event.json",
          GITHUB_SHA: "d".repeat(40),
          GITHUB_REF_NAME: "42/merge",
        },
        readText: (file) => (file === "/runner/event.json" ? event : null),
      }),
    );
    assert.equal(options.commit, "c".repeat(40));
    assert.equal(options.branch, "feature/login");
    assert.equal(options.pullRequestNumber, 42);
    assert.equal(options.baseBranch, "main");
  });

  test("--pr and --base win over the CI's pull request; a --pr that is no number is refused", () => {
    const env = {
      ASSAY_TOKEN: "t",
      GITHUB_SHA: SHA,
      CI_MERGE_REQUEST_IID: "5",
      CI_MERGE_REQUEST_TARGET_BRANCH_NAME: "develop",
    };
    const detected = resolveUploadOptions(flagsOf(required), around({ env }));
    assert.deepEqual([detected.pullRequestNumber, detected.baseBranch], [5, "develop"]);
    const both = resolveUploadOptions(flagsOf({ ...required, pr: "9", base: "release" }), around({ env }));
    assert.deepEqual([both.pullRequestNumber, both.baseBranch], [9, "release"]);
    // --pr alone names another pull request: the CI's target branch is not assumed for it.
    const prOnly = resolveUploadOptions(flagsOf({ ...required, pr: "9" }), around({ env }));
    assert.deepEqual([prOnly.pullRequestNumber, prOnly.baseBranch], [9, null]);
    const baseOnly = resolveUploadOptions(flagsOf({ ...required, base: "main" }), around());
    assert.deepEqual([baseOnly.pullRequestNumber, baseOnly.baseBranch], [null, "main"]);
    assert.throws(
      () => resolveUploadOptions(flagsOf({ ...required, pr: "#9" }), around()),
      (error: unknown) =>
        error instanceof UsageError && /--pr must be a pull request number, got "#9"/.test(error.message),
    );
  });
});
