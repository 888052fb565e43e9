import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AccountRow, IssueRow, RepositoryRow, UserRow } from "../src/db/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { upsertMembership } from "../src/modules/accounts/account-store.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { anAnalyzer, anIssue } from "./helpers/builders-catalog.ts";
import {
  anIgnoreRule,
  anIssueCategorySetting,
  anIssuePrioritySetting,
  aSuppressedIssue,
} from "./helpers/builders-metrics.ts";
import { assertPageSizeIndependent, settle, startInstance, type TestInstance } from "./helpers/instance.ts";
import type { PageInfo } from "./helpers/paging.ts";
import { gql } from "./helpers/server.ts";

const CATEGORIES = [
  "ANTI_PATTERN",
  "BUG_RISK",
  "PERFORMANCE",
  "SECURITY",
  "COVERAGE",
  "TYPECHECK",
  "STYLE",
  "DOCUMENTATION",
  "SECRETS",
];

interface Connection<T> {
  totalCount: number;
  pageInfo: PageInfo;
  edges: Array<{ cursor: string; node: T }>;
}

/** A minute after 2025-01-01 times `n`. */
function minute(n: number): Date {
  return new Date(Date.UTC(2025, 0, 1) + n * 60_000);
}

/** Keys in the order the API promises: newest first, ties broken by key (descending). */
function newestFirst(rows: ReadonlyArray<{ key: string; created_at: Date }>): string[] {
  return [...rows]
    .sort((a, b) => {
      const at = a.created_at.getTime();
      const bt = b.created_at.getTime();
      return at !== bt ? bt - at : a.key > b.key ? -1 : 1;
    })
    .map((r) => r.key);
}

/** The row key inside a global id. */
function keyOf(id: string): string {
  return Buffer.from(id, "base64").toString("utf8").split(":")[1] ?? "";
}

/** Pages forward then backward through a connection; answers both orders of node ids. */
async function pageBothWays(
  load: (args: Record<string, unknown>) => Promise<Connection<{ id: string }>>,
  size: number,
): Promise<{ forward: string[]; backward: string[] }> {
  const forward: string[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page: Connection<{ id: string }> = await load({ first: size, after: cursor });
    assert.equal(page.pageInfo.hasPreviousPage, cursor !== null);
    forward.push(...page.edges.map((e) => keyOf(e.node.id)));
    if (!page.pageInfo.hasNextPage) break;
    cursor = page.pageInfo.endCursor;
  }
  const backward: string[] = [];
  cursor = null;
  for (;;) {
    const page: Connection<{ id: string }> = await load({ last: size, before: cursor });
    assert.equal(page.pageInfo.hasNextPage, cursor !== null);
    backward.unshift(...page.edges.map((e) => keyOf(e.node.id)));
    if (!page.pageInfo.hasPreviousPage) break;
    cursor = page.pageInfo.startCursor;
  }
  return { forward, backward };
}

