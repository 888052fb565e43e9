import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { after, before, describe, test } from "node:test";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { acceptUpload } from "../src/ingestion/intake.ts";
import { enqueueJobs } from "../src/jobs/job-store.ts";
import { recordEvent } from "../src/modules/events/outbox.ts";
import { repositoryObject } from "../src/modules/repositories/repository-events.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { anUpload } from "./helpers/builders-artifacts.ts";
import { aWebhookEndpoint } from "./helpers/builders-webhooks.ts";
import { bearer, post, settle, startInstance, type TestInstance, waitFor } from "./helpers/instance.ts";
import { testLogger } from "./helpers/log-capture.ts";
import {
  type Exposition,
  matching,
  parsePrometheusText,
  sampleValue,
  sumOf,
} from "./helpers/prometheus-text.ts";
import { type Receiver, startReceiver } from "./helpers/webhook-receiver.ts";

/**
 * `/metrics` (docs/observability.md) scraped through the real server: after a known set of
 * requests, uploads and deliveries, each counter has moved by exactly what was sent; label values
 * stay bounded; scrapes count and log nothing and need one SQL statement; ASSAY_METRICS=off and
 * ASSAY_METRICS=<port> move or remove the endpoint.
 */

const SECRET = "test-secret-0123456789";

