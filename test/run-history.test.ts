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
import { ingestionJobsDone } from "./helpers/builders-artifacts.ts";
import { gitIn } from "./helpers/git-checkout.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * Default-branch runs follow the commit history, not the upload order (docs/ingestion.md "Where a
 * run stands in the history"): three commits of the default branch, made here from
 * test/fixtures/tools/js-pull-request's versions (base, push-1, push-2) and linted by ESLint
 * (scripts/make-fixtures.sh pull-request), uploaded by `assay upload` — which sends each commit's
 * first-parent ancestors — to one repository in order (1, 2, 3) and to another out of order
 * (1, 3, then 2, as when the second commit's CI finishes last). Each commit's check, the
 * repository's latest commit and current findings, and the code health trend must be what the
 * in-order upload gives, and those match ESLint's own summary of each version.
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
const VERSIONS = ["base", "push-1", "push-2"] as const;
type Version = (typeof VERSIONS)[number];
/** The versions, and a commit after push 2 that changes no linted file (ESLint's report is push 2's). */
type Commit = Version | "push-3";

let server: TestServer;
let token: string;
let team: AccountRow;
let inOrder: RepositoryRow;
let late: RepositoryRow;
let scratch: string;
let checkout: string;
const commits = new Map<Commit, string>();

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  const user = await aUser(server.db);
  team = await anAccount(server.db, { login: "acme" }, [{ user, role: "ADMIN" }]);
  inOrder = await aRepository(server.db, team, { name: "in-order", defaultBranch: "main" });
  late = await aRepository(server.db, team, { name: "late", defaultBranch: "main" });
  token = await aToken(server.db, server.config.tokenPepper, user);
  scratch = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "assay-run-history-")));
  checkout = path.join(scratch, "shop");
  await fs.mkdir(checkout);
  git("init", "--quiet", "--initial-branch=main");
  for (const version of VERSIONS) commits.set(version, await commitVersion(version));
  await fs.writeFile(path.join(checkout, "NOTES.md"), "Release notes.\n");
  git("add", "--all");
  git("commit", "--quiet", "-m", "push-3");
  commits.set("push-3", git("rev-parse", "HEAD"));
});

after(async () => {
  await server?.stop();
  if (scratch) await fs.rm(scratch, { recursive: true, force: true });
});

/** git in the checkout, with a fixed identity and none of the machine's configuration. */
const git = gitIn(() => checkout);

/** Commits the project at `version` on main; its sha. */
async function commitVersion(version: Version): Promise<string> {
  await fs.rm(path.join(checkout, "src"), { recursive: true, force: true });
  await fs.rm(path.join(checkout, "test"), { recursive: true, force: true });
  for (const file of ["package.json", "eslint.config.mjs"]) {
    await fs.copyFile(path.join(SOURCES, file), path.join(checkout, file));
  }
  await fs.cp(path.join(SOURCES, version), checkout, { recursive: true });
  git("add", "--all");
  git("commit", "--quiet", "-m", version);
  return git("rev-parse", "HEAD");
}

/**
 * `assay upload` of ESLint's report of `commit` for it on main, waiting for it; the run's uid.
 * `workDir` is where the report says it was made (ESLint ran in ESLINT_WORK_DIR).
 */
function uploadVersion(
  repository: RepositoryRow,
  commit: Commit,
  workDir = ESLINT_WORK_DIR,
): Promise<string> {
  const version: Version = commit === "push-3" ? "push-2" : commit;
  return assayUpload(repository, commit, [
    ...["--analyzer", "eslint", "--analyzer-type", "community"],
    ...["--work-dir", workDir, "--file", path.join(REPORTS, `${version}.sarif`)],
  ]);
}

/** `assay upload` of c8's coverage of `commit` (a version's) for it on main, waiting for it; the run's uid. */
function uploadCoverage(repository: RepositoryRow, commit: Version): Promise<string> {
  return assayUpload(repository, commit, [
    ...["--analyzer", "test-coverage", "--key", "javascript"],
    ...["--file", path.join(REPORTS, `${commit}.lcov`)],
  ]);
}

