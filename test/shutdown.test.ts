// test-runner: execution-mode independent (process lifecycle, not execution)
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { describe, test } from "node:test";
import { openDatabase } from "../src/db/database.ts";
import { aToken, aUser } from "./helpers/builders.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/database.ts";
import { waitFor } from "./helpers/instance.ts";
import { parsePrometheusText, sampleValue } from "./helpers/prometheus-text.ts";
import { watchChildOutput } from "./helpers/secret-leaks.ts";
import { npmStartArgs } from "./helpers/start-command.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const PEPPER = "shutdown-test-pepper-0123456789";
const HOST = "127.0.0.1";

/** A port nobody listens on right now: bind port 0, read what the kernel chose, let it go. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, HOST, () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Pids of live embedded database processes serving `dataDir` (read from /proc). */
function embeddedServerPids(dataDir: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
    } catch {
      continue; // Gone while we looked.
    }
    const args = cmdline.split("\0");
    if (args.some((a) => /embedded-server\.[jt]s$/.test(a)) && args.includes(path.join(dataDir, "pgdata"))) {
      pids.push(Number(entry));
    }
  }
  return pids;
}

/** The real entry point running as a child process, with what it printed. */
interface RunningMain {
  child: ChildProcess;
  port: number;
  database: TestDatabase;
  token: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Kills the child if a test left it running, and drops its database. */
  cleanUp(): Promise<void>;
}

/**
 * Seeds a user and a token in a fresh database, then starts what `npm start` runs (scripts/start.mjs) over
 * it and waits until /healthz answers.
 */
async function startMain(env: Record<string, string> = {}): Promise<RunningMain> {
  const database = await createTestDatabase();
  const handle = await openDatabase({
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    databasePoolSize: 2,
  });
  let token: string;
  try {
    token = await aToken(handle.db, PEPPER, await aUser(handle.db, { email: "shutdown@example.test" }));
  } finally {
    await handle.close();
  }

  const port = await freePort();
  const child = spawn(process.execPath, npmStartArgs(), {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST,
      DATABASE_URL: database.databaseUrl,
      ASSAY_DATA_DIR: database.dataDir,
      ASSAY_TOKEN_PEPPER: PEPPER,
      ASSAY_REDIS_KEY_PREFIX: `assay:test:${randomBytes(6).toString("hex")}`,
      LOG_LEVEL: "info",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  watchChildOutput(child, "server process");
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });

  const running: RunningMain = {
    child,
    port,
    database,
    token,
    output: () => output,
    exited,
    async cleanUp() {
      if (!hasExited && child.pid !== undefined) {
        child.kill("SIGKILL");
        await exited;
      }
      await database.drop();
    },
  };

  // A first start migrates a new database; on a loaded machine that has taken over a minute.
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (hasExited) {
      await running.cleanUp();
      throw new Error(`src/main.ts exited before answering /healthz:\n${output}`);
    }
    try {
      const res = await fetch(`http://${HOST}:${port}/healthz`);
      await res.arrayBuffer();
      if (res.status === 200) return running;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await running.cleanUp();
      throw new Error(`src/main.ts did not answer /healthz within three minutes:\n${output}`);
    }
    await sleep(100);
  }
}

/** Resolves once a TCP connection to `port` is refused, polling; rejects after `timeoutMs`. */
async function waitUntilRefused(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, HOST);
      socket.once("connect", () => {
        socket.destroy();
        resolve(false);
      });
      socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
    });
    if (refused) return;
    if (Date.now() > deadline) throw new Error(`port ${port} still accepts connections`);
    await sleep(50);
  }
}

/** Checks that nothing of the embedded database outlives the server: no process, no lock file. */
function assertEmbeddedDatabaseGone(main: RunningMain): void {
  if (main.database.databaseUrl) return; // PostgreSQL: nothing was started.
  assert.deepEqual(embeddedServerPids(main.database.dataDir), [], "the embedded database process is gone");
  assert.equal(
    fs.existsSync(path.join(main.database.dataDir, "embedded.lock")),
    false,
    "the lock file is removed",
  );
}

