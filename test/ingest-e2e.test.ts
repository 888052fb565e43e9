// test-runner: execution-mode independent (one real upload flow; the read queries are ordinary and covered elsewhere in both modes)
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { decodeGlobalId, encodeGlobalId } from "../src/graphql/global-id.ts";
import { dsnToken } from "../src/modules/repositories/dsn.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { waitFor } from "./helpers/instance.ts";
import { assertIssueCountsMatchFindings } from "./helpers/issue-counts.ts";
import { gql, startTestServer, type TestServer } from "./helpers/server.ts";
import { assayArgs } from "./helpers/start-command.ts";

/**
 * End to end (issue 5, "Done means"): a real analyzer (ESLint, with Microsoft's SARIF formatter)
 * and a real coverage tool (Node's test runner, LCOV) run over a real source tree in a git
 * repository; both reports go up through `/graphql/cli/` exactly as the contract's CLI sends them
 * (capability probe, then `createArtifact` with base64 of zstd-compressed text); the run, its
 * checks, issues, occurrences and metrics are read back through the main API. A second commit
 * fixes one problem and adds another, and the API shows them INTRODUCED and RESOLVED.
 */

const execFileAsync = promisify(execFile);
const FIXTURE = path.resolve(import.meta.dirname, "fixtures", "e2e-project");
const CLI_MUTATION =
  "mutation($input: CreateArtifactInput!) { createArtifact(input: $input) { ok message error } }";

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
let account: AccountRow;
let repository: RepositoryRow;
let token: string;
let workDir: string;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, { login: "acme" }, [{ user, role: "MEMBER" }]);
  repository = await aRepository(server.db, account, { name: "shop" });
  token = await aToken(server.db, server.config.tokenPepper, user);
  workDir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "assay-e2e-")));
  await fs.cp(FIXTURE, workDir, { recursive: true });
  git("init", "--quiet", "--initial-branch=main");
});
after(async () => {
  await server?.stop();
  if (workDir) await fs.rm(workDir, { recursive: true, force: true });
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

/** ESLint over `src/`, as SARIF. */
async function lint(): Promise<string> {
  const eslint = new ESLint({
    cwd: workDir,
    useEslintrc: false,
    overrideConfig: {
      parserOptions: { ecmaVersion: 2022, sourceType: "module" },
      rules: { "no-unused-vars": "error", eqeqeq: "warn", "no-eval": "error" },
    },
  });
  const results = await eslint.lintFiles(["src"]);
  return formatSarif(results, { cwd: workDir, rulesMeta: eslint.getRulesMetaForResults(results) });
}

/**
 * `assay upload` of ESLint's SARIF as a community analyzer, as a CI job runs it (run in `runIn`, as
 * npm passes it on in INIT_CWD; else where the command was started); answers what it printed.
 * Asynchronously: the server answering the upload runs in this process.
 */
async function uploadEslint(upload: {
  file: string;
  commit: string;
  branch: string;
  workDir: string;
  wait?: boolean;
  runIn?: string;
}): Promise<string> {
  const { stdout } = await execFileAsync(
    process.execPath,
    assayArgs(
      "upload",
      ...["--file", upload.file, "--repository", "gh/acme/shop"],
      ...["--analyzer", "eslint", "--analyzer-type", "community"],
      ...["--commit", upload.commit, "--branch", upload.branch, "--work-dir", upload.workDir],
      "--no-progress",
      ...(upload.wait ? ["--wait"] : []),
    ),
    {
      cwd: path.resolve(import.meta.dirname, ".."),
      env: { ...childEnv(), ASSAY_URL: server.url, ASSAY_TOKEN: token, INIT_CWD: upload.runIn ?? "" },
      encoding: "utf8",
    },
  );
  return stdout;
}

/** Node's test runner with coverage over `test/`, as LCOV. */
async function coverage(): Promise<string> {
  const destination = path.join(workDir, "lcov.info");
  execFileSync(
    process.execPath,
    [
      "--test",
      "--experimental-test-coverage",
      "--test-reporter=lcov",
      `--test-reporter-destination=${destination}`,
      "test/",
    ],
    { cwd: workDir, env: childEnv(), stdio: "ignore" },
  );
  const text = await fs.readFile(destination, "utf8");
  await fs.rm(destination);
  return text;
}

/** This process's environment without the test runner's markers, so the child runs its own tests. */
function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  return env;
}

/** Compresses like the contract's CLI: zstd, then base64. */
function zstdBase64(text: string): string {
  return execFileSync("zstd", ["-q", "-c", "-"], { input: text }).toString("base64");
}

async function cliRequest(body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.url}/graphql/cli/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 200);
  return (await response.json()) as Record<string, unknown>;
}

