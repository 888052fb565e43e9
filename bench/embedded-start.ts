/**
 * `npm run bench:start`: how long `npm start` takes on the embedded database, and how much memory
 * it then holds. Runs exactly what `npm start` runs (`node scripts/start.mjs`, without npm)
 * on a new data directory — the first start, which copies the install's template and seeds the
 * demo — then again on that directory (a restart). Each is timed from the spawn to the first
 * `{ viewer { email } }` answered with the demo token, and the resident memory of the server and
 * its database process is read after it has been idle for a while. The baseline, measured in the
 * same run, is bench/bare-server.ts compiled to JavaScript: node and an empty `node:http` server,
 * spawned the same way.
 *
 *   npm run bench:start                  # 3 first starts and 3 restarts
 *   npm run bench:start -- --repeat 5 --idle 10
 *
 * Nothing is pinned: the server and its database process start side by side, as they do for a user.
 * Figures are medians, with the lowest and highest.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { npmStartArgs } from "../test/helpers/start-command.ts";
import { otherCpuCores, snapshotCpu } from "./contention.ts";
import { Cleanup, describe, stopChild } from "./processes.ts";
import { describeRun } from "./report.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const START_TIMEOUT_MS = 120_000;

interface Options {
  repeat: number;
  idleSeconds: number;
}

function parseOptions(args: string[]): Options {
  const options: Options = { repeat: 3, idleSeconds: 5 };
  for (let i = 0; i < args.length; i++) {
    const value = Number(args[i + 1]);
    if (args[i] === "--repeat" && Number.isInteger(value) && value > 0) options.repeat = value;
    else if (args[i] === "--idle" && value >= 0) options.idleSeconds = value;
    else
      throw new Error(
        `usage: npm run bench:start [-- --repeat N] [--idle SECONDS]; not understood: ${args[i]}`,
      );
    i++;
  }
  return options;
}

/** One start: when it answered, and what it then held in memory. */
interface StartFigures {
  /** Spawn to the first answered request, in seconds. */
  served: number;
  /** Spawn to the "listening" log line, in seconds (undefined for the baseline, which logs nothing). */
  listening: number | undefined;
  /** Resident memory after the idle wait, in MiB: the server process, and its children. */
  serverMiB: number;
  childrenMiB: number;
  /** What the processes take together, the pages they share (node's own code) counted once, in MiB. */
  unionMiB: number;
}

/** Resident set size of `pid` in MiB, from /proc (0 once it has gone). */
function residentMiB(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    return kib / 1024;
  } catch {
    return 0;
  }
}

/**
 * The memory `pids` take from the machine together, in MiB. Resident sizes added up count twice
 * the pages two processes share: the node binary's code and the libraries' (about 45 MB each,
 * mapped from the same files). This adds each process's private pages, then each mapped file's
 * shared pages once (the most that any one of them has resident). 0 for processes gone.
 */
function unionMiB(pids: readonly number[]): number {
  let privateKib = 0;
  const sharedKibByFile = new Map<string, number>();
  for (const pid of pids) {
    let smaps: string;
    try {
      smaps = fs.readFileSync(`/proc/${pid}/smaps`, "utf8");
    } catch {
      continue;
    }
    let mapping = "";
    let shared = 0;
    const close = () => {
      if (shared > 0) sharedKibByFile.set(mapping, Math.max(sharedKibByFile.get(mapping) ?? 0, shared));
      shared = 0;
    };
    for (const line of smaps.split("\n")) {
      const field = /^(\w+):\s+(\d+) kB$/.exec(line);
      if (!field) {
        // A mapping's header: its address range, permissions, offset, device, inode and path.
        const header = /^[0-9a-f]+-[0-9a-f]+ \S+ ([0-9a-f]+) \S+ (\d+)\s*(.*)$/.exec(line);
        if (header) {
          close();
          mapping = header[2] === "0" ? `${pid}:${line}` : `${header[2]}:${header[1]}:${header[3]}`;
        }
        continue;
      }
      const kib = Number(field[2]);
      if (field[1] === "Private_Clean" || field[1] === "Private_Dirty") privateKib += kib;
      if (field[1] === "Shared_Clean" || field[1] === "Shared_Dirty") shared += kib;
    }
    close();
  }
  let sharedKib = 0;
  for (const kib of sharedKibByFile.values()) sharedKib += kib;
  return (privateKib + sharedKib) / 1024;
}