/** Scrapes `url` and parses the answer, failing unless it is a 200 in the text format. */
async function scrape(url: string): Promise<Exposition> {
  const response = await fetch(url);
  const text = await response.text();
  assert.equal(response.status, 200, text);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(text);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe("metrics on the main port", () => {
  let instance: TestInstance;
  let token: string;
  let limitedToken: string;
  let account: AccountRow;
  let repository: RepositoryRow;
  let receiver: Receiver;
  const metricsUrl = () => `${instance.url}/metrics`;

  before(async () => {
    receiver = await startReceiver();
    receiver.secret = SECRET;
    instance = await startInstance({
      env: {
        RATE_LIMIT_PER_HOUR: "3",
        ASSAY_WORKER_POLL_MS: "20",
        ASSAY_WEBHOOK_ALLOW_HTTP: "true",
        ASSAY_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
        LOG_LEVEL: "debug",
      },
    });
    const user = await aUser(instance.db);
    const limited = await aUser(instance.db);
    account = await anAccount(instance.db, {}, [{ user, role: "ADMIN" }]);
    repository = await aRepository(instance.db, account, { name: "metered" });
    token = await aToken(instance.db, instance.config.tokenPepper, user);
    limitedToken = await aToken(instance.db, instance.config.tokenPepper, limited);
  });
  after(async () => {
    await instance?.stop();
    await receiver?.close();
  });

  test("after known requests every HTTP, GraphQL and rate-limit counter moved by exactly what was sent", async () => {
    const before = await scrape(metricsUrl());
    const send = (query: string, headers: Record<string, string>) => post(instance.endpoint, query, headers);
    for (let i = 0; i < 2; i += 1) {
      assert.equal((await send("query ViewerEmail { viewer { email } }", bearer(token))).status, 200);
    }
    const broken = await send("query Broken { viewer { noSuchField } }", bearer(token));
    assert.ok(broken.json.errors?.length, "the invalid query answers errors");
    assert.equal((await send("query ViewerEmail { viewer { email } }", {})).status, 401);
    const limitedStatuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      limitedStatuses.push((await send("query Limited { viewer { email } }", bearer(limitedToken))).status);
    }
    assert.deepEqual(limitedStatuses, [200, 200, 200, 429]);
    assert.equal((await fetch(`${instance.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${instance.url}/no/such/path?x=1`)).status, 404);
    const now = await scrape(metricsUrl());

    const delta = (name: string, labels: Record<string, string>) =>
      sumOf(now, name, labels) - sumOf(before, name, labels);
    const requests = "assay_http_requests_total";
    assert.equal(delta(requests, { route: "graphql", method: "POST" }), 8);
    assert.equal(delta(requests, { route: "graphql", status: "401" }), 1);
    assert.equal(delta(requests, { route: "graphql", status: "429" }), 1);
    assert.equal(delta(requests, { route: "healthz", method: "GET", status: "200" }), 1);
    assert.equal(delta(requests, { route: "not_found", status: "404" }), 1);
    assert.equal(delta("assay_http_request_duration_seconds_count", { route: "graphql" }), 8);

    const operations = "assay_graphql_operations_total";
    assert.equal(delta(operations, { operation: "ViewerEmail", outcome: "ok" }), 2);
    assert.equal(delta(operations, { operation: "Broken", outcome: "error" }), 1);
    assert.equal(delta(operations, { operation: "Limited", outcome: "ok" }), 3);
    // Refused before the body was read: the operation name is never known.
    assert.equal(delta(operations, { operation: "anonymous", outcome: "refused" }), 2);
    assert.equal(delta(operations, {}), 8);
    assert.equal(delta("assay_graphql_operation_duration_seconds_count", {}), 8);
    assert.equal(delta("assay_rate_limited_requests_total", { limit: "user" }), 1);
    assert.equal(delta("assay_rate_limited_requests_total", { limit: "anonymous" }), 0);

    // Scrapes count themselves nowhere, and no label holds a raw path.
    const routes = new Set(matching(now, requests).map((sample) => sample.labels.route));
    assert.deepEqual([...routes].sort(), ["graphql", "healthz", "not_found"]);
    assert.equal(now.types.get(requests), "counter");
    assert.equal(now.types.get("assay_http_request_duration_seconds"), "histogram");
  });

  test("a request whose body has not all arrived counts in flight until it is answered", async () => {
    const inFlight = async () => sampleValue(await scrape(metricsUrl()), "assay_http_requests_in_flight", {});
    assert.equal((await scrape(metricsUrl())).types.get("assay_http_requests_in_flight"), "gauge");
    assert.equal(await inFlight(), 0);
    // A token of its own: the suite's has used up its hourly budget, and a refusal comes before the body.
    const fresh = await aToken(instance.db, instance.config.tokenPepper, await aUser(instance.db));
    const body = JSON.stringify({ query: "query Slow { viewer { email } }" });
    const half = Math.floor(body.length / 2);
    const request = http.request(instance.endpoint, {
      method: "POST",
      agent: false,
      headers: {
        ...bearer(fresh),
        "content-type": "application/json",
        "content-length": String(body.length),
      },
    });
    const answered = new Promise<number>((resolve, reject) => {
      request.once("response", (res) => {
        res.resume();
        res.once("end", () => resolve(res.statusCode ?? 0));
      });
      request.once("error", reject);
    });
    request.write(body.slice(0, half));
    await waitFor("the request to count in flight", async () => (await inFlight()) === 1);
    request.end(body.slice(half));
    assert.equal(await answered, 200);
    assert.equal(await inFlight(), 0);
  });

  test("a scrape is not logged and reads the database with one statement", async () => {
    await settle(instance.statements);
    const statementsBefore = instance.statements.length;
    const logBefore = instance.log.text.length;
    const exposition = await scrape(metricsUrl());
    assert.deepEqual(instance.statements.slice(statementsBefore).length, 1);
    assert.match(instance.statements.at(-1) ?? "", /FROM jobs/);
    // A request at debug level would be logged after its answer: look once the next request is.
    const probe = await fetch(`${instance.url}/healthz`, { headers: { "x-request-id": "after-scrape" } });
    assert.equal(probe.status, 200);
    assert.equal((await instance.log.forRequest("after-scrape")).length, 1);
    assert.doesNotMatch(instance.log.text.slice(logBefore), /\/metrics/);
    assert.ok(sampleValue(exposition, "assay_database_pool_connections", { pool: "api" }) >= 1);
    assert.ok(matching(exposition, "assay_database_pool_connections", { pool: "worker" }).length === 1);
    assert.ok(
      sampleValue(exposition, "assay_process_cpu_user_seconds_total") > 0,
      "process metrics are there",
    );
    assert.ok(sampleValue(exposition, "assay_nodejs_heap_size_used_bytes") > 0);
  });

  test("the job queue gauges count due, scheduled and failed jobs by kind from the database", async () => {
    // Kinds no worker handles stay where they are put.
    await enqueueJobs(instance.db, [
      { kind: "test.parked", payload: {} },
      { kind: "test.parked", payload: {} },
      { kind: "test.parked", payload: {}, delayMs: 3_600_000 },
    ]);
    await instance.db
      .insertInto("jobs")
      .values({ kind: "test.given-up", payload: "{}", state: "FAILED", run_at: new Date() })
      .execute();
    const exposition = await scrape(metricsUrl());
    assert.equal(sampleValue(exposition, "assay_job_queue_due", { kind: "test.parked" }), 2);
    assert.equal(
      sampleValue(exposition, "assay_job_queue_scheduled", { kind: "test.parked" }),
      1,
      JSON.stringify(matching(exposition, "assay_job_queue_scheduled")),
    );
    assert.equal(sampleValue(exposition, "assay_job_queue_running", { kind: "test.parked" }), 0);
    assert.equal(sampleValue(exposition, "assay_job_queue_failed", { kind: "test.given-up" }), 1);
    assert.ok(sampleValue(exposition, "assay_job_queue_oldest_due_seconds", { kind: "test.parked" }) >= 0);
    await instance.db.deleteFrom("jobs").where("kind", "in", ["test.parked", "test.given-up"]).execute();
    const emptied = await scrape(metricsUrl());
    assert.equal(matching(emptied, "assay_job_queue_due", { kind: "test.parked" }).length, 0);
  });

  test("an upload processed and a webhook delivered count once each, with their job runs", async () => {
    const before = await scrape(metricsUrl());
    let now = before;
    const delta = (name: string, labels: Record<string, string>) =>
      sumOf(now, name, labels) - sumOf(before, name, labels);
    const untilCounted = (what: string, condition: () => boolean) =>
      waitFor(
        what,
        async () => {
          now = await scrape(metricsUrl());
          return condition();
        },
        30_000,
      );
    await acceptUpload(
      instance.db,
      instance.config,
      testLogger("intake").logger,
      repository,
      anUpload({
        commitOid: "b".repeat(40),
        data: JSON.stringify({
          version: "2.1.0",
          runs: [{ tool: { driver: { name: "fixture-lint" } }, results: [] }],
        }),
      }),
    );
    await untilCounted(
      "the artifact's job run",
      () => delta("assay_job_runs_total", { kind: "ingest.artifact" }) >= 1,
    );
    assert.equal(delta("assay_artifacts_processed_total", { kind: "SARIF", outcome: "processed" }), 1);
    assert.equal(delta("assay_artifacts_processed_total", {}), 1);
    assert.equal(delta("assay_artifact_processing_duration_seconds_count", { kind: "SARIF" }), 1);
    assert.equal(delta("assay_job_runs_total", { kind: "ingest.artifact", outcome: "done" }), 1);

    // The endpoint comes after processing, so it hears only the event recorded here.
    await aWebhookEndpoint(instance.db, instance.config.tokenPepper, account, {
      url: receiver.url,
      secret: SECRET,
    });
    await instance.db.transaction().execute((tx) =>
      recordEvent(tx, {
        accountId: account.id,
        type: "repository.analysis.activated",
        data: { object: repositoryObject(repository, account, null) },
      }),
    );
    await untilCounted(
      "the delivery's job run",
      () => delta("assay_job_runs_total", { kind: "webhook.deliver" }) >= 1,
    );
    assert.equal(delta("assay_webhook_delivery_attempts_total", { outcome: "succeeded" }), 1);
    assert.equal(delta("assay_webhook_delivery_attempts_total", {}), 1);
    assert.equal(delta("assay_job_runs_total", { kind: "webhook.deliver", outcome: "done" }), 1);
    assert.equal(receiver.requests.length, 1);
  });

  test("a named operation counts under its name and an unnamed one as anonymous", async () => {
    // A user of its own: the others spent their hourly budget of 3 above.
    const user = await aUser(instance.db);
    const fresh = await aToken(instance.db, instance.config.tokenPepper, user);
    const before = await scrape(metricsUrl());
    const named = await post(instance.endpoint, "query Ok { viewer { email } }", bearer(fresh));
    assert.equal(named.status, 200);
    const response = await fetch(instance.endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(fresh) },
      body: JSON.stringify({ query: "{ viewer { email } }", operationName: null }),
    });
    assert.equal(response.status, 200);
    const now = await scrape(metricsUrl());
    const delta = (labels: Record<string, string>) =>
      sumOf(now, "assay_graphql_operations_total", labels) -
      sumOf(before, "assay_graphql_operations_total", labels);
    assert.equal(delta({ operation: "Ok", outcome: "ok" }), 1);
    assert.equal(delta({ operation: "anonymous", outcome: "ok" }), 1);
  });
});