/** Uploads one report as `deepsource report` does: probe, then createArtifact. */
async function report(fields: {
  commitOid: string;
  analyzer: string;
  analyzerType?: string;
  key: string;
  text: string;
}) {
  const probe = await cliRequest({
    query: 'query { __type(name: "ArtifactMetadataInput") { inputFields { name } } }',
  });
  const names = (
    (probe.data as { __type: { inputFields: Array<{ name: string }> } }).__type.inputFields ?? []
  ).map((f) => f.name);
  assert.ok(names.includes("compressed"), "the probe offers compression");
  const answer = await cliRequest({
    query: CLI_MUTATION,
    variables: {
      input: {
        accessToken: dsnToken(repository, server.config.tokenPepper),
        commitOid: fields.commitOid,
        reporter: "cli",
        reporterVersion: "0.9.0",
        key: fields.key,
        data: zstdBase64(fields.text),
        analyzer: fields.analyzer,
        ...(fields.analyzerType ? { analyzerType: fields.analyzerType } : {}),
        metadata: { workDir, compressed: "True" },
      },
    },
  });
  assert.deepEqual(answer, {
    data: {
      createArtifact: {
        ok: true,
        error: "",
        message: `Artifact successfully uploaded for repository acme/shop on commit ${fields.commitOid}.`,
      },
    },
  });
}

const RUN_QUERY = `query Run($commit: String!) {
    analysisRun: run(commitOid: $commit) { status branchName commitOid baseOid
      summary { occurrencesIntroduced occurrencesResolved }
      checks { edges { node { status analyzer { shortcode }
        summary { occurrencesIntroduced occurrencesResolved }
        issues(first: 50) { totalCount edges { node { shortcode path beginLine title category severity } } }
        metrics { shortcode items { key latestValue } }
      } } }
    }
}`;

interface CheckNode {
  status: string;
  analyzer: { shortcode: string };
  summary: { occurrencesIntroduced: number; occurrencesResolved: number };
  issues: {
    totalCount: number;
    edges: Array<{
      node: { shortcode: string; path: string; beginLine: number; title: string; category: string };
    }>;
  };
  metrics: Array<{ shortcode: string; items: Array<{ key: string; latestValue: number | null }> }>;
}
interface RunNode {
  status: string;
  branchName: string;
  commitOid: string;
  baseOid: string | null;
  summary: { occurrencesIntroduced: number; occurrencesResolved: number };
  checks: { edges: Array<{ node: CheckNode }> };
}

interface OccurrenceEdge {
  cursor: string;
  node: { id: string; path: string; beginLine: number };
}

async function runOf(commit: string): Promise<RunNode> {
  let run: RunNode | undefined;
  await waitFor(
    `the run of ${commit} to finish`,
    async () => {
      const response = await gql<{ analysisRun: RunNode }>(server.endpoint, token, RUN_QUERY, { commit });
      // NOT_FOUND until the first upload made the run.
      run = response.body.data?.analysisRun ?? undefined;
      return run !== undefined && run.status !== "PENDING";
    },
    30_000,
  );
  return run as RunNode;
}