/** `assay upload` with `report`'s arguments for `commit` on main, waiting for it; the run's uid. */
async function assayUpload(repository: RepositoryRow, commit: Commit, report: string[]): Promise<string> {
  const env = {
    PATH: process.env.PATH,
    HOME: scratch,
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    ASSAY_URL: server.url,
    ASSAY_TOKEN: token,
  };
  const args = [
    ...["upload", "--repository", `gh/acme/${repository.name}`, "--wait"],
    ...["--commit", commits.get(commit) as string, "--branch", "main"],
    ...report,
  ];
  let stdout: string;
  try {
    ({ stdout } = await run(process.execPath, ["--import", TSX, CLI, ...args], { cwd: checkout, env }));
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    // A check that fails its gate exits 1 after printing its run: a new `==` is a finding at error.
    assert.equal(failed.code, 1, failed.stderr);
    stdout = failed.stdout ?? "";
  }
  const runUid = /^Run ([0-9a-f-]{36}): /m.exec(stdout)?.[1];
  assert.ok(runUid, `the output names the run:\n${stdout}`);
  return runUid;
}

const RUN_QUERY = `query($runUid: UUID!) { run(runUid: $runUid) { commitOid baseOid status
  summary { occurrencesIntroduced occurrencesResolved occurrencesSuppressed }
  checks { edges { node { analyzer { shortcode } status
    summary { occurrencesIntroduced occurrencesResolved occurrencesSuppressed }
    issues(first: 100) { totalCount edges { node { path beginLine shortcode isIntroduced } } } } } } } }`;

interface Summary {
  occurrencesIntroduced: number;
  occurrencesResolved: number;
  occurrencesSuppressed: number;
}

interface RunAnswer {
  commitOid: string;
  baseOid: string | null;
  status: string;
  summary: Summary;
  checks: {
    edges: Array<{
      node: {
        analyzer: { shortcode: string };
        status: string;
        summary: Summary;
        issues: {
          totalCount: number;
          edges: Array<{
            node: { path: string; beginLine: number; shortcode: string; isIntroduced: boolean };
          }>;
        };
      };
    }>;
  };
}

async function runOf(runUid: string): Promise<RunAnswer> {
  return dataOf(await gql(server.endpoint, token, RUN_QUERY, { runUid })).run as RunAnswer;
}

const STATE_QUERY = `query($id: ID!, $day: Date!) { node(id: $id) { ... on Repository {
  latestCommitOid
  issueOccurrences(first: 100) { totalCount edges { node { path beginLine issue { shortcode } } } }
  reports { codeHealthTrend { currentValue values(startDate: $day, endDate: $day) { date values { key value } } } } } } }`;

interface RepositoryState {
  latestCommitOid: string | null;
  issueOccurrences: {
    totalCount: number;
    edges: Array<{ node: { path: string; beginLine: number; issue: { shortcode: string } } }>;
  };
  reports: {
    codeHealthTrend: {
      currentValue: number | null;
      values: Array<{ date: string; values: Array<{ key: string; value: number }> }>;
    };
  };
}

async function stateOf(repository: RepositoryRow): Promise<RepositoryState> {
  const day = new Date().toISOString().slice(0, 10);
  const answer = await gql(server.endpoint, token, STATE_QUERY, {
    id: encodeGlobalId("Repository", repository.key),
    day,
  });
  return dataOf(answer).node as RepositoryState;
}

/** The runs of `runUids` as the API answers them, by commit. */
async function runsOf(runUids: ReadonlyMap<Commit, string>): Promise<Map<Commit, RunAnswer>> {
  const answers = new Map<Commit, RunAnswer>();
  for (const [commit, runUid] of runUids) answers.set(commit, await runOf(runUid));
  return answers;
}

/** ESLint's own count of the problems it printed for `version`, by rule. */
async function eslintSummary(version: Version): Promise<Record<string, number[]>> {
  const text = await fs.readFile(path.join(REPORTS, `${version}.summary.json`), "utf8");
  return (JSON.parse(text) as { figures: { eslintByRule: Record<string, number[]> } }).figures.eslintByRule;
}

/** How many problems ESLint printed for `next` beyond those it printed for `previous`, rule by rule. */
function problemsAdded(previous: Record<string, number[]>, next: Record<string, number[]>): number {
  return Object.keys(next).reduce(
    (n, rule) => n + Math.max(0, next[rule]!.length - (previous[rule]?.length ?? 0)),
    0,
  );
}

