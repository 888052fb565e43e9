// test-runner: execution-mode independent (large bodies are admitted or refused before any document is executed)
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, test } from "node:test";
import { aToken, aUser } from "./helpers/builders.ts";
import { rawRequest } from "./helpers/raw-request.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";

// Two bodies past ASSAY_MAX_BODY_BYTES may not be held at once.
const LIMITS = {
  ASSAY_WORKER: "false",
  ASSAY_MAX_BODY_BYTES: "2048",
  ASSAY_ARTIFACT_MAX_BODY_BYTES: "65536",
  ASSAY_MAX_CONCURRENT_UPLOADS: "1",
};
const REPORT_MUTATION =
  "mutation($input: CreateArtifactInput!) { createArtifact(input: $input) { ok error } }";

let server: TestServer;
before(async () => {
  server = await startTestServer(LIMITS);
});
after(() => server.stop());

/** A `createArtifact` body of about `bytes` bytes (its DSN is unknown: the answer is an error). */
function artifactBody(bytes: number): string {
  const input = { accessToken: "nobody", commitOid: "0".repeat(40), reportKey: "x", data: "" };
  const empty = JSON.stringify({ query: REPORT_MUTATION, variables: { input } });
  return empty.replace('"data":""', `"data":"${"a".repeat(Math.max(0, bytes - empty.length))}"`);
}

/** An `uploadArtifact` body of about `bytes` bytes, its query first as `assay upload` sends it. */
function uploadBody(bytes: number): string {
  const query = "mutation Upload($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok } }";
  const head = JSON.stringify({ query, variables: { input: { data: "" } } });
  return head.replace('"data":""', `"data":"${"a".repeat(Math.max(0, bytes - head.length))}"`);
}

test("a large body beyond ASSAY_MAX_CONCURRENT_UPLOADS gets 503 with Retry-After on both upload paths; the held one completes", async () => {
  const cliUrl = `${server.url}/graphql/cli/`;
  const body = artifactBody(4000);
  // The first upload sends more than the ordinary limit and then waits, holding the only slot.
  const held = http.request(cliUrl, {
    method: "POST",
    headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
    agent: false,
  });
  const heldAnswer = new Promise<number>((resolve, reject) => {
    held.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    held.on("error", reject);
  });
  held.write(body.slice(0, 3000));

  // Until the server has read those bytes a second upload may take the slot itself and finish;
  // once the first holds it, the second is refused.
  const token = await aToken(server.db, server.config.tokenPepper, await aUser(server.db));
  let refused: Awaited<ReturnType<typeof rawRequest>> | undefined;
  let refusedUpload: Awaited<ReturnType<typeof rawRequest>> | undefined;
  for (let attempt = 0; attempt < 1000 && !(refused && refusedUpload); attempt++) {
    const upload = await rawRequest(`${server.url}/graphql/`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "transfer-encoding": "chunked",
      },
      chunks: [uploadBody(4000)],
    });
    if (upload.status === 503) refusedUpload = upload;
    else assert.equal(upload.status, 200, upload.text);
    const cli = await rawRequest(cliUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      chunks: [body],
    });
    if (cli.status === 503) refused = cli;
    else assert.equal(cli.status, 200);
  }
  assert.ok(refusedUpload, "no uploadArtifact was refused while the slot was held");
  assert.equal(refusedUpload.headers["retry-after"], "5");
  assert.equal(JSON.parse(refusedUpload.text).errors[0].extensions.code, "SERVICE_UNAVAILABLE");
  assert.ok(refused, "no request was refused while the slot was held");
  assert.equal(refused.headers["retry-after"], "5");
  const error = JSON.parse(refused.text).errors[0];
  assert.equal(error.extensions.code, "SERVICE_UNAVAILABLE");

  // Small bodies need no slot.
  const small = await rawRequest(cliUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    chunks: [artifactBody(1000)],
  });
  assert.equal(small.status, 200);

  held.end(body.slice(3000));
  assert.equal(await heldAnswer, 200);
  // The slot is free again once the held upload is answered.
  const next = await rawRequest(cliUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    chunks: [body],
  });
  assert.equal(next.status, 200);
});
