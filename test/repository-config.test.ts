// test-runner: execution-mode independent (uploads and reads go through GraphQL over HTTP)
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { RepositoryRow } from "../src/db/types.ts";
import { readRepositoryConfig } from "../src/formats/deepsource-config/reader.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { dsnToken } from "../src/modules/repositories/dsn.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { waitFor } from "./helpers/instance.ts";
import { aResult, sarifLog } from "./helpers/sarif-scene.ts";
import { createArtifact, dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * The repository's configuration from uploads (docs/ingestion.md "The repository's
 * configuration"): `uploadArtifact`'s `configToml` is kept on the run, becomes
 * `Repository.configJson` when the run is the default branch's newest with one, decides which
 * analyzers count among the repository's current findings and which checks a new run waits for,
 * and is refused, with nothing stored, when it is not a `.deepsource.toml` or contradicts the
 * run's.
 */

const FIXTURE = fs.readFileSync(
  path.join(import.meta.dirname, "..", "src", "formats", "deepsource-config", "fixtures", "deepsource.toml"),
  "utf8",
);

const UPLOAD = `mutation($input: UploadArtifactInput!) {
  uploadArtifact(input: $input) { ok error warnings run { runUid } } }`;
const REPOSITORY = `query($id: ID!) { node(id: $id) { ... on Repository {
  configJson
  enabledAnalyzers { edges { node { shortcode } } }
  issues(first: 50) { edges { node { issue { shortcode } } } }
  reports { issueDistribution { currentValue } } } } }`;
const RUN = `query($runUid: UUID!) { run(runUid: $runUid) { status
  checks { edges { node { status analyzer { shortcode } } } } } }`;

interface Answer {
  ok: boolean;
  error: string;
  warnings: string[];
  run: { runUid: string } | null;
}

let server: TestServer;
let token: string;
let repository: RepositoryRow;
let commits = 0;
const tag = newRowKey().slice(0, 8).toLowerCase();
/** Two community analyzers of this file's own. */
const LINT_A = `cfg-a-${tag}`;
const LINT_B = `cfg-b-${tag}`;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  const user = await aUser(server.db);
  const account = await anAccount(server.db, {}, [{ user, role: "ADMIN" }]);
  token = await aToken(server.db, server.config.tokenPepper, user);
  repository = await aRepository(server.db, account);
});
after(() => server?.stop());

function aCommit(): string {
  commits += 1;
  return `${commits.toString(16).padStart(8, "0")}${"cf12".repeat(8)}`;
}

/** A configuration turning on `analyzers`, in DeepSource's documented form. */
function toml(...analyzers: string[]): string {
  return [
    "version = 1",
    ...analyzers.map((name) => `\n[[analyzers]]\nname = "${name}"\nenabled = true`),
  ].join("\n");
}

/** A SARIF report of `analyzer` with one finding of rule `<analyzer>-rule`. */
function report(analyzer: string): string {
  return sarifLog([
    {
      tool: analyzer,
      rules: [{ id: `${analyzer}-rule`, properties: { tags: ["style"] } }],
      results: [aResult(`${analyzer}-rule`, "src/a.js", 3)],
    },
  ]);
}

async function upload(fields: Record<string, unknown>, repo: RepositoryRow = repository): Promise<Answer> {
  const response = await gql(server.endpoint, token, UPLOAD, {
    input: {
      repositoryId: encodeGlobalId("Repository", repo.key),
      commitOid: aCommit(),
      branch: "main",
      analyzer: LINT_A,
      analyzerType: "community",
      data: report(String(fields.analyzer ?? LINT_A)),
      ...fields,
    },
  });
  return dataOf(response).uploadArtifact as Answer;
}

async function accepted(fields: Record<string, unknown>, repo: RepositoryRow = repository): Promise<Answer> {
  const answer = await upload(fields, repo);
  assert.equal(answer.ok, true, answer.error);
  return answer;
}

interface RepositoryView {
  configJson: unknown;
  enabled: string[];
  issues: string[];
  distribution: unknown;
}

