import assert from "node:assert/strict";
import type { AccountRow } from "../../src/db/types.ts";
import { anAccount, aToken, aUser } from "./builders.ts";
import { waitFor } from "./instance.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./server.ts";

/**
 * Uploads a report with `uploadArtifact` (bearer `token`) and waits until its run leaves PENDING;
 * answers the run as `runQuery` (a query of `$runUid: UUID!` whose `run` selects `status`) reads
 * it then, with its uid.
 */
export async function uploadSettled<T extends { status: string }>(
  server: TestServer,
  token: string,
  input: Record<string, unknown>,
  runQuery: string,
): Promise<T & { runUid: string }> {
  const answer = dataOf(
    await gql(
      server.endpoint,
      token,
      `mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok error run { runUid } } }`,
      { input },
    ),
  ).uploadArtifact as { ok: boolean; error: string; run: { runUid: string } };
  assert.equal(answer.ok, true, answer.error);
  const runUid = answer.run.runUid;
  const runOf = async () => dataOf(await gql(server.endpoint, token, runQuery, { runUid })).run as T;
  await waitFor(`run ${runUid} to settle`, async () => (await runOf()).status !== "PENDING", 20_000);
  return { ...(await runOf()), runUid };
}

/** Waits until the artifact with global id `artifactId` has left QUEUED (processed or failed). */
export async function artifactSettled(server: TestServer, token: string, artifactId: string): Promise<void> {
  await waitFor(
    `artifact ${artifactId} to be processed`,
    async () => {
      const { node } = dataOf(
        await gql(
          server.endpoint,
          token,
          `query($id: ID!) { node(id: $id) { ... on Artifact { status } } }`,
          {
            id: artifactId,
          },
        ),
      ) as { node: { status: string } };
      return node.status !== "QUEUED";
    },
    20_000,
  );
}

/** A server whose worker polls often, with an account and a MEMBER's token to upload to it. */
export interface UploaderScene {
  server: TestServer;
  account: AccountRow;
  token: string;
}

/** Starts the server of an {@link UploaderScene} and makes its member; the caller stops the server. */
export async function startUploaderScene(): Promise<UploaderScene> {
  const server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  const user = await aUser(server.db);
  const account = await anAccount(server.db, {}, [{ user, role: "MEMBER" }]);
  const token = await aToken(server.db, server.config.tokenPepper, user);
  return { server, account, token };
}

/**
 * Uploads a report with `uploadArtifact` (bearer `token`), fails unless it was accepted, and
 * waits until its artifact has left QUEUED; answers the artifact's global id and its run's uid.
 */
export async function uploadProcessed(
  server: TestServer,
  token: string,
  input: Record<string, unknown>,
): Promise<{ artifactId: string; runUid: string }> {
  const answer = dataOf(
    await gql(
      server.endpoint,
      token,
      `mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok error artifact { id } run { runUid } } }`,
      { input },
    ),
  ).uploadArtifact as { ok: boolean; error: string; artifact: { id: string }; run: { runUid: string } };
  assert.equal(answer.ok, true, answer.error);
  await artifactSettled(server, token, answer.artifact.id);
  return { artifactId: answer.artifact.id, runUid: answer.run.runUid };
}
