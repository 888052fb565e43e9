// test-runner: execution-mode independent (uploads and reads go through GraphQL over HTTP)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { aResult, sarifLog } from "./helpers/sarif-scene.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";
import { uploadSettled } from "./helpers/uploads.ts";

/**
 * TEST_PATTERN ignore rules made without a glob (docs/workflows.md "Ignore rules"): the contract's
 * meaning, "paths matching the repository's configured test patterns". Such a rule ignores its
 * issue in the files the `test_patterns` of the run's `.deepsource.toml` (else the repository's)
 * match, so a commit that changes them changes what the rule ignores; with none to read, it
 * ignores nothing and the artifact's result says so.
 */

const RUN = `query($runUid: UUID!) { run(runUid: $runUid) { status
  summary { occurrencesIntroduced occurrencesSuppressed }
  checks { edges { node { issues(first: 50) { edges { node { path issue { shortcode } } } } } } }
  artifacts { edges { node { status storedCount warnings } } } } }`;
const CREATE_RULE = `mutation($input: CreateIgnoreRuleInput!) {
  createIgnoreRule(input: $input) { ignoreRule { type globPattern } } }`;

interface RunView {
  status: string;
  summary: { occurrencesIntroduced: number; occurrencesSuppressed: number };
  checks: {
    edges: Array<{
      node: { issues: { edges: Array<{ node: { path: string; issue: { shortcode: string } } }> } };
    }>;
  };
  artifacts: { edges: Array<{ node: { status: string; storedCount: number; warnings: string[] } }> };
}

let server: TestServer;
let token: string;
let account: AccountRow;
let commits = 0;
const ANALYZER = `tpat-${newRowKey().slice(0, 8).toLowerCase()}`;
const PATHS = ["src/app.py", "tests/unit/test_app.py", "pkg/app_test.py"];

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, {}, [{ user, role: "MEMBER" }]);
  token = await aToken(server.db, server.config.tokenPepper, user);
});
after(() => server?.stop());

function aCommit(): string {
  commits += 1;
  return `${commits.toString(16).padStart(8, "0")}${"7e57".repeat(8)}`;
}

/** A configuration turning on the test's analyzer, with `extra` lines at the top level. */
function toml(...extra: string[]): string {
  return ["version = 1", ...extra, `[[analyzers]]\nname = "${ANALYZER}"\nenabled = true`].join("\n");
}

/** Uploads one finding in each of PATHS for a new default-branch commit; answers the run once processed. */
async function uploaded(
  repository: RepositoryRow,
  configToml: string,
): Promise<RunView & { runUid: string }> {
  const data = sarifLog([
    {
      tool: ANALYZER,
      rules: [{ id: "tpat-rule", properties: { tags: ["style"] } }],
      results: PATHS.map((path, i) => aResult("tpat-rule", path, i + 1)),
    },
  ]);
  const run = await uploadSettled<RunView>(
    server,
    token,
    {
      repositoryId: encodeGlobalId("Repository", repository.key),
      commitOid: aCommit(),
      branch: "main",
      analyzer: ANALYZER,
      analyzerType: "community",
      data,
      configToml,
    },
    RUN,
  );
  assert.equal(run.artifacts.edges[0]?.node.status, "PROCESSED");
  return run;
}

/** The paths of the run's findings stored as suppressed (the API shows only their count). */
async function suppressedPaths(runUid: string): Promise<string[]> {
  const rows = await server.db
    .selectFrom("occurrences as o")
    .innerJoin("checks as c", "c.id", "o.check_id")
    .innerJoin("analysis_runs as r", "r.id", "c.run_id")
    .select("o.path")
    .where("r.run_uid", "=", runUid)
    .where("o.is_suppressed", "=", true)
    .execute();
  return rows.map((row) => row.path).sort();
}

/**
 * A repository whose first run (with `firstToml`) filed the test's rule as an issue, and a
 * TEST_PATTERN rule without a glob on that issue, made after it.
 */
async function aRepositoryWithTestRule(firstToml: string): Promise<RepositoryRow> {
  const repository = await aRepository(server.db, account);
  const first = await uploaded(repository, firstToml);
  const shortcode = first.checks.edges[0]!.node.issues.edges[0]!.node.issue.shortcode;
  const made = dataOf(
    await gql(server.endpoint, token, CREATE_RULE, {
      input: {
        repositoryId: encodeGlobalId("Repository", repository.key),
        issueShortcode: shortcode,
        level: "REPOSITORY",
        type: "TEST_PATTERN",
      },
    }),
  ).createIgnoreRule as { ignoreRule: { type: string; globPattern: string | null } };
  assert.deepEqual(made.ignoreRule, { type: "TEST_PATTERN", globPattern: null });
  return repository;
}

describe("TEST_PATTERN rules read the configuration's test_patterns", () => {
  test("the rule ignores its issue in the files the run's test_patterns name, and only there", async () => {
    const config = toml(`test_patterns = ["tests/", "**/*_test.py"]`);
    const repository = await aRepositoryWithTestRule(config);
    const run = await uploaded(repository, config);
    assert.equal(run.summary.occurrencesSuppressed, 2);
    assert.deepEqual(run.artifacts.edges[0]!.node.warnings, []);
    assert.deepEqual(await suppressedPaths(run.runUid), ["pkg/app_test.py", "tests/unit/test_app.py"]);
  });

  test("a commit whose .deepsource.toml names other test files changes what the rule ignores", async () => {
    const repository = await aRepositoryWithTestRule(toml(`test_patterns = ["tests/"]`));
    const run = await uploaded(repository, toml(`test_patterns = ["pkg/**"]`));
    assert.equal(run.summary.occurrencesSuppressed, 1);
    assert.deepEqual(await suppressedPaths(run.runUid), ["pkg/app_test.py"]);
  });

  test("without test_patterns the rule ignores nothing, and the artifact's result says so", async () => {
    const repository = await aRepositoryWithTestRule(toml());
    const run = await uploaded(repository, toml());
    assert.equal(run.summary.occurrencesSuppressed, 0);
    assert.deepEqual(run.artifacts.edges[0]!.node.warnings, [
      "1 TEST_PATTERN ignore rule(s) ignore their issue in test files, but the run's .deepsource.toml names none (no test_patterns), so they ignored nothing.",
    ]);
    assert.deepEqual(await suppressedPaths(run.runUid), []);
  });

  test("a test pattern Assay cannot read names no test file, and a warning names it", async () => {
    const config = toml(`test_patterns = ["tests/**.py", "pkg/"]`);
    const repository = await aRepositoryWithTestRule(config);
    const run = await uploaded(repository, config);
    assert.deepEqual(await suppressedPaths(run.runUid), ["pkg/app_test.py"]);
    const [warning] = run.artifacts.edges[0]!.node.warnings;
    assert.match(
      warning ?? "",
      /^The run's \.deepsource\.toml has 1 test pattern\(s\) Assay cannot read, which name no test file \(first: "tests\/\*\*\.py", which .*`\*\*` inside a segment/,
    );
  });

  test("a run with no test rule in force gets no warning about test_patterns", async () => {
    const repository = await aRepository(server.db, account);
    const run = await uploaded(repository, toml(`test_patterns = ["tests/**.py"]`));
    assert.equal(run.summary.occurrencesSuppressed, 0);
    assert.deepEqual(run.artifacts.edges[0]!.node.warnings, []);
  });
});
