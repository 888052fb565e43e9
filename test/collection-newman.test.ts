// test-runner: execution-mode independent (the collection's checks run by newman; the answers are compared under both engines by test/answers.test.ts and test/examples.test.ts)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { type NewmanRunSummary, run } from "newman";
import { COLLECTION_DIR, COLLECTION_FILES } from "../scripts/collection-build.ts";
import { ingestRunSbom } from "../src/ingestion/sca/sbom-upload.ts";
import { seedDemo } from "../src/modules/demo/demo-seed.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * The committed Postman collection, run by newman against a live server with the demo data, with
 * each of its two environments (the cloud and the on-premise GraphQL path): every request runs and
 * every check in it passes. And its checks can fail.
 */

const DIR = path.resolve(import.meta.dirname, "..", COLLECTION_DIR);
const readJson = (file: string) => JSON.parse(readFileSync(path.join(DIR, file), "utf8"));

/** Runs `collection` with newman (no reporter output) against `baseUrl` with `token`. */
function runCollection(
  collection: unknown,
  environmentFile: string,
  baseUrl: string,
  token: string,
): Promise<NewmanRunSummary> {
  return new Promise((resolve, reject) => {
    run(
      {
        collection: collection as never,
        environment: readJson(environmentFile),
        envVar: [
          { key: "baseUrl", value: baseUrl },
          { key: "token", value: token },
        ],
        reporters: [],
        timeoutRequest: 30_000,
      },
      (error, summary) => (error ? reject(error) : resolve(summary)),
    );
  });
}

/** The failures of a run, one readable line each. */
function failuresOf(summary: NewmanRunSummary): string[] {
  return summary.run.failures.map(
    (failure) => `${failure.source?.name ?? "?"}: ${failure.error.test ?? ""} ${failure.error.message}`,
  );
}

describe("the Postman collection run by newman", () => {
  let server: TestServer;
  let token: string;
  const collection = readJson(COLLECTION_FILES.collection) as { item: Array<{ name: string }> };

  before(async () => {
    server = await startTestServer();
    ({ token } = await seedDemo(server.db, { pepper: server.config.tokenPepper, uploadSbom: ingestRunSbom }));
  });
  after(() => server.stop());

  for (const [environment, graphqlPath] of [
    [COLLECTION_FILES.cloud, "/graphql/"],
    [COLLECTION_FILES.onPremise, "/api/graphql/"],
  ] as const) {
    test(`every request passes its checks with ${environment}`, async () => {
      const summary = await runCollection(collection, environment, server.url, token);
      assert.deepEqual(failuresOf(summary), []);
      assert.deepEqual(
        summary.run.executions.map((execution) => execution.item.name),
        collection.item.map((item) => item.name),
        "every request ran, in order",
      );
      for (const execution of summary.run.executions)
        assert.equal(execution.request.url.getPath(), graphqlPath);
      // Three checks per request: status, no errors, the shape of data.
      assert.equal(summary.run.stats.assertions.total, collection.item.length * 3);
      assert.equal(summary.run.stats.assertions.failed, 0);
    });
  }

  test("a wrong token fails every request's status check", async () => {
    const summary = await runCollection(collection, COLLECTION_FILES.cloud, server.url, "not-a-token");
    const statusFailures = failuresOf(summary).filter((line) => line.includes("answers 200"));
    assert.equal(statusFailures.length, collection.item.length);
  });

  test("an answer missing a selected field fails the shape check", async () => {
    type Item = { name: string; request: { body: { graphql: { query: string } } } };
    const tampered = structuredClone(collection) as { item: Item[] };
    const viewer = tampered.item.find((item) => item.name === "viewer-and-accounts");
    assert.ok(viewer);
    // Selecting `login` under another key leaves `login` out of the answer.
    const query = viewer.request.body.graphql.query;
    viewer.request.body.graphql.query = query.replace(/\blogin\b/, "handle: login");
    assert.notEqual(viewer.request.body.graphql.query, query);
    tampered.item = [viewer];
    const failures = failuresOf(await runCollection(tampered, COLLECTION_FILES.cloud, server.url, token));
    assert.equal(failures.length, 1, failures.join("\n"));
    assert.match(failures[0] ?? "", /viewer-and-accounts: data has the selected shape/);
  });
});