describe("graceful shutdown of src/main.ts", () => {
  test("on SIGTERM an in-flight request completes, new connections are refused, and the process exits 0", {
    timeout: 300_000,
  }, async () => {
    const main = await startMain({ ASSAY_METRICS: "on" });
    try {
      if (!main.database.databaseUrl) {
        const pids = embeddedServerPids(main.database.dataDir);
        assert.equal(pids.length, 1, "the embedded database runs while serving");
        // Its compiled module under plain node, with malloc's arenas held to two and a fixed trim threshold (src/db/embedded.ts).
        const args = fs.readFileSync(`/proc/${pids[0]}/cmdline`, "utf8").split("\0");
        assert.ok(
          args.some((arg) => arg.endsWith(`${path.sep}src${path.sep}db${path.sep}embedded-server.js`)),
          args.join(" "),
        );
        assert.ok(!args.includes("tsx"), args.join(" "));
        const environment = fs.readFileSync(`/proc/${pids[0]}/environ`, "utf8").split("\0");
        assert.ok(environment.includes(`MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX || "2"}`));
        assert.ok(
          environment.includes(`MALLOC_TRIM_THRESHOLD_=${process.env.MALLOC_TRIM_THRESHOLD_ || "131072"}`),
        );
        assert.ok(
          fs.existsSync(path.join(main.database.dataDir, "embedded.lock")),
          "the lock file exists while serving",
        );
      }

      // A request whose body arrives slowly: half of it before the signal, the rest after.
      const body = JSON.stringify({ query: "query InFlight { viewer { email } }" });
      const half = Math.floor(body.length / 2);
      let finished = false;
      const request = http.request({
        host: HOST,
        port: main.port,
        path: "/graphql/",
        method: "POST",
        agent: false,
        headers: {
          authorization: `Bearer ${main.token}`,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
        },
      });
      const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
        request.once("response", (res) => {
          const parts: Buffer[] = [];
          res.on("data", (chunk: Buffer) => parts.push(chunk));
          res.on("end", () => {
            finished = true;
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString("utf8") });
          });
          res.on("error", reject);
        });
        request.once("error", reject);
      });
      request.write(body.slice(0, half));
      await waitFor("the server to have the request and wait for the rest of its body", async () => {
        const metrics = parsePrometheusText(
          await (await fetch(`http://${HOST}:${main.port}/metrics`)).text(),
        );
        return sampleValue(metrics, "assay_http_requests_in_flight") === 1;
      });

      main.child.kill("SIGTERM");
      await waitUntilRefused(main.port, 10_000);
      assert.equal(finished, false, "the in-flight request is still waiting for its body");

      request.end(body.slice(half));
      const answer = await response;
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(JSON.parse(answer.text), { data: { viewer: { email: "shutdown@example.test" } } });

      assert.deepEqual(await main.exited, { code: 0, signal: null }, main.output());
      assert.match(main.output(), /"signal":"SIGTERM".*"msg":"shutting down"/);
      assertEmbeddedDatabaseGone(main);
    } finally {
      await main.cleanUp();
    }
  });

  test("on SIGINT the process exits 0 at once, idle keep-alive connections notwithstanding", {
    timeout: 300_000,
  }, async () => {
    // A shutdown that waited for the idle connection would take the whole 30 s timeout.
    const main = await startMain({ ASSAY_SHUTDOWN_TIMEOUT_SECONDS: "30" });
    try {
      const agent = new http.Agent({ keepAlive: true });
      const freed = once(agent, "free");
      const answered = await new Promise<number>((resolve, reject) => {
        http
          .get({ host: HOST, port: main.port, path: "/healthz", agent }, (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          })
          .once("error", reject);
      });
      assert.equal(answered, 200);
      await freed; // The socket goes back to the agent's pool just after the response ends.
      assert.equal(Object.keys(agent.freeSockets).length, 1, "an idle keep-alive connection is open");

      const started = Date.now();
      main.child.kill("SIGINT");
      assert.deepEqual(await main.exited, { code: 0, signal: null }, main.output());
      assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
      assert.match(main.output(), /"signal":"SIGINT".*"msg":"shutting down"/);
      assertEmbeddedDatabaseGone(main);
      agent.destroy();
    } finally {
      await main.cleanUp();
    }
  });
});
