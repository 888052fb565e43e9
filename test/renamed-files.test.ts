// test-runner: execution-mode independent (a client of the API; the queries it sends are covered elsewhere in both modes)
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import type { RepositoryRow } from "../src/db/types.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { gitIn } from "./helpers/git-checkout.ts";
import { waitFor } from "./helpers/instance.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * A renamed file keeps its findings (docs/ingestion.md "Renamed files"), end to end: a git
 * repository made here from test/fixtures/tools/js-renames, whose versions ESLint linted
 * (scripts/make-fixtures.sh renames): `base`, `moved` (`git mv src/outside.js
 * src/ranges/outside.js`) and `moved-edited` (renamed again, one finding fixed). `assay upload`
 * sends each report with the changes git names the rename in; the checks' counts, the findings'
 * paths, the code health trend and the pull request's summary are read from the API and compared
 * with ESLint's own list of each version's findings. The same uploads without the changes, to a
 * second repository, show what a client that sends none still gets.
 */

const ROOT = path.resolve(import.meta.dirname, "..");
const SOURCES = path.join(ROOT, "test", "fixtures", "tools", "js-renames");
const REPORTS = path.join(ROOT, "test", "fixtures", "renames");
/** Where make-fixtures.sh ran ESLint: the SARIF's absolute paths lie under it. */
const ESLINT_WORK_DIR = "/tmp/assay-fixtures/js-renames";
const CLI = path.join(ROOT, "src", "cli", "upload-main.ts");
/** tsx by location: the command runs in the checkout, which has no node_modules. */
const TSX = import.meta.resolve("tsx");
const run = promisify(execFile);

let server: TestServer;
let token: string;
let scratch: string;
/** The checkout of the first tests. */
let first: Checkout;
/** The repository whose default branch follows a rename. */
let semverMain: RepositoryRow;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  const user = await aUser(server.db);
  const team = await anAccount(server.db, { login: "acme" }, [{ user, role: "ADMIN" }]);
  await aRepository(server.db, team, { name: "semver", defaultBranch: "main" });
  await aRepository(server.db, team, { name: "semver-plain", defaultBranch: "main" });
  semverMain = await aRepository(server.db, team, { name: "semver-main", defaultBranch: "main" });
  await aRepository(server.db, team, { name: "semver-skip", defaultBranch: "main" });
  await aRepository(server.db, team, { name: "semver-topic", defaultBranch: "main" });
  await aRepository(server.db, team, { name: "semver-late", defaultBranch: "main" });
  token = await aToken(server.db, server.config.tokenPepper, user);
  scratch = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "assay-renames-")));
  first = await newCheckout("semver");
});

after(async () => {
  await server?.stop();
  if (scratch) await fs.rm(scratch, { recursive: true, force: true });
});

/** git in the first checkout, with a fixed identity and none of the machine's configuration. */
const git = (...args: string[]) => first.git(...args);

/** A git repository of the project, made in the scratch directory, and git in it. */
interface Checkout {
  dir: string;
  git: (...args: string[]) => string;
}

/** A new git repository `name` in the scratch directory, on `main`. */
async function newCheckout(name: string): Promise<Checkout> {
  const dir = path.join(scratch, name);
  await fs.mkdir(dir);
  const made = { dir, git: gitIn(() => dir) };
  made.git("init", "--quiet", "--initial-branch=main");
  return made;
}

/** Commits a README beside the project (a commit ESLint finds nothing new in); answers its sha. */
async function commitReadme(at: Checkout): Promise<string> {
  await fs.writeFile(path.join(at.dir, "README.md"), "Ranges of versions.\n");
  at.git("add", "README.md");
  at.git("commit", "--quiet", "-m", "readme");
  return at.git("rev-parse", "HEAD");
}

/** Commits the project at `version` (its sources replace the checkout's) on the current branch. */
async function commitVersion(version: string, at: Checkout = first): Promise<string> {
  at.git("rm", "-r", "--quiet", "--ignore-unmatch", "src");
  await fs.rm(path.join(at.dir, "src"), { recursive: true, force: true });
  for (const file of ["package.json", "eslint.config.mjs"]) {
    await fs.copyFile(path.join(SOURCES, file), path.join(at.dir, file));
  }
  await fs.cp(path.join(SOURCES, version), at.dir, { recursive: true });
  at.git("add", "--all");
  at.git("commit", "--quiet", "-m", version);
  return at.git("rev-parse", "HEAD");
}

