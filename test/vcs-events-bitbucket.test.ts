import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { AccountRow, RepositoryRow, UserRow } from "../src/db/types.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { findBranchHeads } from "../src/modules/pull-requests/vcs-event-store.ts";
import { anAccount, aRepository, aRun, aToken, aUser } from "./helpers/builders.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";
import { githubHeaders, githubPingPayload } from "./helpers/vcs-payloads.ts";
import {
  type BitbucketChange,
  bitbucketHeaders,
  bitbucketPullRequestPayload,
  bitbucketPushPayload,
} from "./helpers/vcs-payloads-bitbucket.ts";

/**
 * Bitbucket Cloud deliveries through the real server (docs/vcs-events.md): `X-Hub-Signature`
 * signed as Bitbucket signs, `X-Event-Key` events, `X-Request-UUID` ids, pull request payloads
 * with abbreviated commit hashes.
 */

// Distinct in their first 12 characters, as Bitbucket abbreviates pull request hashes to 12.
const SHA = (n: number) => n.toString(16).padEnd(40, "d");
const REFUSED = { status: 401, body: { ok: false, message: "The delivery could not be authenticated." } };

let server: TestServer;
let admin: UserRow;
let adminToken: string;
let workspace: AccountRow;
let repo: RepositoryRow;
let githubTeam: AccountRow;
let githubRepo: RepositoryRow;
const secret = "bitbucket-webhook-secret-000001";

async function post(path: string, body: string, headers: Record<string, string>) {
  const response = await fetch(`${server.url}${path}`, { method: "POST", headers, body });
  return { status: response.status, body: (await response.json()) as { ok: boolean; message: string } };
}

async function bitbucket(event: string, payload: unknown, key = secret, requestUuid?: string) {
  const body = JSON.stringify(payload);
  return post("/webhooks/bitbucket", body, bitbucketHeaders(event, body, key, requestUuid));
}

function pullRequest(
  id: number,
  state: "OPEN" | "MERGED" | "DECLINED",
  updatedOn: string,
  extra: { title?: string; sourceHash?: string } = {},
) {
  return bitbucketPullRequestPayload({
    workspace: workspace.login,
    slug: repo.name,
    id,
    state,
    sourceBranch: `feature-${id}`,
    sourceHash: extra.sourceHash ?? SHA(id),
    destinationBranch: "main",
    destinationHash: SHA(1000),
    updatedOn,
    ...(extra.title ? { title: extra.title } : {}),
  });
}

const PR_QUERY = `query($login: String!, $name: String!, $number: Int!) {
  repository(login: $login, name: $name, vcsProvider: BITBUCKET) {
    pullRequest(number: $number) { number title state branch baseBranch vcsUrl }
  }
}`;

async function readPullRequest(number: number) {
  const answer = await gql<{ repository: { pullRequest: Record<string, unknown> | null } }>(
    server.endpoint,
    adminToken,
    PR_QUERY,
    { login: workspace.login, name: repo.name, number },
  );
  return answer.body.data?.repository.pullRequest ?? null;
}

