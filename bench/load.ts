import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Cleanup } from "./processes.ts";
import { collectOutput, describe, LOAD_CORE, spawnOnCore, stopChild } from "./processes.ts";

/**
 * The load generators: wrk (C, one thread, light on a small machine) when installed, otherwise
 * autocannon in its own `node` process. Both run pinned to the load core and report the same
 * numbers.
 */

/** One load run: POST `body` to `url` with `headers` over `connections` keep-alive connections. */
export interface LoadSpec {
  url: string;
  body: string;
  headers: Record<string, string>;
  connections: number;
  durationSeconds: number;
}

/** What a load run measured. */
export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses whose status was not 2xx (wrk: status ≥ 400). */
  non2xx: number;
  /** Connect, read and write errors and timeouts. */
  socketErrors: number;
}

/** A load generator. */
export interface LoadTool {
  /** Name and version, for the report. */
  name: string;
  run(spec: LoadSpec): Promise<LoadResult>;
}

/** Runs `command` pinned to the load core (when `pin`), tracked for clean-up, and returns its stdout. */
async function runPinned(
  pin: boolean,
  cleanup: Cleanup,
  command: string,
  args: string[],
): Promise<{ stdout: string; stderr: string }> {
  const child = spawnOnCore(pin ? LOAD_CORE : null, command, args, { stdio: ["ignore", "pipe", "pipe"] });
  const untrack = cleanup.add(`stop ${command}`, () => stopChild(child, 2_000));
  const { stdout, stderr, code } = await collectOutput(child);
  await untrack();
  if (code !== 0) throw new Error(`${command} exited with ${code}: ${stderr.trim() || stdout.trim()}`);
  return { stdout, stderr };
}

/** A Lua string literal holding `text` verbatim (long brackets need no escaping). */
function luaString(text: string): string {
  let level = "";
  while (text.includes(`]${level}]`)) level += "=";
  return `[${level}[${text}]${level}]`;
}

const WRK_DONE = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\\nBENCH_RESULT {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect, e.read, e.write, e.timeout))
end
`;

interface WrkSummary {
  requests: number;
  durationUs: number;
  p50Us: number;
  p99Us: number;
  status: number;
  connect: number;
  read: number;
  write: number;
  timeout: number;
}

/** wrk, if it is installed: one thread (it has one core), a Lua script for the POST and the summary. */
export function findWrk(pin: boolean, cleanup: Cleanup, scratchDir: string): LoadTool | undefined {
  const probe = spawnSync("wrk", ["-v"], { encoding: "utf8" });
  if (probe.error) return undefined;
  const version = `${probe.stdout}${probe.stderr}`.match(/wrk\s+(\S+)/)?.[1] ?? "unknown version";
  let scripts = 0;
  return {
    name: `wrk ${version}`,
    async run(spec) {
      const script = path.join(scratchDir, `wrk-${++scripts}.lua`);
      const headers = Object.entries(spec.headers)
        .map(([name, value]) => `wrk.headers[ ${luaString(name)} ] = ${luaString(value)}`)
        .join("\n");
      fs.writeFileSync(
        script,
        `wrk.method = "POST"\nwrk.body = ${luaString(spec.body)}\n${headers}\n${WRK_DONE}`,
      );
      const args = ["-t1", `-c${spec.connections}`, `-d${spec.durationSeconds}s`, "--timeout", "10s"];
      const { stdout, stderr } = await runPinned(pin, cleanup, "wrk", [...args, "-s", script, spec.url]);
      const line = stdout.split("\n").find((l) => l.startsWith("BENCH_RESULT "));
      if (!line) throw new Error(`wrk printed no summary:\n${stdout}${stderr}`);
      const s = JSON.parse(line.slice("BENCH_RESULT ".length)) as WrkSummary;
      return {
        requests: s.requests,
        requestsPerSecond: s.requests / (s.durationUs / 1e6),
        p50Ms: s.p50Us / 1000,
        p99Ms: s.p99Us / 1000,
        non2xx: s.status,
        socketErrors: s.connect + s.read + s.write + s.timeout,
      };
    },
  };
}

interface AutocannonSummary {
  duration: number;
  requests: { total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  /** Socket errors, timeouts included. */
  errors: number;
}

/** autocannon's command-line entry point, run in a child `node` so it can have its own core. */
export function autocannonTool(pin: boolean, cleanup: Cleanup): LoadTool {
  const require = createRequire(import.meta.url);
  const entry = require.resolve("autocannon/autocannon.js");
  const version = (
    JSON.parse(fs.readFileSync(require.resolve("autocannon/package.json"), "utf8")) as { version: string }
  ).version;
  return {
    name: `autocannon ${version} (latencies in whole milliseconds)`,
    async run(spec) {
      const headers = Object.entries(spec.headers).flatMap(([name, value]) => ["-H", `${name}:${value}`]);
      const args = [
        entry,
        "--json",
        "-n",
        "-c",
        String(spec.connections),
        "-d",
        String(spec.durationSeconds),
      ];
      const { stdout } = await runPinned(pin, cleanup, process.execPath, [
        ...args,
        "-m",
        "POST",
        ...headers,
        "-b",
        spec.body,
        spec.url,
      ]);
      let s: AutocannonSummary;
      try {
        s = JSON.parse(stdout) as AutocannonSummary;
      } catch (error) {
        throw new Error(`autocannon printed no JSON summary (${describe(error)}):\n${stdout}`);
      }
      return {
        requests: s.requests.total,
        requestsPerSecond: s.requests.total / s.duration,
        p50Ms: s.latency.p50,
        p99Ms: s.latency.p99,
        non2xx: s.non2xx,
        socketErrors: s.errors,
      };
    },
  };
}