interface Ran {
  status: number;
  stdout: string;
  stderr: string;
}

/** `assay upload` of ESLint's report of `version` to `repository`, waiting for it. */
function uploadEslint(repository: string, version: string, ...args: string[]): Promise<Ran> {
  return assayUpload(first, [
    ...["--repository", `gh/acme/${repository}`, "--analyzer", "eslint", "--analyzer-type", "community"],
    ...["--work-dir", ESLINT_WORK_DIR, "--file", path.join(REPORTS, `${version}.sarif`)],
    ...args,
  ]);
}

/** `assay upload --wait` with `args`, run in the checkout `at` as a CI job runs it. */
async function assayUpload(at: Checkout, args: string[]): Promise<Ran> {
  const env = {
    PATH: process.env.PATH,
    HOME: scratch,
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    ASSAY_URL: server.url,
    ASSAY_TOKEN: token,
  };
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ["--import", TSX, CLI, "upload", "--wait", ...args],
      {
        cwd: at.dir,
        env,
      },
    );
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { status: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

const RUN_QUERY = `query($runUid: UUID!) { run(runUid: $runUid) { commitOid checks { edges { node {
  analyzer { shortcode } summary { occurrencesIntroduced occurrencesResolved }
  issues(first: 50) { totalCount edges { node { shortcode path beginLine isIntroduced } } } } } } } }`;

interface Finding {
  shortcode: string;
  path: string;
  beginLine: number;
  isIntroduced: boolean;
}

/** The eslint check of the run a command's output names: its counts and its open findings. */
async function eslintCheckOf(
  output: string,
): Promise<{ commitOid: string; introduced: number; resolved: number; findings: Finding[] }> {
  const runUid = /^Run ([0-9a-f-]{36}): /m.exec(output)?.[1];
  assert.ok(runUid, `the output names the run:\n${output}`);
  const data = dataOf(await gql(server.endpoint, token, RUN_QUERY, { runUid })) as {
    run: {
      commitOid: string;
      checks: {
        edges: Array<{
          node: {
            analyzer: { shortcode: string };
            summary: { occurrencesIntroduced: number; occurrencesResolved: number };
            issues: { edges: Array<{ node: Finding }> };
          };
        }>;
      };
    };
  };
  const check = data.run.checks.edges.find(({ node }) => node.analyzer.shortcode === "eslint")?.node;
  assert.ok(check, "the run has an eslint check");
  return {
    commitOid: data.run.commitOid,
    introduced: check.summary.occurrencesIntroduced,
    resolved: check.summary.occurrencesResolved,
    findings: check.issues.edges
      .map(({ node }) => node)
      .sort((a, b) => a.path.localeCompare(b.path) || a.beginLine - b.beginLine),
  };
}

/** The base commit and branch of the run a command's output names. */
async function runNamedIn(output: string): Promise<{ baseOid: string; branchName: string }> {
  const runUid = /^Run ([0-9a-f-]{36}): /m.exec(output)?.[1];
  assert.ok(runUid, `the output names the run:\n${output}`);
  const query = "query($runUid: UUID!) { run(runUid: $runUid) { baseOid branchName } }";
  return (
    dataOf(await gql(server.endpoint, token, query, { runUid })) as {
      run: { baseOid: string; branchName: string };
    }
  ).run;
}

/** ESLint's own list of a version's findings (its JSON output, kept in the summary). */
async function eslintFindings(version: string): Promise<Array<{ path: string; rule: string; line: number }>> {
  const summary = JSON.parse(await fs.readFile(path.join(REPORTS, `${version}.summary.json`), "utf8")) as {
    figures: { findings: Array<{ path: string; rule: string; line: number }> };
  };
  return summary.figures.findings
    .map(({ path, rule, line }) => ({ path, rule, line }))
    .sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line);
}

/** The API's findings as (path, rule, line), to compare with ESLint's. */
function located(findings: Finding[]): Array<{ path: string; rule: string; line: number }> {
  return findings.map((f) => ({ path: f.path, rule: f.shortcode, line: f.beginLine }));
}

