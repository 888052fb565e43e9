import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { AccountRow, RepositoryRow, UserRow } from "../src/db/types.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { findBranchHeads } from "../src/modules/pull-requests/vcs-event-store.ts";
import { anAccount, aRepository, aRun, aToken, aUser } from "./helpers/builders.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";
import {
  githubHeaders,
  githubPingPayload,
  githubPullRequestPayload,
  githubPushPayload,
  gitlabHeaders,
  gitlabMergeRequestPayload,
  gitlabPushPayload,
} from "./helpers/vcs-payloads.ts";

/**
 * Incoming VCS events through the real server (docs/vcs-events.md): the secret set by mutation,
 * GitHub and GitLab deliveries signed as the providers sign them, and what they change.
 */

const SHA = (n: number) => n.toString(16).padStart(40, "a");
const ZERO = "0".repeat(40);

let server: TestServer;
let admin: UserRow;
let member: UserRow;
let adminToken: string;
let memberToken: string;
let team: AccountRow;
let gitlabTeam: AccountRow;
let repo: RepositoryRow;
let other: RepositoryRow;
let gitlabRepo: RepositoryRow;
let secret: string;
let otherSecret: string;
let gitlabSecret: string;

const SET_SECRET = `mutation($input: SetRepositoryVcsWebhookSecretInput!) {
  setRepositoryVcsWebhookSecret(input: $input) { secret repository { name } clientMutationId }
}`;

async function setSecret(token: string, repository: RepositoryRow, chosen?: string) {
  return gql<{ setRepositoryVcsWebhookSecret: { secret: string } | null }>(
    server.endpoint,
    token,
    SET_SECRET,
    {
      input: {
        repositoryId: encodeGlobalId("Repository", repository.key),
        secret: chosen,
        clientMutationId: "m1",
      },
    },
  );
}

async function post(path: string, body: string, headers: Record<string, string>) {
  const response = await fetch(`${server.url}${path}`, { method: "POST", headers, body });
  return { status: response.status, body: (await response.json()) as { ok: boolean; message: string } };
}

async function github(event: string, payload: unknown, key = secret, deliveryId?: string) {
  const body = JSON.stringify(payload);
  return post("/webhooks/github", body, githubHeaders(event, body, key, deliveryId));
}

async function gitlab(event: string, payload: unknown, token = gitlabSecret, deliveryId?: string) {
  return post("/webhooks/gitlab", JSON.stringify(payload), gitlabHeaders(event, token, deliveryId));
}

const PR_QUERY = `query($login: String!, $name: String!, $provider: VCSProvider!, $number: Int!) {
  repository(login: $login, name: $name, vcsProvider: $provider) {
    pullRequest(number: $number) { number title state branch baseBranch vcsUrl createdAt }
  }
}`;

interface PullRequestAnswer {
  number: number;
  title: string | null;
  state: string;
  branch: string | null;
  baseBranch: string | null;
  vcsUrl: string | null;
  createdAt: string;
}

async function pullRequest(account: AccountRow, repository: RepositoryRow, number: number) {
  const response = await gql<{ repository: { pullRequest: PullRequestAnswer | null } }>(
    server.endpoint,
    adminToken,
    PR_QUERY,
    { login: account.login, name: repository.name, provider: account.vcs_provider, number },
  );
  return response.body.data?.repository.pullRequest ?? null;
}

function opened(
  number: number,
  updatedAt: string,
  extra: Partial<Parameters<typeof githubPullRequestPayload>[0]> = {},
) {
  return githubPullRequestPayload({
    owner: team.login,
    name: repo.name,
    action: "opened",
    number,
    head: { ref: `feature-${number}`, sha: SHA(number) },
    base: { ref: "main", sha: SHA(1000) },
    updatedAt,
    ...extra,
  });
}

before(async () => {
  server = await startTestServer();
  admin = await aUser(server.db);
  member = await aUser(server.db);
  team = await anAccount(server.db, { login: `acme-${randomUUID().slice(0, 6)}` }, [
    { user: admin, role: "ADMIN" },
    { user: member, role: "MEMBER" },
  ]);
  gitlabTeam = await anAccount(server.db, { vcsProvider: "GITLAB" }, [{ user: admin, role: "ADMIN" }]);
  repo = await aRepository(server.db, team, { name: "Widgets" });
  other = await aRepository(server.db, team, { name: "gadgets" });
  gitlabRepo = await aRepository(server.db, gitlabTeam, { name: "diaspora" });
  adminToken = await aToken(server.db, server.config.tokenPepper, admin);
  memberToken = await aToken(server.db, server.config.tokenPepper, member);
  secret = (dataOf(await setSecret(adminToken, repo)).setRepositoryVcsWebhookSecret as { secret: string })
    .secret;
  otherSecret = "another-secret-of-gadgets-0123";
  await setSecret(adminToken, other, otherSecret);
  gitlabSecret = (
    dataOf(await setSecret(adminToken, gitlabRepo)).setRepositoryVcsWebhookSecret as { secret: string }
  ).secret;
});

