import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type {
  AccountRow,
  AnalysisRunRow,
  AnalyzerRow,
  IssueRow,
  OccurrenceRow,
  RepositoryRow,
  UserRow,
} from "../src/db/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aRun, aToken, aUser } from "./helpers/builders.ts";
import { anArtifact } from "./helpers/builders-artifacts.ts";
import { anAnalyzer, anIssue, issuesIn } from "./helpers/builders-catalog.ts";
import { aCheck, occurrencesIn } from "./helpers/builders-checks.ts";
import { assertPageSizeIndependent, settle, startInstance, type TestInstance } from "./helpers/instance.ts";
import { assertPagesBothWays, type Connection, PAGE_INFO } from "./helpers/paging.ts";
import { dataOf, gql } from "./helpers/server.ts";

const MINUTE = 60_000;

describe("repository issues and occurrences", () => {
  let server: TestInstance;
  let alice: UserRow;
  let team: AccountRow;
  let hidden: AccountRow;
  let token: string;
  let python: AnalyzerRow;
  let go: AnalyzerRow;

  before(async () => {
    server = await startInstance();
    const { db } = server;
    alice = await aUser(db);
    const carol = await aUser(db);
    team = await anAccount(db, {}, [{ user: alice, role: "CONTRIBUTOR" }]);
    hidden = await anAccount(db, {}, [{ user: carol, role: "ADMIN" }]);
    token = await aToken(db, server.config.tokenPepper, alice);
    python = await anAnalyzer(db, { shortcode: `py-${newRowKey()}` });
    go = await anAnalyzer(db, { shortcode: `go-${newRowKey()}` });
  });
  after(() => server.stop());

  /** The `data` of a query as alice, failing the test on any error. */
  async function query<T>(text: string, variables: Record<string, unknown> = {}): Promise<T> {
    const res = await gql<T>(server.endpoint, token, text, variables);
    assert.deepEqual(res.body.errors, undefined, text);
    assert.ok(res.body.data);
    return res.body.data;
  }

  /** `repository(...)` as alice with `selection` inside; `declared` declares extra variables. */
  async function repositoryField<T>(
    repository: RepositoryRow,
    selection: string,
    variables: Record<string, unknown> = {},
    declared = "",
  ): Promise<T> {
    const data = await query<{ repository: T }>(
      `query($name: String!, $login: String!${declared}) {
        repository(name: $name, login: $login, vcsProvider: GITHUB) { ${selection} } }`,
      { name: repository.name, login: team.login, ...variables },
    );
    return data.repository;
  }

  const issueId = (repository: RepositoryRow, issue: IssueRow) =>
    encodeGlobalId("RepositoryIssue", `${repository.key}${issue.key}`);

  /**
   * A repository whose latest finished default-branch run (`current`) found issues `a`, `b`, `c`
   * (python) and `g` (go), where `resolved` has only RESOLVED rows; around it, runs that must not
   * count: an older finished run, a newer pending run and a newer run on another branch.
   */
  async function repositoryWithHistory(): Promise<{
    repository: RepositoryRow;
    current: AnalysisRunRow;
    issues: Record<"a" | "b" | "c" | "g" | "resolved" | "old" | "pending" | "branch", IssueRow>;
    found: OccurrenceRow[];
  }> {
    const { db } = server;
    const repository = await aRepository(db, team, { defaultBranch: "main" });
    const now = Date.now();
    // Shortcodes are unique per analyzer; the suffix keeps calls apart without changing the order.
    const suffix = newRowKey();
    const [a, b, c, resolved, old, pending, branch] = await issuesIn(db, [
      { analyzer: python, shortcode: `PY-B-${suffix}`, tags: ["security", "cwe-79"] },
      { analyzer: python, shortcode: `PY-A-${suffix}`, tags: ["security"] },
      { analyzer: python, shortcode: `PY-C-${suffix}`, tags: ["cwe-79", "style"] },
      { analyzer: python, shortcode: `PY-R-${suffix}` },
      { analyzer: python, shortcode: `PY-OLD-${suffix}` },
      { analyzer: python, shortcode: `PY-PENDING-${suffix}` },
      { analyzer: python, shortcode: `PY-BRANCH-${suffix}` },
    ]);
    const g = await anIssue(db, go, { shortcode: `GO-A-${suffix}`, tags: ["security", "cwe-79"] });
    const older = await aRun(db, repository, { status: "SUCCESS", createdAt: new Date(now - 10 * MINUTE) });
    await occurrencesIn(db, await aCheck(db, older, python), [{ issue: old! }]);
    const current = await aRun(db, repository, { status: "FAILURE", createdAt: new Date(now - 5 * MINUTE) });
    const found = [
      ...(await occurrencesIn(db, await aCheck(db, current, python, { sequence: 1 }), [
        { issue: a!, path: "src/app/main.py", beginLine: 5 },
        { issue: a!, path: "src/app.py", beginLine: 9, state: "INTRODUCED" },
        { issue: b!, path: "src/app.py", beginLine: 3, isSuppressed: true },
        { issue: c!, path: "srcs/other.py", beginLine: 1 },
        { issue: c!, path: "docs/conf.py", beginLine: 2, state: "RESOLVED" },
        { issue: resolved!, path: "src/app.py", beginLine: 1, state: "RESOLVED" },
      ])),
      ...(await occurrencesIn(db, await aCheck(db, current, go, { sequence: 2 }), [
        { issue: g, path: "cmd/main.go", beginLine: 4 },
      ])),
    ];
    const later = await aRun(db, repository, { status: "PENDING", createdAt: new Date(now - MINUTE) });
    await occurrencesIn(db, await aCheck(db, later, python), [{ issue: pending! }]);
    const onBranch = await aRun(db, repository, { branch: "dev", createdAt: new Date(now) });
    await occurrencesIn(db, await aCheck(db, onBranch, python), [{ issue: branch! }]);
    return {
      repository,
      current,
      issues: { a: a!, b: b!, c: c!, g, resolved: resolved!, old: old!, pending: pending!, branch: branch! },
      found,
    };
  }

  type IssueNode = {
    id: string;
    issue: { shortcode: string; analyzer: { shortcode: string } };
    repository: { name: string };
  };

  test("Repository.issues lists the distinct issues of the latest finished default-branch run by shortcode", async () => {
    const { repository, issues } = await repositoryWithHistory();
    const node = "id issue { shortcode analyzer { shortcode } } repository { name }";
    const data = await repositoryField<{ issues: Connection<IssueNode>; silenced: Connection<IssueNode> }>(
      repository,
      `issues { ${PAGE_INFO} edges { node { ${node} } } }
       silenced: issues(isSuppressed: true) { ${PAGE_INFO} edges { node { ${node} } } }`,
    );
    const expected = (...listed: IssueRow[]) =>
      listed.map((issue) => ({
        id: issueId(repository, issue),
        issue: {
          shortcode: issue.shortcode,
          analyzer: { shortcode: issue.analyzer_id === go.id ? go.shortcode : python.shortcode },
        },
        repository: { name: repository.name },
      }));
    // b's only finding is silenced: it is listed for isSuppressed: true alone.
    assert.equal(data.issues.totalCount, 3);
    assert.deepEqual(
      data.issues.edges.map((e) => e.node),
      expected(issues.g, issues.a, issues.c),
    );
    assert.equal(data.silenced.totalCount, 1);
    assert.deepEqual(
      data.silenced.edges.map((e) => e.node),
      expected(issues.b),
    );
    assert.equal(
      Buffer.from(data.issues.edges[0]!.node.id, "base64").toString(),
      `RepositoryIssue:${repository.key}${issues.g.key}`,
    );
  });

  test("a repository without a finished default-branch run has no issues and no occurrences", async () => {
    const { db } = server;
    const pendingOnly = await aRepository(db, team);
    const issue = await anIssue(db, python);
    await occurrencesIn(db, await aCheck(db, await aRun(db, pendingOnly, { status: "PENDING" }), python), [
      { issue },
    ]);
    const noDefault = await db
      .updateTable("repositories")
      .set({ default_branch: null })
      .where("id", "=", (await aRepository(db, team)).id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await occurrencesIn(db, await aCheck(db, await aRun(db, noDefault), python), [{ issue }]);
    for (const repository of [pendingOnly, noDefault]) {
      const data = await repositoryField<{ issues: unknown; issueOccurrences: unknown }>(
        repository,
        `issues { ${PAGE_INFO} edges { cursor } } issueOccurrences { ${PAGE_INFO} edges { cursor } }`,
      );
      const empty = {
        totalCount: 0,
        pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
        edges: [],
      };
      assert.deepEqual(data, { issues: empty, issueOccurrences: empty });
    }
    // The arguments are still checked.
    const res = await gql(
      server.endpoint,
      token,
      `query($name: String!, $login: String!) { repository(name: $name, login: $login, vcsProvider: GITHUB) { issues(after: "nope") { totalCount } } }`,
      { name: pendingOnly.name, login: team.login },
    );
    assert.equal(res.body.errors?.[0]?.extensions?.code, "BAD_USER_INPUT");
  });

  test("RepositoryIssue.occurrences lists that issue's non-resolved occurrences of the run in reading order", async () => {
    const { repository, issues, found } = await repositoryWithHistory();
    type Listed = Connection<{
      issue: { shortcode: string };
      occurrences: Connection<{ id: string; path: string }>;
    }>;
    const data = await repositoryField<{ issues: Listed; silenced: Listed }>(
      repository,
      `issues { edges { node { issue { shortcode } occurrences { ${PAGE_INFO} edges { node { id path } } } } } }
       silenced: issues(isSuppressed: true) { edges { node { issue { shortcode }
         occurrences(isSuppressed: true) { ${PAGE_INFO} edges { node { id path } } } } } }`,
    );
    const byShortcode = new Map(
      [...data.issues.edges, ...data.silenced.edges].map((e) => [e.node.issue.shortcode, e.node.occurrences]),
    );
    const ids = (...rows: OccurrenceRow[]) => rows.map((o) => encodeGlobalId("Occurrence", o.key));
    assert.deepEqual(
      byShortcode.get(issues.a.shortcode)?.edges.map((e) => e.node.id),
      ids(found[1]!, found[0]!),
      "src/app.py before src/app/main.py",
    );
    assert.deepEqual(
      byShortcode.get(issues.b.shortcode)?.edges.map((e) => e.node.id),
      ids(found[2]!),
      "suppressed",
    );
    assert.deepEqual(
      byShortcode.get(issues.c.shortcode)?.edges.map((e) => e.node.path),
      ["srcs/other.py"],
      "RESOLVED left out",
    );
    assert.equal(byShortcode.get(issues.g.shortcode)?.totalCount, 1);

    const filtered = async (analyzerIn: string[]) =>
      (
        await query<{ node: { occurrences: { totalCount: number } } }>(
          `query($id: ID!, $a: [String]) { node(id: $id) { ... on RepositoryIssue { occurrences(analyzerIn: $a) { totalCount } } } }`,
          { id: issueId(repository, issues.a), a: analyzerIn },
        )
      ).node.occurrences.totalCount;
    assert.equal(await filtered([python.shortcode]), 2);
    assert.equal(await filtered([go.shortcode]), 0);
  });

  test("RepositoryIssue.occurrences pages both ways", async () => {
    const { db } = server;
    const repository = await aRepository(db, team);
    const issue = await anIssue(db, python);
    const made = await occurrencesIn(
      db,
      await aCheck(db, await aRun(db, repository), python),
      Array.from({ length: 7 }, (_, i) => ({ issue, path: "a.py", beginLine: 70 - i * 10 })),
    );
    const expected = [...made].reverse().map((o) => encodeGlobalId("Occurrence", o.key));
    await assertPagesBothWays(
      async (args) =>
        (
          await query<{ node: { occurrences: Connection<{ id: string }> } }>(
            `query($id: ID!, $first: Int, $last: Int, $after: String, $before: String) {
              node(id: $id) { ... on RepositoryIssue { occurrences(first: $first, last: $last, after: $after, before: $before) {
                ${PAGE_INFO} edges { node { id } } } } } }`,
            { id: issueId(repository, issue), ...args },
          )
        ).node.occurrences,
      3,
      expected,
    );
  });

  test("Repository.issues filters by path prefix, by every tag, and by analyzer, counting with the filters", async () => {
    const { repository, issues } = await repositoryWithHistory();
    const shortcodes = async (args: Record<string, unknown>) => {
      const data = await repositoryField<{ issues: Connection<IssueNode> }>(
        repository,
        "issues(path: $path, tags: $tags, analyzerIn: $analyzerIn, first: $first, isSuppressed: $isSuppressed) { totalCount edges { node { issue { shortcode } } } }",
        { path: null, tags: null, analyzerIn: null, first: null, isSuppressed: null, ...args },
        ", $path: String, $tags: [String], $analyzerIn: [String], $first: Int, $isSuppressed: Boolean",
      );
      return {
        total: data.issues.totalCount,
        shortcodes: data.issues.edges.map((e) => e.node.issue.shortcode),
      };
    };
    // b's only finding (src/app.py) is silenced: it is found for isSuppressed: true alone.
    const { a, b, c, g } = issues;
    assert.deepEqual(await shortcodes({ path: "src" }), { total: 1, shortcodes: [a.shortcode] });
    assert.deepEqual(await shortcodes({ path: "./src/" }), { total: 1, shortcodes: [a.shortcode] });
    assert.deepEqual(await shortcodes({ path: "src/app" }), { total: 1, shortcodes: [a.shortcode] });
    assert.deepEqual(await shortcodes({ path: "src/app.py" }), { total: 1, shortcodes: [a.shortcode] });
    assert.deepEqual(await shortcodes({ path: "src/app.py", isSuppressed: true }), {
      total: 1,
      shortcodes: [b.shortcode],
    });
    assert.deepEqual(await shortcodes({ path: "src/app", isSuppressed: true }), { total: 0, shortcodes: [] });
    assert.deepEqual(await shortcodes({ path: "srcs" }), { total: 1, shortcodes: [c.shortcode] });
    assert.deepEqual(await shortcodes({ path: "docs" }), { total: 0, shortcodes: [] }, "only RESOLVED there");
    assert.deepEqual(await shortcodes({ path: "" }), {
      total: 3,
      shortcodes: [g, a, c].map((i) => i.shortcode),
    });
    assert.deepEqual(await shortcodes({ tags: ["security"] }), {
      total: 2,
      shortcodes: [g, a].map((i) => i.shortcode),
    });
    assert.deepEqual(await shortcodes({ tags: ["security"], isSuppressed: true }), {
      total: 1,
      shortcodes: [b.shortcode],
    });
    assert.deepEqual(await shortcodes({ tags: ["cwe-79", "security"] }), {
      total: 2,
      shortcodes: [g.shortcode, a.shortcode],
    });
    assert.deepEqual(await shortcodes({ tags: [] }), {
      total: 3,
      shortcodes: [g, a, c].map((i) => i.shortcode),
    });
    assert.deepEqual(await shortcodes({ analyzerIn: [go.shortcode] }), {
      total: 1,
      shortcodes: [g.shortcode],
    });
    assert.deepEqual(
      await shortcodes({ analyzerIn: [python.shortcode], tags: ["cwe-79"], path: "src", first: 5 }),
      {
        total: 1,
        shortcodes: [a.shortcode],
      },
    );
    assert.deepEqual(await shortcodes({ tags: ["security"], first: 1 }), {
      total: 2,
      shortcodes: [g.shortcode],
    });
  });

  test("Repository.issues filters by the issue's category and severity, alone and together, counting with the filters", async () => {
    const { db } = server;
    const repository = await aRepository(db, team, { defaultBranch: "main" });
    const suffix = newRowKey();
    const [bug, style, leak] = await issuesIn(db, [
      { analyzer: python, shortcode: `PY-BUG-${suffix}`, category: "BUG_RISK", severity: "CRITICAL" },
      { analyzer: python, shortcode: `PY-STYLE-${suffix}`, category: "STYLE", severity: "MINOR" },
      { analyzer: python, shortcode: `PY-LEAK-${suffix}`, category: "SECURITY", severity: "CRITICAL" },
    ]);
    const run = await aRun(db, repository, { status: "SUCCESS" });
    await occurrencesIn(db, await aCheck(db, run, python), [
      { issue: bug!, path: "a.py", beginLine: 1 },
      { issue: style!, path: "a.py", beginLine: 2 },
      { issue: leak!, path: "b.py", beginLine: 3 },
    ]);
    const shortcodes = async (args: Record<string, unknown>) => {
      const data = await repositoryField<{ issues: Connection<IssueNode> }>(
        repository,
        "issues(category: $category, severity: $severity) { totalCount edges { node { issue { shortcode } } } }",
        { category: null, severity: null, ...args },
        ", $category: IssueCategory, $severity: IssueSeverity",
      );
      return {
        total: data.issues.totalCount,
        shortcodes: data.issues.edges.map((e) => e.node.issue.shortcode).sort(),
      };
    };
    const sorted = (...rows: IssueRow[]) => rows.map((r) => r.shortcode).sort();
    assert.deepEqual(await shortcodes({}), { total: 3, shortcodes: sorted(bug!, style!, leak!) });
    assert.deepEqual(await shortcodes({ severity: "CRITICAL" }), {
      total: 2,
      shortcodes: sorted(bug!, leak!),
    });
    assert.deepEqual(await shortcodes({ category: "STYLE" }), { total: 1, shortcodes: sorted(style!) });
    assert.deepEqual(await shortcodes({ category: "SECURITY", severity: "CRITICAL" }), {
      total: 1,
      shortcodes: sorted(leak!),
    });
    assert.deepEqual(await shortcodes({ category: "STYLE", severity: "MAJOR" }), {
      total: 0,
      shortcodes: [],
    });
  });

  test("Repository.issues pages both ways by shortcode, then key", async () => {
    const { db } = server;
    const repository = await aRepository(db, team);
    const second = await anAnalyzer(db, { shortcode: `sc-${newRowKey()}` });
    // Two analyzers may share a shortcode: then the key decides.
    const made = [
      ...(await issuesIn(
        db,
        ["E", "A", "D", "B"].map((s) => ({ analyzer: python, shortcode: `X-${s}` })),
      )),
      ...(await issuesIn(
        db,
        ["A", "C", "D"].map((s) => ({ analyzer: second, shortcode: `X-${s}` })),
      )),
    ];
    const run = await aRun(db, repository);
    const pythonCheck = await aCheck(db, run, python);
    const secondCheck = await aCheck(db, run, second);
    for (const issue of made) {
      await occurrencesIn(db, issue.analyzer_id === python.id ? pythonCheck : secondCheck, [
        { issue },
        { issue },
      ]);
    }
    const expected = [...made]
      .sort((x, y) =>
        x.shortcode !== y.shortcode ? (x.shortcode < y.shortcode ? -1 : 1) : x.key < y.key ? -1 : 1,
      )
      .map((issue) => issueId(repository, issue));
    await assertPagesBothWays(
      async (args) =>
        (
          await repositoryField<{ issues: Connection<{ id: string }> }>(
            repository,
            `issues(first: $first, last: $last, after: $after, before: $before) { ${PAGE_INFO} edges { node { id } } }`,
            { first: null, last: null, after: null, before: null, ...args },
            ", $first: Int, $last: Int, $after: String, $before: String",
          )
        ).issues,
      3,
      expected,
    );
  });

  test("Repository.issueOccurrences lists every non-resolved, unsilenced occurrence of the latest run, filtered by analyzer", async () => {
    const { repository, found } = await repositoryWithHistory();
    const occurrences = async (analyzerIn: string[] | null, isSuppressed: boolean | null = null) =>
      (
        await repositoryField<{
          issueOccurrences: Connection<{ id: string; path: string; isSuppressed: boolean }>;
        }>(
          repository,
          `issueOccurrences(analyzerIn: $a, isSuppressed: $s) { totalCount edges { node { id path isSuppressed } } }`,
          { a: analyzerIn, s: isSuppressed },
          ", $a: [String], $s: Boolean",
        )
      ).issueOccurrences;
    const all = await occurrences(null);
    assert.equal(all.totalCount, 4);
    assert.deepEqual(
      all.edges.map((e) => e.node.path),
      ["cmd/main.go", "src/app.py", "src/app/main.py", "srcs/other.py"],
    );
    assert.equal(all.edges[1]!.node.id, encodeGlobalId("Occurrence", found[1]!.key));
    // The silenced finding of src/app.py (line 3) is listed for isSuppressed: true alone.
    const silenced = await occurrences(null, true);
    assert.equal(silenced.totalCount, 1);
    assert.deepEqual(
      silenced.edges.map((e) => e.node),
      [{ id: encodeGlobalId("Occurrence", found[2]!.key), path: "src/app.py", isSuppressed: true }],
    );
    assert.deepEqual(await occurrences(null, false), all);
    const goOnly = await occurrences([go.shortcode]);
    assert.deepEqual(
      goOnly.edges.map((e) => e.node.path),
      ["cmd/main.go"],
    );
    assert.equal(goOnly.totalCount, 1);
    assert.equal((await occurrences([python.shortcode, go.shortcode])).totalCount, 4);
    assert.equal((await occurrences([go.shortcode], true)).totalCount, 0);
  });

  test("RepositoryIssue resolves through node for a member and like a missing id otherwise", async () => {
    const { repository, issues } = await repositoryWithHistory();
    const node = async (id: string) => {
      const res = await gql(
        server.endpoint,
        token,
        `query($id: ID!) { node(id: $id) { __typename id ... on RepositoryIssue { issue { shortcode } repository { name } occurrences { totalCount } } } }`,
        { id },
      );
      return { data: res.body.data, errors: res.body.errors?.map((e) => [e.message, e.extensions?.code]) };
    };
    const id = issueId(repository, issues.a);
    assert.deepEqual(await node(id), {
      data: {
        node: {
          __typename: "RepositoryIssue",
          id,
          issue: { shortcode: issues.a.shortcode },
          repository: { name: repository.name },
          occurrences: { totalCount: 2 },
        },
      },
      errors: undefined,
    });

    const theirs = await aRepository(server.db, hidden);
    await occurrencesIn(server.db, await aCheck(server.db, await aRun(server.db, theirs), python), [
      { issue: issues.a },
    ]);
    const absent = [
      issueId(theirs, issues.a), // another account's repository
      issueId(repository, issues.resolved), // only RESOLVED in the latest run
      issueId(repository, issues.old), // only in an older run
      issueId(repository, issues.pending), // only in a newer, unfinished run
      issueId(repository, issues.branch), // only on another branch
      encodeGlobalId("RepositoryIssue", `${repository.key}${newRowKey()}`), // no such issue
      encodeGlobalId("RepositoryIssue", repository.key), // no issue key at all
    ];
    for (const missing of absent) {
      assert.deepEqual(await node(missing), {
        data: { node: null },
        errors: [[`No node with id "${missing}" exists.`, "NOT_FOUND"]],
      });
    }
  });

  /** How the newest run can be without an answer from python. */
  type NoAnswer = "FAILED" | "NEUTRAL" | "ABSENT";
  const NO_ANSWER: Record<NoAnswer, string> = {
    FAILED: "failed to process",
    NEUTRAL: "placed nothing (NEUTRAL)",
    ABSENT: "was not sent",
  };

  /**
   * A repository whose run before the newest found `kept` twice with python and `goOld` with go,
   * and whose newest run's go check found `goNew` and resolved `goOld`, while python's report
   * `how`: its artifact FAILED (check FAILURE, run FAILURE), its check is NEUTRAL beside go's
   * (run SUCCESS), or python has no check in it at all.
   */
  async function newestRunWithoutPython(how: NoAnswer) {
    const { db } = server;
    const repository = await aRepository(db, team);
    const now = Date.now();
    const suffix = newRowKey();
    const [kept, goOld, goNew] = await issuesIn(db, [
      { analyzer: python, shortcode: `PY-KEPT-${suffix}` },
      { analyzer: go, shortcode: `GO-OLD-${suffix}` },
      { analyzer: go, shortcode: `GO-NEW-${suffix}` },
    ]);
    const before = await aRun(db, repository, { status: "SUCCESS", createdAt: new Date(now - 10 * MINUTE) });
    const found = await occurrencesIn(db, await aCheck(db, before, python), [
      { issue: kept!, path: "src/a.py", beginLine: 1 },
      { issue: kept!, path: "src/b.py", beginLine: 2 },
    ]);
    await occurrencesIn(db, await aCheck(db, before, go), [{ issue: goOld!, path: "cmd/old.go" }]);
    const newest = await aRun(db, repository, {
      status: how === "FAILED" ? "FAILURE" : "SUCCESS",
      createdAt: new Date(now - 5 * MINUTE),
    });
    await occurrencesIn(db, await aCheck(db, newest, go), [
      { issue: goNew!, path: "cmd/new.go", state: "INTRODUCED" },
      { issue: goOld!, path: "cmd/old.go", state: "RESOLVED" },
    ]);
    if (how !== "ABSENT") {
      const check = await aCheck(db, newest, python, { status: how === "FAILED" ? "FAILURE" : "NEUTRAL" });
      await anArtifact(db, newest, check, { status: how === "FAILED" ? "FAILED" : "PROCESSED" });
    }
    return { repository, kept: kept!, goNew: goNew!, found };
  }

  for (const how of ["FAILED", "NEUTRAL", "ABSENT"] as const) {
    test(`an analyzer whose report in the newest run ${NO_ANSWER[how]} keeps its findings of the run before in issues, issueOccurrences and node`, async () => {
      const { repository, kept, goNew, found } = await newestRunWithoutPython(how);
      const data = await repositoryField<{
        issues: Connection<{ id: string; occurrences: { totalCount: number } }>;
        pythonIssues: Connection<{ id: string }>;
        issueOccurrences: Connection<{ id: string; path: string }>;
      }>(
        repository,
        `issues { totalCount edges { node { id occurrences { totalCount } } } }
         pythonIssues: issues(analyzerIn: $python) { totalCount edges { node { id } } }
         issueOccurrences { totalCount edges { node { id path } } }`,
        { python: [python.shortcode] },
        ", $python: [String]",
      );
      assert.deepEqual(
        data.issues.edges.map((e) => e.node),
        [
          { id: issueId(repository, goNew), occurrences: { totalCount: 1 } },
          { id: issueId(repository, kept), occurrences: { totalCount: 2 } },
        ],
      );
      assert.equal(data.issues.totalCount, 2);
      assert.deepEqual(
        data.pythonIssues.edges.map((e) => e.node.id),
        [issueId(repository, kept)],
      );
      assert.equal(data.pythonIssues.totalCount, 1);
      assert.deepEqual(
        data.issueOccurrences.edges.map((e) => e.node.path),
        ["cmd/new.go", "src/a.py", "src/b.py"],
      );
      assert.deepEqual(
        data.issueOccurrences.edges.slice(1).map((e) => e.node.id),
        found.map((o) => encodeGlobalId("Occurrence", o.key)),
      );
      assert.equal(data.issueOccurrences.totalCount, 3);
      const node = await query<{ node: { occurrences: { totalCount: number } } | null }>(
        `query($id: ID!) { node(id: $id) { ... on RepositoryIssue { occurrences { totalCount } } } }`,
        { id: issueId(repository, kept) },
      );
      assert.deepEqual(node.node, { occurrences: { totalCount: 2 } });
    });
  }

  test("an analyzer's newest report that found nothing clears its findings of the runs before", async () => {
    const { db } = server;
    const { repository, goNew } = await newestRunWithoutPython("ABSENT");
    await aCheck(db, await aRun(db, repository, { status: "SUCCESS" }), python);
    const data = await repositoryField<{ issues: Connection<{ id: string }> }>(
      repository,
      "issues { totalCount edges { node { id } } }",
    );
    assert.deepEqual(
      data.issues.edges.map((e) => e.node.id),
      [issueId(repository, goNew)],
    );
  });

  test("when the repository's configuration lists its analyzers, the findings of an analyzer it does not turn on are left out", async () => {
    const { db } = server;
    const { repository, kept, goNew } = await newestRunWithoutPython("FAILED");
    const configured = async (analyzers: unknown) => {
      await db
        .updateTable("repositories")
        .set({ config_json: JSON.stringify({ version: 1, analyzers }) })
        .where("id", "=", repository.id)
        .execute();
      const data = await repositoryField<{ issues: Connection<{ id: string }> }>(
        repository,
        "issues { totalCount edges { node { id } } }",
      );
      return data.issues.edges.map((e) => e.node.id);
    };
    const both = [issueId(repository, goNew), issueId(repository, kept)];
    assert.deepEqual(
      await configured([{ name: go.shortcode }, { name: python.shortcode, enabled: true }]),
      both,
    );
    assert.deepEqual(await configured([{ name: go.shortcode }, { name: python.shortcode, enabled: false }]), [
      issueId(repository, goNew),
    ]);
    assert.deepEqual(await configured([{ name: python.shortcode }]), [issueId(repository, kept)]);
    // A configuration that lists no analyzers says nothing about them.
    await db
      .updateTable("repositories")
      .set({ config_json: JSON.stringify({ version: 1 }) })
      .where("id", "=", repository.id)
      .execute();
    const data = await repositoryField<{ issues: Connection<{ id: string }> }>(
      repository,
      "issues { edges { node { id } } }",
    );
    assert.deepEqual(
      data.issues.edges.map((e) => e.node.id),
      both,
    );
  });

  test("the statements for a page of issues with their occurrences and analyzers do not grow with the page size", async () => {
    const { db } = server;
    const reader = await aUser(db);
    const account = await anAccount(db, {}, [{ user: reader, role: "MEMBER" }]);
    const repository = await aRepository(db, account);
    const analyzers = [python, go, await anAnalyzer(db, { shortcode: `rb-${newRowKey()}` })];
    const made = await issuesIn(
      db,
      Array.from({ length: 120 }, (_, i) => ({
        analyzer: analyzers[i % 3]!,
        shortcode: `N-${String(i).padStart(3, "0")}`,
      })),
    );
    const older = await aRun(db, repository, { createdAt: new Date(Date.now() - MINUTE) });
    await occurrencesIn(db, await aCheck(db, older, python), [{ issue: made[0]! }]);
    const run = await aRun(db, repository);
    for (const analyzer of analyzers) {
      const check = await aCheck(db, run, analyzer);
      await occurrencesIn(
        db,
        check,
        made
          .filter((issue) => issue.analyzer_id === analyzer.id)
          .flatMap((issue) =>
            [1, 2, 3].map((line) => ({ issue, path: `p/${issue.shortcode}.x`, beginLine: line })),
          ),
      );
    }
    const readerToken = await aToken(db, server.config.tokenPepper, reader);
    // A token used within the minute is not touched again, so no UPDATE lands in either request.
    await db
      .updateTable("personal_access_tokens")
      .set({ last_used_at: new Date() })
      .where("user_id", "=", reader.id)
      .execute();
    const text = `query($name: String!, $login: String!, $n: Int) {
      repository(name: $name, login: $login, vcsProvider: GITHUB) { issues(first: $n) { edges { node {
        issue { analyzer { name } } occurrences(first: 5) { edges { node { path } } }
      } } } } }`;
    type Result = {
      repository: {
        issues: { edges: Array<{ node: { occurrences: { edges: Array<{ node: { path: string } }> } } }> };
      };
    };
    const measure = async (n: number) => {
      await settle(server.statements);
      const start = server.statements.length;
      const res = await gql<Result>(server.endpoint, readerToken, text, {
        name: repository.name,
        login: account.login,
        n,
      });
      const statements = server.statements.slice(start);
      assert.deepEqual(res.body.errors, undefined);
      const edges = (dataOf(res).repository as Result["repository"]).issues.edges;
      return {
        statements,
        issues: edges.length,
        occurrences: edges.reduce((sum, e) => sum + e.node.occurrences.edges.length, 0),
      };
    };
    await measure(1);
    const small = await measure(10);
    const large = await measure(100);
    assert.deepEqual([small.issues, small.occurrences, large.issues, large.occurrences], [10, 30, 100, 300]);
    assertPageSizeIndependent(small.statements, large.statements);
  });
});
