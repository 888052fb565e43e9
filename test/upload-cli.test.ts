// test-runner: execution-mode independent (a client of the API; the queries it sends are covered elsewhere in both modes)
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { buildCliPackage } from "../src/cli/cli-package.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { artifactsProcessed } from "./helpers/builders-artifacts.ts";
import { runShell, runSteps, type ShellRun, shellBlocksOf } from "./helpers/ci-shell.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * `assay upload` as a CI job runs it (docs/ingestion.md "`assay upload`"): the package the server
 * serves at /cli/assay-cli.tgz, run with `npx` in a directory outside the checkout and with no
 * registry reachable, uploading ESLint's SARIF and Node's LCOV for a real git repository. The
 * upload steps are read from the GitHub Actions and GitLab CI examples in the docs and run with
 * the variables each service sets; `--wait` exits by the check's verdict, and what it prints is
 * compared with the API's answer.
 */

const ROOT = path.resolve(import.meta.dirname, "..");
const FIXTURE = path.join(ROOT, "test", "fixtures", "e2e-project");
const DOCS = path.join(ROOT, "docs", "ingestion.md");

interface ESLintApi {
  lintFiles(patterns: string[]): Promise<unknown[]>;
  getRulesMetaForResults(results: unknown[]): unknown;
}
const require = createRequire(import.meta.url);
const { ESLint } = require("eslint") as { ESLint: new (options: Record<string, unknown>) => ESLintApi };
const formatSarif = require("@microsoft/eslint-formatter-sarif") as (
  results: unknown[],
  data: { cwd: string; rulesMeta: unknown },
) => string;

let server: TestServer;
let token: string;
let scratch: string;
let workDir: string;
let npmCache: string;
let githubRepositoryId: string;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  const user = await aUser(server.db);
  // The same team on GitHub and on GitLab, each with its repository: one per CI example.
  const onGithub = await anAccount(server.db, { login: "acme" }, [{ user, role: "MEMBER" }]);
  githubRepositoryId = (await aRepository(server.db, onGithub, { name: "shop" })).id;
  const onGitlab = await anAccount(server.db, { login: "acme", vcsProvider: "GITLAB" }, [
    { user, role: "MEMBER" },
  ]);
  await aRepository(server.db, onGitlab, { name: "shop" });
  token = await aToken(server.db, server.config.tokenPepper, user);
  scratch = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "assay-cli-")));
  workDir = path.join(scratch, "shop");
  npmCache = path.join(scratch, "npm-cache");
  await fs.cp(FIXTURE, workDir, { recursive: true });
  // Reports are what CI makes of a commit, not part of it.
  await fs.writeFile(path.join(workDir, ".gitignore"), "eslint.sarif\nlcov.info\n");
  git("init", "--quiet", "--initial-branch=main");
});
after(async () => {
  await server?.stop();
  if (scratch) await fs.rm(scratch, { recursive: true, force: true });
});

function git(...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=Assay Test", "-c", "user.email=test@example.com", ...args], {
    cwd: workDir,
    encoding: "utf8",
  }).trim();
}

function commitAll(message: string): string {
  git("add", "--all");
  git("commit", "--quiet", "-m", message);
  return git("rev-parse", "HEAD");
}

/** ESLint over `src/` into eslint.sarif, as the CI examples run it. */
async function lint(): Promise<void> {
  const eslint = new ESLint({
    cwd: workDir,
    useEslintrc: false,
    overrideConfig: {
      parserOptions: { ecmaVersion: 2022, sourceType: "module" },
      rules: { "no-unused-vars": "error", eqeqeq: "warn", "no-eval": "error" },
    },
  });
  const results = await eslint.lintFiles(["src"]);
  const sarif = formatSarif(results, { cwd: workDir, rulesMeta: eslint.getRulesMetaForResults(results) });
  await fs.writeFile(path.join(workDir, "eslint.sarif"), sarif);
}