describe("default-branch runs uploaded out of order", () => {
  const runs = { inOrder: new Map<Version, string>(), late: new Map<Version, string>() };

  before(async () => {
    for (const version of VERSIONS) runs.inOrder.set(version, await uploadVersion(inOrder, version));
    for (const version of ["base", "push-2", "push-1"] as const) {
      runs.late.set(version, await uploadVersion(late, version));
    }
    await ingestionJobsDone(server.db);
  });

  test("the older commit's late run is compared with its own parent's run", async () => {
    const lateRun = await runOf(runs.late.get("push-1") as string);
    assert.equal(lateRun.baseOid, commits.get("base"));
  });

  test("each commit's run, its check's counts and its findings' states are what the in-order uploads give", async () => {
    const expected = await runsOf(runs.inOrder);
    const actual = await runsOf(runs.late);
    for (const version of VERSIONS) assert.deepEqual(actual.get(version), expected.get(version), version);
    // ESLint's own figures: push 1 adds an unused variable and a `==` to base's `prefer-const`.
    const [base, push1] = [await eslintSummary("base"), await eslintSummary("push-1")];
    const push1Check = actual.get("push-1")!.checks.edges[0]!.node;
    assert.deepEqual(push1Check.summary, {
      occurrencesIntroduced: problemsAdded(base, push1),
      occurrencesResolved: 0,
      occurrencesSuppressed: 0,
    });
  });

  test("the newer commit's run uploaded first is compared again with the late run of its parent", async () => {
    const push2Run = (await runsOf(runs.late)).get("push-2")!;
    assert.equal(push2Run.baseOid, commits.get("push-1"));
    // ESLint's own figures: push 2 removes push 1's unused variable, keeps its `==` (a line up)
    // and adds nothing. Against base, the `==` counted as push 2's own, and failed its gate.
    const [push1, push2] = [await eslintSummary("push-1"), await eslintSummary("push-2")];
    const check = push2Run.checks.edges[0]!.node;
    assert.deepEqual(check.summary, {
      occurrencesIntroduced: problemsAdded(push1, push2),
      occurrencesResolved: problemsAdded(push2, push1),
      occurrencesSuppressed: 0,
    });
    assert.deepEqual(
      check.issues.edges.filter(({ node }) => node.isIntroduced),
      [],
      "push 2 introduces none of its findings",
    );
    assert.equal(check.status, "SUCCESS");
    assert.equal(push2Run.status, "SUCCESS");
  });

  test("the newest commit stays the repository's current state, with its findings and the in-order trend", async () => {
    const expected = await stateOf(inOrder);
    const actual = await stateOf(late);
    assert.equal(expected.latestCommitOid, commits.get("push-2"));
    assert.equal(actual.latestCommitOid, commits.get("push-2"));
    assert.deepEqual(actual.issueOccurrences, expected.issueOccurrences);
    assert.deepEqual(actual.reports, expected.reports);
    // ESLint's own figures for the newest version: what is open now.
    const push2 = await eslintSummary("push-2");
    const byRule = new Map<string, number[]>();
    for (const { node } of actual.issueOccurrences.edges) {
      byRule.set(node.issue.shortcode, [...(byRule.get(node.issue.shortcode) ?? []), node.beginLine]);
    }
    assert.deepEqual(
      Object.fromEntries([...byRule].map(([rule, lines]) => [rule, lines.sort((a, b) => a - b)])),
      push2,
    );
    // The unused variable push 1 added and push 2 removed was fixed once.
    const [today] = actual.reports.codeHealthTrend.values;
    assert.deepEqual(
      today?.values.find((v) => v.key === "resolved"),
      { key: "resolved", value: 1 },
      JSON.stringify(today),
    );
  });
});

describe("two late runs uploaded together", () => {
  const runs = { inOrder: new Map<Commit, string>(), late: new Map<Commit, string>() };
  let inOrderRepository: RepositoryRow;
  let lateRepository: RepositoryRow;

  before(async () => {
    inOrderRepository = await aRepository(server.db, team, {
      name: "together-in-order",
      defaultBranch: "main",
    });
    lateRepository = await aRepository(server.db, team, { name: "together-late", defaultBranch: "main" });
    for (const commit of [...VERSIONS, "push-3"] as const) {
      runs.inOrder.set(commit, await uploadVersion(inOrderRepository, commit));
    }
    for (const commit of ["base", "push-3"] as const) {
      runs.late.set(commit, await uploadVersion(lateRepository, commit));
    }
    // Push 1 and push 2 finish in either order, each maybe before the other's run exists.
    const [push1, push2] = await Promise.all([
      uploadVersion(lateRepository, "push-1"),
      uploadVersion(lateRepository, "push-2"),
    ]);
    runs.late.set("push-1", push1).set("push-2", push2);
    await ingestionJobsDone(server.db);
  });

  test("each run is compared with its parent's, with the in-order states, and the newest stays current", async () => {
    const expected = await runsOf(runs.inOrder);
    const actual = await runsOf(runs.late);
    for (const commit of [...VERSIONS, "push-3"] as const) {
      assert.deepEqual(actual.get(commit), expected.get(commit), commit);
    }
    assert.equal(actual.get("push-3")?.baseOid, commits.get("push-2"));
    // Push 3 changes no linted file: every finding is push 2's.
    assert.deepEqual(actual.get("push-3")?.summary, {
      occurrencesIntroduced: 0,
      occurrencesResolved: 0,
      occurrencesSuppressed: 0,
    });
    const [expectedState, actualState] = [await stateOf(inOrderRepository), await stateOf(lateRepository)];
    assert.equal(actualState.latestCommitOid, commits.get("push-3"));
    assert.deepEqual(actualState, expectedState);
  });
});

