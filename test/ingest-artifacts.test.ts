import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { readToolFixture, toolFixture } from "../src/formats/fixtures.ts";
import { decodeGlobalId, encodeGlobalId } from "../src/graphql/global-id.ts";
import { artifactProcessingHandler } from "../src/ingestion/process-job.ts";
import { findingsGateFailures } from "../src/ingestion/run-lifecycle.ts";
import { dsnToken } from "../src/modules/repositories/dsn.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { runArtifactJob } from "./helpers/builders-artifacts.ts";
import { assertIssueCountsMatchFindings } from "./helpers/issue-counts.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * Nothing an upload sent disappears unseen (docs/ingestion.md "What an upload stored"), with real
 * ESLint output (its SARIF formatter writes absolute `file://` URIs, as clang and Biome do):
 * reports whose every result lies outside the repository are refused on both upload paths; partly
 * outside ones are accepted with a message saying so, and the Artifact shows what was read,
 * stored and skipped; a check that lost everything is NEUTRAL and never the base; a report sent
 * with the wrong analyzer is told what it looks like. The worker is off: each test processes the
 * queued artifacts itself, so nothing waits on a timer.
 */

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

const CLI_MUTATION =
  "mutation($input: CreateArtifactInput!) { createArtifact(input: $input) { ok message error } }";
const UPLOAD_MUTATION = `mutation Upload($input: UploadArtifactInput!) {
  uploadArtifact(input: $input) { ok message error warnings artifactId
    artifact { id kind format status readCount storedCount skippedCount skipped { reason count } warnings
      sizeBytes processedAt analyzerShortcode languageKey workDir run { commitOid } check { id } } } }`;
const ARTIFACT_FIELDS = `id kind format analyzerShortcode languageKey workDir status error readCount storedCount
  skippedCount skipped { reason count } warnings sizeBytes createdAt processedAt run { commitOid } check { id }`;
const RUN_QUERY = `query Run($commit: String!) { run(commitOid: $commit) { status
  artifacts { totalCount edges { node { ${ARTIFACT_FIELDS} } } }
  checks { edges { node { id status analyzer { shortcode } summary { occurrencesIntroduced occurrencesResolved }
    artifacts { edges { node { id } } } } } } } }`;

interface ArtifactNode {
  id: string;
  kind: string;
  format: string | null;
  analyzerShortcode: string;
  languageKey: string | null;
  workDir: string | null;
  status: string;
  error: string | null;
  readCount: number | null;
  storedCount: number | null;
  skippedCount: number | null;
  skipped: Array<{ reason: string; count: number }>;
  warnings: string[];
  sizeBytes: number;
  processedAt: string | null;
  run: { commitOid: string };
  check: { id: string } | null;
}
interface CheckNode {
  id: string;
  status: string;
  analyzer: { shortcode: string };
  summary: { occurrencesIntroduced: number; occurrencesResolved: number };
  artifacts: { edges: Array<{ node: { id: string } }> };
}
interface RunNode {
  status: string;
  artifacts: { totalCount: number; edges: Array<{ node: ArtifactNode }> };
  checks: { edges: Array<{ node: CheckNode }> };
}