after(() => server.stop());

describe("setting the secret", () => {
  test("an ADMIN gets a generated secret once; a MEMBER is refused; a short secret is refused", async () => {
    assert.match(secret, /^vcs_[A-Za-z0-9_-]{32}$/);
    const refused = await setSecret(memberToken, repo);
    assert.equal(refused.body.errors?.[0]?.extensions?.code, "FORBIDDEN");
    const short = await setSecret(adminToken, repo, "short");
    assert.equal(short.body.errors?.[0]?.extensions?.code, "BAD_USER_INPUT");
    assert.match(short.body.errors?.[0]?.message ?? "", /16 to 256/);
    // Neither answer changed the secret: deliveries signed with it still pass.
    const ping = await github("ping", githubPingPayload(team.login, repo.name));
    assert.deepEqual(ping, { status: 200, body: { ok: true, message: "pong" } });
  });

  test("a caller who cannot see the repository gets NOT_FOUND, as for a missing one", async () => {
    const stranger = await aUser(server.db);
    const token = await aToken(server.db, server.config.tokenPepper, stranger);
    const answer = await setSecret(token, repo);
    assert.equal(answer.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
  });
});

describe("GitHub deliveries", () => {
  test("opened creates the pull request; synchronize moves its head; closed with merged merges it", async () => {
    const open = await github("pull_request", opened(7, "2026-11-20T10:00:00Z", { title: "Add gears" }));
    assert.equal(open.status, 200, open.body.message);
    assert.deepEqual(await pullRequest(team, repo, 7), {
      number: 7,
      title: "Add gears",
      state: "OPEN",
      branch: "feature-7",
      baseBranch: "main",
      vcsUrl: `https://github.com/${team.login}/${repo.name}/pull/7`,
      createdAt: "2026-11-20T10:00:00.000Z",
    });
    await github(
      "pull_request",
      opened(7, "2026-11-20T11:00:00Z", { action: "synchronize", head: { ref: "feature-7", sha: SHA(77) } }),
    );
    const stored = await server.db
      .selectFrom("pull_requests")
      .select(["head_commit_oid", "base_commit_oid"])
      .where("repository_id", "=", repo.id)
      .where("number", "=", 7)
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored, { head_commit_oid: SHA(77), base_commit_oid: SHA(1000) });
    await github(
      "pull_request",
      opened(7, "2026-11-20T12:00:00Z", { action: "closed", state: "closed", merged: true }),
    );
    assert.equal((await pullRequest(team, repo, 7))?.state, "MERGED");
  });

  test("closed without merging closes; reopened opens again; edited changes the title", async () => {
    await github("pull_request", opened(8, "2026-11-20T10:00:00Z"));
    await github("pull_request", opened(8, "2026-11-20T10:10:00Z", { action: "closed", state: "closed" }));
    assert.equal((await pullRequest(team, repo, 8))?.state, "CLOSED");
    await github("pull_request", opened(8, "2026-11-20T10:20:00Z", { action: "reopened" }));
    await github("pull_request", opened(8, "2026-11-20T10:30:00Z", { action: "edited", title: "Renamed" }));
    const pr = await pullRequest(team, repo, 8);
    assert.equal(pr?.state, "OPEN");
    assert.equal(pr?.title, "Renamed");
  });

  test("an event older than the stored change does not undo it (a late reopen after a close)", async () => {
    await github("pull_request", opened(9, "2026-11-20T10:00:00Z"));
    await github("pull_request", opened(9, "2026-11-20T10:30:00Z", { action: "closed", state: "closed" }));
    const late = await github(
      "pull_request",
      opened(9, "2026-11-20T10:20:00Z", { action: "reopened", title: "Old" }),
    );
    assert.equal(late.status, 200);
    assert.match(late.body.message, /newer change/);
    const pr = await pullRequest(team, repo, 9);
    assert.equal(pr?.state, "CLOSED");
    assert.notEqual(pr?.title, "Old");
  });

  test("a replayed delivery id is applied once", async () => {
    const deliveryId = randomUUID();
    const first = await github(
      "pull_request",
      opened(10, "2026-11-20T10:00:00Z", { title: "First" }),
      secret,
      deliveryId,
    );
    assert.equal(first.status, 200);
    await github("pull_request", opened(10, "2026-11-20T10:05:00Z", { action: "edited", title: "Second" }));
    // A delivery with the first one's id (a retry or a replay) changes nothing, whatever it says.
    const replay = await github(
      "pull_request",
      opened(10, "2026-11-20T11:00:00Z", { title: "Replayed" }),
      secret,
      deliveryId,
    );
    assert.deepEqual(replay.status, 200);
    assert.match(replay.body.message, /already applied/);
    assert.equal((await pullRequest(team, repo, 10))?.title, "Second");
  });

  test("a bad, missing or other repository's signature, and an unknown repository, are one 401", async () => {
    const payload = opened(11, "2026-11-20T10:00:00Z");
    const body = JSON.stringify(payload);
    const wrong = await post(
      "/webhooks/github",
      body,
      githubHeaders("pull_request", body, "not-the-secret-at-all"),
    );
    const missing = await post("/webhooks/github", body, {
      ...githubHeaders("pull_request", body, secret),
      "x-hub-signature-256": "",
    });
    // Signed with the secret of another repository of the same account: never applied to this one.
    const crossed = await post("/webhooks/github", body, githubHeaders("pull_request", body, otherSecret));
    const unknownBody = JSON.stringify(
      githubPullRequestPayload({ ...payloadOptions(11), owner: team.login, name: "no-such-repo" }),
    );
    const unknown = await post(
      "/webhooks/github",
      unknownBody,
      githubHeaders("pull_request", unknownBody, secret),
    );
    const tampered = body.replace("Amazing new feature", "Amazing new featurE");
    const tamperedAnswer = await post(
      "/webhooks/github",
      tampered,
      githubHeaders("pull_request", body, secret),
    );
    for (const answer of [wrong, missing, crossed, unknown, tamperedAnswer]) {
      assert.deepEqual(answer, {
        status: 401,
        body: { ok: false, message: "The delivery could not be authenticated." },
      });
    }
    assert.equal(await pullRequest(team, repo, 11), null);
    assert.equal(await pullRequest(team, other, 11), null);
  });

  test("the repository is matched without case, and GitHub's form encoding is read", async () => {
    const payload = githubPullRequestPayload({
      ...payloadOptions(12),
      owner: team.login.toUpperCase(),
      name: "WIDGETS",
    });
    const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
    const answer = await post("/webhooks/github", body, {
      ...githubHeaders("pull_request", body, secret),
      "content-type": "application/x-www-form-urlencoded",
    });
    assert.equal(answer.status, 200, answer.body.message);
    assert.equal((await pullRequest(team, repo, 12))?.state, "OPEN");
  });

  test("push records branch heads; an older push does not move one back; a deleted branch is forgotten", async () => {
    const push = (ref: string, after: string, pushedAt: number) =>
      github(
        "push",
        githubPushPayload({ owner: team.login, name: repo.name, ref, before: SHA(500), after, pushedAt }),
      );
    assert.equal((await push("refs/heads/main", SHA(501), 1_800_000_100)).status, 200);
    await push("refs/heads/topic", SHA(502), 1_800_000_100);
    await push("refs/heads/main", SHA(503), 1_800_000_050);
    await push("refs/tags/v1.0.0", SHA(504), 1_800_000_200);
    assert.deepEqual(await findBranchHeads(server.db, repo.id), [
      { branch: "main", commit_oid: SHA(501) },
      { branch: "topic", commit_oid: SHA(502) },
    ]);
    await push("refs/heads/topic", ZERO, 1_800_000_300);
    assert.deepEqual(await findBranchHeads(server.db, repo.id), [{ branch: "main", commit_oid: SHA(501) }]);
  });

  test("other events are acknowledged and ignored; a payload missing what Assay needs is a 400", async () => {
    const star = await github("star", {
      action: "created",
      starred_at: null,
      repository: { full_name: `${team.login}/${repo.name}` },
    });
    assert.deepEqual(star, {
      status: 200,
      body: { ok: true, message: "Event star is not used by Assay; ignored." },
    });
    const broken = await github("pull_request", {
      action: "opened",
      repository: { full_name: `${team.login}/${repo.name}` },
    });
    assert.equal(broken.status, 400);
    assert.match(broken.body.message, /pull_request/);
  });

  test("a body over ASSAY_MAX_BODY_BYTES is refused with 413 before it is read; GET is 405", async () => {
    const body = JSON.stringify({
      ...githubPingPayload(team.login, repo.name),
      padding: "x".repeat(server.config.maxBodyBytes),
    });
    const answer = await post("/webhooks/github", body, githubHeaders("ping", body, secret));
    assert.equal(answer.status, 413);
    const get = await fetch(`${server.url}/webhooks/github`);
    assert.equal(get.status, 405);
  });

  test("a run uploaded before the pull request's event is attached to it when the event arrives", async () => {
    const run = await aRun(server.db, repo, { branch: "feature-13", commitOid: SHA(13) });
    await github("pull_request", opened(13, "2026-11-20T10:00:00Z"));
    const stored = await server.db
      .selectFrom("analysis_runs as r")
      .innerJoin("pull_requests as pr", "pr.id", "r.pull_request_id")
      .select("pr.number")
      .where("r.id", "=", run.id)
      .executeTakeFirst();
    assert.deepEqual(stored, { number: 13 });
  });
});