before(async () => {
  server = await startTestServer();
  admin = await aUser(server.db);
  workspace = await anAccount(
    server.db,
    { vcsProvider: "BITBUCKET", login: `ws-${randomUUID().slice(0, 6)}` },
    [{ user: admin, role: "ADMIN" }],
  );
  githubTeam = await anAccount(server.db, {}, [{ user: admin, role: "ADMIN" }]);
  repo = await aRepository(server.db, workspace, { name: "test-repo" });
  githubRepo = await aRepository(server.db, githubTeam, { name: "test-repo" });
  adminToken = await aToken(server.db, server.config.tokenPepper, admin);
  for (const repository of [repo, githubRepo]) {
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
});

after(() => server.stop());

describe("Bitbucket Cloud pull requests", () => {
  test("created records the pull request; fulfilled merges it; a late updated does not undo the merge", async () => {
    const created = await bitbucket(
      "pullrequest:created",
      pullRequest(1, "OPEN", "2026-11-20T10:00:00.000000+00:00", { title: "Add README" }),
    );
    assert.deepEqual(created, {
      status: 200,
      body: { ok: true, message: "Pull request 1 recorded (OPEN)." },
    });
    assert.deepEqual(await readPullRequest(1), {
      number: 1,
      title: "Add README",
      state: "OPEN",
      branch: "feature-1",
      baseBranch: "main",
      vcsUrl: `https://bitbucket.org/${workspace.login}/${repo.name}/pull-requests/1`,
    });
    const stored = await server.db
      .selectFrom("pull_requests")
      .select(["head_commit_oid", "base_commit_oid"])
      .where("repository_id", "=", repo.id)
      .where("number", "=", 1)
      .executeTakeFirstOrThrow();
    // Bitbucket abbreviates hashes in pull request payloads; they are kept as given.
    assert.deepEqual(stored, {
      head_commit_oid: SHA(1).slice(0, 12),
      base_commit_oid: SHA(1000).slice(0, 12),
    });

    await bitbucket(
      "pullrequest:fulfilled",
      pullRequest(1, "MERGED", "2026-11-20T11:00:00.000000+00:00", { title: "Add README" }),
    );
    const late = await bitbucket(
      "pullrequest:updated",
      pullRequest(1, "OPEN", "2026-11-20T10:30:00.000000+00:00", { title: "Stale" }),
    );
    assert.match(late.body.message, /newer change/);
    const merged = await readPullRequest(1);
    assert.equal(merged?.state, "MERGED");
    assert.equal(merged?.title, "Add README");
  });

  test("rejected (declined) closes the pull request", async () => {
    await bitbucket("pullrequest:created", pullRequest(2, "OPEN", "2026-11-20T10:00:00.000000+00:00"));
    await bitbucket("pullrequest:rejected", pullRequest(2, "DECLINED", "2026-11-20T10:10:00.000000+00:00"));
    assert.equal((await readPullRequest(2))?.state, "CLOSED");
  });

  test("a run of the commit an abbreviated head stands for is attached, before or after the event", async () => {
    const early = await aRun(server.db, repo, { branch: "feature-3", commitOid: SHA(3) });
    // Differs from SHA(3) in the twelfth character: not a commit the abbreviated head stands for.
    const unrelated = await aRun(server.db, repo, {
      branch: "other",
      commitOid: `3${"d".repeat(10)}c${"d".repeat(28)}`,
    });
    await bitbucket("pullrequest:created", pullRequest(3, "OPEN", "2026-11-20T10:00:00.000000+00:00"));
    assert.equal(await pullRequestOfRun(early.id), 3);
    assert.equal(await pullRequestOfRun(unrelated.id), null);

    // An upload after the event, without a pull request number, joins it by its full commit id.
    await bitbucket("pullrequest:created", pullRequest(4, "OPEN", "2026-11-20T10:00:00.000000+00:00"));
    const upload = await gql<{
      uploadArtifact: { ok: boolean; error: string | null; run: { id: string } | null };
    }>(
      server.endpoint,
      adminToken,
      `mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok error } }`,
      {
        input: {
          repositoryId: encodeGlobalId("Repository", repo.key),
          commitOid: SHA(4),
          branch: "feature-4",
          analyzer: "bb-lint",
          analyzerType: "community",
          data: JSON.stringify({
            version: "2.1.0",
            runs: [{ tool: { driver: { name: "bb-lint", rules: [] } }, results: [] }],
          }),
        },
      },
    );
    const uploaded = dataOf(upload).uploadArtifact as { ok: boolean; error: string | null };
    assert.equal(uploaded.ok, true, uploaded.error ?? "");
    const run = await server.db
      .selectFrom("analysis_runs")
      .select("id")
      .where("repository_id", "=", repo.id)
      .where("commit_oid", "=", SHA(4))
      .executeTakeFirstOrThrow();
    assert.equal(await pullRequestOfRun(run.id), 4);
  });
});

async function pullRequestOfRun(runId: string): Promise<number | null> {
  const row = await server.db
    .selectFrom("analysis_runs as r")
    .leftJoin("pull_requests as pr", "pr.id", "r.pull_request_id")
    .select("pr.number")
    .where("r.id", "=", runId)
    .executeTakeFirstOrThrow();
  return row.number;
}

describe("Bitbucket Cloud pushes and authentication", () => {
  const push = (changes: BitbucketChange[]) =>
    bitbucketPushPayload({ workspace: workspace.login, slug: repo.name, changes });

  test("repo:push moves every branch it lists, ignores tags and forgets deleted branches", async () => {
    await bitbucket("repo:push", push([{ type: "branch", name: "release", before: null, after: SHA(600) }]));
    const answer = await bitbucket(
      "repo:push",
      push([
        { type: "branch", name: "main", before: SHA(600), after: SHA(601) },
        { type: "tag", name: "v1.0.0", before: null, after: SHA(601) },
        { type: "branch", name: "release", before: SHA(600), after: null },
      ]),
    );
    assert.equal(answer.status, 200, answer.body.message);
    assert.equal(
      answer.body.message,
      `Branch main is at ${SHA(601)}. A push to a ref that is not a branch; ignored. Branch release was deleted.`,
    );
    const heads = await findBranchHeads(server.db, repo.id);
    assert.deepEqual(
      heads.filter((head) => head.branch === "main" || head.branch === "release"),
      [{ branch: "main", commit_oid: SHA(601) }],
    );
  });

  test("a replayed X-Request-UUID is applied once", async () => {
    const requestUuid = randomUUID();
    await bitbucket(
      "repo:push",
      push([{ type: "branch", name: "hotfix", before: null, after: SHA(700) }]),
      secret,
      requestUuid,
    );
    await bitbucket(
      "repo:push",
      push([{ type: "branch", name: "hotfix", before: SHA(700), after: SHA(701) }]),
    );
    const replay = await bitbucket(
      "repo:push",
      push([{ type: "branch", name: "hotfix", before: null, after: SHA(700) }]),
      secret,
      requestUuid,
    );
    assert.match(replay.body.message, /already applied/);
    const heads = await findBranchHeads(server.db, repo.id);
    assert.deepEqual(
      heads.find((head) => head.branch === "hotfix"),
      { branch: "hotfix", commit_oid: SHA(701) },
    );
  });

  test("a wrong, missing or tampered signature, and a GitHub repository's path, are one 401", async () => {
    const payload = pullRequest(9, "OPEN", "2026-11-20T10:00:00.000000+00:00");
    const body = JSON.stringify(payload);
    const wrong = await bitbucket("pullrequest:created", payload, "not-the-bitbucket-secret");
    const { "x-hub-signature": _dropped, ...unsigned } = bitbucketHeaders(
      "pullrequest:created",
      body,
      secret,
    );
    const missing = await post("/webhooks/bitbucket", body, unsigned);
    const tampered = await post(
      "/webhooks/bitbucket",
      body.replace("feature-9", "feature-X"),
      bitbucketHeaders("pullrequest:created", body, secret),
    );
    // The GitHub repository of the same name and secret: a Bitbucket delivery never reaches it.
    const githubPath = await bitbucket(
      "pullrequest:created",
      bitbucketPullRequestPayload({
        workspace: githubTeam.login,
        slug: githubRepo.name,
        id: 9,
        state: "OPEN",
        sourceBranch: "feature-9",
        sourceHash: SHA(9),
        destinationBranch: "main",
        destinationHash: SHA(1000),
        updatedOn: "2026-11-20T10:00:00.000000+00:00",
      }),
    );
    for (const answer of [wrong, missing, tampered, githubPath]) assert.deepEqual(answer, REFUSED);
    assert.equal(await readPullRequest(9), null);
    const onGithub = await server.db
      .selectFrom("pull_requests")
      .select("id")
      .where("repository_id", "=", githubRepo.id)
      .executeTakeFirst();
    assert.equal(onGithub, undefined);
    // And the other way round: a GitHub delivery for the Bitbucket repository's path is refused.
    const ping = JSON.stringify(githubPingPayload(workspace.login, repo.name));
    assert.deepEqual(await post("/webhooks/github", ping, githubHeaders("ping", ping, secret)), REFUSED);
  });

  test("other events are acknowledged and ignored; an event without X-Event-Key is a 400", async () => {
    const payload = { repository: pullRequest(10, "OPEN", "2026-11-20T10:00:00Z").repository, actor: {} };
    const ignored = await bitbucket("repo:fork", payload);
    assert.deepEqual(ignored, {
      status: 200,
      body: { ok: true, message: "Event repo:fork is not used by Assay; ignored." },
    });
    const body = JSON.stringify(payload);
    const { "x-event-key": _dropped, ...headers } = bitbucketHeaders("repo:fork", body, secret);
    const noEvent = await post("/webhooks/bitbucket", body, headers);
    assert.deepEqual(noEvent, {
      status: 400,
      body: { ok: false, message: "The delivery has no X-Event-Key header." },
    });
    const broken = await bitbucket("pullrequest:created", { repository: payload.repository });
    assert.equal(broken.status, 400);
    assert.match(broken.body.message, /pullrequest/);
  });
});