let server: TestServer;
let account: AccountRow;
let token: string;
/** A checkout with `src/` (the repository) and, beside it, `vendor/` (outside it). */
let root: string;
let checkout: string;
let commitCounter = 0;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER: "false" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, { login: "acme" }, [{ user, role: "MEMBER" }]);
  token = await aToken(server.db, server.config.tokenPepper, user);
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "assay-artifacts-")));
  checkout = path.join(root, "shop");
  await fs.mkdir(path.join(checkout, "src"), { recursive: true });
  await fs.mkdir(path.join(root, "vendor"));
  await fs.writeFile(path.join(root, "vendor", "legacy.js"), "if (window.x == 1) {\n  eval('1');\n}\n");
});
after(async () => {
  await server?.stop();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

/** A fresh 40-character commit id. */
function aCommit(): string {
  commitCounter += 1;
  return `${commitCounter.toString(16).padStart(8, "0")}${"cd34".repeat(8)}`;
}

/** Writes the repository's one source file. */
async function writeSource(text: string): Promise<void> {
  await fs.writeFile(path.join(checkout, "src", "pricing.js"), text);
}

/**
 * ESLint's SARIF for `patterns` (relative to the parent of the checkout, `cwd`), as its formatter
 * writes it.
 */
async function lint(patterns: string[], cwd = root): Promise<string> {
  const eslint = new ESLint({
    cwd,
    useEslintrc: false,
    overrideConfig: {
      parserOptions: { ecmaVersion: 2022, sourceType: "module" },
      env: { browser: true },
      rules: { "no-unused-vars": "error", eqeqeq: "warn", "no-eval": "error" },
    },
  });
  const results = await eslint.lintFiles(patterns);
  return formatSarif(results, { cwd, rulesMeta: eslint.getRulesMetaForResults(results) });
}

/** zstd, then base64, as the contract's CLI compresses. */
function zstdBase64(text: string): string {
  return execFileSync("zstd", ["-q", "-c", "-"], { input: text }).toString("base64");
}

/** `createArtifact` at /graphql/cli/ as the contract's CLI sends it (compressed). */
async function createArtifact(
  repository: RepositoryRow,
  fields: { commitOid: string; text: string; analyzer?: string; key?: string; workDir?: string },
): Promise<{ ok: boolean; message: string; error: string }> {
  const metadata: Record<string, string> = { compressed: "True" };
  if (fields.workDir !== undefined) metadata.workDir = fields.workDir;
  const response = await fetch(`${server.url}/graphql/cli/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      query: CLI_MUTATION,
      variables: {
        input: {
          accessToken: dsnToken(repository, server.config.tokenPepper),
          commitOid: fields.commitOid,
          reporter: "cli",
          key: fields.key ?? "",
          data: zstdBase64(fields.text),
          analyzer: fields.analyzer ?? "eslint",
          analyzerType: "community",
          metadata,
        },
      },
    }),
  });
  assert.equal(response.status, 200);
  const body = (await response.json()) as {
    data: { createArtifact: { ok: boolean; message: string; error: string } };
  };
  return body.data.createArtifact;
}

interface UploadAnswer {
  ok: boolean;
  message: string;
  error: string;
  warnings: string[];
  artifactId: string | null;
  artifact: ArtifactNode | null;
}

/** `uploadArtifact` on the main endpoint with the member's token. */
async function uploadArtifact(
  repository: RepositoryRow,
  fields: {
    commitOid: string;
    text: string;
    analyzer?: string;
    key?: string;
    workDir?: string;
    branch?: string;
  },
): Promise<UploadAnswer> {
  const response = await gql<{ uploadArtifact: UploadAnswer }>(server.endpoint, token, UPLOAD_MUTATION, {
    input: {
      repositoryId: encodeGlobalId("Repository", repository.key),
      commitOid: fields.commitOid,
      branch: fields.branch ?? "main",
      analyzer: fields.analyzer ?? "eslint",
      analyzerType: fields.analyzer === "test-coverage" || fields.analyzer === "changes" ? null : "community",
      key: fields.key ?? null,
      data: fields.text,
      workDir: fields.workDir ?? null,
    },
  });
  return dataOf(response).uploadArtifact as UploadAnswer;
}

/** Processes every queued artifact, oldest first, with the job handler the worker runs. */
async function processQueued(): Promise<void> {
  const handler = artifactProcessingHandler(
    server.db,
    server.config,
    testLogger("processing handler").logger,
  );
  const queued = await server.db
    .selectFrom("artifacts")
    .select("id")
    .where("status", "=", "QUEUED")
    .orderBy("id")
    .execute();
  for (const { id } of queued) {
    assert.deepEqual(await runArtifactJob(server.db, handler, id), { status: "done" });
  }
}

async function runOf(commit: string): Promise<RunNode> {
  const response = await gql<{ run: RunNode }>(server.endpoint, token, RUN_QUERY, { commit });
  return dataOf(response).run as RunNode;
}

/** How many distinct issues `Repository.issues` lists for the repository. */
async function repositoryIssueCount(repository: RepositoryRow): Promise<number> {
  const response = await gql<{ repository: { issues: { totalCount: number } } }>(
    server.endpoint,
    token,
    `query($id: ID!) { repository: node(id: $id) { ... on Repository { issues { totalCount } } } }`,
    { id: encodeGlobalId("Repository", repository.key) },
  );
  return (dataOf(response).repository as { issues: { totalCount: number } }).issues.totalCount;
}

/** How many repository_issue.resolved events the test account has recorded. */
async function resolvedEventCount(): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM webhook_events
    WHERE account_id = ${account.id} AND type = 'repository_issue.resolved'`.execute(server.db);
  return rows[0]?.n ?? 0;
}

/** What a repository holds: its runs and artifacts (a refusal must leave both at zero). */
async function storedCount(repository: RepositoryRow): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT (SELECT count(*) FROM analysis_runs WHERE repository_id = ${repository.id})
      + (SELECT count(*) FROM artifacts WHERE repository_id = ${repository.id}) AS n`.execute(server.db);
  return Number(rows[0]?.n);
}

function uploadedSentence(repository: RepositoryRow, commit: string): string {
  return `Artifact successfully uploaded for repository acme/${repository.name} on commit ${commit}.`;
}

describe("what an upload stored", () => {
  test("SARIF whose every result lies outside the repository is refused on both paths, naming the first path and the fix", async () => {
    const repository = await aRepository(server.db, account);
    await writeSource("const unused = 1;\nexport const total = (a) => a == 1;\n");
    const sarif = await lint(["shop/src"]);
    const first = `file://${path.join(checkout, "src", "pricing.js")}`;

    const cli = await createArtifact(repository, { commitOid: aCommit(), text: sarif });
    assert.equal(cli.ok, false);
    assert.equal(cli.message, "");
    assert.equal(
      cli.error,
      `none of the report's 2 results can be stored: 2 lie outside the repository (first: ${first}); absolute paths are made relative to the upload's workDir and this upload gave none: send the directory the analyzer ran in as workDir (\`metadata.workDir\`; \`--work-dir\` for assay upload), or write paths relative to the repository root`,
    );

    const answer = await uploadArtifact(repository, {
      commitOid: aCommit(),
      text: sarif,
      workDir: "/elsewhere",
    });
    assert.equal(answer.ok, false);
    assert.match(answer.error, /^none of the report's 2 results can be stored: 2 lie outside the repository/);
    assert.match(answer.error, /they are not under the upload's workDir "\/elsewhere"/);
    assert.deepEqual([answer.artifact, answer.artifactId, answer.warnings], [null, null, []]);
    assert.equal(await storedCount(repository), 0);
  });

  test("SARIF partly outside the repository is accepted with how many, and the Artifact shows what was read, stored and skipped", async () => {
    const repository = await aRepository(server.db, account);
    await writeSource("const unused = 1;\nexport const total = (a) => a == 1;\n");
    const sarif = await lint(["shop/src", "vendor"]);
    const outside = `file://${path.join(root, "vendor", "legacy.js")}`;
    const warning = `2 of 4 results lie outside the repository and will not be stored (first: ${outside}); they are not under the upload's workDir "${checkout}", as a dependency's or the system's files are not; if they are the repository's, send the directory the analyzer ran in as workDir (\`metadata.workDir\`; \`--work-dir\` for assay upload), or write paths relative to the repository root.`;

    const commit = aCommit();
    const cli = await createArtifact(repository, { commitOid: commit, text: sarif, workDir: checkout });
    assert.deepEqual(cli, {
      ok: true,
      error: "",
      message: `${uploadedSentence(repository, commit)} ${warning}`,
    });

    const other = aCommit();
    const answer = await uploadArtifact(repository, { commitOid: other, text: sarif, workDir: checkout });
    assert.equal(answer.ok, true);
    assert.equal(answer.message, `${uploadedSentence(repository, other)} ${warning}`);
    assert.deepEqual(answer.warnings, [warning]);
    assert.deepEqual(
      { ...answer.artifact, id: undefined },
      {
        id: undefined,
        kind: "SARIF",
        format: "SARIF 2.1.0",
        status: "QUEUED",
        readCount: null,
        storedCount: null,
        skippedCount: null,
        skipped: [],
        warnings: [],
        sizeBytes: Buffer.byteLength(sarif),
        processedAt: null,
        analyzerShortcode: "eslint",
        languageKey: null,
        workDir: checkout,
        run: { commitOid: other },
        check: answer.artifact?.check,
      },
    );

    await processQueued();
    for (const [sha, uploaded] of [
      [commit, "createArtifact"],
      [other, "uploadArtifact"],
    ] as const) {
      const run = await runOf(sha);
      assert.equal(run.artifacts.totalCount, 1, uploaded);
      const artifact = run.artifacts.edges[0]!.node;
      assert.equal(artifact.status, "PROCESSED", uploaded);
      assert.ok(artifact.processedAt, uploaded);
      assert.deepEqual(
        [artifact.readCount, artifact.storedCount, artifact.skippedCount, artifact.skipped],
        [4, 2, 2, [{ reason: "OUTSIDE_REPOSITORY", count: 2 }]],
        uploaded,
      );
      assert.deepEqual(
        artifact.warnings,
        [
          `2 result(s) lie outside the repository and were not stored (first: ${outside}); paths are made relative to the upload's workDir "${checkout}".`,
        ],
        uploaded,
      );
      // The size is the report's, after decompression: createArtifact sent it zstd-compressed.
      assert.equal(artifact.sizeBytes, Buffer.byteLength(sarif), uploaded);
      const [check] = run.checks.edges.map((e) => e.node);
      assert.equal(check?.status, "FAILURE", "the two findings inside the repository are introduced");
      assert.equal(check?.summary.occurrencesIntroduced, 2);
      assert.deepEqual(
        check?.artifacts.edges.map((e) => e.node.id),
        [artifact.id],
      );
      assert.deepEqual(artifact.check, { id: check?.id });
      const node = await gql(
        server.endpoint,
        token,
        `query($id: ID!) { node(id: $id) { ... on Artifact { ${ARTIFACT_FIELDS} } } }`,
        {
          id: artifact.id,
        },
      );
      assert.deepEqual(dataOf(node).node, artifact, uploaded);
    }
  });

  test("ESLint's SARIF with a NUL in one message and one path: those results are counted skips on the Artifact", async () => {
    const repository = await aRepository(server.db, account);
    await writeSource("const unused = 1;\nexport const total = (a) => a == 1;\n");
    const log = JSON.parse(await lint(["shop/src"])) as {
      runs: Array<{ results: Array<{ message: { text: string }; locations: unknown[] }> }>;
    };
    const results = log.runs[0]!.results;
    assert.equal(results.length, 2, "the real report has two results to alter");
    results[0]!.message.text += "\u0000";
    const uri = (results[1]!.locations[0] as { physicalLocation: { artifactLocation: { uri: string } } })
      .physicalLocation.artifactLocation;
    uri.uri = uri.uri.replace(".js", "\u0000.js");
    const commit = aCommit();
    const answer = await uploadArtifact(repository, {
      commitOid: commit,
      text: JSON.stringify(log),
      workDir: checkout,
    });
    assert.equal(answer.ok, true, answer.error);
    assert.deepEqual(answer.warnings, [
      "2 of 2 results hold a NUL character or an unpaired surrogate (in a rule id, message, path or fingerprint) and will not be stored.",
    ]);
    await processQueued();
    const artifact = (await runOf(commit)).artifacts.edges[0]!.node;
    assert.deepEqual(
      [artifact.status, artifact.readCount, artifact.storedCount, artifact.skipped],
      ["PROCESSED", 2, 0, [{ reason: "UNSTORABLE_TEXT", count: 2 }]],
    );
  });

  test("a file ESLint could not parse is said in the upload's answer and on the Artifact, apart from the findings", async () => {
    const repository = await aRepository(server.db, account);
    await writeSource("export const total = (a) => a == 1;\n");
    await fs.writeFile(path.join(checkout, "src", "broken.js"), "function (\n");
    try {
      const commit = aCommit();
      const answer = await uploadArtifact(repository, {
        commitOid: commit,
        text: await lint(["shop/src"]),
        workDir: checkout,
      });
      const sentences = [
        'The tool reported 1 error of its own, which is not a finding ("Parsing error: Unexpected token (" at src/broken.js:1): what it could not analyze is not in this report.',
        "Not analyzed by the tool: src/broken.js. The base's findings there are kept as EXISTING (not resolved), and the check is judged on the rest of the report.",
      ];
      assert.equal(answer.ok, true, answer.error);
      assert.deepEqual(answer.warnings, sentences);
      await processQueued();
      const artifact = (await runOf(commit)).artifacts.edges[0]!.node;
      assert.deepEqual(
        [artifact.status, artifact.readCount, artifact.storedCount, artifact.warnings],
        ["PROCESSED", 1, 1, sentences],
      );
    } finally {
      await fs.rm(path.join(checkout, "src", "broken.js"));
    }
  });

  test("a report whose tool could not parse a file keeps the base's findings there EXISTING, counts the other files' fixes and is judged by its gate", async () => {
    const repository = await aRepository(server.db, account);
    const other = path.join(checkout, "src", "other.js");
    await writeSource("const unused = 1;\nexport const total = (a) => a == 1;\n");
    await fs.writeFile(other, "export const same = (a) => a == 2;\n");
    try {
      const base = aCommit();
      await uploadArtifact(repository, {
        commitOid: base,
        text: await lint(["shop/src"]),
        workDir: checkout,
      });
      await processQueued();
      assert.equal(await repositoryIssueCount(repository), 2);

      // pricing.js stops parsing (ESLint reports the parsing error and none of its findings),
      // and other.js's finding is fixed.
      await writeSource("const unused = 1;\nexport const total = (a) => a == 1;\nfunction (\n");
      await fs.writeFile(other, "export const same = (a) => a === 2;\n");
      const broken = aCommit();
      await uploadArtifact(repository, {
        commitOid: broken,
        text: await lint(["shop/src"]),
        workDir: checkout,
      });
      await processQueued();
      const brokenRun = await runOf(broken);
      const brokenCheck = brokenRun.checks.edges[0]!.node;
      assert.equal(brokenCheck.status, "SUCCESS");
      assert.deepEqual(brokenCheck.summary, { occurrencesIntroduced: 0, occurrencesResolved: 1 });
      assert.equal(brokenRun.status, "SUCCESS");
      const { rows } = await sql<{ path: string; state: string }>`
        SELECT o.path, o.state FROM occurrences AS o JOIN checks AS c ON c.id = o.check_id
        WHERE c.key = ${decodeGlobalId(brokenCheck.id)!.key} ORDER BY o.path, o.begin_line`.execute(
        server.db,
      );
      assert.deepEqual(rows, [
        { path: "src/other.js", state: "RESOLVED" },
        { path: "src/pricing.js", state: "EXISTING" },
        { path: "src/pricing.js", state: "EXISTING" },
      ]);
      assert.equal(await repositoryIssueCount(repository), 2, "the two findings of the file not parsed stay");

      // Parsing again with the unused variable fixed: compared with the check that kept them.
      await writeSource("export const total = (a) => a == 1;\n");
      const fixed = aCommit();
      await uploadArtifact(repository, {
        commitOid: fixed,
        text: await lint(["shop/src"]),
        workDir: checkout,
      });
      await processQueued();
      const fixedCheck = (await runOf(fixed)).checks.edges[0]!.node;
      assert.deepEqual(fixedCheck.summary, { occurrencesIntroduced: 0, occurrencesResolved: 1 });
      assert.equal(await repositoryIssueCount(repository), 1);
    } finally {
      await fs.rm(other, { force: true });
    }
  });

  test("a tool's own error holding text PostgreSQL cannot store is still said, with that text replaced", async () => {
    const repository = await aRepository(server.db, account);
    const commit = aCommit();
    // go vet's output: an analyzer that failed on a package, its message carrying a NUL (escaped
    // in the JSON, so the upload itself is storable text).
    const text = `# example.com/shop\n${JSON.stringify({ "example.com/shop": { printf: { error: "bad \u0000 verb" } } })}\n`;
    const answer = await uploadArtifact(repository, { commitOid: commit, text, workDir: checkout });
    const sentences = [
      'The tool reported 1 error of its own, which is not a finding ("printf: bad \ufffd verb"): what it could not analyze is not in this report.',
      "What the tool did not analyze is not known (an error of its own names no file of the repository): the check is NEUTRAL, neither passing nor failing, and resolves nothing.",
    ];
    assert.equal(answer.ok, true, answer.error);
    assert.deepEqual(answer.warnings, sentences);
    await processQueued();
    const run = await runOf(commit);
    const artifact = run.artifacts.edges[0]!.node;
    assert.deepEqual(
      [artifact.status, artifact.format, artifact.readCount, artifact.warnings],
      ["PROCESSED", "go vet JSON", 0, sentences],
    );
    // An error naming no file leaves what was not analyzed unknown: the check judges nothing.
    assert.equal(run.checks.edges[0]!.node.status, "NEUTRAL");
  });

  test("the same report uploaded twice answers the artifact stored first", async () => {
    const repository = await aRepository(server.db, account);
    await writeSource("const unused = 1;\n");
    const sarif = await lint(["shop/src"]);
    const commit = aCommit();
    const first = await uploadArtifact(repository, { commitOid: commit, text: sarif, workDir: checkout });
    const again = await uploadArtifact(repository, { commitOid: commit, text: sarif, workDir: checkout });
    assert.equal(again.ok, true);
    assert.ok(first.artifact?.id);
    assert.equal(again.artifact?.id, first.artifact.id);
    assert.equal(again.artifactId, first.artifactId);
  });

  test("a check whose results were all skipped is NEUTRAL, keeps no RESOLVED findings, and is never the base; its run is SKIPPED and leaves the repository's issues alone", async () => {
    const repository = await aRepository(server.db, account);
    await writeSource(
      "const unused = 1;\nexport const total = (a) => a == 1;\nexport const run = (t) => eval(t);\n",
    );
    const base = aCommit();
    await uploadArtifact(repository, { commitOid: base, text: await lint(["shop/src"]), workDir: checkout });
    await processQueued();
    assert.equal((await runOf(base)).checks.edges[0]?.node.summary.occurrencesIntroduced, 3);
    assert.equal(await repositoryIssueCount(repository), 3);
    const resolvedBefore = await resolvedEventCount();

    // An artifact stored before the intake refused reports outside the repository: its workDir is
    // lost behind the intake's back, so processing finds every result outside.
    const lost = aCommit();
    const stored = await uploadArtifact(repository, {
      commitOid: lost,
      text: await lint(["shop/src"]),
      workDir: checkout,
    });
    await sql`UPDATE artifacts SET work_dir = NULL WHERE run_id = (SELECT id FROM analysis_runs WHERE commit_oid = ${lost})`.execute(
      server.db,
    );
    await processQueued();
    const lostRun = await runOf(lost);
    const lostCheck = lostRun.checks.edges[0]!.node;
    assert.equal(lostCheck.status, "NEUTRAL");
    assert.equal(
      lostRun.status,
      "SKIPPED",
      "a run whose every check judged nothing is no state of the repository",
    );
    assert.equal(
      await repositoryIssueCount(repository),
      3,
      "the repository's issues are still the base run's",
    );
    assert.equal(
      await resolvedEventCount(),
      resolvedBefore,
      "no issue was reported resolved by the empty run",
    );
    assert.deepEqual(lostCheck.summary, { occurrencesIntroduced: 0, occurrencesResolved: 0 });
    const lostArtifact = lostRun.artifacts.edges[0]!.node;
    assert.equal(lostArtifact.id, stored.artifact?.id);
    assert.deepEqual(
      [lostArtifact.readCount, lostArtifact.storedCount, lostArtifact.skipped],
      [3, 0, [{ reason: "OUTSIDE_REPOSITORY", count: 3 }]],
    );
    assert.match(
      lostArtifact.warnings[0] ?? "",
      /^3 result\(s\) lie outside the repository and were not stored/,
    );

    // The next commit fixes the eval and adds a loose comparison: compared with the base, not the empty check.
    await writeSource(
      "const unused = 1;\nexport const total = (a) => a == 1;\nexport const run = (t) => Number(t);\nexport const free = (a) => a == 0;\n",
    );
    const next = aCommit();
    await uploadArtifact(repository, { commitOid: next, text: await lint(["shop/src"]), workDir: checkout });
    await processQueued();
    const nextRun = await runOf(next);
    const nextCheck = nextRun.checks.edges[0]!.node;
    assert.deepEqual(nextCheck.summary, { occurrencesIntroduced: 1, occurrencesResolved: 1 });
    assert.equal(nextRun.status, "FAILURE");
    assert.equal(
      await resolvedEventCount(),
      resolvedBefore + 1,
      "no-eval is gone, compared with the base run",
    );
    const states = await server.db
      .selectFrom("occurrences")
      .innerJoin("issues", "issues.id", "occurrences.issue_id")
      .innerJoin("checks", "checks.id", "occurrences.check_id")
      .select(["issues.shortcode", "occurrences.begin_line", "occurrences.state"])
      .where("checks.key", "=", decodeGlobalId(nextCheck.id)?.key ?? "")
      .orderBy("occurrences.begin_line")
      .orderBy("issues.shortcode")
      .execute();
    assert.deepEqual(
      states.map((s) => `${s.state} ${s.shortcode}:${s.begin_line}`),
      ["EXISTING no-unused-vars:1", "EXISTING eqeqeq:2", "RESOLVED no-eval:3", "INTRODUCED eqeqeq:4"],
    );
  });
});

describe("errors that name the real problem", () => {
  const clang = readToolFixture("sarif", "clang", "main.sarif");
  const clangWorkDir = toolFixture("sarif", "clang", "main.sarif").workDir;
  const lcov = readToolFixture("coverage", "c8", "lcov.info");
  const coverageWorkDir = toolFixture("coverage", "c8", "lcov.info").workDir;
  const diff = readToolFixture("coverage", "git-diff", "changes.diff");

  test("clang's SARIF without a workDir is refused; with it, accepted with nothing to say", async () => {
    const repository = await aRepository(server.db, account);
    const refused = await createArtifact(repository, { commitOid: aCommit(), text: clang });
    assert.equal(refused.ok, false);
    assert.match(
      refused.error,
      /^the report's only result cannot be stored: 1 lies outside the repository \(first: file:\/\/\/tmp\/assay-fixtures\/c-analyzer\/src\/main\.c\); absolute paths are made relative to the upload's workDir and this upload gave none: send the directory the analyzer ran in as workDir/,
    );
    const commit = aCommit();
    const accepted = await createArtifact(repository, {
      commitOid: commit,
      text: clang,
      workDir: clangWorkDir,
    });
    assert.deepEqual(accepted, { ok: true, error: "", message: uploadedSentence(repository, commit) });
    await processQueued();
    const artifact = (await runOf(commit)).artifacts.edges[0]!.node;
    assert.deepEqual([artifact.readCount, artifact.storedCount, artifact.skipped], [1, 1, []]);
  });

  test("coverage whose every file lies outside the repository is refused; partly outside is accepted with how many", async () => {
    const repository = await aRepository(server.db, account);
    // gcc + lcov name files by absolute path: without the work directory none is in the repository.
    const lcov = readToolFixture("coverage", "gcc-lcov", "ring.lcov");
    const lcovWorkDir = toolFixture("coverage", "gcc-lcov", "ring.lcov").workDir;
    const refused = await createArtifact(repository, {
      commitOid: aCommit(),
      text: lcov,
      analyzer: "test-coverage",
      key: "cxx",
    });
    assert.equal(refused.ok, false);
    assert.match(
      refused.error,
      /^none of the report's 2 files can be counted: 2 lie outside the repository \(first: \/tmp\/assay-fixtures\/c-coverage\/src\/ring\.c\); absolute paths are made relative to the upload's workDir and this upload gave none: /,
    );
    assert.equal(await storedCount(repository), 0, "a refusal stores nothing");
    const accepted = await createArtifact(repository, {
      commitOid: aCommit(),
      text: lcov,
      analyzer: "test-coverage",
      key: "cxx",
      workDir: lcovWorkDir,
    });
    assert.equal(accepted.ok, true);

    // coverage.py measured a module Debian installs outside the project: said at upload, and skipped.
    const python = readToolFixture("coverage", "coverage-py", "coverage.xml");
    const pythonWorkDir = toolFixture("coverage", "coverage-py", "coverage.xml").workDir;
    const commit = aCommit();
    const answer = await uploadArtifact(repository, {
      commitOid: commit,
      text: python,
      analyzer: "test-coverage",
      key: "python",
      workDir: pythonWorkDir,
    });
    assert.equal(answer.ok, true);
    assert.deepEqual(answer.warnings, [
      `1 of 6 files lies outside the repository and will not be counted (first: /usr/lib/python3/dist-packages/tabulate.py); they are not under the upload's workDir "${pythonWorkDir}", as a dependency's or the system's files are not; if they are the repository's, send the directory the analyzer ran in as workDir (\`metadata.workDir\`; \`--work-dir\` for assay upload), or write paths relative to the repository root.`,
    ]);
    await processQueued();
    const artifact = (await runOf(commit)).artifacts.edges[0]!.node;
    assert.deepEqual(
      [artifact.readCount, artifact.storedCount, artifact.skipped],
      [6, 5, [{ reason: "OUTSIDE_REPOSITORY", count: 1 }]],
    );
  });

  test("a coverage.py report with two sources is accepted, told which files it places in one of them without saying which", async () => {
    const repository = await aRepository(server.db, account);
    const fixture = toolFixture("coverage", "coverage-py", "coverage-sources.xml");
    const commit = aCommit();
    const answer = await uploadArtifact(repository, {
      commitOid: commit,
      text: readToolFixture("coverage", "coverage-py", "coverage-sources.xml"),
      analyzer: "test-coverage",
      key: "python",
      workDir: fixture.workDir,
    });
    const warning =
      "4 file(s) lie in one of the report's <source> directories (invoices, tests) and the report does not say which: they are listed with their places in braces ({invoices,tests}/__init__.py, {invoices,tests}/report.py, {invoices,tests}/test_totals.py, …), and a file's changed lines count only when one of its places, and only one, changed. Reports that name files from the repository root (coverage.py's LCOV report, or a single source) avoid this.";
    assert.deepEqual([answer.ok, answer.warnings], [true, [warning]]);
    await processQueued();
    const artifact = (await runOf(commit)).artifacts.edges[0]!.node;
    assert.deepEqual([artifact.readCount, artifact.storedCount, artifact.skipped], [4, 4, []]);
  });

  test("an LCOV report, a JaCoCo report or a diff sent as SARIF is told what it looks like, on both paths", async () => {
    const repository = await aRepository(server.db, account);
    const lcovAnswer =
      "this looks like an LCOV coverage report, not SARIF: upload it with analyzer test-coverage and a language key (`key`; `--key` for assay upload)";
    const cli = await createArtifact(repository, { commitOid: aCommit(), text: lcov });
    assert.deepEqual(cli, { ok: false, message: "", error: lcovAnswer });
    const answer = await uploadArtifact(repository, { commitOid: aCommit(), text: lcov });
    assert.deepEqual([answer.ok, answer.error], [false, lcovAnswer]);
    const jacoco = await uploadArtifact(repository, {
      commitOid: aCommit(),
      text: readToolFixture("coverage", "jacoco", "jacoco.xml"),
    });
    assert.match(
      jacoco.error,
      /^this looks like a JaCoCo coverage report, not SARIF: upload it with analyzer test-coverage/,
    );
    const changes = await createArtifact(repository, { commitOid: aCommit(), text: diff });
    assert.equal(changes.error, "this looks like a unified diff, not SARIF: upload it with analyzer changes");
    assert.equal(await storedCount(repository), 0);
  });

  test("an SBOM sent as SARIF or as coverage is told to upload it with analyzer sca", async () => {
    const repository = await aRepository(server.db, account);
    const cyclonedx = await createArtifact(repository, {
      commitOid: aCommit(),
      text: readToolFixture("sbom", "npm", "cyclonedx.json"),
    });
    assert.equal(
      cyclonedx.error,
      "this looks like a CycloneDX SBOM (JSON), not SARIF: upload it with analyzer sca",
    );
    const spdx = await uploadArtifact(repository, {
      commitOid: aCommit(),
      text: readToolFixture("sbom", "npm", "spdx.json"),
      analyzer: "test-coverage",
      key: "javascript",
    });
    assert.deepEqual(
      [spdx.ok, spdx.error],
      [false, "this looks like an SPDX SBOM (JSON), not a coverage report: upload it with analyzer sca"],
    );
    assert.equal(await storedCount(repository), 0);
  });

  test("SARIF sent as coverage or as changed lines is told so; a coverage upload without a key is told which keys exist", async () => {
    const repository = await aRepository(server.db, account);
    const sarifAsCoverage = await createArtifact(repository, {
      commitOid: aCommit(),
      text: clang,
      analyzer: "test-coverage",
      key: "cxx",
    });
    assert.equal(
      sarifAsCoverage.error,
      "this looks like a SARIF log, not a coverage report: upload it with the shortcode of the analyzer that wrote it (with analyzerType community for one outside the catalog)",
    );
    const sarifAsChanges = await uploadArtifact(repository, {
      commitOid: aCommit(),
      text: clang,
      analyzer: "changes",
    });
    assert.match(sarifAsChanges.error, /^this looks like a SARIF log, not changed lines: /);
    const lcovAsChanges = await uploadArtifact(repository, {
      commitOid: aCommit(),
      text: lcov,
      analyzer: "changes",
    });
    assert.match(
      lcovAsChanges.error,
      /^this looks like an LCOV coverage report, not changed lines: upload it with analyzer test-coverage/,
    );
    const noKey = await createArtifact(repository, {
      commitOid: aCommit(),
      text: lcov,
      analyzer: "test-coverage",
    });
    assert.equal(
      noKey.error,
      "a coverage upload needs a language key (`key`; `--key` for assay upload): one of python, go, javascript, ruby, java, scala, php, csharp, cxx, rust, swift, kotlin",
    );
    assert.equal(await storedCount(repository), 0);
  });

  test("a SARIF report broken in the middle is refused at the byte where it breaks", async () => {
    const repository = await aRepository(server.db, account);
    const eslint = readToolFixture("sarif", "eslint", "eslint.sarif");
    const at = eslint.indexOf('"results"');
    assert.ok(at > 1000, "the break lies well inside the report");
    const broken = `${eslint.slice(0, at)}#${eslint.slice(at)}`;
    const answer = await createArtifact(repository, { commitOid: aCommit(), text: broken });
    assert.equal(
      answer.error,
      `the SARIF report is invalid: Invalid JSON at byte ${Buffer.byteLength(eslint.slice(0, at))}: unexpected "#".`,
    );
    const cut = await uploadArtifact(repository, { commitOid: aCommit(), text: eslint.slice(0, at) });
    assert.equal(
      cut.error,
      `the SARIF report is invalid: Invalid JSON: the document ends at byte ${Buffer.byteLength(eslint.slice(0, at))} before its value is complete (is the file cut short?).`,
    );
  });

  test("coverage and changed lines record the format they were read as; changed lines belong to the run, not a check", async () => {
    const repository = await aRepository(server.db, account);
    const commit = aCommit();
    const coverage = await uploadArtifact(repository, {
      commitOid: commit,
      text: lcov,
      analyzer: "test-coverage",
      key: "javascript",
      workDir: coverageWorkDir,
    });
    assert.deepEqual(
      [coverage.ok, coverage.artifact?.kind, coverage.artifact?.format, coverage.artifact?.languageKey],
      [true, "COVERAGE", "LCOV", "javascript"],
    );
    const changes = await uploadArtifact(repository, {
      commitOid: commit,
      text: diff,
      analyzer: "changes",
      workDir: coverageWorkDir,
    });
    assert.deepEqual(
      [changes.ok, changes.artifact?.kind, changes.artifact?.format, changes.artifact?.check],
      [true, "CHANGES", "unified diff", null],
    );
    await processQueued();
    const run = await runOf(commit);
    assert.deepEqual(
      run.artifacts.edges.map((e) => [e.node.kind, e.node.status, e.node.readCount === null]),
      [
        ["COVERAGE", "PROCESSED", false],
        ["CHANGES", "PROCESSED", false],
      ],
    );
    const [check] = run.checks.edges.map((e) => e.node);
    assert.deepEqual(
      check?.artifacts.edges.map((e) => e.node.id),
      [coverage.artifact?.id],
    );
  });
});

describe("the same findings uploaded again", () => {
  const TOTALS_QUERY = `query Totals($commit: String!, $repository: ID!) {
    run(commitOid: $commit) { status summary { occurrencesIntroduced }
      checks { edges { node { status summary { occurrencesIntroduced } issues { totalCount } } } } }
    repository: node(id: $repository) { ... on Repository {
      issues { totalCount edges { node { occurrences { totalCount } } } } } } }`;

  interface Totals {
    run: string;
    runIntroduced: number;
    check: string;
    checkIntroduced: number;
    checkFindings: number;
    repositoryIssues: number;
    repositoryOccurrences: number;
    gate: string[];
  }

  type TotalsAnswer = {
    run: {
      status: string;
      summary: { occurrencesIntroduced: number };
      checks: {
        edges: Array<{
          node: {
            status: string;
            summary: { occurrencesIntroduced: number };
            issues: { totalCount: number };
          };
        }>;
      };
    };
    repository: {
      issues: { totalCount: number; edges: Array<{ node: { occurrences: { totalCount: number } } }> };
    };
  };

  /** What the run of `commit`, its one check, the repository's issues and the check's gate count. */
  async function totalsOf(repository: RepositoryRow, commit: string): Promise<Totals> {
    const response = await gql<TotalsAnswer>(server.endpoint, token, TOTALS_QUERY, {
      commit,
      repository: encodeGlobalId("Repository", repository.key),
    });
    const { run, repository: repo } = dataOf(response) as unknown as TotalsAnswer;
    assert.equal(run.checks.edges.length, 1);
    const check = run.checks.edges[0]!.node;
    const checkRow = await server.db
      .selectFrom("checks")
      .innerJoin("analysis_runs", "analysis_runs.id", "checks.run_id")
      .select("checks.id")
      .where("analysis_runs.repository_id", "=", repository.id)
      .where("analysis_runs.commit_oid", "=", commit)
      .executeTakeFirstOrThrow();
    return {
      run: run.status,
      runIntroduced: run.summary.occurrencesIntroduced,
      check: check.status,
      checkIntroduced: check.summary.occurrencesIntroduced,
      checkFindings: check.issues.totalCount,
      repositoryIssues: repo.issues.totalCount,
      repositoryOccurrences: repo.issues.edges.reduce((sum, e) => sum + e.node.occurrences.totalCount, 0),
      gate: await findingsGateFailures(server.db, repository.id, checkRow.id),
    };
  }

  /**
   * The checkout copied to another absolute path, as a re-run of the CI job on another runner
   * sees it; removed after `work`.
   */
  async function inAnotherCheckout<T>(work: (root: string, checkout: string) => Promise<T>): Promise<T> {
    const otherRoot = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "assay-rerun-")));
    try {
      await fs.cp(checkout, path.join(otherRoot, "shop"), { recursive: true });
      return await work(otherRoot, path.join(otherRoot, "shop"));
    } finally {
      await fs.rm(otherRoot, { recursive: true, force: true });
    }
  }

  /**
   * Runs ESLint on `patterns` again from another checkout, stamped with the time it ran, as a CI
   * job run again does, and uploads its report to `commit`.
   */
  function uploadRerun(repository: RepositoryRow, commit: string, patterns: string[]): Promise<UploadAnswer> {
    return inAnotherCheckout(async (otherRoot, workDir) => {
      const log = JSON.parse(await lint(patterns, otherRoot)) as { runs: Array<Record<string, unknown>> };
      log.runs[0]!.invocations = [{ executionSuccessful: true, startTimeUtc: new Date().toISOString() }];
      log.runs[0]!.automationDetails = { id: `lint/rerun-${commitCounter}` };
      return uploadArtifact(repository, { commitOid: commit, text: JSON.stringify(log), workDir });
    });
  }

  /** Findings counted by the check's and the run's summaries, `Check.issues` and the repository's issues. */
  function findingCounts(totals: Totals): number[] {
    return [totals.checkIntroduced, totals.runIntroduced, totals.checkFindings, totals.repositoryOccurrences];
  }

  function alreadyReported(count: number, artifactId: string): string {
    return `${count} result(s) were already reported by artifact ${artifactId} of this check (the same findings, by fingerprint) and were not counted again.`;
  }

  test("the same findings uploaded again with other paths and a timestamp count once in the check, the run, the repository's issues and the gate, and the second artifact names the first", async () => {
    const repository = await aRepository(server.db, account);
    await writeSource(
      "const unused = 1;\nexport const total = (a) => a == 1;\nexport const run = (t) => eval(t);\n",
    );
    const commit = aCommit();
    const first = await uploadArtifact(repository, {
      commitOid: commit,
      text: await lint(["shop/src"]),
      workDir: checkout,
    });
    await processQueued();
    const once = await totalsOf(repository, commit);
    assert.deepEqual(once, {
      run: "FAILURE",
      runIntroduced: 3,
      check: "FAILURE",
      checkIntroduced: 3,
      checkFindings: 3,
      repositoryIssues: 3,
      repositoryOccurrences: 3,
      gate: [
        "1 introduced ANTI_PATTERN occurrence can fail the check",
        "1 introduced BUG_RISK occurrence can fail the check",
        "1 introduced SECURITY occurrence can fail the check",
      ],
    });

    // The CI job runs again on another runner, after the run finished: a late upload to it.
    const second = await uploadRerun(repository, commit, ["shop/src"]);
    assert.equal(second.ok, true, second.error);
    assert.notEqual(second.artifact?.id, first.artifact?.id, "other bytes are another artifact");
    await processQueued();

    assert.deepEqual(await totalsOf(repository, commit), once);
    const run = await runOf(commit);
    assert.deepEqual(
      run.artifacts.edges.map((e) => e.node.id),
      [first.artifact?.id, second.artifact?.id],
    );
    const artifact = run.artifacts.edges[1]!.node;
    assert.deepEqual(
      [artifact.status, artifact.readCount, artifact.storedCount, artifact.skippedCount, artifact.skipped],
      ["PROCESSED", 3, 0, 3, [{ reason: "ALREADY_REPORTED", count: 3 }]],
    );
    assert.deepEqual(artifact.warnings, [alreadyReported(3, first.artifact!.id)]);
  });

  test("two shards with different files add up, and a shard run again adds nothing", async () => {
    const repository = await aRepository(server.db, account);
    await writeSource("const unused = 1;\nexport const total = (a) => a == 1;\n");
    const cart = path.join(checkout, "src", "cart.js");
    await fs.writeFile(cart, "export const run = (t) => eval(t);\nexport const free = (a) => a == 0;\n");
    try {
      const commit = aCommit();
      const pricing = await uploadArtifact(repository, {
        commitOid: commit,
        text: await lint(["shop/src/pricing.js"]),
        workDir: checkout,
      });
      await uploadArtifact(repository, {
        commitOid: commit,
        text: await lint(["shop/src/cart.js"]),
        workDir: checkout,
      });
      await processQueued();
      const shards = await totalsOf(repository, commit);
      assert.deepEqual(findingCounts(shards), [4, 4, 4, 4]);
      await uploadRerun(repository, commit, ["shop/src/pricing.js"]);
      await processQueued();
      assert.deepEqual(await totalsOf(repository, commit), shards);
      const artifacts = (await runOf(commit)).artifacts.edges.map((e) => e.node);
      assert.deepEqual(
        artifacts.map((a) => [a.storedCount, a.skipped]),
        [
          [2, []],
          [2, []],
          [0, [{ reason: "ALREADY_REPORTED", count: 2 }]],
        ],
      );
      assert.deepEqual(artifacts[2]?.warnings, [alreadyReported(2, pricing.artifact!.id)]);
    } finally {
      await fs.rm(cart);
    }
  });

  test("identical findings on two lines of one report count twice, and twice again when the report is sent again", async () => {
    const repository = await aRepository(server.db, account);
    await writeSource("export function f(a) {\n  if (a == 1) a++;\n  if (a == 1) a++;\n  return a;\n}\n");
    const commit = aCommit();
    await uploadArtifact(repository, {
      commitOid: commit,
      text: await lint(["shop/src"]),
      workDir: checkout,
    });
    await processQueued();
    const once = await totalsOf(repository, commit);
    assert.deepEqual(findingCounts(once), [2, 2, 2, 2]);
    await uploadRerun(repository, commit, ["shop/src"]);
    await processQueued();
    assert.deepEqual(await totalsOf(repository, commit), once);
  });
});

test("every check's issue counts equal its published findings after the tests above", () =>
  assertIssueCountsMatchFindings(server.db, "the tests above"));
