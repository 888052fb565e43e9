import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { RepositoryRow } from "../src/db/types.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { dsnToken } from "../src/modules/repositories/dsn.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { startInstance, type TestInstance, waitFor } from "./helpers/instance.ts";
import { rawRequest } from "./helpers/raw-request.ts";
import { findLeaks, registerSecret } from "./helpers/secret-leaks.ts";
import { dataOf, gql } from "./helpers/server.ts";
import {
  githubHeaders,
  githubPushPayload,
  gitlabHeaders,
  gitlabPushPayload,
} from "./helpers/vcs-payloads.ts";
import { bitbucketHeaders, bitbucketPushPayload } from "./helpers/vcs-payloads-bitbucket.ts";

/**
 * Every upload path, sent wrong in every way we know, with known secrets in the request and a
 * marker in the report: no answer and no log line may hold a secret or the marker (issue 13,
 * "secrets and report bodies never appear in an error or a log line"). The suite-wide check
 * (test/helpers/secret-leaks.ts) also runs on this server; this test adds the report body, which
 * only a test that knows it can look for.
 */

// Letters and digits only, so it reads as one token wherever it lands (a GraphQL Name, a JSON excerpt).
const MARKER = "MARKERreportbody5b1e9c0d";
const CLI_MUTATION = `mutation($input: CreateArtifactInput!) { createArtifact(input: $input) { ok message error } }`;
const UPLOAD_MUTATION = `mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok message error artifactId } }`;
/** A secret no repository has: an unknown DSN, a guessed webhook secret. */
const UNKNOWN_SECRET = "unknownsecret7c41d9e2a8f06b35";
/** The repository's VCS webhook secret, set by the test. */
const WEBHOOK_SECRET = "webhook-secret-3f9a1c7e5d2b8046";
const COMMIT = "0123456789abcdef0123456789abcdef01234567";

/** A SARIF log whose one result carries the marker. */
function reportWithMarker(): string {
  return JSON.stringify({
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "ESLint", rules: [{ id: "no-unused-vars" }] } },
        results: [
          {
            ruleId: "no-unused-vars",
            level: "warning",
            message: { text: MARKER },
            locations: [
              { physicalLocation: { artifactLocation: { uri: "src/a.js" }, region: { startLine: 1 } } },
            ],
          },
        ],
      },
    ],
  });
}

/** Reports that are wrong in the ways a processor can fail on, each holding the marker. */
const MALFORMED_REPORTS = [
  `{"version":"2.1.0","runs":[{"results":[{"message":{"text":"${MARKER}"}`,
  `${MARKER} is not JSON at all`,
  JSON.stringify({ version: "2.1.0", runs: { results: MARKER } }),
  JSON.stringify({ version: "2.1.0", runs: [{ tool: { driver: { name: MARKER } }, results: {} }] }),
  JSON.stringify({ version: MARKER, runs: [] }),
];

