import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { fakeGit } from "../../test/helpers/fake-git.ts";
import { answerJson, startScriptedServer } from "../../test/helpers/scripted-server.ts";
import { type Env, type Git, gitIn } from "./ci-environment.ts";
import { CliError, UsageError } from "./command.ts";
import {
  type ChangesRequest,
  changedLinesSummary,
  findMergeBase,
  parseChangesMode,
  planChanges,
  sendChanges,
} from "./upload-changes.ts";

const HEAD = "1111111111111111111111111111111111111111";
const BASE_TIP = "2222222222222222222222222222222222222222";
const MERGE_BASE = "3333333333333333333333333333333333333333";

/** What `git diff --unified=0` prints for a changed and an added file: 2 files, 6 added lines. */
const DIFF = [
  "diff --git a/src/cart.js b/src/cart.js",
  "index 0a1b2c3..4d5e6f7 100644",
  "--- a/src/cart.js",
  "+++ b/src/cart.js",
  "@@ -3,0 +4,2 @@ export function total(items) {",
  "+  if (items.length === 0) return 0;",
  "+  const sum = items.reduce((a, b) => a + b, 0);",
  "@@ -10 +12 @@ export function tax(amount) {",
  "-  return amount * 0.2;",
  "+  return Math.round(amount * 20) / 100;",
  "diff --git a/src/tiers.js b/src/tiers.js",
  "new file mode 100644",
  "index 0000000..8a9b0c1",
  "--- /dev/null",
  "+++ b/src/tiers.js",
  "@@ -0,0 +1,3 @@",
  '+export const GOLD = "gold";',
  '+export const SILVER = "silver";',
  "+export const TIERS = [GOLD, SILVER];",
].join("\n");

const DIFF_ARGS =
  "diff --no-color --no-ext-diff --no-textconv --find-renames --unified=0 --src-prefix=a/ --dst-prefix=b/";

/** A clone at /ci/shop holding HEAD and the base branch `main`, as `refs` says it is known. */
function clone(
  refs: Record<string, string | null>,
  extra: Record<string, string | null> = {},
): Git & {
  asked: string[];
} {
  return fakeGit({
    "rev-parse --show-toplevel": "/ci/shop",
    [`rev-parse --verify --quiet ${HEAD}^{commit}`]: HEAD,
    ...refs,
    ...extra,
  });
}

const pullRequest = (overrides: Partial<ChangesRequest> = {}): ChangesRequest => ({
  changes: { kind: "auto" },
  analyzer: "test-coverage",
  commit: HEAD,
  pullRequestNumber: 7,
  baseBranch: "main",
  workDir: "/ci/shop",
  ...overrides,
});

const around = (git: Git, env: Env = {}) => ({ git, env, readText: () => null });

describe("the merge base sent with the upload", () => {
  test("is git's merge base with origin/<base>, else <base>; none when the clone cannot tell", () => {
    const withOrigin = clone({
      "rev-parse --verify --quiet origin/main^{commit}": BASE_TIP,
      [`merge-base origin/main ${HEAD}`]: MERGE_BASE,
    });
    assert.equal(findMergeBase(withOrigin, HEAD, "main"), MERGE_BASE);
    const local = clone({
      "rev-parse --verify --quiet main^{commit}": BASE_TIP,
      [`merge-base main ${HEAD}`]: MERGE_BASE,
    });
    assert.equal(findMergeBase(local, HEAD, "main"), MERGE_BASE);
    assert.equal(findMergeBase(clone({}), HEAD, "main"), null);
    assert.equal(findMergeBase(fakeGit({}), HEAD, "main"), null);
  });
});