/** Node's test runner with coverage into lcov.info, as the GitLab example runs it. */
function coverage(): void {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  execFileSync(
    process.execPath,
    [
      "--test",
      "--experimental-test-coverage",
      "--test-reporter=lcov",
      "--test-reporter-destination=lcov.info",
    ],
    { cwd: workDir, env, stdio: "ignore" },
  );
}

/** The upload steps of the docs' CI example `name` (its file, e.g. `.gitlab-ci.yml`). */
function uploadSteps(name: string): Promise<string[]> {
  return shellBlocksOf(DOCS, name, '/cli/assay-cli.tgz" upload');
}

/**
 * Runs `script` as a CI runner would: in the checkout, with `env` and a home and npm cache of its
 * own. The registry is unreachable, so the package must need none.
 */
function shell(script: string, env: Record<string, string>, cwd = workDir): Promise<ShellRun> {
  return runShell(script, cwd, {
    HOME: scratch,
    npm_config_cache: npmCache,
    npm_config_registry: "http://127.0.0.1:9/",
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
    ASSAY_URL: server.url,
    ASSAY_TOKEN: token,
    ...env,
  });
}

/** Runs the CI steps with `env`; the token must appear in none of their output. */
async function ci(steps: string[], env: Record<string, string>): Promise<ShellRun> {
  const ran = await runSteps(steps, (step) => shell(step, env));
  assert.ok(!`${ran.stdout}${ran.stderr}`.includes(token), "the token is never printed");
  return ran;
}

const CHECK_QUERY = `query Check($runUid: UUID!, $analyzer: [String]) {
  run(runUid: $runUid) { runUid status branchName commitOid
    checks(analyzerIn: $analyzer) { edges { node { status
      summary { occurrencesIntroduced occurrencesResolved occurrencesSuppressed
        occurrenceDistributionByCategory { category introduced }
        occurrenceDistributionBySeverity { severity introduced } }
      metrics { shortcode name unit items { key latestValueDisplay threshold thresholdStatus } }
      artifacts(last: 1) { edges { node { format readCount storedCount skippedCount skipped { reason count } } } }
    } } }
  }
}`;

interface ApiCheck {
  status: string;
  summary: {
    occurrencesIntroduced: number;
    occurrencesResolved: number;
    occurrencesSuppressed: number;
    occurrenceDistributionByCategory: Array<{ category: string; introduced: number }>;
    occurrenceDistributionBySeverity: Array<{ severity: string; introduced: number }>;
  };
  metrics: Array<{
    shortcode: string;
    name: string;
    unit: string | null;
    items: Array<{ key: string; latestValueDisplay: string | null; threshold: number | null }>;
  }>;
  artifacts: {
    edges: Array<{
      node: {
        format: string;
        readCount: number;
        storedCount: number;
        skippedCount: number;
        skipped: Array<{ reason: string; count: number }>;
      };
    }>;
  };
}
interface ApiRun {
  runUid: string;
  status: string;
  branchName: string;
  commitOid: string;
  checks: { edges: Array<{ node: ApiCheck }> };
}

/** The run a command's output names (`Run <runUid>: ...`), and its check of `analyzer`, from the API. */
async function apiRun(output: string, analyzer: string): Promise<{ run: ApiRun; check: ApiCheck | null }> {
  const runUid = /^Run ([0-9a-f-]{36}): /m.exec(output)?.[1];
  assert.ok(runUid, `the output names the run:\n${output}`);
  const data = dataOf(await gql(server.endpoint, token, CHECK_QUERY, { runUid, analyzer: [analyzer] }));
  const run = data.run as ApiRun;
  return { run, check: run.checks.edges[0]?.node ?? null };
}

/** The pull request a run joined (from the CI's variables, sent by `assay upload`), or undefined. */
function pullRequestOfRun(runUid: string) {
  return server.db
    .selectFrom("analysis_runs as r")
    .innerJoin("pull_requests as pr", "pr.id", "r.pull_request_id")
    .select(["pr.number", "pr.branch", "pr.base_branch"])
    .where("r.run_uid", "=", runUid)
    .executeTakeFirst();
}