describe("a late run whose check runs read through a later run without one", () => {
  const runs = { inOrder: new Map<Commit, string>(), late: new Map<Commit, string>() };
  let inOrderRepository: RepositoryRow;
  let lateRepository: RepositoryRow;

  // Push 2's CI sent only its coverage (its lint job did not upload): push 3, compared with push
  // 2's run, compares its ESLint findings with the check before it, push 1's in order. Push 1's
  // run comes in last, after push 3's was compared.
  before(async () => {
    inOrderRepository = await aRepository(server.db, team, {
      name: "through-in-order",
      defaultBranch: "main",
    });
    lateRepository = await aRepository(server.db, team, { name: "through-late", defaultBranch: "main" });
    const upload = (repository: RepositoryRow, commit: Commit) =>
      commit === "push-2" ? uploadCoverage(repository, commit) : uploadVersion(repository, commit);
    for (const commit of [...VERSIONS, "push-3"] as const) {
      runs.inOrder.set(commit, await upload(inOrderRepository, commit));
    }
    for (const commit of ["base", "push-2", "push-3", "push-1"] as const) {
      runs.late.set(commit, await upload(lateRepository, commit));
    }
    await ingestionJobsDone(server.db);
  });

  test("the run compared with the later run takes up the late run's check, as in order", async () => {
    const expected = await runsOf(runs.inOrder);
    const actual = await runsOf(runs.late);
    for (const commit of [...VERSIONS, "push-3"] as const) {
      assert.deepEqual(actual.get(commit), expected.get(commit), commit);
    }
    const push3 = actual.get("push-3")!;
    assert.equal(push3.baseOid, commits.get("push-2"));
    assert.deepEqual(
      push3.checks.edges.map(({ node }) => node.analyzer.shortcode),
      ["eslint"],
    );
    // ESLint's own figures: against push 1, push 3 (push 2's code) removes the unused variable
    // and adds nothing; against base, push 1's `==` counted as its own, and failed its gate.
    const [push1, push2] = [await eslintSummary("push-1"), await eslintSummary("push-2")];
    const check = push3.checks.edges[0]!.node;
    assert.deepEqual(check.summary, {
      occurrencesIntroduced: problemsAdded(push1, push2),
      occurrencesResolved: problemsAdded(push2, push1),
      occurrencesSuppressed: 0,
    });
    assert.equal(check.status, "SUCCESS");
    assert.equal(push3.status, "SUCCESS");
  });

  test("the repository's current findings and trend are the in-order ones", async () => {
    const [expected, actual] = [await stateOf(inOrderRepository), await stateOf(lateRepository)];
    assert.equal(actual.latestCommitOid, commits.get("push-3"));
    assert.deepEqual(actual, expected);
  });
});

describe("ancestorOids that cannot be a history", () => {
  const UPLOAD = `mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok error } }`;

  test("are refused as INVALID_INPUT, naming the entry", async () => {
    const commit = "a".repeat(40);
    for (const [ancestorOids, message] of [
      [["HEAD~1"], /ancestorOids\[0\] must be a git commit id/],
      [[commit], /ancestorOids\[0\] is the commit itself/],
      [["b".repeat(40), "B".repeat(40)], /ancestorOids lists b{40} twice/],
      [Array.from({ length: 1001 }, (_, i) => i.toString(16).padStart(40, "c")), /at most 1000/],
    ] as const) {
      const answer = await gql(server.endpoint, token, UPLOAD, {
        input: {
          repositoryId: encodeGlobalId("Repository", late.key),
          commitOid: commit,
          branch: "main",
          ancestorOids,
          analyzer: "eslint",
          analyzerType: "community",
          data: await fs.readFile(path.join(REPORTS, "base.sarif"), "utf8"),
        },
      });
      const result = dataOf(answer).uploadArtifact as { ok: boolean; error: string };
      assert.equal(result.ok, false);
      assert.match(result.error, message);
    }
  });
});