describe("changed lines from git", () => {
  test("a pull request's diff runs from the merge base with origin/<base> to the commit, with git's own prefixes", () => {
    const git = clone({
      "rev-parse --verify --quiet origin/main^{commit}": BASE_TIP,
      [`merge-base origin/main ${HEAD}`]: MERGE_BASE,
      [`${DIFF_ARGS} ${MERGE_BASE} ${HEAD}`]: DIFF,
    });
    const plan = planChanges(pullRequest(), around(git));
    assert.ok("send" in plan, JSON.stringify(plan));
    assert.deepEqual(plan.send, {
      text: `${DIFF}\n`,
      workDir: "/ci/shop",
      files: 2,
      lines: 6,
      renamed: 0,
      origin: "against main@3333333",
      mergeBase: MERGE_BASE,
      renamesBase: null,
    });
    assert.equal(changedLinesSummary(plan.send), "Changed lines: 2 files, 6 lines against main@3333333");
    assert.ok(git.asked.includes(`${DIFF_ARGS} ${MERGE_BASE} ${HEAD}`));
  });

  test("without origin/<base> the local branch of that name is used", () => {
    const git = clone({
      "rev-parse --verify --quiet main^{commit}": BASE_TIP,
      [`merge-base main ${HEAD}`]: MERGE_BASE,
      [`${DIFF_ARGS} ${MERGE_BASE} ${HEAD}`]: DIFF,
    });
    const plan = planChanges(pullRequest(), around(git));
    assert.ok("send" in plan);
    assert.equal(plan.send.lines, 6);
    assert.ok(!git.asked.some((asked) => asked.startsWith("merge-base origin/main")));
  });

  test("a base branch the clone lacks is a warning naming both refs tried and, on GitHub Actions, fetch-depth: 0", () => {
    const plan = planChanges(pullRequest(), around(clone({}), { GITHUB_ACTIONS: "true" }));
    assert.deepEqual(plan, {
      skip: 'changed lines not sent: the base branch main is not in this clone (neither origin/main nor main); check out the full history: "fetch-depth: 0" on actions/checkout',
    });
  });

  test("no merge base in a shallow clone is a warning saying so, with GitLab's fix on GitLab", () => {
    const git = clone(
      { "rev-parse --verify --quiet origin/main^{commit}": BASE_TIP },
      { "rev-parse --is-shallow-repository": "true" },
    );
    const plan = planChanges(pullRequest(), around(git, { GITLAB_CI: "true" }));
    assert.deepEqual(plan, {
      skip: `changed lines not sent: ${HEAD.slice(0, 12)} and origin/main have no common ancestor in this clone (the clone is shallow); set the variable GIT_DEPTH to 0 and run "git fetch origin main" before the upload`,
    });
  });

  test("a commit the clone does not hold (GitHub's merge-commit checkout) is a warning", () => {
    const git = fakeGit({ "rev-parse --show-toplevel": "/ci/shop" });
    const plan = planChanges(pullRequest(), around(git));
    assert.ok("skip" in plan);
    assert.match(
      plan.skip ?? "",
      /^changed lines not sent: the commit 111111111111 is not in this clone; fetch the base branch and its history first: "git fetch origin main"/,
    );
  });

  test("outside a git work tree it is a warning; a pull request without a known base says to give --base", () => {
    assert.deepEqual(planChanges(pullRequest(), around(fakeGit({}))), {
      skip: "changed lines not sent: this directory is not in a git work tree",
    });
    assert.deepEqual(planChanges(pullRequest({ baseBranch: null }), around(clone({}))), {
      skip: "changed lines not sent: the branch pull request 7 merges into is not known; give --base BRANCH",
    });
  });

  test("--changes off, or an upload of changes itself: nothing sent, git not asked", () => {
    for (const request of [pullRequest({ changes: { kind: "off" } }), pullRequest({ analyzer: "changes" })]) {
      const git = clone({});
      assert.deepEqual(planChanges(request, around(git)), { skip: null });
      assert.deepEqual(git.asked, []);
    }
  });

  test("--base alone (no pull request) sends the changes against that branch", () => {
    const git = clone({
      "rev-parse --verify --quiet origin/release^{commit}": BASE_TIP,
      [`merge-base origin/release ${HEAD}`]: MERGE_BASE,
      [`${DIFF_ARGS} ${MERGE_BASE} ${HEAD}`]: DIFF,
    });
    const plan = planChanges(pullRequest({ pullRequestNumber: null, baseBranch: "release" }), around(git));
    assert.ok("send" in plan);
    assert.equal(plan.send.origin, "against release@3333333");
  });

  test("a diff with no difference (the trees are equal) is an empty change set, which is not sent", async () => {
    const git = clone({
      "rev-parse --verify --quiet origin/main^{commit}": BASE_TIP,
      [`merge-base origin/main ${HEAD}`]: MERGE_BASE,
      [`rev-parse ${MERGE_BASE}^{tree}`]: "4".repeat(40),
      [`rev-parse ${HEAD}^{tree}`]: "4".repeat(40),
    });
    const plan = planChanges(pullRequest(), around(git));
    assert.ok("send" in plan);
    assert.equal(plan.send.lines, 0);
    const target = {
      url: "http://127.0.0.1:9",
      token: "t",
      repositoryId: "r",
      commit: HEAD,
      branch: "feature",
      pullRequestNumber: 7,
      baseBranch: "main",
      mergeBaseOid: MERGE_BASE,
    };
    // Port 9 answers nothing: a request would come back as a warning, not this line.
    assert.deepEqual(await sendChanges(target, plan.send), {
      printed: "Changed lines: none against main@3333333 (nothing sent)",
    });
  });

  test("a diff that only renames a file adds no line but is sent, and says so", async (t) => {
    // The diff git prints for `git mv` of an unchanged file, made here by git.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-rename-diff-"));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const realGit = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=Assay Test", "-c", "user.email=test@example.com", ...args], {
        cwd: dir,
        encoding: "utf8",
        env: { PATH: process.env.PATH, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
      }).trim();
    realGit("init", "--quiet", "--initial-branch=main");
    fs.writeFileSync(path.join(dir, "outside.js"), "export const outside = 1;\n");
    realGit("add", "--all");
    realGit("commit", "--quiet", "-m", "before");
    realGit("mv", "outside.js", "range.js");
    realGit("commit", "--quiet", "-m", "after");
    const renameOnly = realGit(...DIFF_ARGS.split(" "), "HEAD~1", "HEAD");
    const git = clone({
      "rev-parse --verify --quiet origin/main^{commit}": BASE_TIP,
      [`merge-base origin/main ${HEAD}`]: MERGE_BASE,
      [`${DIFF_ARGS} ${MERGE_BASE} ${HEAD}`]: renameOnly,
    });
    const plan = planChanges(pullRequest(), around(git));
    assert.ok("send" in plan);
    assert.deepEqual([plan.send.files, plan.send.lines, plan.send.renamed], [0, 0, 1]);
    assert.equal(
      changedLinesSummary(plan.send),
      "Changed lines: 0 files, 0 lines, 1 renamed file against main@3333333",
    );
    const target = {
      url: "http://127.0.0.1:9",
      token: "t",
      repositoryId: "r",
      commit: HEAD,
      branch: "feature",
      pullRequestNumber: 7,
      baseBranch: "main",
      mergeBaseOid: MERGE_BASE,
    };
    // Port 9 answers nothing: the request was made, so it comes back as a warning.
    assert.ok("warning" in (await sendChanges(target, plan.send)));
  });

  test("a failing git diff between different trees is a warning, not an empty change set", () => {
    const git = clone({
      "rev-parse --verify --quiet origin/main^{commit}": BASE_TIP,
      [`merge-base origin/main ${HEAD}`]: MERGE_BASE,
      [`rev-parse ${MERGE_BASE}^{tree}`]: "4".repeat(40),
      [`rev-parse ${HEAD}^{tree}`]: "5".repeat(40),
    });
    assert.deepEqual(planChanges(pullRequest(), around(git)), {
      skip: `changed lines not sent: git diff ${MERGE_BASE.slice(0, 12)} ${HEAD.slice(0, 12)} failed`,
    });
  });
});