/** The line `--wait` prints about the check's newest artifact, as the API's figures say it should read. */
function reportLine(check: ApiCheck, entries: string): string {
  const artifact = check.artifacts.edges[0]?.node;
  assert.ok(artifact, "the check has an artifact");
  const reasons = artifact.skipped.map((s) => `${s.reason} ${s.count}`).join(", ");
  return `  Report: ${artifact.format}, ${artifact.readCount} ${entries} read, ${artifact.storedCount} stored, ${artifact.skippedCount} skipped${reasons ? ` (${reasons})` : ""}`;
}

/** The lines `--wait` prints about a findings check, as the API's figures say they should read. */
function findingsLines(analyzer: string, check: ApiCheck): string[] {
  const { summary } = check;
  const byCategory = summary.occurrenceDistributionByCategory.map((d) => `${d.category} ${d.introduced}`);
  const bySeverity = summary.occurrenceDistributionBySeverity.map((d) => `${d.severity} ${d.introduced}`);
  const introduced = summary.occurrencesIntroduced;
  const split = introduced > 0 ? ` (${byCategory.join(", ")}; ${bySeverity.join(", ")})` : "";
  return [
    `Check ${analyzer}: ${check.status}`,
    reportLine(check, "results"),
    `  New findings: ${introduced}${split}; resolved ${summary.occurrencesResolved}; suppressed ${summary.occurrencesSuppressed}`,
  ];
}

/** A GitHub Actions job's variables for `event`, with its payload written where the runner puts it. */
async function githubEnv(
  event: "push" | "pull_request",
  fields: { sha: string; refName: string; headRef?: string; payload?: unknown },
): Promise<Record<string, string>> {
  const eventPath = path.join(scratch, `github-event-${event}.json`);
  await fs.writeFile(eventPath, JSON.stringify(fields.payload ?? {}));
  return {
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: event,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_SHA: fields.sha,
    GITHUB_REF_NAME: fields.refName,
    GITHUB_HEAD_REF: fields.headRef ?? "",
    GITHUB_REPOSITORY: "acme/shop",
  };
}