const TREND = `query($login: String!, $name: String!, $day: Date!) {
  repository(login: $login, name: $name, vcsProvider: GITHUB) { reports { codeHealthTrend {
    currentValue values(startDate: $day, endDate: $day) { values { key value } } } } } }`;

/** Today's code health trend of a repository: its active level and the findings resolved today. */
async function trendToday(name: string): Promise<Record<string, number>> {
  const day = new Date().toISOString().slice(0, 10);
  const data = dataOf(await gql(server.endpoint, token, TREND, { login: "acme", name, day })) as {
    repository: {
      reports: { codeHealthTrend: { values: Array<{ values: Array<{ key: string; value: number }> }> } };
    };
  };
  const [today] = data.repository.reports.codeHealthTrend.values;
  assert.ok(today, "a value for today");
  return Object.fromEntries(today.values.map(({ key, value }) => [key, value]));
}

describe("a renamed file keeps its findings", () => {
  let baseCommit: string;
  let movedCommit: string;

  test("the first run of the default branch introduces ESLint's three findings", async () => {
    baseCommit = await commitVersion("base");
    const expected = await eslintFindings("base");
    assert.equal(expected.length, 3);
    for (const repository of ["semver", "semver-plain"]) {
      const ran = await uploadEslint(repository, "base");
      assert.equal(ran.status, 1, "three new findings fail the check");
      const check = await eslintCheckOf(ran.stdout);
      assert.equal(check.commitOid, baseCommit);
      assert.deepEqual([check.introduced, check.resolved], [3, 0]);
      assert.deepEqual(located(check.findings), expected);
    }
  });

  test("after git mv, with the changes that name the rename, every finding is EXISTING at the new path", async () => {
    movedCommit = await commitVersion("moved");
    const diffFile = path.join(scratch, "rename.diff");
    const diff = git("diff", "--no-color", "--find-renames", "--unified=0", baseCommit, movedCommit);
    assert.match(diff, /^rename from src\/outside\.js$/m);
    await fs.writeFile(diffFile, `${diff}\n`);
    const ran = await uploadEslint("semver", "moved", "--changes", diffFile);
    assert.equal(ran.status, 0, `${ran.stdout}\n${ran.stderr}`);
    const check = await eslintCheckOf(ran.stdout);
    assert.equal(check.commitOid, movedCommit);
    assert.deepEqual([check.introduced, check.resolved], [0, 0]);
    const expected = await eslintFindings("moved");
    assert.ok(expected.every((finding) => finding.path === "src/ranges/outside.js"));
    assert.deepEqual(located(check.findings), expected);
    assert.ok(check.findings.every((finding) => !finding.isIntroduced));
  });

  test("without changes, as a client that sends none, the rename still resolves and introduces them", async () => {
    const ran = await uploadEslint("semver-plain", "moved", "--changes", "off");
    assert.equal(ran.status, 1);
    const check = await eslintCheckOf(ran.stdout);
    assert.equal(check.commitOid, movedCommit);
    assert.deepEqual([check.introduced, check.resolved], [3, 3]);
    assert.deepEqual(located(check.findings), await eslintFindings("moved"));
  });

  test("the code health trend resolved nothing today where the rename was known", async () => {
    assert.deepEqual(await trendToday("semver"), { active: 3, resolved: 0 });
    assert.deepEqual(await trendToday("semver-plain"), { active: 3, resolved: 3 });
  });

  test("a pull request that renames the file with an edit resolves only the finding the edit fixed", async () => {
    git("checkout", "--quiet", "-b", "rename-range");
    const pushed = await commitVersion("moved-edited");
    const ran = await uploadEslint("semver", "moved-edited", "--pr", "7", "--base", "main");
    assert.equal(ran.status, 0, `${ran.stdout}\n${ran.stderr}`);
    // git's own view of the change: a rename with one line edited.
    assert.match(
      git("diff", "--find-renames", "--summary", movedCommit, pushed),
      /rename src\/ranges\/\{outside\.js => outside-range\.js\} \(9\d%\)/,
    );
    assert.ok(
      ran.stdout
        .split("\n")
        .includes(`Changed lines: 1 file, 1 line, 1 renamed file against main@${movedCommit.slice(0, 7)}`),
      ran.stdout,
    );
    const check = await eslintCheckOf(ran.stdout);
    assert.equal(check.commitOid, pushed);
    assert.deepEqual([check.introduced, check.resolved], [0, 1]);
    const expected = await eslintFindings("moved-edited");
    assert.equal(expected.length, 2);
    assert.deepEqual(located(check.findings), expected);
    const data = dataOf(
      await gql(
        server.endpoint,
        token,
        `query { repository(login: "acme", name: "semver", vcsProvider: GITHUB) {
          pullRequest(number: 7) { summary { issuesRaised issuesResolved } } } }`,
      ),
    ) as { repository: { pullRequest: { summary: { issuesRaised: number; issuesResolved: number } } } };
    assert.deepEqual(data.repository.pullRequest.summary, { issuesRaised: 0, issuesResolved: 1 });
  });
});