/** Every descendant of `pid`, from the parent links in /proc. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The child's output, and when each line of it arrived (seconds since `t0`). */
function watchOutput(child: ChildProcess, t0: number) {
  const lines: Array<{ at: number; text: string }> = [];
  let partial = "";
  const onData = (chunk: Buffer) => {
    const at = (performance.now() - t0) / 1000;
    const parts = (partial + chunk.toString("utf8")).split("\n");
    partial = parts.pop() ?? "";
    for (const text of parts) lines.push({ at, text });
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  return {
    output: () => lines.map((line) => line.text).join("\n"),
    /** The first line matching `pattern`, with its first group. */
    find(pattern: RegExp): { at: number; group: string | undefined } | undefined {
      for (const line of lines) {
        const match = pattern.exec(line.text);
        if (match) return { at: line.at, group: match[1] };
      }
      return undefined;
    },
  };
}

/** Posts `{ viewer { email } }`; true on a 200 with data. */
async function viewerAnswers(url: string, token: string | undefined): Promise<boolean> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query: "{ viewer { email } }" }),
    });
    const body = await response.text();
    return response.status === 200 && (token === undefined || body.includes('"email"'));
  } catch {
    return false;
  }
}

/** Starts `npm start`'s command on `dataDir`, waits until it answers, idles, reads its memory, stops it. */
async function measureAssay(cleanup: Cleanup, dataDir: string, idleSeconds: number): Promise<StartFigures> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    ASSAY_DATA_DIR: dataDir,
    LOG_LEVEL: "info",
    NODE_ENV: "development",
    DATABASE_URL: "",
    REDIS_URL: "",
  };
  const tokenFile = path.join(dataDir, "demo-token");
  const t0 = performance.now();
  const child = spawn(process.execPath, npmStartArgs(), {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stop = cleanup.add("stop the server", () => stopChild(child));
  const output = watchOutput(child, t0);
  try {
    let served: number | undefined;
    while (served === undefined) {
      if (child.exitCode !== null) throw new Error(`the server exited during its start:\n${output.output()}`);
      if (performance.now() - t0 > START_TIMEOUT_MS)
        throw new Error(`not serving after ${START_TIMEOUT_MS} ms`);
      const url = output.find(/Assay is listening on (http:\/\/\S+\/graphql\/)/)?.group;
      const token = fs.existsSync(tokenFile) ? fs.readFileSync(tokenFile, "utf8").trim() : undefined;
      if (url && token && (await viewerAnswers(url, token))) served = (performance.now() - t0) / 1000;
      else await sleep(20);
    }
    await sleep(idleSeconds * 1000);
    return {
      served,
      listening: output.find(/"msg":"listening"/)?.at,
      serverMiB: residentMiB(child.pid!),
      childrenMiB: descendants(child.pid!).reduce((sum, pid) => sum + residentMiB(pid), 0),
      unionMiB: unionMiB([child.pid!, ...descendants(child.pid!)]),
    };
  } finally {
    await stop();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

function range(values: number[], digits: number): string {
  const f = (v: number) => v.toFixed(digits);
  return `${f(median(values))} (${f(Math.min(...values))}–${f(Math.max(...values))})`;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const cleanup = new Cleanup();
  process.on("SIGINT", () => void cleanup.runAll().then(() => process.exit(130)));
  const before = snapshotCpu();
  await sleep(1000);
  const busy = otherCpuCores(before, snapshotCpu(), 1, new Set());
  const header = describeRun({
    tool: "bench/embedded-start.ts",
    pinning: "none (the server and its database process start side by side, as for a user)",
    settings: `${options.repeat} first starts and ${options.repeat} restarts, memory read after ${options.idleSeconds} s idle; LOG_LEVEL=info`,
    services: [],
    busyBefore: busy,
  });
  process.stderr.write(`${header.join("\n")}\n`);

  const rows: Array<{ name: string; figures: StartFigures[] }> = [
    { name: "bare node:http (node and an empty server)", figures: [] },
    { name: "Assay, first start (new data directory, demo seeded)", figures: [] },
    { name: "Assay, restart (the same data directory)", figures: [] },
  ];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "assay-bench-start-"));
  cleanup.add("remove the data directories", async () =>
    fs.rmSync(scratch, { recursive: true, force: true }),
  );
  try {
    const bareServer = await compileBareServer(scratch);
    for (let i = 0; i < options.repeat; i++) {
      process.stderr.write(`round ${i + 1} of ${options.repeat}\n`);
      rows[0]!.figures.push(await measureBare(cleanup, options.idleSeconds, bareServer));
      const dataDir = path.join(scratch, `data-${i}`);
      rows[1]!.figures.push(await measureAssay(cleanup, dataDir, options.idleSeconds));
      rows[2]!.figures.push(await measureAssay(cleanup, dataDir, options.idleSeconds));
    }
  } finally {
    await cleanup.runAll();
  }

  const bare = median(rows[0]!.figures.map((f) => f.served));
  const lines = [
    "| start | to a served request, s | ÷ bare | to the listening line, s | server MiB | its database process MiB | together MiB | together, shared pages once, MiB |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(({ name, figures }) => {
      const served = figures.map((f) => f.served);
      const listening = figures.map((f) => f.listening).filter((v): v is number => v !== undefined);
      return [
        name,
        range(served, 2),
        (median(served) / bare).toFixed(1),
        listening.length ? range(listening, 2) : "–",
        range(
          figures.map((f) => f.serverMiB),
          0,
        ),
        range(
          figures.map((f) => f.childrenMiB),
          0,
        ),
        range(
          figures.map((f) => f.serverMiB + f.childrenMiB),
          0,
        ),
        range(
          figures.map((f) => f.unionMiB),
          0,
        ),
      ].join(" | ");
    }),
  ].map((line) => (line.startsWith("|") ? line : `| ${line} |`));
  process.stdout.write(`\n${header.join("\n")}\n\n${lines.join("\n")}\n`);
}

