import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AccountRow, AnalyzerRow, RepositoryRow, UserRow } from "../src/db/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aRun, aToken, aUser } from "./helpers/builders.ts";
import { anArtifact } from "./helpers/builders-artifacts.ts";
import { analyzersIn, issuesIn } from "./helpers/builders-catalog.ts";
import { aCheck, occurrencesIn } from "./helpers/builders-checks.ts";
import { assertPageSizeIndependent, settle, startInstance, type TestInstance } from "./helpers/instance.ts";
import { gql } from "./helpers/server.ts";

const DAY = 86_400_000;

interface AnalyzerPage {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string; endCursor: string };
  edges: Array<{ node: { shortcode: string; name: string } }>;
}

describe("Repository.enabledAnalyzers", () => {
  let server: TestInstance;
  let alice: UserRow;
  let team: AccountRow;
  let hidden: AccountRow;
  let token: string;
  let named: Record<"alpha" | "charlie" | "zulu" | "disabled" | "same1" | "same2", AnalyzerRow>;
  let ran: Record<"old" | "both" | "latest" | "pending" | "feature", AnalyzerRow>;
  let configured: RepositoryRow;
  let unconfigured: RepositoryRow;
  let secret: RepositoryRow;

  const at = (days: number) => new Date(Date.now() - days * DAY);
  const tag = newRowKey();

  async function configure(repository: RepositoryRow, config: unknown) {
    await server.db
      .updateTable("repositories")
      .set({ config_json: JSON.stringify(config) })
      .where("id", "=", repository.id)
      .execute();
  }

  async function runWithChecks(
    repository: RepositoryRow,
    analyzers: AnalyzerRow[],
    fields: Parameters<typeof aRun>[2] = {},
  ) {
    const run = await aRun(server.db, repository, fields);
    for (const analyzer of analyzers) await aCheck(server.db, run, analyzer);
  }

  before(async () => {
    server = await startInstance();
    const { db } = server;
    alice = await aUser(db);
    const carol = await aUser(db);
    team = await anAccount(db, {}, [{ user: alice }]);
    hidden = await anAccount(db, {}, [{ user: carol, role: "ADMIN" }]);
    token = await aToken(db, server.config.tokenPepper, alice);
    const [alpha, charlie, zulu, disabled, same1, same2] = await analyzersIn(db, [
      { name: `Alpha ${tag}` },
      { name: `Charlie ${tag}` },
      { name: `Zulu ${tag}` },
      { name: `Bravo ${tag}` },
      { name: `Same ${tag}` },
      { name: `Same ${tag}` },
    ]);
    named = {
      alpha: alpha!,
      charlie: charlie!,
      zulu: zulu!,
      disabled: disabled!,
      same1: same1!,
      same2: same2!,
    };
    const [old, both, latest, pending, feature] = await analyzersIn(
      db,
      ["Old", "Both", "Latest", "Pending", "Feature"].map((name) => ({ name: `${name} ${tag}` })),
    );
    ran = { old: old!, both: both!, latest: latest!, pending: pending!, feature: feature! };

    configured = await aRepository(db, team);
    await configure(configured, {
      version: 1,
      analyzers: [
        { name: named.zulu.shortcode, enabled: true },
        { name: named.alpha.shortcode },
        { name: named.disabled.shortcode, enabled: false },
        { name: `unknown-${tag}`, enabled: true },
        "not an entry",
        { name: named.charlie.shortcode, enabled: true },
        { name: named.same2.shortcode },
        { name: named.same1.shortcode },
      ],
    });
    // What ran does not matter once the configuration lists analyzers.
    await runWithChecks(configured, [ran.old]);

    unconfigured = await aRepository(db, team);
    await runWithChecks(unconfigured, [ran.old, ran.both], { createdAt: at(3) });
    await runWithChecks(unconfigured, [ran.both, ran.latest], { createdAt: at(2) });
    await runWithChecks(unconfigured, [ran.pending], { createdAt: at(1), status: "PENDING" });
    await runWithChecks(unconfigured, [ran.feature], { createdAt: at(0.5), branch: "feature" });

    secret = await aRepository(db, hidden);
    await configure(secret, { analyzers: [{ name: named.alpha.shortcode }] });
  });
  after(() => server.stop());

  async function enabled(repository: RepositoryRow, args = "", variables: Record<string, unknown> = {}) {
    const res = await gql<{ repository: { enabledAnalyzers: AnalyzerPage } }>(
      server.endpoint,
      token,
      `query($name: String!, $login: String!, $after: String, $before: String) {
        repository(name: $name, login: $login, vcsProvider: GITHUB) {
          enabledAnalyzers(after: $after, before: $before${args ? `, ${args}` : ""}) { totalCount
            pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
            edges { node { shortcode name } } } } }`,
      { name: repository.name, login: team.login, ...variables },
    );
    assert.deepEqual(res.body.errors, undefined);
    return res.body.data!.repository.enabledAnalyzers;
  }
  const shortcodes = (page: AnalyzerPage) => page.edges.map((edge) => edge.node.shortcode);
  const byKey = (a: AnalyzerRow, b: AnalyzerRow) => (a.key < b.key ? -1 : 1);

  test("a configuration's analyzers count unless disabled, ordered by name then key", async () => {
    const page = await enabled(configured);
    const [firstSame, secondSame] = [named.same1, named.same2].sort(byKey);
    assert.deepEqual(shortcodes(page), [
      named.alpha.shortcode,
      named.charlie.shortcode,
      firstSame!.shortcode,
      secondSame!.shortcode,
      named.zulu.shortcode,
    ]);
    assert.equal(page.totalCount, 5);
  });

  test("without an analyzers list, the analyzers with a current check on the default branch count, not only the newest run's", async () => {
    // Old ran only in the run before the newest, and still holds its findings there.
    const current = [ran.both.shortcode, ran.latest.shortcode, ran.old.shortcode];
    const page = await enabled(unconfigured);
    assert.deepEqual(shortcodes(page), current);
    await configure(unconfigured, { version: 1 });
    assert.deepEqual(shortcodes(await enabled(unconfigured)), current);
    await configure(unconfigured, { version: 1, analyzers: [] });
    assert.deepEqual(shortcodes(await enabled(unconfigured)), []);
    await server.db
      .updateTable("repositories")
      .set({ config_json: null })
      .where("id", "=", unconfigured.id)
      .execute();
    const fresh = await aRepository(server.db, team);
    assert.deepEqual(shortcodes(await enabled(fresh)), []);
  });

  test("without an analyzers list, the analyzers listed are those whose findings Repository.issues holds", async () => {
    const { db } = server;
    const repository = await aRepository(db, team);
    const [kept, reporting, neutral, failing] = await analyzersIn(
      db,
      ["Kept", "Reporting", "Neutral", "Failing"].map((name) => ({ name: `${name} ${tag}` })),
    );
    const [keptIssue, reportingIssue, failingIssue] = await issuesIn(db, [
      { analyzer: kept! },
      { analyzer: reporting! },
      { analyzer: failing! },
    ]);
    // The run before the newest: kept and reporting find something, neutral places nothing.
    const before = await aRun(db, repository, { status: "SUCCESS", createdAt: at(2) });
    await occurrencesIn(db, await aCheck(db, before, kept!), [{ issue: keptIssue! }]);
    await occurrencesIn(db, await aCheck(db, before, reporting!), [{ issue: reportingIssue! }]);
    await aCheck(db, before, neutral!, { status: "NEUTRAL" });
    // The newest: kept is not sent, reporting reports again, failing's only report fails to process.
    const newest = await aRun(db, repository, { status: "FAILURE", createdAt: at(1) });
    await occurrencesIn(db, await aCheck(db, newest, reporting!), [{ issue: reportingIssue! }]);
    const failed = await aCheck(db, newest, failing!, { status: "FAILURE" });
    await anArtifact(db, newest, failed, { status: "FAILED" });
    await occurrencesIn(db, failed, [{ issue: failingIssue! }]);

    const res = await gql<{
      repository: { issues: { edges: Array<{ node: { issue: { analyzer: { shortcode: string } } } }> } };
    }>(
      server.endpoint,
      token,
      `query($name: String!, $login: String!) { repository(name: $name, login: $login, vcsProvider: GITHUB) {
        issues(first: 50) { edges { node { issue { analyzer { shortcode } } } } } } }`,
      { name: repository.name, login: team.login },
    );
    assert.deepEqual(res.body.errors, undefined);
    const holding = new Set(
      res.body.data!.repository.issues.edges.map((e) => e.node.issue.analyzer.shortcode),
    );
    const listed = shortcodes(await enabled(repository));
    assert.deepEqual(listed, [kept!.shortcode, reporting!.shortcode]);
    assert.deepEqual(new Set(listed), holding);
  });

  test("pages forward and backward with cursors", async () => {
    const all = shortcodes(await enabled(configured));
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page: AnalyzerPage = await enabled(configured, "first: 2", { after });
      seen.push(...shortcodes(page));
      assert.equal(page.totalCount, 5);
      assert.equal(page.pageInfo.hasPreviousPage, after !== null);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    assert.deepEqual(seen, all);
    const last = await enabled(configured, "last: 2");
    assert.deepEqual(shortcodes(last), all.slice(3));
    assert.equal(last.pageInfo.hasPreviousPage, true);
    assert.equal(last.pageInfo.hasNextPage, false);
    const before = await enabled(configured, "last: 2", { before: last.pageInfo.startCursor });
    assert.deepEqual(shortcodes(before), all.slice(1, 3));
    const rest = await enabled(configured, "last: 5", { before: before.pageInfo.startCursor });
    assert.deepEqual(shortcodes(rest), all.slice(0, 1));
    assert.equal(rest.pageInfo.hasPreviousPage, false);
  });

  test("a cursor that is not one of this connection's is refused, naming the argument", async () => {
    const res = await gql(
      server.endpoint,
      token,
      `query($name: String!, $login: String!) { repository(name: $name, login: $login, vcsProvider: GITHUB) {
        enabledAnalyzers(after: "bm90LWEtY3Vyc29y") { totalCount } } }`,
      { name: configured.name, login: team.login },
    );
    assert.equal(res.body.errors?.[0]?.extensions?.code, "BAD_USER_INPUT");
    assert.equal(res.body.errors?.[0]?.extensions?.field, "after");
  });

  test("another account's repository answers like one that does not exist", async () => {
    const id = encodeGlobalId("Repository", secret.key);
    const res = await gql(
      server.endpoint,
      token,
      `query($id: ID!) { node(id: $id) { ... on Repository { enabledAnalyzers { totalCount } } } }`,
      { id },
    );
    assert.equal(res.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
    assert.equal(res.body.errors?.[0]?.message, `No node with id "${id}" exists.`);
    const byName = await gql(
      server.endpoint,
      token,
      `query($name: String!, $login: String!) { repository(name: $name, login: $login, vcsProvider: GITHUB) {
        enabledAnalyzers { totalCount } } }`,
      { name: secret.name, login: hidden.login },
    );
    assert.equal(byName.body.data?.repository, null);
    assert.equal(byName.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
  });

  test("a page of repositories takes the same statements for 2 repositories as for 8", async () => {
    async function statementsFor(repositories: number): Promise<string[]> {
      const account = await anAccount(server.db, {}, [{ user: alice }]);
      for (let i = 0; i < repositories; i++) {
        const repository = await aRepository(server.db, account);
        if (i % 2 === 0) {
          await configure(repository, { analyzers: [{ name: named.alpha.shortcode }] });
        } else {
          await runWithChecks(repository, [ran.both, ran.latest]);
        }
      }
      await settle(server.statements);
      const start = server.statements.length;
      const res = await gql<{
        account: { repositories: { edges: Array<{ node: { enabledAnalyzers: AnalyzerPage } }> } };
      }>(
        server.endpoint,
        token,
        `query($login: String!) { account(login: $login, vcsProvider: GITHUB) { repositories(first: 50) {
          edges { node { enabledAnalyzers(first: 10) { totalCount pageInfo { hasNextPage hasPreviousPage }
            edges { node { shortcode name numIssues } } } } } } } }`,
        { login: account.login },
      );
      assert.deepEqual(res.body.errors, undefined);
      const counts = res.body.data!.account.repositories.edges.map(
        (edge) => edge.node.enabledAnalyzers.totalCount,
      );
      assert.equal(counts.length, repositories);
      assert.deepEqual(counts.sort(), counts.map((_, i) => (i < Math.ceil(repositories / 2) ? 1 : 2)).sort());
      await settle(server.statements);
      return server.statements.slice(start);
    }
    const eight = await statementsFor(8);
    assertPageSizeIndependent(await statementsFor(2), eight, ["2 repositories", "8 repositories"]);
  });
});
