/**
 * `npm run bench`: loads a bare `node:http` server, Apollo Server 5 on Assay's schema and context
 * (bench/apollo-server.ts), and Assay in its configurations (embedded
 * database; PostgreSQL and Redis when DATABASE_URL / REDIS_URL are set; graphql-js and
 * graphql-jit; rate limiting off and on) with three queries, each server alone on core 0 and the
 * load generator on core 1, and prints one table. `--help` lists the options; docs/benchmarks.md
 * has the figures and how to read them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, parseConfig } from "../src/config.ts";
import { type CompiledChildren, compileBenchChildren } from "./compiled-children.ts";
import { otherCpuCores, processTreeSeconds, SERVICE_PROCESSES, snapshotCpu } from "./contention.ts";
import {
  type BenchDatabase,
  countRedisKeys,
  createBenchDatabase,
  deleteRedisKeys,
  postgresVersion,
  redisVersion,
} from "./databases.ts";
import { autocannonTool, findWrk, type LoadTool } from "./load.ts";
import { type BenchOptions, parseBenchOptions, USAGE } from "./options.ts";
import { Cleanup, canPin, describe, LOAD_CORE, SERVER_CORE, spawnOnCore, stopChild } from "./processes.ts";
import {
  combineRounds,
  describeRun,
  formatTable,
  type MeasuredRun,
  type Measurement,
  type RunSummary,
  summarizeRuns,
} from "./report.ts";
import {
  allTargets,
  type BenchQuery,
  backendOf,
  QUERIES,
  RATE_LIMIT_ON,
  requestHeaders,
  type Target,
  verifyAnswer,
} from "./targets.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
/** Per-request logging at info would measure pino, not Assay; warn is what production runs with. */
const LOG_LEVEL = "warn";
const READY_TIMEOUT_MS = 120_000;
/** Other processes using more than this many cores during a measurement make its row suspect. */
const CONTENDED_CORES = 0.1;

/** What every step of a run shares. */
interface RunContext {
  options: BenchOptions;
  cleanup: Cleanup;
  tool: LoadTool;
  pin: boolean;
  pepper: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  redisPrefix: string;
  /** The child scripts bundled against the compiled server, run under plain node. */
  children: CompiledChildren;
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * The environment Assay (or Apollo on Assay's schema) runs with for `target`: production-like, on
 * an ephemeral port. Apollo reads the same settings: the database, the keys, the log level.
 */
function assayEnvironment(ctx: RunContext, target: Target, db: BenchDatabase): NodeJS.ProcessEnv {
  const settings = target.assay ?? { jit: false, rateLimit: "off", redis: false };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL,
    ASSAY_TOKEN_PEPPER: ctx.pepper,
    ASSAY_SESSION_SECRET: `${ctx.pepper}-session-secret-for-the-benchmark`,
    ASSAY_DATA_DIR: db.dataDir,
    ASSAY_GRAPHQL_JIT: String(settings.jit),
    RATE_LIMIT_PER_HOUR: settings.rateLimit === "off" ? "0" : String(RATE_LIMIT_ON),
    ASSAY_REDIS_KEY_PREFIX: ctx.redisPrefix,
    // Requests whose client hung up while they waited for the database never finish (see
    // docs/benchmarks.md), so a graceful stop after a load run always waits out this timeout.
    ASSAY_SHUTDOWN_TIMEOUT_SECONDS: "1",
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  if (db.databaseUrl) env.DATABASE_URL = db.databaseUrl;
  if (settings.redis && ctx.redisUrl) env.REDIS_URL = ctx.redisUrl;
  return env;
}

/** Resolves with the URL `child` sends once it listens; rejects if it fails, exits or takes too long. */
function waitUntilReady(child: ChildProcess, label: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => finish(new Error(`${label} did not start within ${READY_TIMEOUT_MS / 1000} s`)),
      READY_TIMEOUT_MS,
    );
    const onMessage = (message: { type?: string; url?: string; message?: string }) => {
      if (message.type === "ready" && message.url) finish(undefined, message.url);
      else if (message.type === "error") finish(new Error(`${label} failed to start: ${message.message}`));
    };
    const onExit = (code: number | null) => finish(new Error(`${label} exited during start (code ${code})`));
    const finish = (error: Error | undefined, url?: string) => {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("exit", onExit);
      if (error) reject(error);
      else resolve(url!);
    };
    child.on("message", onMessage);
    child.on("exit", onExit);
  });
}