describe("where the metrics are served", () => {
  test("ASSAY_METRICS=off: /metrics is not found and the API still answers", async () => {
    const instance = await startInstance({ env: { ASSAY_METRICS: "off", LOG_LEVEL: "silent" } });
    try {
      const answer = await fetch(`${instance.url}/metrics`);
      assert.equal(answer.status, 404);
      assert.equal((await post(instance.endpoint, "{ __typename }", {})).status, 401);
    } finally {
      await instance.stop();
    }
  });

  test("ASSAY_METRICS=<port>: a listener of its own on 127.0.0.1 serves /metrics only, the main port none", async () => {
    const port = await freePort();
    const instance = await startInstance({ env: { ASSAY_METRICS: String(port), LOG_LEVEL: "silent" } });
    try {
      assert.equal((await fetch(`${instance.url}/metrics`)).status, 404);
      assert.equal((await fetch(`${instance.url}/healthz`)).status, 200);
      const exposition = await scrape(`http://127.0.0.1:${port}/metrics`);
      assert.equal(
        sampleValue(exposition, "assay_http_requests_total", { route: "not_found", status: "404" }),
        1,
      );
      assert.equal(
        sampleValue(exposition, "assay_http_requests_total", { route: "healthz", status: "200" }),
        1,
      );
      assert.equal((await fetch(`http://127.0.0.1:${port}/graphql/`)).status, 404);
      assert.equal((await fetch(`http://127.0.0.1:${port}/metrics`, { method: "POST" })).status, 405);
    } finally {
      await instance.stop();
    }
    await assert.rejects(fetch(`http://127.0.0.1:${port}/metrics`), "the listener closes with the server");
  });
});