function payloadOptions(number: number) {
  return {
    action: "opened" as const,
    number,
    head: { ref: `feature-${number}`, sha: SHA(number) },
    base: { ref: "main", sha: SHA(1000) },
    updatedAt: "2026-11-20T10:00:00Z",
  };
}

describe("GitLab deliveries", () => {
  const mr = (
    action: "open" | "update" | "reopen" | "close" | "merge",
    state: "opened" | "closed" | "merged",
    updatedAt: string,
  ) =>
    gitlabMergeRequestPayload({
      path: `${gitlabTeam.login}/${gitlabRepo.name}`,
      action,
      iid: 3,
      state,
      sourceBranch: "ms-viewport",
      targetBranch: "main",
      lastCommit: SHA(300),
      updatedAt,
    });

  test("Merge Request Hook opens, updates and merges; a late close does not undo the merge", async () => {
    const open = await gitlab("Merge Request Hook", mr("open", "opened", "2026-11-20 10:00:00 UTC"));
    assert.equal(open.status, 200, open.body.message);
    const pr = await pullRequest(gitlabTeam, gitlabRepo, 3);
    assert.equal(pr?.state, "OPEN");
    assert.equal(pr?.branch, "ms-viewport");
    assert.equal(
      pr?.vcsUrl,
      `https://gitlab.example.com/${gitlabTeam.login}/${gitlabRepo.name}/-/merge_requests/3`,
    );
    await gitlab("Merge Request Hook", mr("merge", "merged", "2026-11-20T11:00:00Z"));
    await gitlab("Merge Request Hook", mr("close", "closed", "2026-11-20T10:30:00Z"));
    assert.equal((await pullRequest(gitlabTeam, gitlabRepo, 3))?.state, "MERGED");
  });

  test("Push Hook records the branch head; a replayed Idempotency-Key is applied once", async () => {
    const deliveryId = randomUUID();
    const push = (after: string) =>
      gitlabPushPayload({
        path: `${gitlabTeam.login}/${gitlabRepo.name}`,
        ref: "refs/heads/main",
        before: SHA(600),
        after,
      });
    await gitlab("Push Hook", push(SHA(601)), gitlabSecret, deliveryId);
    await gitlab("Push Hook", push(SHA(602)));
    const replay = await gitlab("Push Hook", push(SHA(601)), gitlabSecret, deliveryId);
    assert.match(replay.body.message, /already applied/);
    assert.deepEqual(await findBranchHeads(server.db, gitlabRepo.id), [
      { branch: "main", commit_oid: SHA(602) },
    ]);
  });

  test("a wrong or missing token, or a GitHub repository's path, is the same 401", async () => {
    const payload = mr("open", "opened", "2026-11-20 10:00:00 UTC");
    const wrong = await gitlab("Merge Request Hook", payload, `${gitlabSecret}x`);
    const missing = await post("/webhooks/gitlab", JSON.stringify(payload), {
      "content-type": "application/json",
      "x-gitlab-event": "Merge Request Hook",
    });
    // The GitHub repository's secret and path: a GitLab delivery never reaches a GitHub repository.
    const crossProvider = await gitlab(
      "Merge Request Hook",
      { ...payload, project: { ...payload.project, path_with_namespace: `${team.login}/${repo.name}` } },
      secret,
    );
    for (const answer of [wrong, missing, crossProvider]) {
      assert.deepEqual(answer, {
        status: 401,
        body: { ok: false, message: "The delivery could not be authenticated." },
      });
    }
  });
});