async function view(repo: RepositoryRow = repository): Promise<RepositoryView> {
  const node = dataOf(
    await gql(server.endpoint, token, REPOSITORY, { id: encodeGlobalId("Repository", repo.key) }),
  ).node as {
    configJson: unknown;
    enabledAnalyzers: { edges: Array<{ node: { shortcode: string } }> };
    issues: { edges: Array<{ node: { issue: { shortcode: string } } }> };
    reports: { issueDistribution: { currentValue: unknown } };
  };
  return {
    configJson: node.configJson,
    enabled: node.enabledAnalyzers.edges.map((edge) => edge.node.shortcode),
    issues: node.issues.edges.map((edge) => edge.node.issue.shortcode).sort(),
    distribution: node.reports.issueDistribution.currentValue,
  };
}

interface RunView {
  status: string;
  checks: Array<[string, string]>;
}

async function runOf(runUid: string): Promise<RunView> {
  const run = dataOf(await gql(server.endpoint, token, RUN, { runUid })).run as {
    status: string;
    checks: { edges: Array<{ node: { status: string; analyzer: { shortcode: string } } }> };
  };
  return {
    status: run.status,
    checks: run.checks.edges.map((e) => [e.node.analyzer.shortcode, e.node.status]),
  };
}

async function settled(runUid: string): Promise<RunView> {
  await waitFor(`run ${runUid} to settle`, async () => (await runOf(runUid)).status !== "PENDING", 20_000);
  return runOf(runUid);
}

/** What is stored for the repository: runs and artifacts, counted. */
async function stored(repo: RepositoryRow = repository): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`SELECT (SELECT count(*) FROM analysis_runs WHERE repository_id = ${repo.id})
    + (SELECT count(*) FROM artifacts WHERE repository_id = ${repo.id}) AS n`.execute(server.db);
  return Number(rows[0]?.n);
}

async function aFreshRepository(): Promise<RepositoryRow> {
  const owner = await server.db
    .selectFrom("accounts")
    .selectAll()
    .where("id", "=", repository.account_id)
    .executeTakeFirstOrThrow();
  return aRepository(server.db, owner);
}

describe("a configuration uploaded with a report", () => {
  test("becomes Repository.configJson as JSON, and enabledAnalyzers lists the analyzers it turns on", async () => {
    const repo = await aFreshRepository();
    const answer = await accepted({ configToml: FIXTURE }, repo);
    // The reader's own test (src/formats/deepsource-config/reader.test.ts) spells this JSON out.
    assert.deepEqual((await view(repo)).configJson, readRepositoryConfig(FIXTURE).json);
    assert.deepEqual((await view(repo)).enabled, ["javascript", "python"]);
    // The uploaded analyzer is not turned on by the file: the uploader is told what that means.
    assert.ok(
      answer.warnings.some((w) => w.startsWith(`.deepsource.toml does not turn on the analyzer "${LINT_A}"`)),
      answer.warnings.join("\n"),
    );
  });

  test("an analyzer a later default-branch configuration leaves out leaves Repository.issues and the reports", async () => {
    const commitOid = aCommit();
    const first = await accepted({ commitOid, analyzer: LINT_A, configToml: toml(LINT_A, LINT_B) });
    await accepted({ commitOid, analyzer: LINT_B, configToml: toml(LINT_A, LINT_B) });
    await settled(first.run!.runUid);
    const before = await view();
    assert.deepEqual(before.issues, [`${LINT_A}-rule`, `${LINT_B}-rule`]);
    assert.deepEqual(before.enabled, [LINT_A, LINT_B].sort());

    // The next commit's CI no longer runs B, and its configuration says so.
    const next = await accepted({ analyzer: LINT_A, configToml: toml(LINT_A) });
    await settled(next.run!.runUid);
    const after = await view();
    assert.deepEqual(after.issues, [`${LINT_A}-rule`]);
    assert.deepEqual(after.enabled, [LINT_A]);
    assert.deepEqual((after.configJson as { analyzers: unknown }).analyzers, [
      { name: LINT_A, enabled: true },
    ]);
    assert.notDeepEqual(after.distribution, before.distribution);
  });

  test("a new run waits for the analyzers its upload's configuration turns on, until the deadline", async () => {
    const repo = await aFreshRepository();
    // The repository's own configuration lists another analyzer: the upload's decides.
    await server.db
      .updateTable("repositories")
      .set({ config_json: JSON.stringify({ version: 1, analyzers: [{ name: "go" }] }) })
      .where("id", "=", repo.id)
      .execute();
    const answer = await accepted({ analyzer: LINT_A, configToml: toml("python", LINT_A) }, repo);
    const runUid = answer.run!.runUid;
    await waitFor("the report to be processed", async () =>
      (await runOf(runUid)).checks.some(
        ([shortcode, status]) => shortcode === LINT_A && status !== "PENDING",
      ),
    );
    assert.deepEqual((await runOf(runUid)).checks[0], ["python", "WAITING"]);
    // The deadline job, due now rather than after ASSAY_ARTIFACT_TIMEOUT_SECONDS.
    await sql`UPDATE jobs SET run_at = now() WHERE kind = 'ingest.deadline'
      AND payload ->> 'runId' = (SELECT id::text FROM analysis_runs WHERE run_uid = ${runUid})`.execute(
      server.db,
    );
    const run = await settled(runUid);
    assert.equal(run.status, "TIMEOUT");
    assert.deepEqual(
      run.checks.map(([shortcode]) => shortcode),
      ["python", LINT_A],
    );
    assert.deepEqual(run.checks[0], ["python", "ARTIFACT_TIMEOUT"]);
  });

  test("an analyzer Assay does not know is kept in configJson, gets no check and is named in a warning", async () => {
    const repo = await aFreshRepository();
    const unknown = `nowhere-${tag}`;
    const answer = await accepted({ analyzer: LINT_A, configToml: toml(LINT_A, unknown) }, repo);
    assert.ok(
      answer.warnings.some((w) =>
        w.startsWith(`.deepsource.toml turns on "${unknown}", which Assay does not know`),
      ),
      answer.warnings.join("\n"),
    );
    assert.deepEqual(
      (await runOf(answer.run!.runUid)).checks.map(([shortcode]) => shortcode),
      [LINT_A],
    );
    const seen = await view(repo);
    assert.deepEqual(
      (seen.configJson as { analyzers: Array<{ name: string }> }).analyzers.map((a) => a.name),
      [LINT_A, unknown],
    );
    assert.deepEqual(seen.enabled, [LINT_A]);
  });
});