describe("repository settings, ignore rules and team suppressions over HTTP", () => {
  let server: TestInstance;
  let alice: UserRow;
  let bob: UserRow;
  let team: AccountRow;
  let hidden: AccountRow;
  let repo: RepositoryRow;
  let hiddenRepo: RepositoryRow;
  let aliceToken: string;
  let unusedImport: IssueRow;
  let unusedVariable: IssueRow;
  let otherAnalyzerSameShortcode: IssueRow;

  before(async () => {
    server = await startInstance();
    const { db } = server;
    alice = await aUser(db);
    bob = await aUser(db, { firstName: "Bob" });
    const carol = await aUser(db);
    team = await anAccount(db, {}, [
      { user: alice, role: "ADMIN" },
      { user: bob, role: "MEMBER" },
    ]);
    hidden = await anAccount(db, {}, [{ user: carol, role: "ADMIN" }]);
    repo = await aRepository(db, team, { name: "configured" });
    hiddenRepo = await aRepository(db, hidden, { name: "elsewhere" });
    aliceToken = await aToken(db, server.config.tokenPepper, alice);
    const python = await anAnalyzer(db);
    const javascript = await anAnalyzer(db);
    unusedImport = await anIssue(db, python, { shortcode: `PYL-W0611-${python.key}` });
    unusedVariable = await anIssue(db, python, { shortcode: `PYL-W0612-${python.key}` });
    otherAnalyzerSameShortcode = await anIssue(db, javascript, { shortcode: unusedImport.shortcode });
  });
  after(() => server.stop());

  /** `repository { selection }` for the viewer; `declarations` declares the variables it uses. */
  async function repositoryQuery<T>(
    repository: RepositoryRow,
    selection: string,
    variables: Record<string, unknown> = {},
    declarations = "",
  ) {
    const res = await gql<{ repository: T }>(
      server.endpoint,
      aliceToken,
      `query($name: String!, $login: String!${declarations}) {
        repository(name: $name, login: $login, vcsProvider: GITHUB) { ${selection} }
      }`,
      { name: repository.name, login: team.login, ...variables },
    );
    assert.deepEqual(res.body.errors, undefined, JSON.stringify(variables));
    return res.body.data!.repository;
  }

  describe("issue settings", () => {
    type Settings = {
      issueCategorySettings: Array<{ category: string; isReported: boolean; canFailCheck: boolean }>;
      issuePrioritySettings: Array<{ priorityType: string; isReported: boolean; canFailCheck: boolean }>;
    };
    const selection = `issueCategorySettings { category isReported canFailCheck }
      issuePrioritySettings { priorityType isReported canFailCheck }`;

    test("without stored settings every category and priority is reported and can fail the check", async () => {
      const bare = await aRepository(server.db, team);
      const settings = await repositoryQuery<Settings>(bare, selection);
      assert.deepEqual(
        settings.issueCategorySettings,
        CATEGORIES.map((category) => ({ category, isReported: true, canFailCheck: true })),
      );
      assert.deepEqual(
        settings.issuePrioritySettings,
        ["LOW", "MEDIUM", "HIGH"].map((priorityType) => ({
          priorityType,
          isReported: true,
          canFailCheck: true,
        })),
      );
    });

    test("stored settings replace the defaults for their category or priority only", async () => {
      const configured = await aRepository(server.db, team);
      await anIssueCategorySetting(server.db, configured, "STYLE", {
        isReported: false,
        canFailCheck: false,
      });
      await anIssueCategorySetting(server.db, configured, "SECURITY", {
        isReported: true,
        canFailCheck: false,
      });
      await anIssuePrioritySetting(server.db, configured, "LOW", { isReported: true, canFailCheck: false });
      await anIssuePrioritySetting(server.db, configured, "MEDIUM", {
        isReported: false,
        canFailCheck: false,
      });
      const settings = await repositoryQuery<Settings>(configured, selection);
      assert.deepEqual(
        settings.issueCategorySettings.map((s) => s.category),
        CATEGORIES,
      );
      for (const s of settings.issueCategorySettings) {
        const expected =
          s.category === "STYLE" ? [false, false] : s.category === "SECURITY" ? [true, false] : [true, true];
        assert.deepEqual([s.isReported, s.canFailCheck], expected, s.category);
      }
      assert.deepEqual(settings.issuePrioritySettings, [
        { priorityType: "LOW", isReported: true, canFailCheck: false },
        { priorityType: "MEDIUM", isReported: false, canFailCheck: false },
        { priorityType: "HIGH", isReported: true, canFailCheck: true },
      ]);
      // Another repository of the same account keeps its defaults.
      const other = await repositoryQuery<Settings>(repo, selection);
      assert.ok(other.issueCategorySettings.every((s) => s.isReported && s.canFailCheck));
    });
  });

  describe("Repository.ignoreRules", () => {
    type Rule = {
      id: string;
      createdAt: string;
      level: string;
      type: string;
      issue: { shortcode: string; id: string };
      filePath: string | null;
      globPattern: string | null;
    };
    let rules: Array<{ key: string; created_at: Date; issue_id: string; file_path: string | null }>;

    before(async () => {
      const { db } = server;
      rules = [
        await anIgnoreRule(db, repo, unusedImport, { createdAt: minute(1), createdBy: alice }),
        await anIgnoreRule(db, repo, unusedImport, { filePath: "src/app.py", createdAt: minute(2) }),
        await anIgnoreRule(db, repo, unusedVariable, { filePath: "src/app.py", createdAt: minute(3) }),
        await anIgnoreRule(db, repo, unusedVariable, { globPattern: "tests/**", createdAt: minute(3) }),
        await anIgnoreRule(db, repo, otherAnalyzerSameShortcode, {
          type: "TEST_PATTERN",
          globPattern: "**/*_test.js",
          createdAt: minute(4),
        }),
        await anIgnoreRule(db, repo, unusedVariable, { filePath: "src/other.py", createdAt: minute(5) }),
        await anIgnoreRule(db, repo, unusedImport, {
          filePath: "src/app.py",
          globPattern: "x*",
          createdAt: minute(6),
        }),
      ];
      await anIgnoreRule(db, hiddenRepo, unusedImport, { createdAt: minute(7) });
    });

    async function rulesPage(variables: Record<string, unknown> = {}) {
      const repository = await repositoryQuery<{ ignoreRules: Connection<Rule> }>(
        repo,
        `ignoreRules(first: $first, last: $last, after: $after, before: $before,
           issueShortcode: $issueShortcode, filePath: $filePath) {
          totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
          edges { cursor node { id createdAt level type issue { id shortcode } filePath globPattern } }
        }`,
        variables,
        ", $first: Int, $last: Int, $after: String, $before: String, $issueShortcode: String, $filePath: String",
      );
      return repository.ignoreRules;
    }

    test("rules list newest first with every field", async () => {
      const page = await rulesPage();
      assert.equal(page.totalCount, rules.length);
      assert.deepEqual(
        page.edges.map((e) => keyOf(e.node.id)),
        newestFirst(rules),
      );
      const fileRule = page.edges.find((e) => keyOf(e.node.id) === rules[1]!.key)!.node;
      assert.deepEqual(fileRule, {
        id: encodeGlobalId("IgnoreRule", rules[1]!.key),
        createdAt: minute(2).toISOString(),
        level: "FILE",
        type: "FOREVER",
        issue: { id: encodeGlobalId("Issue", unusedImport.key), shortcode: unusedImport.shortcode },
        filePath: "src/app.py",
        globPattern: null,
      });
      const patternRule = page.edges.find((e) => keyOf(e.node.id) === rules[3]!.key)!.node;
      assert.deepEqual(
        [patternRule.level, patternRule.type, patternRule.filePath, patternRule.globPattern],
        ["REPOSITORY", "PATTERN", null, "tests/**"],
      );
      const testRule = page.edges.find((e) => keyOf(e.node.id) === rules[4]!.key)!.node;
      assert.deepEqual([testRule.type, testRule.globPattern], ["TEST_PATTERN", "**/*_test.js"]);
    });

    test("issueShortcode keeps rules for issues with that shortcode in any analyzer", async () => {
      const page = await rulesPage({ issueShortcode: unusedImport.shortcode });
      const expected = rules.filter(
        (r) => r.issue_id === unusedImport.id || r.issue_id === otherAnalyzerSameShortcode.id,
      );
      assert.equal(page.totalCount, expected.length);
      assert.deepEqual(
        page.edges.map((e) => keyOf(e.node.id)),
        newestFirst(expected),
      );
      assert.equal((await rulesPage({ issueShortcode: "NOPE-0000" })).totalCount, 0);
    });

    test("filePath keeps the rules of exactly that file, and combines with issueShortcode", async () => {
      const page = await rulesPage({ filePath: "src/app.py" });
      const forFile = rules.filter((r) => r.file_path === "src/app.py");
      assert.equal(page.totalCount, forFile.length);
      assert.deepEqual(
        page.edges.map((e) => keyOf(e.node.id)),
        newestFirst(forFile),
      );
      const both = await rulesPage({ filePath: "src/app.py", issueShortcode: unusedVariable.shortcode });
      assert.equal(both.totalCount, 1);
      assert.equal(keyOf(both.edges[0]!.node.id), rules[2]!.key);
      assert.equal((await rulesPage({ filePath: "src" })).totalCount, 0, "no prefix match");
      assert.equal((await rulesPage({ filePath: "" })).totalCount, rules.length, "empty means no filter");
    });

    test("paging forward and backward visits every rule once, in the same order", async () => {
      const { forward, backward } = await pageBothWays(rulesPage, 2);
      assert.deepEqual(forward, newestFirst(rules));
      assert.deepEqual(backward, newestFirst(rules));
      const filtered = await pageBothWays((args) => rulesPage({ ...args, filePath: "src/app.py" }), 1);
      assert.deepEqual(filtered.forward, newestFirst(rules.filter((r) => r.file_path === "src/app.py")));
      assert.deepEqual(filtered.backward, filtered.forward);
    });

    test("a rule resolves through node for a member; another account's answers like a missing id", async () => {
      const id = encodeGlobalId("IgnoreRule", rules[0]!.key);
      const res = await gql<{ node: Record<string, unknown> }>(
        server.endpoint,
        aliceToken,
        `query($id: ID!) { node(id: $id) { __typename id ... on IgnoreRule { level type issue { shortcode } } } }`,
        { id },
      );
      assert.deepEqual(res.body.data?.node, {
        __typename: "IgnoreRule",
        id,
        level: "REPOSITORY",
        type: "FOREVER",
        issue: { shortcode: unusedImport.shortcode },
      });
      const [theirs] = await server.db
        .selectFrom("ignore_rules")
        .select("key")
        .where("repository_id", "=", hiddenRepo.id)
        .execute();
      for (const missing of [
        encodeGlobalId("IgnoreRule", theirs!.key),
        encodeGlobalId("IgnoreRule", "missing000"),
      ]) {
        const answer = await gql(server.endpoint, aliceToken, `query($id: ID!) { node(id: $id) { id } }`, {
          id: missing,
        });
        assert.equal(answer.body.data?.node, null);
        assert.equal(answer.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
        assert.equal(answer.body.errors?.[0]?.message, `No node with id "${missing}" exists.`);
      }
    });
  });

  describe("Account.suppressedIssues", () => {
    type Suppression = {
      id: string;
      createdAt: string;
      issue: { shortcode: string };
      user: { id: string } | null;
    };
    let suppressions: Array<{ key: string; created_at: Date; issue_id: string }>;
    let leaver: UserRow;
    let stranger: UserRow;

    before(async () => {
      const { db } = server;
      leaver = await aUser(db);
      stranger = await aUser(db);
      const otherIssues = await Promise.all(
        Array.from({ length: 4 }, async () => anIssue(db, await anAnalyzer(db))),
      );
      suppressions = [
        await aSuppressedIssue(db, team, unusedImport, { user: alice, createdAt: minute(1) }),
        await aSuppressedIssue(db, team, unusedVariable, { user: bob, createdAt: minute(2) }),
        await aSuppressedIssue(db, team, otherAnalyzerSameShortcode, { user: leaver, createdAt: minute(2) }),
        await aSuppressedIssue(db, team, otherIssues[0]!, { user: null, createdAt: minute(3) }),
        await aSuppressedIssue(db, team, otherIssues[1]!, { user: stranger, createdAt: minute(4) }),
        await aSuppressedIssue(db, team, otherIssues[2]!, { createdAt: minute(5) }),
      ];
      await aSuppressedIssue(db, hidden, otherIssues[3]!, { createdAt: minute(6) });
    });

    async function suppressedPage(variables: Record<string, unknown> = {}) {
      const res = await gql<{ account: { suppressedIssues: Connection<Suppression> } }>(
        server.endpoint,
        aliceToken,
        `query($login: String!, $first: Int, $last: Int, $after: String, $before: String, $issueShortcode: String) {
          account(login: $login, vcsProvider: GITHUB) {
            suppressedIssues(first: $first, last: $last, after: $after, before: $before, issueShortcode: $issueShortcode) {
              totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
              edges { cursor node { id createdAt issue { shortcode } user { id } } }
            }
          }
        }`,
        { login: team.login, ...variables },
      );
      assert.deepEqual(res.body.errors, undefined, JSON.stringify(variables));
      return res.body.data!.account.suppressedIssues;
    }

    test("suppressions list newest first, each with its issue", async () => {
      const page = await suppressedPage();
      assert.equal(page.totalCount, suppressions.length);
      assert.deepEqual(
        page.edges.map((e) => keyOf(e.node.id)),
        newestFirst(suppressions),
      );
      const first = page.edges.find((e) => keyOf(e.node.id) === suppressions[0]!.key)!.node;
      assert.deepEqual(first, {
        id: encodeGlobalId("TeamSuppressedIssue", suppressions[0]!.key),
        createdAt: minute(1).toISOString(),
        issue: { shortcode: unusedImport.shortcode },
        user: { id: encodeGlobalId("User", alice.key) },
      });
    });

    test("user shows who suppressed the issue only while they share a team with the viewer", async () => {
      const userOf = async (index: number) => {
        const page = await suppressedPage();
        return page.edges.find((e) => keyOf(e.node.id) === suppressions[index]!.key)!.node.user;
      };
      assert.deepEqual(await userOf(1), { id: encodeGlobalId("User", bob.key) });
      assert.equal(await userOf(3), null, "nobody recorded");
      assert.equal(await userOf(4), null, "the suppressor shares no team with the viewer");
      // The leaver is visible while a member, and hidden once they leave every shared team.
      const membership = await upsertMembership(server.db, {
        key: newRowKey(),
        accountId: team.id,
        userId: leaver.id,
        role: "MEMBER",
      });
      assert.deepEqual(await userOf(2), { id: encodeGlobalId("User", leaver.key) });
      await server.db.deleteFrom("memberships").where("id", "=", membership.id).execute();
      assert.equal(await userOf(2), null);
    });

    test("issueShortcode keeps suppressions of issues with that shortcode, and totalCount counts them", async () => {
      const page = await suppressedPage({ issueShortcode: unusedImport.shortcode });
      const expected = suppressions.filter(
        (s) => s.issue_id === unusedImport.id || s.issue_id === otherAnalyzerSameShortcode.id,
      );
      assert.equal(page.totalCount, 2);
      assert.deepEqual(
        page.edges.map((e) => keyOf(e.node.id)),
        newestFirst(expected),
      );
      assert.equal((await suppressedPage({ issueShortcode: "NOPE-0000" })).totalCount, 0);
      assert.equal((await suppressedPage({ issueShortcode: "" })).totalCount, suppressions.length);
    });

    test("paging forward and backward visits every suppression once, in the same order", async () => {
      const { forward, backward } = await pageBothWays(suppressedPage, 4);
      assert.deepEqual(forward, newestFirst(suppressions));
      assert.deepEqual(backward, newestFirst(suppressions));
    });

    test("a suppression resolves through node for a member; another account's answers like a missing id", async () => {
      const id = encodeGlobalId("TeamSuppressedIssue", suppressions[1]!.key);
      const res = await gql<{ node: Record<string, unknown> }>(
        server.endpoint,
        aliceToken,
        `query($id: ID!) { node(id: $id) { __typename id ... on TeamSuppressedIssue { issue { shortcode } user { id } } } }`,
        { id },
      );
      assert.deepEqual(res.body.data?.node, {
        __typename: "TeamSuppressedIssue",
        id,
        issue: { shortcode: unusedVariable.shortcode },
        user: { id: encodeGlobalId("User", bob.key) },
      });
      const [theirs] = await server.db
        .selectFrom("team_suppressed_issues")
        .select("key")
        .where("account_id", "=", hidden.id)
        .execute();
      for (const missing of [
        encodeGlobalId("TeamSuppressedIssue", theirs!.key),
        encodeGlobalId("TeamSuppressedIssue", "missing000"),
      ]) {
        const answer = await gql(server.endpoint, aliceToken, `query($id: ID!) { node(id: $id) { id } }`, {
          id: missing,
        });
        assert.equal(answer.body.data?.node, null);
        assert.equal(answer.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
        assert.equal(answer.body.errors?.[0]?.message, `No node with id "${missing}" exists.`);
      }
      const theirAccount = await gql(
        server.endpoint,
        aliceToken,
        `query($login: String!) { account(login: $login, vcsProvider: GITHUB) { suppressedIssues { totalCount } } }`,
        { login: hidden.login },
      );
      assert.equal((theirAccount.body.data as { account: unknown } | undefined)?.account, null);
    });
  });

  test("settings, rules and suppressions of many repositories cost the same statements for any page size", async () => {
    const { db } = server;
    const reader = await aUser(db);
    for (let a = 0; a < 2; a++) {
      const account = await anAccount(db, {}, [{ user: reader, role: "MEMBER" }]);
      await aSuppressedIssue(db, account, unusedImport, { user: reader });
      await aSuppressedIssue(db, account, unusedVariable, { user: alice });
      for (let r = 0; r < 12; r++) {
        const repository = await aRepository(db, account);
        await anIssueCategorySetting(db, repository, "STYLE", { isReported: false, canFailCheck: false });
        for (let i = 0; i < 3; i++)
          await anIgnoreRule(db, repository, unusedImport, { createdAt: minute(i) });
      }
    }
    const readerToken = await aToken(db, server.config.tokenPepper, reader);
    await db
      .updateTable("personal_access_tokens")
      .set({ last_used_at: new Date() })
      .where("user_id", "=", reader.id)
      .execute();
    const query = `query($n: Int) { viewer { accounts(first: 2) { edges { node {
      suppressedIssues(first: $n) { totalCount edges { node { issue { shortcode } user { id } } } }
      repositories(first: $n) { edges { node {
        issueCategorySettings { isReported } issuePrioritySettings { canFailCheck } metricSettings { isReported }
        ignoreRules(first: $n) { totalCount edges { node { issue { shortcode } } } }
      } } }
    } } } } }`;
    const measure = async (n: number) => {
      await settle(server.statements);
      const start = server.statements.length;
      const res = await gql(server.endpoint, readerToken, query, { n });
      assert.deepEqual(res.body.errors, undefined);
      return server.statements.slice(start);
    };
    await measure(1);
    const small = await measure(10);
    const large = await measure(100);
    assertPageSizeIndependent(small, large);
  });
});