describe("secrets and report bodies in errors and log lines", () => {
  let instance: TestInstance;
  let repository: RepositoryRow;
  let pat: string;
  let dsn: string;
  /** Every answer's status and body, for the final grep. */
  const answers: string[] = [];

  before(async () => {
    instance = await startInstance({ env: { LOG_LEVEL: "trace", ASSAY_ARTIFACT_MAX_BODY_BYTES: "200000" } });
    const user = await aUser(instance.db);
    const account = await anAccount(instance.db, { login: "leak-team" }, [{ user, role: "ADMIN" }]);
    repository = await aRepository(instance.db, account, { name: "leak-repo" });
    pat = await aToken(instance.db, instance.config.tokenPepper, user);
    dsn = dsnToken(repository, instance.config.tokenPepper);
    registerSecret(UNKNOWN_SECRET);
    registerSecret(WEBHOOK_SECRET);
    const set = await gql(
      instance.endpoint,
      pat,
      `mutation($id: ID!, $secret: String!) { setRepositoryVcsWebhookSecret(input: { repositoryId: $id, secret: $secret }) { clientMutationId } }`,
      { id: encodeGlobalId("Repository", repository.key), secret: WEBHOOK_SECRET },
    );
    dataOf(set);
  });
  after(() => instance?.stop());

  /** Sends a request as raw text and keeps the answer for the final grep. */
  async function send(
    path: string,
    body: string,
    headers: Record<string, string> = { "content-type": "application/json" },
  ): Promise<string> {
    const response = await rawRequest(`${instance.url}${path}`, { method: "POST", headers, chunks: [body] });
    const answer = `${path} ${response.status}: ${response.text}`;
    answers.push(answer);
    return answer;
  }

  const cliInput = (fields: Record<string, unknown> = {}) => ({
    accessToken: dsn,
    commitOid: COMMIT,
    reporter: "cli",
    key: "",
    data: reportWithMarker(),
    analyzer: "javascript",
    ...fields,
  });
  const uploadInput = (fields: Record<string, unknown> = {}) => ({
    repositoryId: encodeGlobalId("Repository", repository.key),
    commitOid: COMMIT,
    analyzer: "javascript",
    data: reportWithMarker(),
    ...fields,
  });

  test("createArtifact refused in every way answers without the DSN or the report", async () => {
    const { commitOid: _commitOid, ...missingCommit } = cliInput();
    const bodies: unknown[] = [
      // A field missing, with the token and the report beside it (graphql-js echoed the whole input).
      { query: CLI_MUTATION, variables: { input: missingCommit } },
      // Wrong types, one at a time and all at once.
      { query: CLI_MUTATION, variables: { input: cliInput({ pullRequestNumber: MARKER }) } },
      { query: CLI_MUTATION, variables: { input: cliInput({ metadata: MARKER }) } },
      { query: CLI_MUTATION, variables: { input: cliInput({ data: [MARKER, dsn] }) } },
      { query: CLI_MUTATION, variables: { input: cliInput({ accessToken: { dsn }, data: { MARKER } }) } },
      { query: CLI_MUTATION, variables: { input: cliInput({ extra: dsn }) } },
      { query: CLI_MUTATION, variables: dsn },
      { query: CLI_MUTATION, variables: { input: MARKER } },
      // An unknown DSN, a malformed DSN, and the token where a DSN URL would be.
      { query: CLI_MUTATION, variables: { input: cliInput({ accessToken: UNKNOWN_SECRET }) } },
      { query: CLI_MUTATION, variables: { input: cliInput({ accessToken: `https://${dsn}@example.test` }) } },
      // Values inline in the document: validation messages quote literals.
      {
        query: `mutation { createArtifact(input: { accessToken: "${dsn}", commitOid: "${COMMIT}", reporter: "cli", key: "", analyzer: "js", data: "${MARKER}", pullRequestNumber: "${MARKER}" }) { ok } }`,
      },
      {
        query: `mutation { createArtifact(input: { accessToken: "${dsn}", commitOid: "${COMMIT}", reporter: "cli", key: "", analyzer: "js", data: 42, metadata: "${MARKER}" }) { ok } }`,
      },
      // A Name where a string belongs; syntax errors quote the token they stopped at.
      {
        query: `mutation { createArtifact(input: { accessToken: ${UNKNOWN_SECRET}, data: ${MARKER} }) { ok } }`,
      },
      { query: `mutation { createArtifact(input: { "${dsn}" }) { ok } }` },
      { query: `mutation { createArtifact(input: { accessToken: "${dsn}" }) { ok } } ${UNKNOWN_SECRET}` },
      { query: `mutation { createArtifact(input: { accessToken: "${dsn}" data: "${MARKER}"` },
      {
        query: `mutation { createArtifact(input: { accessToken: "${dsn}\\x" data: "${MARKER}\\q" }) { ok } }`,
      },
      { query: 42, variables: { input: cliInput() } },
    ];
    for (const body of bodies) {
      const answer = await send("/graphql/cli/", JSON.stringify(body));
      assert.ok(!/"ok":true/.test(answer), `refused: ${answer.slice(0, 200)}`);
    }
    // A body that is not JSON, cut right after the secret and the report.
    await send(
      "/graphql/cli/",
      `{"query":"x","variables":{"input":{"accessToken":"${dsn}","data":"${MARKER}`,
    );
    await send("/graphql/cli/", `{"accessToken":"${dsn}" "data":"${MARKER}"}`);
    await send("/graphql/cli/", `${dsn} ${MARKER}`);
    await send("/graphql/cli/", `${MARKER} ${dsn}`);
    // Not JSON at all, by its content type.
    await send("/graphql/cli/", `accessToken=${dsn}&data=${MARKER}`, {
      "content-type": "application/x-www-form-urlencoded",
    });
  });

  test("uploadArtifact refused in every way answers without the token or the report", async () => {
    const auth = { "content-type": "application/json", authorization: `Bearer ${pat}` };
    const { commitOid: _commitOid, ...missingCommit } = uploadInput();
    const bodies: unknown[] = [
      { query: UPLOAD_MUTATION, variables: { input: missingCommit } },
      { query: UPLOAD_MUTATION, variables: { input: uploadInput({ pullRequestNumber: MARKER }) } },
      { query: UPLOAD_MUTATION, variables: { input: uploadInput({ compression: MARKER }) } },
      { query: UPLOAD_MUTATION, variables: { input: uploadInput({ data: { pat, MARKER } }) } },
      { query: UPLOAD_MUTATION, variables: { input: uploadInput({ repositoryId: MARKER }) } },
      { query: UPLOAD_MUTATION, variables: { input: uploadInput({ repositoryId: pat }) } },
      { query: UPLOAD_MUTATION, variables: { input: uploadInput({ compression: "ZSTD" }) } },
      { query: UPLOAD_MUTATION, variables: { input: uploadInput({ compression: "GZIP", data: MARKER }) } },
      { query: UPLOAD_MUTATION, variables: pat },
      {
        query: `mutation { uploadArtifact(input: { repositoryId: "${pat}", commitOid: "${COMMIT}", analyzer: "js", data: "${MARKER}", pullRequestNumber: "${MARKER}" }) { ok } }`,
      },
      { query: `mutation { uploadArtifact(input: { data: ${MARKER} }) { ok } }` },
      { query: `mutation { uploadArtifact(input: { "${MARKER}" }) { ok } }` },
    ];
    for (const body of bodies) {
      const answer = await send("/graphql/", JSON.stringify(body), auth);
      assert.ok(!/"ok":true/.test(answer), `refused: ${answer.slice(0, 200)}`);
    }
    await send("/graphql/", `{"query":"x","variables":{"input":{"data":"${MARKER}`, auth);
    await send("/graphql/", `${MARKER}{"query":"x"}`, auth);
    // Credentials in the wrong places: a DSN as a bearer token, a token as a request id.
    await send("/graphql/", JSON.stringify({ query: UPLOAD_MUTATION, variables: { input: uploadInput() } }), {
      "content-type": "application/json",
      authorization: `Bearer ${dsn}`,
    });
    await send("/graphql/", JSON.stringify({ query: "{ viewer { email } }" }), {
      "content-type": "application/json",
      authorization: `Bearer ${UNKNOWN_SECRET}`,
      "x-request-id": pat,
    });
  });

  test("malformed reports are refused or fail processing without the report in any message", async () => {
    for (const data of MALFORMED_REPORTS) {
      await send(
        "/graphql/cli/",
        JSON.stringify({ query: CLI_MUTATION, variables: { input: cliInput({ data }) } }),
      );
      await send(
        "/graphql/",
        JSON.stringify({ query: UPLOAD_MUTATION, variables: { input: uploadInput({ data }) } }),
        { "content-type": "application/json", authorization: `Bearer ${pat}` },
      );
    }
    // Whatever was accepted is processed by the worker, which logs and stores why it failed.
    await waitFor(
      "every accepted artifact to be processed",
      async () => {
        const queued = await instance.db
          .selectFrom("artifacts")
          .select("id")
          .where("status", "=", "QUEUED")
          .execute();
        return queued.length === 0;
      },
      60_000,
    );
    const stored = await instance.db.selectFrom("artifacts").select(["status", "error"]).execute();
    for (const artifact of stored) {
      assert.ok(
        !(artifact.error ?? "").includes(MARKER),
        `a stored error quotes the report: ${artifact.error}`,
      );
    }
    const runs = await gql(
      instance.endpoint,
      pat,
      `query($login: String!, $name: String!) { repository(login: $login, name: $name, vcsProvider: GITHUB) {
        analysisRuns(first: 20) { edges { node { status checks(first: 5) { edges { node { status } } } } } } } }`,
      { login: "leak-team", name: "leak-repo" },
    );
    answers.push(JSON.stringify(runs.body));
  });

  test("webhook deliveries with bad signatures or tokens answer without the secret or the body", async () => {
    const github = JSON.stringify({
      ...githubPushPayload({
        owner: "leak-team",
        name: "leak-repo",
        ref: "refs/heads/main",
        before: COMMIT,
        after: COMMIT,
        pushedAt: 1,
      }),
      marker: MARKER,
    });
    await send("/webhooks/github", github, githubHeaders("push", github, UNKNOWN_SECRET));
    await send("/webhooks/github", github, {
      ...githubHeaders("push", github, WEBHOOK_SECRET),
      "x-hub-signature-256": `sha256=${WEBHOOK_SECRET}`,
    });
    await send(
      "/webhooks/github",
      `{"marker":"${MARKER}"`,
      githubHeaders("push", `{"marker":"${MARKER}"`, WEBHOOK_SECRET),
    );
    const gitlab = JSON.stringify({
      ...gitlabPushPayload({
        path: "leak-team/leak-repo",
        ref: "refs/heads/main",
        before: COMMIT,
        after: COMMIT,
      }),
      marker: MARKER,
    });
    await send("/webhooks/gitlab", gitlab, gitlabHeaders("Push Hook", UNKNOWN_SECRET));
    await send("/webhooks/gitlab", `${MARKER}{`, gitlabHeaders("Push Hook", WEBHOOK_SECRET));
    const bitbucket = JSON.stringify({ ...bitbucketPushPayload(bitbucketPushOptions()), marker: MARKER });
    await send("/webhooks/bitbucket", bitbucket, bitbucketHeaders("repo:push", bitbucket, UNKNOWN_SECRET));
    await send(
      "/webhooks/bitbucket",
      `${MARKER}{`,
      bitbucketHeaders("repo:push", `${MARKER}{`, WEBHOOK_SECRET),
    );
  });

  test("no answer and no log line holds a secret or the report", async () => {
    // The request log line follows its answer: wait until every request sent here is logged.
    await waitFor("every request's log line", () => {
      const logged = instance.log.entries().filter((entry) => entry.msg === "request").length;
      return logged >= answers.length;
    });
    // The marker's first ten characters too: V8 quotes that much of a body that is not JSON.
    const secrets = [pat, dsn, UNKNOWN_SECRET, WEBHOOK_SECRET, MARKER, MARKER.slice(0, 10)];
    const leaks = [
      ...findLeaks("answers", answers.join("\n"), secrets),
      ...findLeaks("log", instance.log.text, secrets),
    ];
    assert.deepEqual(leaks, []);
    // The grep did look at something: every path answered, and the report reached the worker.
    assert.ok(answers.length > 40, `only ${answers.length} answers`);
    assert.ok(instance.log.text.length > 0);
  });
});

/** A Bitbucket push of one commit to main of leak-team/leak-repo. */
function bitbucketPushOptions(): Parameters<typeof bitbucketPushPayload>[0] {
  return {
    workspace: "leak-team",
    slug: "leak-repo",
    changes: [{ type: "branch", name: "main", before: COMMIT, after: COMMIT }],
  };
}