/** The `repository_issue.*` events recorded for repository `name`, by type, as their issues' shortcodes. */
async function issueEventsOf(name: string): Promise<{ introduced: string[]; resolved: string[] }> {
  const rows = await server.db
    .selectFrom("webhook_events")
    .select(["type", "data"])
    .where("type", "in", ["repository_issue.introduced", "repository_issue.resolved"])
    .orderBy("id")
    .execute();
  const events = { introduced: [] as string[], resolved: [] as string[] };
  for (const row of rows) {
    const data = (typeof row.data === "string" ? JSON.parse(row.data) : row.data) as {
      object: { repository: { name: string }; issue: { shortcode: string } };
    };
    if (data.object.repository.name !== name) continue;
    const list = row.type === "repository_issue.introduced" ? events.introduced : events.resolved;
    list.push(data.object.issue.shortcode);
  }
  return { introduced: events.introduced.sort(), resolved: events.resolved.sort() };
}

const COVERAGE_QUERY = `query($runUid: UUID!) { run(runUid: $runUid) {
  changesetStats { lines { overall new newCovered } }
  checks { edges { node { analyzer { shortcode } metrics { shortcode } } } } } }`;

describe("the default branch follows a rename its commit made", () => {
  let history: Checkout;
  let baseCommit: string;

  /** `assay upload` of ESLint's report of `version` to `repository`, from `at`'s current commit. */
  const uploadFrom = (at: Checkout, repository: string, version: string) =>
    assayUpload(at, [
      ...["--repository", `gh/acme/${repository}`, "--analyzer", "eslint", "--analyzer-type", "community"],
      ...["--work-dir", ESLINT_WORK_DIR, "--file", path.join(REPORTS, `${version}.sarif`)],
    ]);

  /** The line `assay upload` prints for the renames it sent against `parent`. */
  const renamedLine = (parent: string) => `Renamed files: 1 against the parent ${parent.slice(0, 7)}`;

  test("after a pull request that renamed the file is merged, the default branch's run finds its findings EXISTING", async () => {
    history = await newCheckout("history");
    baseCommit = await commitVersion("base", history);
    assert.equal((await uploadFrom(history, "semver-main", "base")).status, 1);
    history.git("checkout", "--quiet", "-b", "rename-range");
    await commitVersion("moved-edited", history);
    history.git("checkout", "--quiet", "main");
    history.git("merge", "--quiet", "--no-ff", "-m", "Merge rename-range", "rename-range");
    const merge = history.git("rev-parse", "HEAD");
    assert.equal(history.git("rev-parse", "HEAD^1"), baseCommit);
    // What git says the merge did against its first parent: the rename, with one line edited.
    assert.match(
      history.git("diff", "--find-renames", "--summary", baseCommit, merge),
      /rename src\/\{outside\.js => ranges\/outside-range\.js\} \(9\d%\)/,
    );
    const ran = await uploadFrom(history, "semver-main", "moved-edited");
    assert.equal(ran.status, 0, `${ran.stdout}\n${ran.stderr}`);
    assert.ok(ran.stdout.split("\n").includes(renamedLine(baseCommit)), ran.stdout);
    const check = await eslintCheckOf(ran.stdout);
    assert.equal(check.commitOid, merge);
    // The edit fixed eqeqeq: that one is RESOLVED, the two others stay EXISTING at the new path.
    assert.deepEqual([check.introduced, check.resolved], [0, 1]);
    assert.deepEqual(located(check.findings), await eslintFindings("moved-edited"));
    assert.ok(check.findings.every((finding) => !finding.isIntroduced));
  });

  test("the repository-issue events and the trend agree with the run: only the fixed rule is resolved", async () => {
    assert.deepEqual(await issueEventsOf("semver-main"), {
      introduced: ["eqeqeq", "no-unused-vars", "prefer-const"],
      resolved: ["eqeqeq"],
    });
    assert.deepEqual(await trendToday("semver-main"), { active: 2, resolved: 1 });
  });

  test("the renames give the run no changed lines: its coverage has no new-code counts or metrics", async () => {
    const ran = await assayUpload(history, [
      ...["--repository", "gh/acme/semver-main", "--analyzer", "test-coverage", "--key", "javascript"],
      ...["--file", path.join(ROOT, "test", "fixtures", "pull-request", "base.lcov")],
    ]);
    assert.equal(ran.status, 0, `${ran.stdout}\n${ran.stderr}`);
    assert.ok(ran.stdout.split("\n").includes(renamedLine(baseCommit)), ran.stdout);
    const runUid = /^Run ([0-9a-f-]{36}): /m.exec(ran.stdout)?.[1];
    const data = dataOf(await gql(server.endpoint, token, COVERAGE_QUERY, { runUid })) as {
      run: {
        changesetStats: { lines: { overall: number; new: number | null; newCovered: number | null } };
        checks: {
          edges: Array<{ node: { analyzer: { shortcode: string }; metrics: Array<{ shortcode: string }> } }>;
        };
      };
    };
    const { lines } = data.run.changesetStats;
    assert.ok(lines.overall > 0);
    assert.deepEqual([lines.new, lines.newCovered], [null, null]);
    const coverage = data.run.checks.edges.find(({ node }) => node.analyzer.shortcode === "test-coverage");
    const metrics = coverage?.node.metrics.map(({ shortcode }) => shortcode) ?? [];
    assert.ok(metrics.includes("LCV"), metrics.join());
    assert.deepEqual(
      metrics.filter((shortcode) => shortcode.startsWith("N")),
      [],
      "no new-code metric",
    );
  });

  test("a run compared with an older commit than the diff's parent matches no rename", async () => {
    // The file at its second path is analysed; the next commit's CI was skipped; the commit after
    // it renames the file again. Its run is compared with the analysed commit, not the diff's.
    const skip = await newCheckout("skip");
    const analysed = await commitVersion("moved", skip);
    assert.equal((await uploadFrom(skip, "semver-skip", "moved")).status, 1);
    const parent = await commitReadme(skip);
    await commitVersion("moved-edited", skip);
    const ran = await uploadFrom(skip, "semver-skip", "moved-edited");
    assert.ok(ran.stdout.split("\n").includes(renamedLine(parent)), ran.stdout);
    assert.equal((await runNamedIn(ran.stdout)).baseOid, analysed);
    assert.ok(
      ran.stdout.includes(
        `The run's changes rename 1 file against ${parent.slice(0, 12)}, but the run is compared with ${analysed.slice(0, 12)}`,
      ),
      ran.stdout,
    );
    // As without the renames: the findings at the new path are new, those at the old one resolved.
    const check = await eslintCheckOf(ran.stdout);
    assert.deepEqual([check.introduced, check.resolved], [2, 3]);
    assert.deepEqual(located(check.findings), await eslintFindings("moved-edited"));
  });

  test("a run reported before its parent's matches the rename once the parent's run is analysed and the run is compared with it", async () => {
    // Two pushes in quick succession: the merge's CI ends before its parent's, whose run is not
    // there yet, so the merge's run is compared with the grandparent and its renames wait.
    const late = await newCheckout("late");
    const grandparent = await commitVersion("base", late);
    assert.equal((await uploadFrom(late, "semver-late", "base")).status, 1);
    const parent = await commitReadme(late);
    await commitVersion("moved-edited", late);
    const ran = await uploadFrom(late, "semver-late", "moved-edited");
    assert.ok(ran.stdout.split("\n").includes(renamedLine(parent)), `${ran.stdout}\n${ran.stderr}`);
    assert.ok(
      ran.stdout.includes(
        `but the run is compared with ${grandparent.slice(0, 12)}: findings in renamed files are matched at their new paths only (resolved at the old path, introduced at the new one), until the run is compared with ${parent.slice(0, 12)} once its run is analysed.`,
      ),
      ran.stdout,
    );
    const baseOf = async () => (await runNamedIn(ran.stdout)).baseOid;
    assert.equal(await baseOf(), grandparent);
    const meanwhile = await eslintCheckOf(ran.stdout);
    assert.deepEqual([meanwhile.introduced, meanwhile.resolved], [2, 3]);

    // The parent's CI ends: the same sources as the grandparent's, and a README.
    const parentRan = await assayUpload(late, [
      ...["--repository", "gh/acme/semver-late", "--analyzer", "eslint", "--analyzer-type", "community"],
      ...["--work-dir", ESLINT_WORK_DIR, "--file", path.join(REPORTS, "base.sarif")],
      ...["--commit", parent, "--branch", "main"],
    ]);
    assert.equal(parentRan.status, 0, `${parentRan.stdout}\n${parentRan.stderr}`);
    await waitFor(
      "the merge's run to be compared with its parent's",
      async () => (await baseOf()) === parent,
      20_000,
    );
    // As when the parent's run came first (the test above): the edit fixed eqeqeq, the two other
    // findings are EXISTING at the new path.
    const check = await eslintCheckOf(ran.stdout);
    assert.deepEqual([check.introduced, check.resolved], [0, 1]);
    assert.deepEqual(located(check.findings), await eslintFindings("moved-edited"));
    assert.ok(check.findings.every((finding) => !finding.isIntroduced));
  });

  test("a branch pushed without a pull request is compared with the default branch: its renames are set aside without a warning", async () => {
    const topic = await newCheckout("topic");
    const analysed = await commitVersion("moved", topic);
    assert.equal((await uploadFrom(topic, "semver-topic", "moved")).status, 1);
    topic.git("checkout", "--quiet", "-b", "topic");
    const parent = await commitReadme(topic);
    await commitVersion("moved-edited", topic);
    const ran = await uploadFrom(topic, "semver-topic", "moved-edited");
    assert.ok(ran.stdout.split("\n").includes(renamedLine(parent)), `${ran.stdout}\n${ran.stderr}`);
    assert.deepEqual(await runNamedIn(ran.stdout), { baseOid: analysed, branchName: "topic" });
    // Its build cannot know what it is compared with; the default branch's runs are what the
    // renames are sent for.
    assert.doesNotMatch(ran.stdout, /The run's changes rename/);
    const check = await eslintCheckOf(ran.stdout);
    assert.deepEqual([check.introduced, check.resolved], [2, 3]);
  });

  test("a renames base that cannot be one is refused by name, and so are changes that rename nothing", async () => {
    const merge = history.git("rev-parse", "HEAD");
    const renames = history.git(
      "diff",
      "--find-renames",
      "--diff-filter=R",
      "--unified=0",
      baseCommit,
      merge,
    );
    // The same change as git prints it without looking for renames: a file deleted, another added.
    const noRenames = history.git("diff", "--no-renames", "--unified=0", baseCommit, merge);
    assert.doesNotMatch(noRenames, /^rename from/m);
    const UPLOAD = "mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok error } }";
    for (const [input, message] of [
      [{ renamesBaseOid: "HEAD~1", data: renames }, /renamesBaseOid must be a git commit id/],
      [{ renamesBaseOid: merge, data: renames }, /renamesBaseOid is the commit itself/],
      [
        { renamesBaseOid: baseCommit, analyzer: "eslint", analyzerType: "community", data: "{}" },
        /send it with analyzer changes/,
      ],
      [
        { renamesBaseOid: baseCommit, data: noRenames },
        /sent for their renamed files \(renamesBaseOid\) but name none/,
      ],
      [{ renamesBaseOid: baseCommit, data: '{"files": {"src/a.js": [[1, 2]]}}' }, /but name none/],
    ] as const) {
      const answer = await gql(server.endpoint, token, UPLOAD, {
        input: {
          repositoryId: encodeGlobalId("Repository", semverMain.key),
          commitOid: merge,
          branch: "main",
          analyzer: "changes",
          ...input,
        },
      });
      const result = dataOf(answer).uploadArtifact as { ok: boolean; error: string };
      assert.equal(result.ok, false, JSON.stringify(input));
      assert.match(result.error, message);
    }
  });
});