function checkOf(run: RunNode, shortcode: string): CheckNode {
  const check = run.checks.edges.find((e) => e.node.analyzer.shortcode === shortcode)?.node;
  assert.ok(check, `the run has a ${shortcode} check`);
  return check;
}

test("ESLint and Node coverage reports uploaded through /graphql/cli/ read back through the API", async () => {
  const first = commitAll("first");
  await report({
    commitOid: first,
    analyzer: "eslint",
    analyzerType: "community",
    key: "",
    text: await lint(),
  });
  await report({ commitOid: first, analyzer: "test-coverage", key: "javascript", text: await coverage() });

  const run = await runOf(first);
  assert.equal(run.branchName, "main");
  assert.equal(run.commitOid, first);
  assert.equal(run.baseOid, null);
  const eslint = checkOf(run, "eslint");
  const findings = eslint.issues.edges
    .map((e) => `${e.node.shortcode} ${e.node.path}:${e.node.beginLine}`)
    .sort();
  assert.deepEqual(findings, [
    "eqeqeq src/pricing.js:13",
    "eqeqeq src/pricing.js:16",
    "no-eval src/pricing.js:23",
    "no-unused-vars src/pricing.js:12",
  ]);
  assert.equal(eslint.summary.occurrencesIntroduced, 4);
  assert.equal(eslint.status, "FAILURE", "introduced findings can fail the check by default");
  assert.equal(run.status, "FAILURE");

  // The findings processing wrote have keys in the order they were written (17 characters of
  // [a-z0-9]; src/graphql/global-id.ts): a cursor pages past them and node(id:) answers each.
  const repositoryId = encodeGlobalId("Repository", repository.key);
  const pageOf = async (after?: string) => {
    const answer = await gql<{ node: { issueOccurrences: { edges: OccurrenceEdge[] } } }>(
      server.endpoint,
      token,
      `query($id: ID!, $after: String) { node(id: $id) { ... on Repository {
        issueOccurrences(first: 2, after: $after) { edges { cursor node { id path beginLine } } } } } }`,
      { id: repositoryId, after },
    );
    return answer.body.data?.node.issueOccurrences.edges ?? [];
  };
  const firstPage = await pageOf();
  const written = [...firstPage, ...(await pageOf(firstPage[1]?.cursor))];
  assert.deepEqual(
    written.map((e) => `${e.node.path}:${e.node.beginLine}`),
    ["src/pricing.js:12", "src/pricing.js:13", "src/pricing.js:16", "src/pricing.js:23"],
  );
  for (const { node } of written) {
    assert.match(decodeGlobalId(node.id)?.key ?? "", /^[a-z0-9]{17}$/);
    const found = await gql<{ node: { path: string; beginLine: number } | null }>(
      server.endpoint,
      token,
      "query($id: ID!) { node(id: $id) { ... on Occurrence { path beginLine } } }",
      { id: node.id },
    );
    assert.deepEqual(found.body.data?.node, { path: node.path, beginLine: node.beginLine });
  }

  const coverageCheck = checkOf(run, "test-coverage");
  assert.equal(coverageCheck.status, "SUCCESS");
  const lcv = coverageCheck.metrics.find((m) => m.shortcode === "LCV");
  const lines = Object.fromEntries((lcv?.items ?? []).map((i) => [i.key, i.latestValue]));
  // Node counts the test file too: (7 + 18 + 17) covered of (7 + 24 + 17) lines.
  assert.equal(lines.JAVASCRIPT, Math.round((42 / 48) * 10000) / 100);
  assert.equal(lines.AGGREGATE, lines.JAVASCRIPT);

  // The next commit removes eval and adds a loose comparison elsewhere.
  const pricing = path.join(workDir, "src", "pricing.js");
  const source = await fs.readFile(pricing, "utf8");
  await fs.writeFile(
    pricing,
    `${source.replace("return eval(text);", "return Number(text);")}\nexport function isFree(amount) {\n  return amount == 0;\n}\n`,
  );
  const second = commitAll("second");
  await report({
    commitOid: second,
    analyzer: "eslint",
    analyzerType: "community",
    key: "",
    text: await lint(),
  });
  const next = await runOf(second);
  assert.equal(next.baseOid, first);
  const nextEslint = checkOf(next, "eslint");
  assert.equal(nextEslint.summary.occurrencesIntroduced, 1, "the new loose comparison");
  assert.equal(nextEslint.summary.occurrencesResolved, 1, "the removed eval");
});

