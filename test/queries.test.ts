import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AccountRow, RepositoryRow, UserRow } from "../src/db/types.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aRun, aToken, aUser } from "./helpers/builders.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

describe("root queries", () => {
  let server: TestServer;
  let alice: UserRow;
  let bob: UserRow;
  let team: AccountRow;
  let hidden: AccountRow;
  let repo: RepositoryRow;
  let hiddenRepo: RepositoryRow;
  let aliceToken: string;

  before(async () => {
    server = await startTestServer();
    const { db } = server;
    alice = await aUser(db, { email: "alice@example.test", firstName: "Alice", lastName: "Liddell" });
    bob = await aUser(db, { email: "bob@example.test" });
    const carol = await aUser(db);
    team = await anAccount(db, { login: "wonderland" }, [
      { user: alice, role: "ADMIN", isOwner: true },
      { user: bob, role: "CONTRIBUTOR" },
    ]);
    hidden = await anAccount(db, { login: "looking-glass" }, [{ user: carol, role: "ADMIN" }]);
    repo = await aRepository(db, team, { name: "tea-party" });
    hiddenRepo = await aRepository(db, hidden, { name: "jabberwock" });
    aliceToken = await aToken(db, server.config.tokenPepper, alice);
  });
  after(() => server.stop());

  test("viewer answers the token's user with every contract field", async () => {
    const res = await gql(
      server.endpoint,
      aliceToken,
      `{ viewer { id email firstName lastName analyticsId isBetaTester ideSubscription { plan } } }`,
    );
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.errors, undefined);
    const viewer = dataOf(res).viewer as Record<string, unknown>;
    assert.equal(viewer.email, "alice@example.test");
    assert.equal(viewer.firstName, "Alice");
    assert.equal(viewer.id, encodeGlobalId("User", alice.key));
    assert.equal(viewer.ideSubscription, null);
    assert.match(String(viewer.analyticsId), /^[0-9a-f-]{36}$/);
  });

  test("viewer.accounts lists only the accounts the user belongs to", async () => {
    const res = await gql(
      server.endpoint,
      aliceToken,
      `{ viewer { accounts { totalCount edges { node { login type } } } } }`,
    );
    const accounts = (
      dataOf(res).viewer as { accounts: { totalCount: number; edges: Array<{ node: { login: string } }> } }
    ).accounts;
    assert.equal(accounts.totalCount, 1);
    assert.deepEqual(
      accounts.edges.map((e) => e.node.login),
      ["wonderland"],
    );
  });

  test("account by login answers for a member and null for a stranger's account", async () => {
    const mine = await gql(
      server.endpoint,
      aliceToken,
      `{ account(login: "WONDERLAND", vcsProvider: GITHUB) { login members { totalCount edges { node { role isOwner user { email } } } } } }`,
    );
    assert.equal((dataOf(mine).account as { login: string }).login, "wonderland");
    const members = (dataOf(mine).account as { members: { totalCount: number } }).members;
    assert.equal(members.totalCount, 2);
    const theirs = await gql(
      server.endpoint,
      aliceToken,
      `{ account(login: "looking-glass", vcsProvider: GITHUB) { login } }`,
    );
    assert.equal(dataOf(theirs).account, null);
  });

  test("repository answers a visible repository and the exact not-found text otherwise", async () => {
    const ok = await gql(
      server.endpoint,
      aliceToken,
      `{ repository(name: "tea-party", login: "wonderland", vcsProvider: GITHUB) { name account { login } vcsUrl dsn } }`,
    );
    assert.equal((dataOf(ok).repository as { name: string }).name, "tea-party");
    assert.match(
      String((dataOf(ok).repository as { dsn: string }).dsn),
      /^http:\/\/[a-z0-9]{10}[0-9a-f]{32}@127\.0\.0\.1:\d+$/,
    );
    for (const [name, login] of [
      ["jabberwock", "looking-glass"],
      ["nope", "wonderland"],
    ]) {
      const res = await gql(
        server.endpoint,
        aliceToken,
        `{ repository(name: "${name}", login: "${login}", vcsProvider: GITHUB) { name } }`,
      );
      assert.equal(res.status, 200);
      assert.equal(dataOf(res).repository, null);
      assert.equal(res.body.errors?.[0]?.message, "Repository matching query does not exist");
      assert.equal(res.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
      assert.deepEqual(res.body.errors?.[0]?.path, ["repository"]);
    }
  });

  test("run answers by UID and by commit, newest first for a commit analysed twice", async () => {
    const older = await aRun(server.db, repo, {
      commitOid: "a".repeat(40),
      createdAt: new Date(Date.now() - 60_000),
    });
    const newer = await aRun(server.db, repo, { commitOid: "a".repeat(40), status: "FAILURE" });
    const byUid = await gql(
      server.endpoint,
      aliceToken,
      `query($u: UUID) { run(runUid: $u) { runUid status repository { name } } }`,
      { u: older.run_uid },
    );
    assert.equal((dataOf(byUid).run as { runUid: string }).runUid, older.run_uid);
    const byCommit = await gql(
      server.endpoint,
      aliceToken,
      `{ run(commitOid: "${"a".repeat(40)}") { runUid status } }`,
    );
    assert.equal((dataOf(byCommit).run as { runUid: string }).runUid, newer.run_uid);
  });

  test("run of a hidden repository is not found, exactly like a missing run", async () => {
    const theirs = await aRun(server.db, hiddenRepo);
    const hiddenRes = await gql(
      server.endpoint,
      aliceToken,
      `query($u: UUID) { run(runUid: $u) { runUid } }`,
      { u: theirs.run_uid },
    );
    const missingRes = await gql(
      server.endpoint,
      aliceToken,
      `query($u: UUID) { run(runUid: $u) { runUid } }`,
      { u: "00000000-0000-4000-8000-000000000000" },
    );
    assert.equal(hiddenRes.body.data, null);
    assert.deepEqual(hiddenRes.body.errors, missingRes.body.errors);
    assert.equal(hiddenRes.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
  });

  test("run without runUid or commitOid is a BAD_USER_INPUT error", async () => {
    const res = await gql(server.endpoint, aliceToken, `{ run { runUid } }`);
    assert.equal(res.body.errors?.[0]?.extensions?.code, "BAD_USER_INPUT");
  });

  test("installation answers its name, a logo URL and a node id", async () => {
    const res = await gql(server.endpoint, aliceToken, `{ installation { id name logo } }`);
    const installation = dataOf(res).installation as { id: string; name: string; logo: string };
    assert.equal(installation.name, "Assay");
    assert.ok(new URL(installation.logo));
    const node = await gql(
      server.endpoint,
      aliceToken,
      `query($id: ID!) { node(id: $id) { id ... on Installation { name } } }`,
      { id: installation.id },
    );
    assert.deepEqual(dataOf(node).node, { id: installation.id, name: "Assay" });
  });

  test("node resolves User, Account, Repository and AnalysisRun the viewer can see", async () => {
    const run = await aRun(server.db, repo);
    const cases: Array<[string, string, string]> = [
      ["User", bob.key, "... on User { email }"],
      ["Account", team.key, "... on Account { login }"],
      ["Repository", repo.key, "... on Repository { name }"],
      ["AnalysisRun", run.key, "... on AnalysisRun { runUid }"],
    ];
    for (const [type, key, fragment] of cases) {
      const id = encodeGlobalId(type, key);
      const res = await gql(
        server.endpoint,
        aliceToken,
        `query($id: ID!) { node(id: $id) { __typename id ${fragment} ... on Installation { name } } }`,
        { id },
      );
      assert.equal(res.body.errors, undefined, type);
      const node = dataOf(res).node as Record<string, unknown>;
      assert.equal(node.__typename, type);
      assert.equal(node.id, id);
      assert.equal(Object.keys(node).length, 3, `${type}: fragments on other types add nothing`);
    }
  });

  test("node answers the same NOT_FOUND for malformed, unknown, wrong-type and hidden ids", async () => {
    const hiddenRun = await aRun(server.db, hiddenRepo);
    const ids = [
      "not-an-id",
      encodeGlobalId("Repository", "zzzzzzzzzz"),
      encodeGlobalId("Spaceship", repo.key),
      encodeGlobalId("Account", repo.key),
      encodeGlobalId("Repository", hiddenRepo.key),
      encodeGlobalId("Account", hidden.key),
      encodeGlobalId("AnalysisRun", hiddenRun.key),
    ];
    for (const id of ids) {
      const res = await gql(server.endpoint, aliceToken, `query($id: ID!) { node(id: $id) { id } }`, { id });
      assert.equal(res.status, 200, id);
      assert.deepEqual(res.body.data, { node: null }, id);
      assert.equal(res.body.errors?.length, 1, id);
      assert.equal(res.body.errors?.[0]?.extensions?.code, "NOT_FOUND", id);
      assert.deepEqual(res.body.errors?.[0]?.path, ["node"], id);
      assert.equal(res.body.errors?.[0]?.message, `No node with id "${id}" exists.`, id);
    }
  });

  test("another user's accounts show only those shared with the viewer", async () => {
    const other = await anAccount(server.db, {}, [{ user: bob, role: "ADMIN" }]);
    const res = await gql(
      server.endpoint,
      aliceToken,
      `query($id: ID!) { node(id: $id) { ... on User { accounts { edges { node { login } } } } } }`,
      { id: encodeGlobalId("User", bob.key) },
    );
    const logins = (
      dataOf(res).node as { accounts: { edges: Array<{ node: { login: string } }> } }
    ).accounts.edges.map((e) => e.node.login);
    assert.deepEqual(logins, ["wonderland"]);
    assert.ok(!logins.includes(other.login));
  });

  test("a CONTRIBUTOR does not see the repository DSN", async () => {
    const bobToken = await aToken(server.db, server.config.tokenPepper, bob);
    const res = await gql(
      server.endpoint,
      bobToken,
      `{ repository(name: "tea-party", login: "wonderland", vcsProvider: GITHUB) { name dsn } }`,
    );
    assert.deepEqual(dataOf(res).repository, { name: "tea-party", dsn: null });
  });
});