describe("the renames of a branch build", () => {
  /** A git repository made here, and git in it as the command runs it. */
  function repository(t: { after: (fn: () => void) => void }) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-branch-renames-"));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const commit = (...files: Array<[string, string | null]>) => {
      for (const [file, text] of files) {
        if (text === null) fs.rmSync(path.join(dir, file));
        else fs.writeFileSync(path.join(dir, file), text);
      }
      const run = (...args: string[]) =>
        execFileSync("git", ["-c", "user.name=Assay Test", "-c", "user.email=test@example.com", ...args], {
          cwd: dir,
          encoding: "utf8",
          env: { PATH: process.env.PATH, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
        }).trim();
      if (!fs.existsSync(path.join(dir, ".git"))) run("init", "--quiet", "--initial-branch=main");
      run("add", "--all");
      run("commit", "--quiet", "-m", "commit");
      return run("rev-parse", "HEAD");
    };
    return { dir, commit, git: gitIn(dir) };
  }

  const branchBuild = (commit: string, workDir: string): ChangesRequest => ({
    changes: { kind: "auto" },
    analyzer: "eslint",
    commit,
    pullRequestNumber: null,
    baseBranch: null,
    workDir,
  });

  const RANGE = [
    "export function outside(version, range) {",
    "  const low = range[0];",
    "  return low;",
    "}",
    "",
  ];

  test("are git's renames against the first parent, sent for themselves: no changed line, the parent named", (t) => {
    const repo = repository(t);
    const parent = repo.commit(["outside.js", RANGE.join("\n")], ["README.md", "Ranges.\n"]);
    // Renamed with an edit, another file changed, a third added: only the rename is sent.
    const head = repo.commit(
      ["outside.js", null],
      ["range.js", RANGE.join("\n").replace("return low;", "return low ?? 0;")],
      ["README.md", "Ranges of versions.\n"],
      ["tiers.js", "export const GOLD = 1;\n"],
    );
    const plan = planChanges(branchBuild(head, repo.dir), around(repo.git));
    assert.ok("send" in plan, JSON.stringify(plan));
    const sent = plan.send;
    assert.deepEqual(
      [sent.files, sent.lines, sent.renamed, sent.renamesBase, sent.mergeBase],
      [0, 0, 1, parent, null],
    );
    assert.match(sent.text, /^rename from outside\.js\nrename to range\.js$/m);
    assert.doesNotMatch(sent.text, /README|tiers/);
    assert.equal(changedLinesSummary(sent), `Renamed files: 1 against the parent ${parent.slice(0, 7)}`);
  });

  test("nothing is sent, and nothing said, without a rename or without a parent", (t) => {
    const repo = repository(t);
    const root = repo.commit(["outside.js", RANGE.join("\n")]);
    assert.deepEqual(planChanges(branchBuild(root, repo.dir), around(repo.git)), { skip: null });
    const edited = repo.commit(["outside.js", `${RANGE.join("\n")}// edited\n`]);
    assert.deepEqual(planChanges(branchBuild(edited, repo.dir), around(repo.git)), { skip: null });
  });

  test("they go as renamesBaseOid with the changes, whose answer prints the line", async () => {
    const prepared = {
      text: "",
      workDir: "/ci/shop",
      files: 0,
      lines: 0,
      renamed: 1,
      origin: `against the parent ${BASE_TIP.slice(0, 7)}`,
      mergeBase: null,
      renamesBase: BASE_TIP,
    };
    const server = await startScriptedServer();
    server.respond = answerJson({ data: { uploadArtifact: { ok: true, message: "ok", error: "" } } });
    try {
      const target = {
        url: server.url,
        token: "t",
        repositoryId: "r",
        commit: HEAD,
        branch: "main",
        pullRequestNumber: null,
        baseBranch: null,
        mergeBaseOid: null,
        ancestorOids: [BASE_TIP],
      };
      assert.deepEqual(await sendChanges(target, prepared), {
        printed: `Renamed files: 1 against the parent ${BASE_TIP.slice(0, 7)}`,
      });
    } finally {
      await server.stop();
    }
    const [request] = server.captured;
    const sentInput = JSON.parse(request?.body.toString("utf8") ?? "{}").variables.input;
    assert.equal(sentInput?.renamesBaseOid, BASE_TIP);
    assert.equal(sentInput?.analyzer, "changes");
    assert.deepEqual(sentInput?.ancestorOids, [BASE_TIP]);
  });
});