test("`assay upload` streams a report to uploadArtifact with a token, and the run takes its branch", async () => {
  const sarifFile = path.join(os.tmpdir(), `assay-e2e-${process.pid}.sarif`);
  await fs.writeFile(sarifFile, await lint());
  await fs.writeFile(path.join(workDir, "NOTES.md"), "A change on a feature branch.\n");
  const commit = commitAll("third");
  try {
    const output = await uploadEslint({ file: sarifFile, commit, branch: "feature/cleanup", workDir });
    assert.match(
      output,
      new RegExp(`Artifact successfully uploaded for repository acme/shop on commit ${commit}\\.`),
    );
    assert.match(output, /Run [0-9a-f-]{36}: (PENDING|SUCCESS)/);
    const run = await runOf(commit);
    assert.equal(run.branchName, "feature/cleanup");
    assert.equal(run.status, "SUCCESS", "the same findings as the default branch: nothing introduced");
    assert.equal(checkOf(run, "eslint").issues.totalCount, 4);
  } finally {
    await fs.rm(sarifFile, { force: true });
  }
});

test("`assay upload --work-dir` of a folder reached through a symbolic link places its files in that folder", async () => {
  // The job reaches the checkout through a link ($PWD), which git does not name; ESLint, run in
  // src/ there, writes the paths under the link.
  const link = path.join(os.tmpdir(), `assay-e2e-link-${process.pid}`);
  await fs.symlink(workDir, link);
  const sarifFile = path.join(os.tmpdir(), `assay-e2e-link-${process.pid}.sarif`);
  try {
    const eslint = new ESLint({
      cwd: path.join(link, "src"),
      useEslintrc: false,
      overrideConfig: {
        parserOptions: { ecmaVersion: 2022, sourceType: "module" },
        rules: { "no-unused-vars": "error", eqeqeq: "warn", "no-eval": "error" },
      },
    });
    const results = await eslint.lintFiles(["."]);
    const sarif = formatSarif(results, {
      cwd: path.join(link, "src"),
      rulesMeta: eslint.getRulesMetaForResults(results),
    });
    assert.ok(sarif.includes(`file://${link}/src/`), "ESLint wrote the paths under the link");
    await fs.writeFile(sarifFile, sarif);
    await fs.writeFile(path.join(workDir, "NOTES.md"), "Linted through a link.\n");
    const commit = commitAll("fourth");
    const output = await uploadEslint({
      file: sarifFile,
      commit,
      branch: "main",
      workDir: path.join(link, "src"),
      wait: true,
      // The directory the command is run in, through the link (npm passes it on as INIT_CWD).
      runIn: path.join(link, "src"),
    });
    assert.match(output, /Artifact successfully uploaded/);
    const paths = await server.db
      .selectFrom("occurrences")
      .innerJoin("checks", "checks.id", "occurrences.check_id")
      .innerJoin("analysis_runs", "analysis_runs.id", "checks.run_id")
      .select("occurrences.path")
      .distinct()
      .where("analysis_runs.commit_oid", "=", commit)
      .execute();
    assert.deepEqual(paths.map((row) => row.path).sort(), ["src/pricing.js"]);
  } finally {
    await fs.rm(sarifFile, { force: true });
    await fs.rm(link, { force: true });
  }
});

test("every check's issue counts equal its published findings after the tests above", () =>
  assertIssueCountsMatchFindings(server.db, "the tests above"));
