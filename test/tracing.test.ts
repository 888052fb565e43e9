import assert from "node:assert/strict";
import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { enqueueJobs } from "../src/jobs/job-store.ts";
import { aToken, aUser } from "./helpers/builders.ts";
import { bearer, post, waitFor } from "./helpers/instance.ts";
import { startTestServer } from "./helpers/server.ts";

/**
 * Opt-in tracing (docs/observability.md "Tracing"). Off (the default), not one OpenTelemetry
 * module is loaded: the CommonJS module cache, where Node keeps every package file it read, holds
 * none. On, a GraphQL request, the SQL statements it ran and a job reach an OTLP/HTTP receiver as
 * spans, the statements nested under the request. The tests run in this order in one process: the
 * second loads the SDK for good.
 */

const TRACING_OFF = {
  OTEL_TRACES_EXPORTER: undefined,
  OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
  OTEL_SDK_DISABLED: undefined,
};

/** Package files Node has loaded so far whose path contains `name`. */
function loadedFilesOf(name: string): string[] {
  return Object.keys(createRequire(import.meta.url).cache).filter((file) =>
    file.includes(`/node_modules/${name}`),
  );
}

interface OtlpSpan {
  name: string;
  spanId: string;
  parentSpanId?: string;
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
}

/** Starts a server with `env`, sends it one authenticated GraphQL request, and stops it. */
async function serveOneRequest(env: Record<string, string | undefined>): Promise<void> {
  const server = await startTestServer({ ...TRACING_OFF, ...env });
  try {
    assert.equal(server.config.tracing, undefined);
    const user = await aUser(server.db);
    const token = await aToken(server.db, server.config.tokenPepper, user);
    assert.equal((await post(server.endpoint, "query Me { viewer { email } }", bearer(token))).status, 200);
  } finally {
    await server.stop();
  }
}

test("with tracing and metrics off, serving requests loads no OpenTelemetry module at all", async () => {
  await serveOneRequest({ ASSAY_METRICS: "off" });
  // The cache does see packages loaded from ES modules: pg is one.
  assert.ok(loadedFilesOf("pg/").length > 0, "the module cache lists loaded packages");
  assert.deepEqual(loadedFilesOf("@opentelemetry/"), []);
});

test("with tracing off and metrics on, only the API package prom-client requires is loaded, no SDK", async () => {
  await serveOneRequest({});
  assert.ok(loadedFilesOf("prom-client/").length > 0);
  // prom-client's process CPU metric requires @opentelemetry/api (for exemplars, which we do not
  // enable): a no-op facade that does nothing until an SDK registers, and none does.
  const loaded = loadedFilesOf("@opentelemetry/");
  assert.deepEqual(
    loaded.filter((file) => !file.includes("/node_modules/@opentelemetry/api/")),
    [],
  );
});

test("with an OTLP endpoint, a request, its statements and a job are exported as spans", async () => {
  const spans: OtlpSpan[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
      };
      for (const resource of body.resourceSpans)
        for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const { port } = receiver.address() as AddressInfo;
  const server = await startTestServer({
    ...TRACING_OFF,
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_SERVICE_NAME: "assay-test",
    ASSAY_WORKER_POLL_MS: "20",
  });
  try {
    assert.equal(server.config.tracing?.endpoint, `http://127.0.0.1:${port}/v1/traces`);
    const user = await aUser(server.db);
    const token = await aToken(server.db, server.config.tokenPepper, user);
    assert.equal(
      (await post(server.endpoint, "query Traced { viewer { email } }", bearer(token))).status,
      200,
    );
    // A deadline job without its run id: the worker gives it up at once.
    await enqueueJobs(server.db, [{ kind: "ingest.deadline", payload: {} }]);
    await waitFor(
      "the job to be given up",
      async () => {
        const row = await server.db
          .selectFrom("jobs")
          .select("state")
          .where("kind", "=", "ingest.deadline")
          .executeTakeFirst();
        return row?.state === "FAILED";
      },
      20_000,
    );
  } finally {
    // Stopping exports what is still buffered.
    await server.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
  const request = spans.find((span) => span.name === "graphql Traced");
  assert.ok(request, `no request span among ${spans.map((s) => s.name).join(", ")}`);
  const statements = spans.filter((span) => span.name === "sql" && span.parentSpanId === request.spanId);
  assert.ok(statements.length >= 1, "the request's statements are its children");
  const text = statements[0]?.attributes?.find((a) => a.key === "db.query.text")?.value.stringValue;
  assert.match(String(text), /^select /i);
  const job = spans.find((span) => span.name === "job ingest.deadline");
  assert.ok(job, "the job has a span");
  assert.ok(
    spans.some((span) => span.name === "sql" && span.parentSpanId === job.spanId),
    "the job's statements nest under it",
  );
});
