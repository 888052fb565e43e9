/**
 * `npm run bench:observability`: what metrics and tracing cost. Starts Assay on a fresh embedded
 * database three times — metrics and tracing off, metrics on (the default), metrics and tracing on
 * (spans exported over OTLP/HTTP to a sink in this process) — loads each with the `viewer` query for
 * a few seconds (server on core 0, load on core 1 where `taskset` allows), and prints requests per
 * second, p99, and how many OpenTelemetry and prom-client files the server process had loaded.
 * With tracing off that number is 0 for the SDK (docs/observability.md "Tracing").
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { startApp } from "../src/app.ts";
import { parseConfig } from "../src/config.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import { createLogger } from "../src/logger.ts";
import { createToken } from "../src/modules/auth/token-service.ts";
import { insertUser } from "../src/modules/users/user-store.ts";
import { autocannonTool, findWrk, type LoadResult } from "./load.ts";
import { Cleanup, canPin, SERVER_CORE, spawnOnCore, stopChild } from "./processes.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const QUERY = JSON.stringify({ query: "{ viewer { email } }" });

interface Mode {
  name: string;
  env: Record<string, string>;
}

/** What a child reports: where it listens and, when stopped, what it had loaded. */
type ChildMessage =
  | { type: "ready"; url: string; token: string }
  | { type: "loaded"; opentelemetrySdk: number; opentelemetryApi: number; promClient: number };

/** Package files of `name` in the CommonJS cache of this process. */
function loadedFiles(name: string): number {
  return Object.keys(createRequire(import.meta.url).cache).filter((file) =>
    file.includes(`/node_modules/${name}`),
  ).length;
}

/** The child: one server on its own data directory, stopped over IPC. */
async function runChild(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-bench-obs-"));
  const config = parseConfig({
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: undefined,
    ASSAY_DATA_DIR: dataDir,
    ASSAY_TOKEN_PEPPER: "bench-pepper-0123456789abcdef",
    RATE_LIMIT_PER_HOUR: "0",
    LOG_LEVEL: "warn",
    ASSAY_WORKER: "false",
  });
  const app = await startApp(config, createLogger(config.logLevel));
  const user = await insertUser(app.database.db, {
    key: newRowKey(),
    email: "bench@example.test",
    analytics_id: randomUUID(),
  });
  const { token } = await createToken(app.database.db, config.tokenPepper, {
    userId: user.id,
    name: "bench",
    expiresInDays: 1,
  });
  process.send?.({ type: "ready", url: app.url, token } satisfies ChildMessage);
  process.on("message", async (message: { type?: string }) => {
    if (message.type !== "stop") return;
    const loaded: ChildMessage = {
      type: "loaded",
      opentelemetrySdk: loadedFiles("@opentelemetry/") - loadedFiles("@opentelemetry/api/"),
      opentelemetryApi: loadedFiles("@opentelemetry/api/"),
      promClient: loadedFiles("prom-client/"),
    };
    process.send?.(loaded, () => {
      void app.stop().then(() => {
        fs.rmSync(dataDir, { recursive: true, force: true });
        process.exit(0);
      });
    });
  });
}

/** An OTLP/HTTP sink that answers 200 and counts the spans' bytes. */
async function startSink(): Promise<{ url: string; bytes: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    req.on("end", () => res.end("{}"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bytes: () => bytes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function measure(mode: Mode, pin: boolean, cleanup: Cleanup) {
  const child = spawnOnCore(
    pin ? SERVER_CORE : null,
    process.execPath,
    ["--import", "tsx", path.join(ROOT, "bench/observability.ts"), "--child"],
    { cwd: ROOT, env: { ...process.env, ...mode.env }, stdio: ["ignore", "inherit", "inherit", "ipc"] },
  );
  const stop = cleanup.add(`server (${mode.name})`, () => stopChild(child));
  const messages: ChildMessage[] = [];
  const next = (type: ChildMessage["type"]) =>
    new Promise<ChildMessage>((resolve, reject) => {
      const found = messages.find((m) => m.type === type);
      if (found) return resolve(found);
      const onMessage = (message: ChildMessage) => {
        if (message.type === type) resolve(message);
      };
      child.on("message", onMessage);
      child.once("exit", () => reject(new Error(`the server (${mode.name}) exited early`)));
    });
  child.on("message", (message: ChildMessage) => messages.push(message));
  const ready = (await next("ready")) as Extract<ChildMessage, { type: "ready" }>;
  const tool = findWrk(pin, cleanup, os.tmpdir()) ?? autocannonTool(pin, cleanup);
  const spec = {
    url: `${ready.url}/graphql/`,
    body: QUERY,
    headers: { "content-type": "application/json", authorization: `Bearer ${ready.token}` },
    connections: 10,
  };
  await tool.run({ ...spec, durationSeconds: 1 }); // warm-up: caches, JIT, pool
  const result: LoadResult = await tool.run({ ...spec, durationSeconds: DURATION_SECONDS });
  child.send({ type: "stop" });
  const loaded = (await next("loaded")) as Extract<ChildMessage, { type: "loaded" }>;
  await stop();
  return { tool: tool.name, result, loaded };
}

async function main(): Promise<void> {
  if (process.argv.includes("--child")) return runChild();
  const cleanup = new Cleanup();
  process.on("SIGINT", () => void cleanup.runAll().then(() => process.exit(130)));
  const pin = canPin().ok && os.cpus().length >= 2;
  const sink = await startSink();
  cleanup.add("OTLP sink", sink.close);
  const off = {
    OTEL_TRACES_EXPORTER: "none",
    OTEL_EXPORTER_OTLP_ENDPOINT: "",
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "",
  };
  const modes: Mode[] = [
    { name: "metrics off, tracing off", env: { ...off, ASSAY_METRICS: "off" } },
    { name: "metrics on, tracing off", env: { ...off, ASSAY_METRICS: "on" } },
    {
      name: "metrics on, tracing on (OTLP)",
      env: { ASSAY_METRICS: "on", OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_ENDPOINT: sink.url },
    },
  ];
  const rows: string[] = [];
  let toolName = "";
  try {
    for (const mode of modes) {
      const { tool, result, loaded } = await measure(mode, pin, cleanup);
      toolName = tool;
      rows.push(
        `| ${mode.name} | ${Math.round(result.requestsPerSecond)} | ${result.p99Ms} | ${result.non2xx} | ${loaded.opentelemetrySdk} | ${loaded.opentelemetryApi} | ${loaded.promClient} |`,
      );
    }
  } finally {
    await cleanup.runAll();
  }
  process.stdout.write(
    [
      `${toolName}, ${DURATION_SECONDS} s per row, 10 connections, ${pin ? "server on core 0, load on core 1" : "not pinned"}; OTLP bytes received: ${sink.bytes()}`,
      "",
      "| mode | req/s | p99 ms | non-2xx | OpenTelemetry SDK files loaded | @opentelemetry/api files | prom-client files |",
      "|---|---:|---:|---:|---:|---:|---:|",
      ...rows,
      "",
    ].join("\n"),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