describe("--changes FILE", () => {
  const files: Record<string, string> = {
    "/ci/shop/changes.diff": DIFF,
    "/ci/shop/ranges.json": JSON.stringify({
      files: {
        "src/a.js": [
          [1, 4],
          [3, 9],
        ],
      },
    }),
    "/ci/shop/broken.diff": "--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n+one\n",
  };
  const reading = { git: clone({}), env: {}, readText: (file: string) => files[file] ?? null };
  const withFile = (file: string) =>
    planChanges(
      pullRequest({ changes: parseChangesMode(file, "/ci/shop"), pullRequestNumber: null }),
      reading,
    );

  test("is read and counted before anything is sent, whether a diff or JSON ranges, with or without a pull request", () => {
    assert.deepEqual(withFile("changes.diff"), {
      send: {
        text: DIFF,
        workDir: "/ci/shop",
        files: 2,
        lines: 6,
        renamed: 0,
        origin: "from changes.diff",
        mergeBase: null,
        renamesBase: null,
      },
    });
    const ranges = withFile("ranges.json");
    assert.ok("send" in ranges);
    assert.deepEqual([ranges.send.files, ranges.send.lines], [1, 9]);
    assert.deepEqual(reading.git.asked, [], "git is not asked");
  });

  test("an unreadable or malformed file stops the command with what is wrong", () => {
    assert.throws(
      () => withFile("missing.diff"),
      new CliError("--changes: cannot read /ci/shop/missing.diff"),
    );
    assert.throws(
      () => withFile("broken.diff"),
      (error: unknown) =>
        error instanceof CliError &&
        /^--changes: \/ci\/shop\/broken\.diff: unified diff: the text ends inside the hunk/.test(
          error.message,
        ),
    );
    assert.throws(
      () =>
        planChanges(
          pullRequest({ analyzer: "changes", changes: { kind: "file", path: "/ci/shop/changes.diff" } }),
          reading,
        ),
      CliError,
    );
  });

  test("parseChangesMode: auto by default, off, a file relative to the directory, never an empty name", () => {
    assert.deepEqual(parseChangesMode(undefined, "/ci"), { kind: "auto" });
    assert.deepEqual(parseChangesMode("auto", "/ci"), { kind: "auto" });
    assert.deepEqual(parseChangesMode("off", "/ci"), { kind: "off" });
    assert.deepEqual(parseChangesMode("out/pr.diff", "/ci"), { kind: "file", path: "/ci/out/pr.diff" });
    assert.throws(() => parseChangesMode(" ", "/ci"), UsageError);
  });
});
