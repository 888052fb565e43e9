// test-runner: execution-mode independent (the server sets its own execution engine)
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * With graphql-jit on, an operation runs with graphql-js for its first ASSAY_GRAPHQL_JIT_AFTER_RUNS
 * runs and compiled after (src/graphql/document-cache.ts): a client must not see the switch.
 * test/answers.test.ts holds each engine to the same bytes alone; this holds one server to the
 * same bytes across its switch, for an answer with data and one with errors.
 */

let server: TestServer;
let token: string;
let repositoryId: string;

before(async () => {
  server = await startTestServer({ ASSAY_GRAPHQL_JIT: "true", ASSAY_GRAPHQL_JIT_AFTER_RUNS: "2" });
  const user = await aUser(server.db);
  const account = await anAccount(server.db, {}, [{ user, role: "ADMIN" }]);
  const repository = await aRepository(server.db, account, { defaultBranch: "main" });
  repositoryId = encodeGlobalId("Repository", repository.key);
  token = await aToken(server.db, server.config.tokenPepper, user);
});
after(() => server?.stop());

async function answer(body: unknown): Promise<string> {
  const response = await fetch(server.endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return `${response.status} ${await response.text()}`;
}

test("an operation answers the same bytes before and after it is compiled", async () => {
  const operations = [
    {
      query: `query Repo($id: ID!) { viewer { email } node(id: $id) { id ... on Repository { name defaultBranch isPrivate } } }`,
      variables: { id: repositoryId },
    },
    {
      // An error beside data: a node that does not exist. (One error only: the order of errors
      // from fields resolved concurrently follows which fails first, with either engine.)
      query: `query Missing($id: ID!) { viewer { email } node(id: $id) { id } }`,
      variables: { id: encodeGlobalId("Repository", "nosuchkey0") },
    },
  ];
  for (const operation of operations) {
    const answers: string[] = [];
    for (let run = 0; run < 5; run++) answers.push(await answer(operation));
    assert.ok(answers[0]?.startsWith("200 "), answers[0]);
    for (const [run, text] of answers.entries()) assert.equal(text, answers[0], `run ${run + 1}`);
  }
});