describe("which run's configuration is the repository's", () => {
  test("an older run's configuration arriving late does not replace a newer run's", async () => {
    const repo = await aFreshRepository();
    const older = aCommit();
    await accepted({ commitOid: older, analyzer: LINT_A }, repo);
    await accepted({ analyzer: LINT_A, configToml: toml(LINT_A, LINT_B) }, repo);
    // A report of the older commit, sent late, carries that commit's configuration.
    await accepted({ commitOid: older, analyzer: LINT_B, configToml: toml(LINT_B) }, repo);
    assert.deepEqual((await view(repo)).enabled, [LINT_A, LINT_B].sort());
    const run = await server.db
      .selectFrom("analysis_runs")
      .select("config_json")
      .where("repository_id", "=", repo.id)
      .where("commit_oid", "=", older)
      .executeTakeFirstOrThrow();
    assert.deepEqual(run.config_json, { version: 1, analyzers: [{ name: LINT_B, enabled: true }] });
  });

  test("runs of other branches and pull requests keep their configuration without changing the repository's", async () => {
    const repo = await aFreshRepository();
    await accepted({ analyzer: LINT_A, configToml: toml(LINT_A) }, repo);
    await accepted({ analyzer: LINT_B, branch: "feature/b", configToml: toml(LINT_B) }, repo);
    await accepted(
      {
        analyzer: LINT_B,
        branch: "feature/c",
        pullRequestNumber: 7,
        baseBranch: "main",
        configToml: toml(LINT_B),
      },
      repo,
    );
    const seen = await view(repo);
    assert.deepEqual(seen.enabled, [LINT_A]);
    const configured = await server.db
      .selectFrom("analysis_runs")
      .select(["branch_name", "config_json"])
      .where("repository_id", "=", repo.id)
      .orderBy("id")
      .execute();
    assert.deepEqual(
      configured.map((r) => [
        r.branch_name,
        (r.config_json as { analyzers: Array<{ name: string }> }).analyzers[0]!.name,
      ]),
      [
        ["main", LINT_A],
        ["feature/b", LINT_B],
        ["feature/c", LINT_B],
      ],
    );
  });

  test("a new default branch brings the configuration of its newest run that carried one", async () => {
    const repo = await aFreshRepository();
    await accepted({ analyzer: LINT_A, configToml: toml(LINT_A) }, repo);
    await accepted({ analyzer: LINT_B, branch: "develop", configToml: toml(LINT_B) }, repo);
    await accepted({ analyzer: LINT_A, branch: "develop", configToml: toml(LINT_A, LINT_B) }, repo);
    await accepted({ analyzer: LINT_A, branch: "release" }, repo);
    const rename = `mutation($id: ID!, $branch: String!) {
      updateRepositoryDefaultBranch(input: { id: $id, defaultBranchName: $branch }) { ok }
    }`;
    const id = encodeGlobalId("Repository", repo.key);
    dataOf(await gql(server.endpoint, token, rename, { id, branch: "develop" }));
    assert.deepEqual((await view(repo)).enabled, [LINT_A, LINT_B]);
    // A branch none of whose runs carried one leaves the configuration as it was.
    dataOf(await gql(server.endpoint, token, rename, { id, branch: "release" }));
    assert.deepEqual((await view(repo)).enabled, [LINT_A, LINT_B]);
  });

  test("an upload without a configuration changes nothing", async () => {
    const repo = await aFreshRepository();
    await accepted({ analyzer: LINT_A, configToml: toml(LINT_A) }, repo);
    const before = await view(repo);
    await accepted({ analyzer: LINT_B }, repo);
    assert.deepEqual((await view(repo)).configJson, before.configJson);
  });
});

