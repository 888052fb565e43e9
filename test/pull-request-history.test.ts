// test-runner: execution-mode independent (a client of the API; the queries it sends are covered elsewhere in both modes)
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { gitIn } from "./helpers/git-checkout.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";
import { githubHeaders, githubPullRequestPayload } from "./helpers/vcs-payloads.ts";

/**
 * A pull request's real history, end to end (docs/ingestion.md "Changed lines", docs/reports.md
 * "Issues prevented"): a git repository made here from test/fixtures/tools/js-pull-request, the
 * default branch and two pushes of a pull request, each uploaded by `assay upload` with the
 * reports ESLint and c8 wrote for that version (scripts/make-fixtures.sh pull-request). The
 * command sends the pull request's changed lines from git itself; the coverage check's new-code
 * metrics, the pull request's findings and `issuesPrevented` are then read from the API.
 */

const ROOT = path.resolve(import.meta.dirname, "..");
const SOURCES = path.join(ROOT, "test", "fixtures", "tools", "js-pull-request");
const REPORTS = path.join(ROOT, "test", "fixtures", "pull-request");
/** Where make-fixtures.sh ran ESLint: the SARIF's absolute paths lie under it. */
const ESLINT_WORK_DIR = "/tmp/assay-fixtures/js-pull-request";
const CLI = path.join(ROOT, "src", "cli", "upload-main.ts");
/** tsx by location: the command runs in the checkout, which has no node_modules. */
const TSX = import.meta.resolve("tsx");
const run = promisify(execFile);

let server: TestServer;
let token: string;
let team: AccountRow;
let repo: RepositoryRow;
let secret: string;
let scratch: string;
let checkout: string;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  const user = await aUser(server.db);
  team = await anAccount(server.db, { login: "acme" }, [{ user, role: "ADMIN" }]);
  repo = await aRepository(server.db, team, { name: "shop", defaultBranch: "main" });
  token = await aToken(server.db, server.config.tokenPepper, user);
  const set = await gql(
    server.endpoint,
    token,
    `mutation($id: ID!) { setRepositoryVcsWebhookSecret(input: { repositoryId: $id }) { secret } }`,
    { id: encodeGlobalId("Repository", repo.key) },
  );
  secret = (dataOf(set).setRepositoryVcsWebhookSecret as { secret: string }).secret;
  scratch = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "assay-pr-history-")));
  checkout = path.join(scratch, "shop");
  await fs.mkdir(checkout);
  git("init", "--quiet", "--initial-branch=main");
});

after(async () => {
  await server?.stop();
  if (scratch) await fs.rm(scratch, { recursive: true, force: true });
});

/** git in the checkout, with a fixed identity and none of the machine's configuration. */
const git = gitIn(() => checkout);

/** Commits the project at `version` (base, push-1, push-2) on the current branch; its sha. */
async function commitVersion(version: string): Promise<string> {
  for (const file of ["package.json", "eslint.config.mjs"]) {
    await fs.copyFile(path.join(SOURCES, file), path.join(checkout, file));
  }
  await fs.cp(path.join(SOURCES, version), checkout, { recursive: true });
  git("add", "--all");
  git("commit", "--quiet", "-m", version);
  return git("rev-parse", "HEAD");
}

interface Ran {
  status: number;
  stdout: string;
  stderr: string;
}

