import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { AccountRow, RepositoryRow, UserRow } from "../src/db/types.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";
import {
  githubAppPullRequestPayload,
  githubHeaders,
  githubInstallationPayload,
  gitlabHeaders,
  gitlabMergeRequestPayload,
  gitlabPushPayload,
} from "./helpers/vcs-payloads.ts";

/**
 * Account-wide VCS webhook secrets (a GitHub App's one secret, a GitLab group webhook's token),
 * the fields that say whether a repository or an account has a secret, and GitLab projects in
 * subgroups, through the real server (docs/vcs-events.md).
 */

const SHA = (n: number) => n.toString(16).padStart(40, "b");
const REFUSED = { status: 401, body: { ok: false, message: "The delivery could not be authenticated." } };

let server: TestServer;
let admin: UserRow;
let member: UserRow;
let adminToken: string;
let memberToken: string;
let app: AccountRow;
let elsewhere: AccountRow;
let covered: RepositoryRow;
let ownSecret: RepositoryRow;
let foreign: RepositoryRow;

const SET_ACCOUNT_SECRET = `mutation($input: SetAccountVcsWebhookSecretInput!) {
  setAccountVcsWebhookSecret(input: $input) { secret account { login hasVcsWebhookSecret } clientMutationId }
}`;
const REMOVE_ACCOUNT_SECRET = `mutation($input: RemoveAccountVcsWebhookSecretInput!) {
  removeAccountVcsWebhookSecret(input: $input) { ok }
}`;

async function setAccountSecret(token: string, account: AccountRow, secret?: string) {
  return gql<{ setAccountVcsWebhookSecret: { secret: string } | null }>(
    server.endpoint,
    token,
    SET_ACCOUNT_SECRET,
    { input: { login: account.login, vcsProvider: account.vcs_provider, secret, clientMutationId: "a1" } },
  );
}

async function setRepositorySecret(repository: RepositoryRow, secret: string): Promise<void> {
  dataOf(
    await gql(
      server.endpoint,
      adminToken,
      `mutation($id: ID!, $secret: String) {
        setRepositoryVcsWebhookSecret(input: { repositoryId: $id, secret: $secret }) { secret }
      }`,
      { id: encodeGlobalId("Repository", repository.key), secret },
    ),
  );
}

async function post(path: string, body: string, headers: Record<string, string>) {
  const response = await fetch(`${server.url}${path}`, { method: "POST", headers, body });
  return { status: response.status, body: (await response.json()) as { ok: boolean; message: string } };
}

/** A GitHub App's `pull_request` delivery for `owner/name`, signed with `secret`. */
async function appDelivery(owner: string, name: string, number: number, secret: string) {
  const body = JSON.stringify(
    githubAppPullRequestPayload(
      {
        owner,
        name,
        action: "opened",
        number,
        title: `Change ${number}`,
        head: { ref: `topic-${number}`, sha: SHA(number) },
        base: { ref: "main", sha: SHA(1000) },
        updatedAt: "2026-11-20T10:00:00Z",
      },
      4242,
    ),
  );
  return post("/webhooks/github", body, githubHeaders("pull_request", body, secret));
}

async function storedPullRequest(repository: RepositoryRow, number: number) {
  return server.db
    .selectFrom("pull_requests")
    .select(["number", "title", "state", "branch"])
    .where("repository_id", "=", repository.id)
    .where("number", "=", number)
    .executeTakeFirst();
}

const STATUS_QUERY = `query($login: String!, $provider: VCSProvider!, $name: String!) {
  account(login: $login, vcsProvider: $provider) { hasVcsWebhookSecret vcsWebhookSecretSetAt }
  repository(login: $login, name: $name, vcsProvider: $provider) {
    name vcsUrl hasVcsWebhookSecret vcsWebhookSecretSetAt
  }
}`;

interface StatusAnswer {
  account: { hasVcsWebhookSecret: boolean; vcsWebhookSecretSetAt: string | null };
  repository: {
    name: string;
    vcsUrl: string;
    hasVcsWebhookSecret: boolean;
    vcsWebhookSecretSetAt: string | null;
  };
}

async function status(token: string, account: AccountRow, repository: RepositoryRow): Promise<StatusAnswer> {
  const answer = await gql(server.endpoint, token, STATUS_QUERY, {
    login: account.login,
    provider: account.vcs_provider,
    name: repository.name,
  });
  return dataOf(answer) as unknown as StatusAnswer;
}