describe("configurations refused", () => {
  test("another configuration for a run that has one is refused, and nothing is stored", async () => {
    const repo = await aFreshRepository();
    const commitOid = aCommit();
    await accepted({ commitOid, analyzer: LINT_A, configToml: toml(LINT_A) }, repo);
    // The same configuration written otherwise is the same configuration.
    await accepted(
      {
        commitOid,
        analyzer: LINT_B,
        configToml: `version = 1\nanalyzers = [{ enabled = true, name = "${LINT_A}" }]\n`,
      },
      repo,
    );
    const count = await stored(repo);
    const answer = await upload({ commitOid, analyzer: LINT_B, configToml: toml(LINT_B) }, repo);
    assert.equal(answer.ok, false);
    assert.match(
      answer.error,
      new RegExp(
        `^the run of commit ${commitOid.slice(0, 12)} was uploaded with another \\.deepsource\\.toml; a commit has one configuration`,
      ),
    );
    assert.equal(await stored(repo), count);
    assert.deepEqual((await view(repo)).enabled, [LINT_A]);
  });

  test("text that is not TOML, a wrong shape or too large a file is refused with the problem and its place", async () => {
    const repo = await aFreshRepository();
    const refused = async (configToml: string, pattern: RegExp) => {
      const answer = await upload({ configToml }, repo);
      assert.equal(answer.ok, false);
      assert.match(answer.error, pattern);
      assert.equal(answer.run, null);
    };
    await refused(
      'version = 1\n[[analyzers]]\nname = "go\n',
      /^\.deepsource\.toml is not valid TOML at line 3, column \d+: /,
    );
    await refused(
      'version = 2\n[[analyzers]]\nname = "go"\n',
      /^\.deepsource\.toml: version must be 1, got 2 \(line 1\)$/,
    );
    await refused(
      "version = 1\n[[analyzers]]\nenabled = true\n",
      /^\.deepsource\.toml: analyzers\[0\] has no name: .* \(line 2\)$/,
    );
    await refused(
      `version = 1\n#${"x".repeat(70_000)}\n`,
      /^\.deepsource\.toml is 70014 bytes; at most 65536 are accepted$/,
    );
    assert.equal(await stored(repo), 0);
    assert.equal((await view(repo)).configJson, null);
  });
});

describe("createArtifact", () => {
  test("carries a configuration in its configToml extension", async () => {
    const repo = await aFreshRepository();
    const answer = await createArtifact(server, {
      accessToken: dsnToken(repo, server.config.tokenPepper),
      commitOid: aCommit(),
      analyzer: LINT_A,
      analyzerType: "community",
      data: report(LINT_A),
      configToml: toml(LINT_A),
    });
    assert.deepEqual(answer, { ok: true, error: "" });
    assert.deepEqual((await view(repo)).enabled, [LINT_A]);
  });
});