/** `assay upload ...args` run in the checkout as a CI job outside any CI service would run it. */
async function assayUpload(...args: string[]): Promise<Ran> {
  const env = {
    PATH: process.env.PATH,
    HOME: scratch,
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    ASSAY_URL: server.url,
    ASSAY_TOKEN: token,
  };
  try {
    const { stdout, stderr } = await run(process.execPath, ["--import", TSX, CLI, "upload", ...args], {
      cwd: checkout,
      env,
    });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { status: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

/** Uploads the ESLint and c8 reports of `version`, waiting for each; both commands' output. */
async function uploadReports(
  version: string,
  pullRequest: string[] = [],
): Promise<{ eslint: Ran; coverage: Ran }> {
  const common = ["--repository", "gh/acme/shop", "--wait", ...pullRequest];
  const eslint = await assayUpload(
    ...common,
    ...["--analyzer", "eslint", "--analyzer-type", "community"],
    ...["--work-dir", ESLINT_WORK_DIR, "--file", path.join(REPORTS, `${version}.sarif`)],
  );
  const coverage = await assayUpload(
    ...common,
    ...[
      "--analyzer",
      "test-coverage",
      "--key",
      "javascript",
      "--file",
      path.join(REPORTS, `${version}.lcov`),
    ],
  );
  assert.equal(coverage.status, 0, coverage.stderr);
  return { eslint, coverage };
}

const RUN_QUERY = `query($runUid: UUID!) { run(runUid: $runUid) { runUid status commitOid branchName
  checks { edges { node { analyzer { shortcode } status
    summary { occurrencesIntroduced occurrencesResolved occurrencesSuppressed }
    metrics { shortcode items { key latestValue latestValueDisplay } } } } } } }`;

interface ApiCheck {
  analyzer: { shortcode: string };
  status: string;
  summary: { occurrencesIntroduced: number; occurrencesResolved: number; occurrencesSuppressed: number };
  metrics: Array<{
    shortcode: string;
    items: Array<{ key: string; latestValue: number; latestValueDisplay: string }>;
  }>;
}

/** The run a command's output names, with its checks by analyzer. */
async function runOf(
  output: string,
): Promise<{ runUid: string; commitOid: string; checks: Map<string, ApiCheck> }> {
  const runUid = /^Run ([0-9a-f-]{36}): /m.exec(output)?.[1];
  assert.ok(runUid, `the output names the run:\n${output}`);
  const data = dataOf(await gql(server.endpoint, token, RUN_QUERY, { runUid }));
  const found = data.run as {
    runUid: string;
    commitOid: string;
    checks: { edges: Array<{ node: ApiCheck }> };
  };
  const checks = new Map(found.checks.edges.map(({ node }) => [node.analyzer.shortcode, node]));
  return { runUid: found.runUid, commitOid: found.commitOid, checks };
}

/** A check's metric values by `SHORTCODE KEY`. */
function metricValues(check: ApiCheck | undefined): Map<string, number> {
  assert.ok(check, "the run has the check");
  return new Map(
    check.metrics.flatMap((m) => m.items.map((i) => [`${m.shortcode} ${i.key}`, i.latestValue])),
  );
}

/**
 * New-code line coverage worked out apart from the server: the lines `git diff` adds between
 * `from` and `to` (read from its hunk headers) that the LCOV file has a `DA` count for, and how
 * many of those ran.
 */
async function newLineCoverage(
  from: string,
  to: string,
  lcovFile: string,
): Promise<{ covered: number; total: number }> {
  const added = new Set<string>();
  let file = "";
  for (const line of git("diff", "--unified=0", from, to).split("\n")) {
    const header = /^\+\+\+ b\/(.+)$/.exec(line);
    if (header) file = header[1]!;
    const hunk = /^@@ -\S+ \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk) {
      const start = Number(hunk[1]);
      for (let n = start; n < start + Number(hunk[2] ?? 1); n += 1) added.add(`${file}:${n}`);
    }
  }
  let current = "";
  let covered = 0;
  let total = 0;
  for (const line of (await fs.readFile(lcovFile, "utf8")).split("\n")) {
    if (line.startsWith("SF:")) current = line.slice(3);
    const da = /^DA:(\d+),(\d+)/.exec(line);
    if (da && added.has(`${current}:${da[1]}`)) {
      total += 1;
      if (Number(da[2]) > 0) covered += 1;
    }
  }
  return { covered, total };
}

/** Changed files and added lines of `git diff from to`, from git's own numbers. */
function numstat(from: string, to: string): { files: number; lines: number } {
  const rows = git("diff", "--numstat", from, to)
    .split("\n")
    .map((row) => Number(row.split("\t")[0]))
    .filter((added) => added > 0);
  return { files: rows.length, lines: rows.reduce((sum, added) => sum + added, 0) };
}

const PULL_REQUEST = `query($login: String!, $name: String!, $number: Int!) {
  repository(login: $login, name: $name, vcsProvider: GITHUB) { pullRequest(number: $number) {
    state summary { issuesRaised issuesResolved issuesSuppressed }
    latestAnalysisRun { commitOid }
    metrics { shortcode items { key latestValue } } } } }`;

const PREVENTED = `issuesPrevented { currentValue values(startDate: $day, endDate: $day) { date values { key value } } }`;

/** `issuesPrevented` of the team and of the repository: the current value and today's two series. */
async function prevented(): Promise<Array<{ currentValue: number; values: unknown }>> {
  const day = new Date().toISOString().slice(0, 10);
  const data = dataOf(
    await gql(
      server.endpoint,
      token,
      `query($login: String!, $day: Date!) {
        account(login: $login, vcsProvider: GITHUB) { reports { ${PREVENTED} } }
        repository(login: $login, name: "shop", vcsProvider: GITHUB) { reports { ${PREVENTED} } } }`,
      { login: team.login, day },
    ),
  ) as Record<string, { reports: { issuesPrevented: { currentValue: number; values: unknown } } }>;
  return [data.account!.reports.issuesPrevented, data.repository!.reports.issuesPrevented];
}

describe("a pull request's history uploaded by assay upload", () => {
  let mainCommit: string;
  let firstPush: string;
  let secondPush: string;
  let firstPushRun: Awaited<ReturnType<typeof runOf>>;
  let secondPushRun: Awaited<ReturnType<typeof runOf>>;
  const pr = ["--pr", "12", "--base", "main"];

  test("the default branch's run sends no changed lines: it is no pull request", async () => {
    mainCommit = await commitVersion("base");
    const { eslint, coverage } = await uploadReports("base");
    assert.ok(!/changed lines/i.test(`${eslint.stdout}${eslint.stderr}${coverage.stdout}${coverage.stderr}`));
    const main = await runOf(coverage.stdout);
    assert.equal(main.commitOid, mainCommit);
    assert.equal(
      main.checks.get("eslint")?.summary.occurrencesIntroduced,
      1,
      "prefer-const, on the first run",
    );
    assert.ok(
      !metricValues(main.checks.get("test-coverage")).has("NLCV AGGREGATE"),
      "no changed lines, no NLCV",
    );
  });

  test("the first push: the changeset comes from git, once per run, and new-code coverage is the hand-computed one", async () => {
    git("checkout", "--quiet", "-b", "feature/coupons");
    firstPush = await commitVersion("push-1");
    const { eslint, coverage } = await uploadReports("push-1", pr);
    const counted = numstat(mainCommit, firstPush);
    const printed = `Changed lines: ${counted.files} files, ${counted.lines} lines against main@${mainCommit.slice(0, 7)}`;
    // Both commands send the same changeset: the second is the same artifact, not a second one.
    assert.ok(eslint.stdout.split("\n").includes(printed), `${eslint.stdout}\n${eslint.stderr}`);
    assert.ok(coverage.stdout.split("\n").includes(printed), coverage.stdout);
    assert.equal(eslint.status, 1, "two new findings fail the eslint check");
    firstPushRun = await runOf(coverage.stdout);
    assert.equal(firstPushRun.commitOid, firstPush);
    // The command sent where the branch meets main, which the run is compared with.
    const stored = await server.db
      .selectFrom("pull_requests")
      .select("merge_base_oid")
      .where("repository_id", "=", repo.id)
      .where("number", "=", 12)
      .executeTakeFirstOrThrow();
    assert.equal(stored.merge_base_oid, mainCommit);
    const changes = await server.db
      .selectFrom("artifacts as a")
      .innerJoin("analysis_runs as r", "r.id", "a.run_id")
      .select(["a.status"])
      .where("r.run_uid", "=", firstPushRun.runUid)
      .where("a.kind", "=", "CHANGES")
      .execute();
    assert.equal(changes.length, 1, "one CHANGES artifact for the two uploads");

    // couponDiscount's 12 lines are new; its HALF branch (4 lines) never ran: 8 of 12.
    const byHand = await newLineCoverage(mainCommit, firstPush, path.join(REPORTS, "push-1.lcov"));
    assert.deepEqual(byHand, { covered: 8, total: 12 });
    const values = metricValues(firstPushRun.checks.get("test-coverage"));
    assert.equal(values.get("NLCV AGGREGATE"), 66.67);
    assert.equal(values.get("NLCV JAVASCRIPT"), 66.67);
    const eslintCheck = firstPushRun.checks.get("eslint");
    assert.deepEqual(eslintCheck?.summary, {
      occurrencesIntroduced: 2,
      occurrencesResolved: 0,
      occurrencesSuppressed: 0,
    });
  });

  test("the second push fixes the unused variable: NLCV, NBCV and NCPCV follow the new diff, on the check and the pull request", async () => {
    secondPush = await commitVersion("push-2");
    const { eslint, coverage } = await uploadReports("push-2", pr);
    assert.equal(eslint.status, 1, "the loose comparison is still new against main");
    secondPushRun = await runOf(coverage.stdout);
    const byHand = await newLineCoverage(mainCommit, secondPush, path.join(REPORTS, "push-2.lcov"));
    assert.deepEqual(byHand, { covered: 7, total: 11 });
    const values = metricValues(secondPushRun.checks.get("test-coverage"));
    // 7 of 11 new lines; the new branch outcomes are couponDiscount's entry (taken) and HALF (not).
    assert.equal(values.get("NLCV AGGREGATE"), 63.64);
    assert.equal(values.get("NBCV AGGREGATE"), 50);
    assert.equal(values.get("NCPCV AGGREGATE"), 61.54, "(7 + 1) / (11 + 2)");
    assert.deepEqual(secondPushRun.checks.get("eslint")?.summary, {
      occurrencesIntroduced: 1,
      occurrencesResolved: 0,
      occurrencesSuppressed: 0,
    });

    const answer = dataOf(
      await gql(server.endpoint, token, PULL_REQUEST, { login: "acme", name: "shop", number: 12 }),
    ) as {
      repository: {
        pullRequest: Record<string, unknown> & {
          metrics: Array<{ shortcode: string; items: Array<{ key: string; latestValue: number }> }>;
        };
      };
    };
    const pullRequest = answer.repository.pullRequest;
    assert.equal(pullRequest.state, "OPEN");
    assert.deepEqual(pullRequest.latestAnalysisRun, { commitOid: secondPush });
    assert.deepEqual(pullRequest.summary, { issuesRaised: 1, issuesResolved: 0, issuesSuppressed: 0 });
    const prMetrics = new Map(
      pullRequest.metrics.flatMap((m) => m.items.map((i) => [`${m.shortcode} ${i.key}`, i.latestValue])),
    );
    assert.equal(prMetrics.get("NLCV AGGREGATE"), 63.64);
    assert.equal(prMetrics.get("NBCV AGGREGATE"), 50);
  });

  test("issuesPrevented counts exactly the finding the second push fixed, for the team and the repository", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const expected = {
      currentValue: 1,
      values: [
        {
          date: today,
          values: [
            { key: "prevented", value: 1 },
            { key: "total", value: 1 },
          ],
        },
      ],
    };
    assert.deepEqual(await prevented(), [expected, expected]);
  });

  test("closed without merging, the pull request still prevented its finding", async () => {
    const body = JSON.stringify(
      githubPullRequestPayload({
        owner: team.login,
        name: repo.name,
        action: "closed",
        number: 12,
        merged: false,
        head: { ref: "feature/coupons", sha: secondPush },
        base: { ref: "main", sha: mainCommit },
        updatedAt: new Date().toISOString(),
      }),
    );
    const delivered = await fetch(`${server.url}/webhooks/github`, {
      method: "POST",
      headers: githubHeaders("pull_request", body, secret),
      body,
    });
    assert.equal(delivered.status, 200);
    const answer = dataOf(
      await gql(server.endpoint, token, PULL_REQUEST, { login: "acme", name: "shop", number: 12 }),
    ) as { repository: { pullRequest: { state: string } } };
    assert.equal(answer.repository.pullRequest.state, "CLOSED");
    assert.deepEqual(
      (await prevented()).map((report) => report.currentValue),
      [1, 1],
    );
  });
});