before(async () => {
  server = await startTestServer();
  admin = await aUser(server.db);
  member = await aUser(server.db);
  app = await anAccount(server.db, { login: `octo-${randomUUID().slice(0, 6)}` }, [
    { user: admin, role: "ADMIN" },
    { user: member, role: "MEMBER" },
  ]);
  elsewhere = await anAccount(server.db, {}, [{ user: admin, role: "ADMIN" }]);
  covered = await aRepository(server.db, app, { name: "covered" });
  ownSecret = await aRepository(server.db, app, { name: "own-secret" });
  foreign = await aRepository(server.db, elsewhere, { name: "covered" });
  adminToken = await aToken(server.db, server.config.tokenPepper, admin);
  memberToken = await aToken(server.db, server.config.tokenPepper, member);
});

after(() => server.stop());

describe("an account-wide secret (GitHub App)", () => {
  test("only an ADMIN sets it; a stranger is told the account does not exist; a short secret is refused", async () => {
    const byMember = await setAccountSecret(memberToken, app);
    assert.equal(byMember.body.errors?.[0]?.extensions?.code, "FORBIDDEN");
    const stranger = await aToken(server.db, server.config.tokenPepper, await aUser(server.db));
    const byStranger = await setAccountSecret(stranger, app);
    assert.equal(byStranger.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
    assert.equal(byStranger.body.errors?.[0]?.message, `No account "${app.login}" on GITHUB exists.`);
    const short = await setAccountSecret(adminToken, app, "too-short");
    assert.equal(short.body.errors?.[0]?.extensions?.code, "BAD_USER_INPUT");
    assert.match(short.body.errors?.[0]?.message ?? "", /16 to 256/);
    assert.equal((await status(adminToken, app, covered)).account.hasVcsWebhookSecret, false);
  });

  test("it authenticates deliveries for every repository of the account without a secret of its own", async () => {
    const answer = await setAccountSecret(adminToken, app);
    const set = dataOf(answer).setAccountVcsWebhookSecret as {
      secret: string;
      account: { login: string; hasVcsWebhookSecret: boolean };
      clientMutationId: string;
    };
    assert.match(set.secret, /^vcs_[A-Za-z0-9_-]{32}$/);
    assert.deepEqual(set.account, { login: app.login, hasVcsWebhookSecret: true });
    assert.equal(set.clientMutationId, "a1");

    const delivered = await appDelivery(app.login, covered.name, 5, set.secret);
    assert.equal(delivered.status, 200, delivered.body.message);
    assert.deepEqual(await storedPullRequest(covered, 5), {
      number: 5,
      title: "Change 5",
      state: "OPEN",
      branch: "topic-5",
    });
  });

  test("a repository's own secret takes precedence: the account's does not open it", async () => {
    const accountSecret = "account-wide-secret-of-octo-0001";
    await setAccountSecret(adminToken, app, accountSecret);
    await setRepositorySecret(ownSecret, "repository-own-secret-00000001");
    assert.deepEqual(await appDelivery(app.login, ownSecret.name, 6, accountSecret), REFUSED);
    assert.equal(await storedPullRequest(ownSecret, 6), undefined);
    const own = await appDelivery(app.login, ownSecret.name, 6, "repository-own-secret-00000001");
    assert.equal(own.status, 200, own.body.message);
  });

  test("it never opens another account's repository nor creates one; the answer is the same 401", async () => {
    const accountSecret = "account-wide-secret-of-octo-0002";
    await setAccountSecret(adminToken, app, accountSecret);
    // Same repository name, another account: the payload's owner decides, and its account has no secret.
    assert.deepEqual(await appDelivery(elsewhere.login, foreign.name, 7, accountSecret), REFUSED);
    assert.equal(await storedPullRequest(foreign, 7), undefined);
    // A repository the account does not have in Assay.
    assert.deepEqual(await appDelivery(app.login, "not-in-assay", 7, accountSecret), REFUSED);
    const created = await server.db
      .selectFrom("repositories")
      .select("id")
      .where("account_id", "=", app.id)
      .where("name", "=", "not-in-assay")
      .executeTakeFirst();
    assert.equal(created, undefined);
    // A wrong secret.
    assert.deepEqual(await appDelivery(app.login, covered.name, 7, `${accountSecret}x`), REFUSED);
  });

  test("the secret is stored encrypted, never in the clear", async () => {
    const accountSecret = "account-wide-secret-of-octo-0003";
    await setAccountSecret(adminToken, app, accountSecret);
    const row = await server.db
      .selectFrom("account_vcs_secrets")
      .select(["secret_encrypted", "secret_last_four"])
      .where("account_id", "=", app.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.secret_last_four, "0003");
    assert.ok(!Buffer.from(row.secret_encrypted).toString("latin1").includes(accountSecret));
  });

  test("removing it refuses deliveries that relied on it; removing again answers false", async () => {
    const accountSecret = "account-wide-secret-of-octo-0004";
    await setAccountSecret(adminToken, app, accountSecret);
    await setRepositorySecret(ownSecret, "repository-own-secret-00000001");
    const remove = () =>
      gql<{ removeAccountVcsWebhookSecret: { ok: boolean } }>(
        server.endpoint,
        adminToken,
        REMOVE_ACCOUNT_SECRET,
        {
          input: { login: app.login, vcsProvider: "GITHUB" },
        },
      );
    const byMember = await gql(server.endpoint, memberToken, REMOVE_ACCOUNT_SECRET, {
      input: { login: app.login, vcsProvider: "GITHUB" },
    });
    assert.equal(byMember.body.errors?.[0]?.extensions?.code, "FORBIDDEN");
    assert.deepEqual(dataOf(await remove()).removeAccountVcsWebhookSecret, { ok: true });
    assert.deepEqual(await appDelivery(app.login, covered.name, 8, accountSecret), REFUSED);
    assert.deepEqual(dataOf(await remove()).removeAccountVcsWebhookSecret, { ok: false });
    // The repository with its own secret is not affected.
    const own = await appDelivery(app.login, ownSecret.name, 8, "repository-own-secret-00000001");
    assert.equal(own.status, 200, own.body.message);
  });
});

describe("a GitHub App's installation events", () => {
  test("they name an account, not a repository: acknowledged with its account's secret, else the same 401", async () => {
    const accountSecret = "account-wide-secret-of-octo-0006";
    await setAccountSecret(adminToken, app, accountSecret);
    const body = JSON.stringify(
      githubInstallationPayload(app.login.toUpperCase(), "created", [covered.name]),
    );
    const acknowledged = await post(
      "/webhooks/github",
      body,
      githubHeaders("installation", body, accountSecret),
    );
    assert.deepEqual(acknowledged, {
      status: 200,
      body: { ok: true, message: "Event installation names no repository; acknowledged and ignored." },
    });
    assert.deepEqual(
      await post("/webhooks/github", body, githubHeaders("installation", body, `${accountSecret}-wrong`)),
      REFUSED,
    );
    // A repository's own secret does not stand for its account.
    assert.deepEqual(
      await post(
        "/webhooks/github",
        body,
        githubHeaders("installation", body, "repository-own-secret-00000001"),
      ),
      REFUSED,
    );
    // Another account, without an account secret.
    const other = JSON.stringify(githubInstallationPayload(elsewhere.login, "created", [foreign.name]));
    assert.deepEqual(
      await post("/webhooks/github", other, githubHeaders("installation", other, accountSecret)),
      REFUSED,
    );
  });
});

describe("whether a secret is set", () => {
  test("members see whether the repository and the account have a secret and since when, never the secret", async () => {
    const repository = await aRepository(server.db, app, { name: "status-check" });
    await setRepositorySecret(ownSecret, "repository-own-secret-00000001");
    const before = await status(memberToken, app, repository);
    assert.equal(before.repository.hasVcsWebhookSecret, false);
    assert.equal(before.repository.vcsWebhookSecretSetAt, null);

    const started = Date.now();
    await setRepositorySecret(repository, "status-check-secret-000000001");
    await setAccountSecret(adminToken, app, "account-wide-secret-of-octo-0005");
    for (const token of [memberToken, adminToken]) {
      const now = await status(token, app, repository);
      assert.equal(now.repository.hasVcsWebhookSecret, true);
      assert.equal(now.account.hasVcsWebhookSecret, true);
      for (const at of [now.repository.vcsWebhookSecretSetAt, now.account.vcsWebhookSecretSetAt]) {
        assert.ok(
          at !== null && Date.parse(at) >= started - 5_000 && Date.parse(at) <= Date.now() + 5_000,
          `${at}`,
        );
      }
    }
    const unrelated = await status(adminToken, app, covered);
    assert.equal(
      unrelated.repository.hasVcsWebhookSecret,
      false,
      "another repository of the account has none",
    );

    const listed = await gql<{
      account: { repositories: { edges: Array<{ node: { name: string; hasVcsWebhookSecret: boolean } }> } };
    }>(
      server.endpoint,
      memberToken,
      `query($login: String!) {
        account(login: $login, vcsProvider: GITHUB) {
          repositories(first: 20) { edges { node { name hasVcsWebhookSecret } } }
        }
      }`,
      { login: app.login },
    );
    const flags = Object.fromEntries(
      (listed.body.data?.account.repositories.edges ?? []).map((e) => [
        e.node.name,
        e.node.hasVcsWebhookSecret,
      ]),
    );
    assert.equal(flags["status-check"], true);
    assert.equal(flags.covered, false);
    assert.equal(flags["own-secret"], true);
  });
});

describe("GitLab projects in subgroups", () => {
  let group: AccountRow;
  let nested: RepositoryRow;
  let deeper: RepositoryRow;
  let topLevel: RepositoryRow;

  before(async () => {
    group = await anAccount(
      server.db,
      { vcsProvider: "GITLAB", login: `gitlab-org-${randomUUID().slice(0, 4)}` },
      [{ user: admin, role: "ADMIN" }],
    );
    nested = await aRepository(server.db, group, { name: "platform/api" });
    deeper = await aRepository(server.db, group, { name: "platform/services/billing" });
    topLevel = await aRepository(server.db, group, { name: "api" });
  });

  const mergeRequest = (path: string, iid: number, title: string) =>
    gitlabMergeRequestPayload({
      path,
      action: "open",
      iid,
      title,
      state: "opened",
      sourceBranch: `feature-${iid}`,
      targetBranch: "main",
      lastCommit: SHA(iid),
      updatedAt: "2026-11-20 10:00:00 UTC",
    });

  const deliver = (payload: unknown, token: string, event = "Merge Request Hook") =>
    post("/webhooks/gitlab", JSON.stringify(payload), gitlabHeaders(event, token));

  test("a project is named by its path below the top-level group, and the contract's query finds it", async () => {
    const answer = await status(adminToken, group, nested);
    assert.equal(answer.repository.name, "platform/api");
    assert.equal(answer.repository.vcsUrl, `https://gitlab.com/${group.login}/platform/api`);
  });

  test("a delivery naming group/sub/project reaches that project and no other", async () => {
    await setRepositorySecret(nested, "nested-project-secret-00000001");
    await setRepositorySecret(topLevel, "top-level-api-secret-000000001");
    const delivered = await deliver(
      mergeRequest(`${group.login}/platform/api`, 3, "Nested"),
      "nested-project-secret-00000001",
    );
    assert.equal(delivered.status, 200, delivered.body.message);
    assert.equal((await storedPullRequest(nested, 3))?.title, "Nested");
    assert.equal(await storedPullRequest(topLevel, 3), undefined);
    // The top-level project's secret does not open the nested project of the same name.
    assert.deepEqual(
      await deliver(
        mergeRequest(`${group.login}/platform/api`, 4, "Crossed"),
        "top-level-api-secret-000000001",
      ),
      REFUSED,
    );
    assert.equal(await storedPullRequest(nested, 4), undefined);
  });

  test("a group webhook's token, set as the account's secret, covers projects at any depth", async () => {
    const token = "gitlab-group-webhook-token-0001";
    await setAccountSecret(adminToken, group, token);
    const push = await deliver(
      gitlabPushPayload({
        path: `${group.login}/platform/services/billing`,
        ref: "refs/heads/main",
        before: SHA(700),
        after: SHA(701),
      }),
      token,
      "Push Hook",
    );
    assert.equal(push.status, 200, push.body.message);
    const heads = await server.db
      .selectFrom("branch_heads")
      .select(["branch", "commit_oid"])
      .where("repository_id", "=", deeper.id)
      .execute();
    assert.deepEqual(heads, [{ branch: "main", commit_oid: SHA(701) }]);
    // A subgroup path Assay does not know is the usual 401.
    assert.deepEqual(
      await deliver(mergeRequest(`${group.login}/platform/web`, 5, "Unknown"), token),
      REFUSED,
    );
  });
});
