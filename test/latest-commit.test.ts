import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { RepositoryRow } from "../src/db/types.ts";
import { fixtureDir } from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { aCommitOid } from "./helpers/builders-metrics.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";
import { artifactSettled, uploadSettled } from "./helpers/uploads.ts";

/**
 * `Repository.latestCommitOid`, "the newest commit analysed on the default branch", is the commit
 * of the run `analysisRuns(branch:)` lists first among the default branch's analysed ones (the run
 * the repository's issues call the latest), on uploaded reports: ESLint's SARIF of the fixture
 * project (src/formats/sarif/fixtures/eslint/); the webhook events' `Repository` objects say the
 * same. Both used to read a column only the demo wrote, so every repository Assay received reports
 * for answered null.
 */

const ESLINT = fs.readFileSync(path.join(fixtureDir("sarif"), "eslint", "eslint.sarif"), "utf8");
const WORK_DIR = "/tmp/assay-fixtures/js-lint";
const RUN = `query($runUid: UUID!) { run(runUid: $runUid) { status commitOid } }`;

describe("a repository's latest commit", () => {
  let server: TestServer;
  let token: string;
  let repository: RepositoryRow;

  before(async () => {
    server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
    const user = await aUser(server.db);
    const account = await anAccount(server.db, {}, [{ user, role: "MEMBER" }]);
    token = await aToken(server.db, server.config.tokenPepper, user);
    repository = await aRepository(server.db, account);
  });
  after(() => server?.stop());

  async function latest(): Promise<{ latestCommitOid: string | null; newestAnalysed: string | null }> {
    const { node } = dataOf(
      await gql(
        server.endpoint,
        token,
        `query($id: ID!, $branch: String) { node(id: $id) { ... on Repository {
          latestCommitOid analysisRuns(first: 20, branch: $branch) { edges { node { commitOid status } } } } } }`,
        { id: encodeGlobalId("Repository", repository.key), branch: repository.default_branch },
      ),
    ) as {
      node: {
        latestCommitOid: string | null;
        analysisRuns: { edges: Array<{ node: { commitOid: string; status: string } }> };
      };
    };
    const analysed = node.analysisRuns.edges.find((edge) =>
      ["SUCCESS", "FAILURE"].includes(edge.node.status),
    );
    return { latestCommitOid: node.latestCommitOid, newestAnalysed: analysed?.node.commitOid ?? null };
  }

  function input(commitOid: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      repositoryId: encodeGlobalId("Repository", repository.key),
      commitOid,
      branch: repository.default_branch,
      analyzer: "javascript",
      workDir: WORK_DIR,
      data: ESLINT,
      ...extra,
    };
  }

  /** `latestCommitOid` of the repository in the newest recorded event of `type`. */
  async function inNewestEvent(type: string): Promise<string | null | undefined> {
    const row = await server.db
      .selectFrom("webhook_events")
      .select("data")
      .where("account_id", "=", repository.account_id)
      .where("type", "=", type)
      .orderBy("id", "desc")
      .executeTakeFirst();
    const data = (typeof row?.data === "string" ? JSON.parse(row.data) : row?.data) as
      | { object: { repository: { latestCommitOid: string | null } } }
      | undefined;
    return data?.object.repository.latestCommitOid;
  }

  test("is null before the default branch has an analysed run", async () => {
    assert.deepEqual(await latest(), { latestCommitOid: null, newestAnalysed: null });
  });

  test("is the commit of the default branch's newest analysed run", async () => {
    const first = aCommitOid();
    const run = await uploadSettled<{ status: string }>(server, token, input(first), RUN);
    assert.ok(["SUCCESS", "FAILURE"].includes(run.status), run.status);
    assert.deepEqual(await latest(), { latestCommitOid: first, newestAnalysed: first });
    // The webhooks of the run's end and of the issues it introduced say the same.
    assert.equal(await inNewestEvent("analysis_run.updated"), first);
    assert.equal(await inNewestEvent("repository_issue.introduced"), first);
    const second = aCommitOid();
    await uploadSettled(server, token, input(second), RUN);
    assert.deepEqual(await latest(), { latestCommitOid: second, newestAnalysed: second });
    assert.equal(await inNewestEvent("analysis_run.updated"), second);
  });

  test("does not follow a pull request's run, nor a default-branch run still waiting for a report", async () => {
    const before = (await latest()).latestCommitOid;
    assert.ok(before);
    await uploadSettled(
      server,
      token,
      input(aCommitOid(), { branch: "feature", baseBranch: repository.default_branch, pullRequestNumber: 4 }),
      RUN,
    );
    // The configuration expects a Python report too, so the run waits for it.
    const waiting = aCommitOid();
    const answer = dataOf(
      await gql(
        server.endpoint,
        token,
        `mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok error artifact { id } run { runUid } } }`,
        {
          input: input(waiting, {
            configToml:
              'version = 1\n\n[[analyzers]]\nname = "javascript"\n\n[[analyzers]]\nname = "python"\n',
          }),
        },
      ),
    ).uploadArtifact as { ok: boolean; error: string; artifact: { id: string }; run: { runUid: string } };
    assert.equal(answer.ok, true, answer.error);
    await artifactSettled(server, token, answer.artifact.id);
    const { run } = dataOf(await gql(server.endpoint, token, RUN, { runUid: answer.run.runUid })) as {
      run: { status: string };
    };
    assert.equal(run.status, "PENDING");
    assert.deepEqual(await latest(), { latestCommitOid: before, newestAnalysed: before });
  });
});