describe("the package the server serves", () => {
  test("is built once and served with its hash: revalidated under its plain name, immutable under the hashed one", async () => {
    const first = await fetch(`${server.url}/cli/assay-cli.tgz`);
    assert.equal(first.status, 200);
    const bytes = Buffer.from(await first.arrayBuffer());
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const version = (
      JSON.parse(await fs.readFile(path.join(ROOT, "package.json"), "utf8")) as { version: string }
    ).version;
    assert.equal(first.headers.get("content-type"), "application/gzip");
    assert.equal(first.headers.get("cache-control"), "no-cache");
    assert.equal(first.headers.get("etag"), `"sha256-${sha256}"`);
    const hashedPath = `/cli/assay-cli-${version}-${sha256.slice(0, 16)}.tgz`;
    assert.equal(first.headers.get("content-location"), hashedPath);

    // Reproducible: built again, the same bytes (so instances of a release serve one package).
    assert.equal((await buildCliPackage()).sha256, sha256, "the package builds to the same bytes");

    const revalidated = await fetch(`${server.url}/cli/assay-cli.tgz`, {
      headers: { "if-none-match": `"sha256-${sha256}"` },
    });
    assert.equal(revalidated.status, 304);
    const hashed = await fetch(`${server.url}${hashedPath}`);
    assert.equal(hashed.status, 200);
    assert.equal(hashed.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.ok(Buffer.from(await hashed.arrayBuffer()).equals(bytes), "the same bytes under both names");
    const stale = await fetch(`${server.url}/cli/assay-cli-${version}-0000000000000000.tgz`);
    assert.equal(stale.status, 404);
    assert.match(
      ((await stale.json()) as { errors: Array<{ message: string }> }).errors[0]!.message,
      /now \/cli\//,
    );
    assert.equal((await fetch(`${server.url}/cli/assay-cli.tgz`, { method: "POST" })).status, 405);

    // Installed into a directory outside the checkout, with no registry: it needs nothing else.
    const prefix = path.join(scratch, "installed");
    const installed = await shell(
      `npm install --no-save --prefix "${prefix}" "$ASSAY_URL/cli/assay-cli.tgz" >/dev/null 2>&1 && "${prefix}/node_modules/.bin/assay" --version`,
      {},
      scratch,
    );
    assert.deepEqual(installed, { status: 0, stdout: `${version}\n`, stderr: "" });
    const manifest = JSON.parse(
      await fs.readFile(path.join(prefix, "node_modules", "@assay", "cli", "package.json"), "utf8"),
    ) as Record<string, unknown>;
    assert.equal(manifest.version, version);
    assert.deepEqual(manifest.bin, { assay: "bin/assay.mjs" });
    assert.equal(manifest.dependencies, undefined, "no dependencies");
  });
});

describe("assay upload --wait, as the CI examples run it", () => {
  let mainCommit: string;

  test("GitHub Actions on a push: new findings fail the check, exit 1, and the printed counts are the API's", async () => {
    mainCommit = commitAll("first");
    await lint();
    const ran = await ci(
      await uploadSteps(".github/workflows/assay.yml"),
      await githubEnv("push", { sha: mainCommit, refName: "main" }),
    );
    const { run, check } = await apiRun(ran.stdout, "eslint");
    assert.ok(check);
    assert.deepEqual([run.commitOid, run.branchName], [mainCommit, "main"]);
    assert.equal(check.status, "FAILURE", "every finding is new on the first run");
    assert.equal(ran.status, 1, ran.stderr);
    const printed = ran.stdout.trim().split("\n");
    assert.deepEqual(printed.slice(-5, -2), findingsLines("eslint", check));
    assert.match(printed.at(-4)!, /^ {2}Report: SARIF 2\.1\.0, 4 results read, 4 stored, 0 skipped$/);
    assert.equal(printed.at(-2), `Run ${run.runUid}: ${run.status}`);
    assert.match(
      ran.stderr,
      new RegExp(
        `^error: the eslint check failed its quality gate: ${check.summary.occurrencesIntroduced} new findings$`,
        "m",
      ),
    );

    // The link is the run's query in GET form; with the token it answers today.
    const link = printed.at(-1)!.replace(/^Details: /, "");
    assert.ok(link.startsWith(`${server.url}/graphql/?query=`), link);
    const answer = await fetch(link, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(answer.status, 200);
    const body = (await answer.json()) as { data: { run: { runUid: string; status: string } } };
    assert.deepEqual(body.data.run.runUid, run.runUid);
    assert.deepEqual(body.data.run.status, run.status);
  });

  test("GitHub Actions on a pull request: the head commit and branch are used, a new finding fails with exit 1", async () => {
    git("checkout", "--quiet", "-b", "feature/free", mainCommit);
    const pricing = path.join(workDir, "src", "pricing.js");
    await fs.appendFile(pricing, "\nexport function isFree(amount) {\n  return amount == 0;\n}\n");
    const head = commitAll("isFree");
    await lint();
    const mergeCommit = "f".repeat(40);
    const ran = await ci(
      await uploadSteps(".github/workflows/assay.yml"),
      await githubEnv("pull_request", {
        sha: mergeCommit,
        refName: "7/merge",
        headRef: "feature/free",
        payload: {
          number: 7,
          pull_request: {
            number: 7,
            head: { sha: head, ref: "feature/free" },
            base: { sha: mainCommit, ref: "main" },
          },
        },
      }),
    );
    assert.equal(ran.status, 1, ran.stderr);
    const { run, check } = await apiRun(ran.stdout, "eslint");
    assert.equal(run.commitOid, head, "filed under the head commit, not GitHub's merge commit");
    // The package sends the pull request's changed lines from git: git's own count of them.
    const [added, , file] = git("diff", "--numstat", mainCommit, head).split("\t");
    assert.equal(file, "src/pricing.js");
    assert.ok(
      ran.stdout
        .split("\n")
        .includes(`Changed lines: 1 file, ${added} lines against main@${mainCommit.slice(0, 7)}`),
      ran.stdout,
    );
    assert.equal(run.branchName, "feature/free");
    assert.equal(check?.summary.occurrencesIntroduced, 1, "the new loose comparison");
    assert.match(ran.stderr, /^error: the eslint check failed its quality gate: 1 new finding$/m);
    assert.deepEqual(await pullRequestOfRun(run.runUid), {
      number: 7,
      branch: "feature/free",
      base_branch: "main",
    });
  });

  const gitlabEnv = (commit: string, mergeRequestBranch: string | null): Record<string, string> => ({
    CI: "true",
    GITLAB_CI: "true",
    CI_PROJECT_PATH: "acme/shop",
    CI_COMMIT_SHA: commit,
    CI_COMMIT_REF_NAME: mergeRequestBranch ?? "main",
    ...(mergeRequestBranch
      ? {
          CI_PIPELINE_SOURCE: "merge_request_event",
          CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: "",
          CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: mergeRequestBranch,
          CI_MERGE_REQUEST_IID: "3",
          CI_MERGE_REQUEST_TARGET_BRANCH_NAME: "main",
        }
      : { CI_PIPELINE_SOURCE: "push", CI_COMMIT_BRANCH: "main" }),
  });

  test("GitLab CI on the default branch: the first failing step stops the job with exit 1", async () => {
    git("checkout", "--quiet", "main");
    await lint();
    const ran = await ci(await uploadSteps(".gitlab-ci.yml"), gitlabEnv(mainCommit, null));
    assert.equal(ran.status, 1, ran.stderr);
    const { run, check } = await apiRun(ran.stdout, "eslint");
    assert.equal(check?.status, "FAILURE");
    assert.equal(run.branchName, "main");
    assert.equal((await apiRun(ran.stdout, "test-coverage")).check, null, "the coverage step did not run");
  });

  test("GitLab CI on a merge request without new findings: both checks pass, exit 0, coverage figures printed", async () => {
    git("checkout", "--quiet", "-b", "feature/docs", mainCommit);
    await fs.writeFile(path.join(workDir, "NOTES.md"), "A change that adds no problem.\n");
    commitAll("docs");
    await lint();
    coverage();
    const ran = await ci(
      await uploadSteps(".gitlab-ci.yml"),
      gitlabEnv(git("rev-parse", "HEAD"), "feature/docs"),
    );
    assert.equal(ran.status, 0, ran.stderr);
    const eslint = await apiRun(ran.stdout, "eslint");
    assert.ok(eslint.check);
    assert.equal(eslint.run.branchName, "feature/docs");
    assert.equal(eslint.check.status, "SUCCESS", "the same findings as the default branch: none new");
    assert.equal(eslint.check.summary.occurrencesIntroduced, 0);
    assert.deepEqual(await pullRequestOfRun(eslint.run.runUid), {
      number: 3,
      branch: "feature/docs",
      base_branch: "main",
    });
    const printed = ran.stdout.split("\n");
    for (const line of findingsLines("eslint", eslint.check)) assert.ok(printed.includes(line), line);

    const coverageCheck = (await apiRun(ran.stdout, "test-coverage")).check;
    assert.equal(coverageCheck?.status, "SUCCESS");
    const coverageLines = printed.slice(printed.indexOf("Check test-coverage: SUCCESS") + 1);
    assert.ok(coverageCheck);
    const metricLines = [
      reportLine(coverageCheck, "files"),
      ...coverageCheck.metrics.flatMap((m) =>
        m.items.map((i) => `  ${m.name} (${m.shortcode}) ${i.key}: ${i.latestValueDisplay}`),
      ),
    ];
    assert.ok(metricLines.length > 1, "the coverage check recorded metrics");
    assert.deepEqual(
      coverageLines.slice(0, metricLines.length),
      metricLines,
      "metrics, and no findings lines",
    );
  });
});

describe("assay upload exit codes when the outcome is unknown", () => {
  let idle: TestServer;
  let idleToken: string;

  before(async () => {
    idle = await startTestServer({ ASSAY_WORKER: "false" });
    const user = await aUser(idle.db);
    const account = await anAccount(idle.db, { login: "acme" }, [{ user, role: "MEMBER" }]);
    await aRepository(idle.db, account, { name: "shop" });
    idleToken = await aToken(idle.db, idle.config.tokenPepper, user);
  });
  after(async () => {
    await idle?.stop();
  });

  const upload = (flags: string) =>
    `npx --yes "$ASSAY_URL/cli/assay-cli.tgz" upload --repository gh/acme/shop --analyzer eslint --analyzer-type community --file eslint.sarif ${flags}`;

  test("a check nobody processes in time exits 3, naming its state", async () => {
    const ran = await shell(upload("--wait --timeout 2"), { ASSAY_URL: idle.url, ASSAY_TOKEN: idleToken });
    assert.equal(ran.status, 3, ran.stderr);
    assert.match(ran.stdout, /^Run [0-9a-f-]{36}: PENDING$/m, "the upload itself was accepted");
    assert.match(
      ran.stderr,
      /^error: the eslint report was still QUEUED, waiting to be processed, after 2 s, so whether it passes is not known \(raise --timeout, or follow http:\/\/127\.0\.0\.1:\d+\/graphql\/\?query=/m,
    );
    assert.ok(!ran.stderr.includes(idleToken) && !ran.stdout.includes(idleToken));
  });

  test("an unreachable server exits 3; a wrong command line exits 2 before any request", async () => {
    const served = path.join(scratch, "assay-cli.tgz");
    await fs.writeFile(
      served,
      Buffer.from(await (await fetch(`${idle.url}/cli/assay-cli.tgz`)).arrayBuffer()),
    );
    const local = (flags: string) =>
      upload(flags).replace('"$ASSAY_URL/cli/assay-cli.tgz"', `--package "${served}" assay`);
    const unreachable = await shell(local("--wait --url http://127.0.0.1:9"), {});
    assert.equal(unreachable.status, 3, unreachable.stderr);
    assert.match(unreachable.stderr, /^error: cannot reach http:\/\/127\.0\.0\.1:9\/graphql\/: /m);
    const usage = await shell(local("--timeout 5 --url http://127.0.0.1:9"), {});
    assert.equal(usage.status, 2, usage.stderr);
    assert.match(usage.stderr, /^error: upload: --timeout needs --wait$/m);
  });
});

describe("a report of the wrong kind", () => {
  test("is refused by the package before upload, in the words the server uses for the same file", async () => {
    const lcov = path.join(ROOT, "src", "formats", "coverage", "fixtures", "c8", "lcov.info");
    const ran = await shell(
      `npx --yes "$ASSAY_URL/cli/assay-cli.tgz" upload --wait --repository gh/acme/shop --analyzer eslint --analyzer-type community --file "${lcov}"`,
      {},
    );
    const repository = dataOf(
      await gql(
        server.endpoint,
        token,
        '{ repository(name: "shop", login: "acme", vcsProvider: GITHUB) { id } }',
      ),
    ).repository as { id: string };
    const server_ = dataOf(
      await gql(
        server.endpoint,
        token,
        "mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok error } }",
        {
          input: {
            repositoryId: repository.id,
            commitOid: "a".repeat(40),
            analyzer: "eslint",
            analyzerType: "community",
            data: await fs.readFile(lcov, "utf8"),
          },
        },
      ),
    ).uploadArtifact as { ok: boolean; error: string };
    assert.equal(server_.ok, false);
    assert.equal(ran.status, 1);
    assert.equal(ran.stdout, "", "nothing was uploaded");
    assert.match(ran.stderr, /^error: this looks like an LCOV coverage report, not SARIF: /m);
    assert.ok(
      ran.stderr.includes(`error: ${server_.error}\n`),
      `${ran.stderr}\nagainst the server's: ${server_.error}`,
    );
  });
});

describe("ShellCheck's reports", () => {
  test("json1 and checkstyle XML are sent as they are, and --wait prints the format and the findings read", async () => {
    await fs.cp(path.join(ROOT, "test", "fixtures", "tools", "shell-lint"), workDir, { recursive: true });
    const folder = path.join(ROOT, "src", "formats", "checkstyle", "fixtures", "shellcheck");
    for (const [file, format] of [
      ["shellcheck.json1", "ShellCheck json1"],
      ["shellcheck.xml", "checkstyle XML"],
    ] as const) {
      await fs.writeFile(path.join(workDir, "lint-report.txt"), `${file}\n`);
      const commit = commitAll(`scripts checked into ${file}`);
      const ran = await shell(
        `npx --yes "$ASSAY_URL/cli/assay-cli.tgz" upload --wait --repository gh/acme/shop --analyzer shellcheck --analyzer-type community --file "${path.join(folder, file)}" --commit ${commit} --branch main`,
        {},
      );
      // New findings fail the check (exit 1); the report itself was read whole.
      assert.ok([0, 1].includes(ran.status ?? -1), ran.stderr);
      assert.match(
        ran.stdout,
        new RegExp(`Report: ${format}, 20 results read, 20 stored, 0 skipped`),
        ran.stdout,
      );
    }
  });
});

describe("an SBOM upload", () => {
  test("lists the manifests and lockfiles git tracks at the commit, which the run keeps", async () => {
    const sbom = path.join(ROOT, "src", "formats", "sbom", "fixtures", "npm", "cyclonedx.json");
    await fs.mkdir(path.join(workDir, "web"), { recursive: true });
    await fs.writeFile(path.join(workDir, "web", "package-lock.json"), "{}\n");
    const commit = commitAll("a web project");
    const ran = await shell(
      `npx --yes "$ASSAY_URL/cli/assay-cli.tgz" upload --repository gh/acme/shop --analyzer sca --file "${sbom}" --commit ${commit} --branch main`,
      {},
    );
    assert.equal(ran.status, 0, ran.stderr);
    const run = await server.db
      .selectFrom("analysis_runs")
      .select("lockfile_paths")
      .where("commit_oid", "=", commit)
      .executeTakeFirstOrThrow();
    assert.deepEqual(run.lockfile_paths, ["package.json", "web/package-lock.json"]);
  });
});

describe("a Go cover profile of modules in subdirectories", () => {
  test("is sent with the checkout's modules, and its files are listed where they are in the repository", async () => {
    // The go-modules project (example.com/shop in backend/, example.com/pricing in libs/pricing/)
    // committed into the checkout, and go test's real profile of the shop's tests measuring both.
    await fs.cp(path.join(ROOT, "test", "fixtures", "tools", "go-modules"), workDir, { recursive: true });
    const commit = commitAll("a Go backend and its pricing library");
    const profile = path.join(ROOT, "src", "formats", "coverage", "fixtures", "go-modules", "coverpkg.out");
    const ran = await shell(
      `npx --yes "$ASSAY_URL/cli/assay-cli.tgz" upload --repository gh/acme/shop --analyzer test-coverage --key go --file "${profile}" --commit ${commit} --branch main`,
      {},
      path.join(workDir, "backend"),
    );
    assert.equal(ran.status, 0, ran.stderr);
    assert.match(
      ran.stderr,
      /Go modules sent to place the profile's files: example\.com\/shop in backend, example\.com\/pricing in libs\/pricing/,
    );
    await artifactsProcessed(server.db, githubRepositoryId);
    const files = await server.db
      .selectFrom("coverage_files")
      .innerJoin("artifacts", "artifacts.id", "coverage_files.artifact_id")
      .innerJoin("analysis_runs", "analysis_runs.id", "artifacts.run_id")
      .select("coverage_files.path")
      .where("analysis_runs.commit_oid", "=", commit)
      .orderBy("coverage_files.path")
      .execute();
    assert.deepEqual(
      files.map((file) => file.path),
      ["backend/cmd/shop/main.go", "backend/internal/cart/cart.go", "libs/pricing/pricing.go"],
    );
  });
});