/** Starts `target` in its own process on the server core; resolves once it listens. */
async function startTarget(
  ctx: RunContext,
  target: Target,
  db: BenchDatabase | undefined,
): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }> {
  const script = ctx.children.get(
    target.assay ? "server.ts" : target.apollo ? "apollo-server.ts" : "bare-server.ts",
  );
  if (!script) throw new Error(`no compiled script for ${target.label}`);
  const env = backendOf(target) && db ? assayEnvironment(ctx, target, db) : process.env;
  const child = spawnOnCore(ctx.pin ? SERVER_CORE : null, process.execPath, [script], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const stop = ctx.cleanup.add(`stop ${target.label}`, () => stopChild(child));
  try {
    return { url: await waitUntilReady(child, target.label), child, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The process names of the services `target` talks to, whose CPU is part of its work. */
function servicesUsedBy(target: Target): Set<string> {
  const services = new Set<string>();
  if (backendOf(target) === "postgres") services.add(SERVICE_PROCESSES.postgres);
  if (target.assay?.redis) services.add(SERVICE_PROCESSES.redis);
  return services;
}

/** Checks the answer, warms up, then measures one query against a running target. */
async function measureQuery(
  ctx: RunContext,
  target: Target,
  server: { url: string; child: ChildProcess },
  query: BenchQuery,
  db: BenchDatabase | undefined,
): Promise<RunSummary> {
  await verifyAnswer(server.url, target, query, db);
  if (target.assay?.rateLimit === "redis" && ctx.redisUrl) {
    if ((await countRedisKeys(ctx.redisUrl, ctx.redisPrefix)) === 0) {
      throw new Error(`${target.label} did not count the request in Redis (is Redis up?)`);
    }
  }
  const spec = {
    url: server.url,
    body: query.body(db),
    headers: requestHeaders(db),
    connections: ctx.options.connections,
  };
  const warmup = await ctx.tool.run({ ...spec, durationSeconds: ctx.options.warmupSeconds });
  if (warmup.non2xx > 0 || warmup.socketErrors > 0) {
    throw new Error(
      `${target.label}, "${query.name}": ${warmup.non2xx} non-2xx answers and ${warmup.socketErrors} socket errors during warm-up`,
    );
  }
  const runs: MeasuredRun[] = [];
  for (let i = 0; i < ctx.options.repeat; i++) {
    const before = snapshotCpu();
    const started = performance.now();
    const result = await ctx.tool.run({ ...spec, durationSeconds: ctx.options.durationSeconds });
    const seconds = (performance.now() - started) / 1000;
    const after = snapshotCpu();
    const serverSeconds = server.child.pid ? processTreeSeconds(before, after, server.child.pid) : undefined;
    runs.push({
      result,
      otherCores: otherCpuCores(before, after, seconds, servicesUsedBy(target)),
      serverCpuMs:
        serverSeconds === undefined || result.requests === 0
          ? undefined
          : (serverSeconds * 1000) / result.requests,
    });
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      throw new Error(`${target.label} exited during the measurement`);
    }
  }
  return summarizeRuns(runs);
}

/** Picks wrk when installed (unless autocannon is asked for), autocannon otherwise. */
function chooseTool(options: BenchOptions, pin: boolean, cleanup: Cleanup, scratchDir: string): LoadTool {
  const wrk = options.tool === "autocannon" ? undefined : findWrk(pin, cleanup, scratchDir);
  if (wrk) return wrk;
  if (options.tool === "wrk")
    throw new Error("--tool wrk: wrk is not installed (Debian: apt-get install wrk)");
  if (options.tool === "auto")
    log("wrk is not installed; using autocannon (apt-get install wrk for the lighter tool)");
  return autocannonTool(pin, cleanup);
}

async function servicesInUse(targets: Target[], ctx: RunContext): Promise<string[]> {
  const services: string[] = [];
  if (ctx.databaseUrl && targets.some((t) => backendOf(t) === "postgres")) {
    services.push(`PostgreSQL ${await postgresVersion(ctx.databaseUrl)} (unpinned, same machine)`);
  }
  if (ctx.redisUrl && targets.some((t) => t.assay?.redis)) {
    services.push(`Redis ${await redisVersion(ctx.redisUrl)} (unpinned, same machine)`);
  }
  return services;
}

/** Starts `target`, measures each query against it, and stops it. */
async function measureTarget(
  ctx: RunContext,
  target: Target,
  db: BenchDatabase | undefined,
): Promise<Measurement[]> {
  log(`\n${target.label}`);
  const server = await startTarget(ctx, target, db);
  const rows: Measurement[] = [];
  for (const query of QUERIES) {
    const { result, otherCores, serverCpuMs, spread } = await measureQuery(ctx, target, server, query, db);
    rows.push({
      target: target.label,
      role: target.assay ? "assay" : target.apollo ? "apollo" : "bare",
      backend: backendOf(target),
      query: query.name,
      result,
      otherCores,
      serverCpuMs,
      spread,
    });
    log(
      `  ${query.name}: ${Math.round(result.requestsPerSecond)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, server CPU ${serverCpuMs?.toFixed(3) ?? "?"} ms/req, non-2xx ${result.non2xx}, other processes ${otherCores?.toFixed(2) ?? "?"} cores`,
    );
  }
  await server.stop();
  return rows;
}

/** Cores' worth of CPU other processes use over one second, before anything of ours runs. */
async function measureIdleCpu(): Promise<number | undefined> {
  const before = snapshotCpu();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const busy = otherCpuCores(before, snapshotCpu(), 1, new Set());
  if (busy !== undefined && busy > CONTENDED_CORES) {
    log(`WARNING: other processes are using ${busy.toFixed(2)} cores: the figures will be low`);
  }
  return busy;
}

/** Checks the machine, picks the tool, and gathers what every step shares. */
function prepareRun(
  options: BenchOptions,
  databaseUrl: string | undefined,
  redisUrl: string | undefined,
  cleanup: Cleanup,
  children: CompiledChildren,
): { ctx: RunContext; pinning: string } {
  const pinning = canPin();
  if (!pinning.ok) log(`WARNING: running unpinned (${pinning.reason}); server and load share the cores`);
  const scratchDir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-bench-scratch-"));
  cleanup.add(`remove ${scratchDir}`, async () => fs.rmSync(scratchDir, { recursive: true, force: true }));
  const ctx: RunContext = {
    options,
    cleanup,
    tool: chooseTool(options, pinning.ok, cleanup, scratchDir),
    pin: pinning.ok,
    pepper: randomBytes(24).toString("hex"),
    databaseUrl,
    redisUrl,
    redisPrefix: `assay:bench:${randomBytes(4).toString("hex")}`,
    children,
  };
  if (redisUrl) cleanup.add("delete the Redis keys", () => deleteRedisKeys(redisUrl, ctx.redisPrefix));
  return {
    ctx,
    pinning: pinning.ok
      ? `server on core ${SERVER_CORE} (its embedded database process too), load on core ${LOAD_CORE}`
      : `none (${pinning.reason})`,
  };
}

/** Runs every selected target and query, and prints the table. */
async function runBench(
  options: BenchOptions,
  databaseUrl: string | undefined,
  redisUrl: string | undefined,
  cleanup: Cleanup,
): Promise<void> {
  const busyBefore = await measureIdleCpu();
  const children = await compileBenchChildren(["server.ts", "apollo-server.ts", "bare-server.ts"]);
  const { ctx, pinning } = prepareRun(options, databaseUrl, redisUrl, cleanup, children);
  const targets = allTargets(databaseUrl, redisUrl).filter(
    (t) => !options.only || options.only.includes(t.group),
  );
  const header = describeRun({
    tool: ctx.tool.name,
    pinning,
    settings: `${options.rounds > 1 ? `${options.rounds} rounds (each server started afresh in each, ratios taken within a round: median and range); ` : ""}${options.warmupSeconds} s warm-up, then ${options.repeat > 1 ? `${options.repeat} × ` : ""}${options.durationSeconds} s, ${options.connections} connections; Assay with NODE_ENV=production LOG_LEVEL=${LOG_LEVEL}; every server compiled, under plain node, as \`npm start\` runs Assay`,
    services: await servicesInUse(targets, ctx),
    busyBefore,
  });
  log(header.join("\n"));

  const databases = new Map<string, BenchDatabase>();
  const databaseFor = async (backend: "embedded" | "postgres"): Promise<BenchDatabase> => {
    let db = databases.get(backend);
    if (!db) {
      log(`\nseeding a fresh ${backend} database...`);
      db = await createBenchDatabase(backend, databaseUrl, ctx.pepper, cleanup);
      databases.set(backend, db);
    }
    return db;
  };
  // Every round starts each target afresh; odd rounds go through them in reverse, so a machine
  // that slows down or speeds up during the run weighs on the baselines as on Assay.
  const rounds: Measurement[][] = [];
  for (let round = 0; round < options.rounds; round++) {
    if (options.rounds > 1) log(`\nround ${round + 1} of ${options.rounds}`);
    const measured: Measurement[] = [];
    for (const target of round % 2 === 1 ? [...targets].reverse() : targets) {
      const backend = backendOf(target);
      const db = backend ? await databaseFor(backend) : undefined;
      measured.push(...(await measureTarget(ctx, target, db)));
    }
    rounds.push(measured);
  }
  const rows = combineRounds(rounds);

  process.stdout.write(`\n${header.join("\n")}\n\n${formatTable(rows)}\n`);
  const failing = rows.filter((r) => r.result.non2xx > 0 || r.result.socketErrors > 0);
  if (failing.length > 0) {
    log(
      `\nWARNING: ${failing.length} row(s) saw non-2xx answers or socket errors; their figures are suspect.`,
    );
    process.exitCode = 1;
  }
  const contended = rows.filter((r) => (r.otherCores ?? 0) > CONTENDED_CORES);
  if (contended.length > 0) {
    log(
      `\nWARNING: other processes used more than ${CONTENDED_CORES} core during ${contended.length} row(s) (the "other CPU" column), so those figures are low; run again on a quiet machine.`,
    );
  }
  await runIngestionBench();
}

/**
 * The ingestion figure (docs/benchmarks.md "Ingestion"): bench/ingest.ts on the same database
 * configuration, its table printed after this one. `npm run bench:ingest` runs it alone, with
 * its own options.
 */
async function runIngestionBench(): Promise<void> {
  log("\nmeasuring ingestion: occurrences per second from SARIF bytes (bench/ingest.ts)...");
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "bench", "ingest.ts")], {
    cwd: ROOT,
    env: process.env,
    stdio: "inherit",
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) {
    log(`\ningestion benchmark failed (exit ${code})`);
    process.exitCode = 1;
  }
}

async function main(): Promise<void> {
  let options: BenchOptions | undefined;
  let config: ReturnType<typeof parseConfig>;
  try {
    options = parseBenchOptions(process.argv.slice(2), process.env);
    config = parseConfig();
  } catch (error) {
    log(error instanceof ConfigError ? error.message : `${describe(error)}\n\n${USAGE}`);
    process.exit(2);
  }
  if (!options) {
    process.stdout.write(USAGE);
    return;
  }

  const cleanup = new Cleanup();
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) process.exit(130);
    interrupted = true;
    log(`\n${signal}: stopping the servers and removing the benchmark data (again to force)...`);
    void cleanup.runAll().then(() => process.exit(130));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  try {
    await runBench(options, config.databaseUrl, config.redisUrl, cleanup);
  } catch (error) {
    if (!interrupted) {
      log(`\nbenchmark failed: ${describe(error)}`);
      process.exitCode = 1;
    }
  } finally {
    await cleanup.runAll();
  }
  if (interrupted) process.exit(130);
}

await main();