/** The baseline reports its URL over IPC rather than in its output. */
/** The baseline compiled to JavaScript in `scratch`, to run under plain node as the server now runs. */
async function compileBareServer(scratch: string): Promise<string> {
  const script = path.join(scratch, "bare-server.mjs");
  const esbuild = await import("esbuild");
  await esbuild.build({
    entryPoints: [path.join(ROOT, "bench", "bare-server.ts")],
    outfile: script,
    platform: "node",
    format: "esm",
    logLevel: "silent",
  });
  return script;
}

async function measureBare(cleanup: Cleanup, idleSeconds: number, script: string): Promise<StartFigures> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [script], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const stop = cleanup.add("stop the bare server", () => stopChild(child));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.once("message", (message: { url?: string }) => (message.url ? resolve(message.url) : reject()));
      child.once("exit", (code) => reject(new Error(`bare server exited (code ${code})`)));
    });
    while (!(await viewerAnswers(url, undefined))) await sleep(5);
    const served = (performance.now() - t0) / 1000;
    await sleep(idleSeconds * 1000);
    return {
      served,
      listening: undefined,
      serverMiB: residentMiB(child.pid!),
      childrenMiB: 0,
      unionMiB: unionMiB([child.pid!]),
    };
  } finally {
    await stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:start failed: ${describe(error)}\n`);
  process.exit(1);
});
