import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import type { LoadResult } from "./load.ts";

/** What the run was on, and the table of results. */

/** One measured row. */
export interface Measurement {
  target: string;
  query: string;
  result: LoadResult;
  /** The bare server's result for the same query, when it ran. */
  bare: LoadResult | undefined;
  /** Apollo Server's result for the same query on the same database (Assay rows only), when it ran. */
  apollo: LoadResult | undefined;
  /** Cores' worth of CPU other programs used meanwhile (undefined where /proc is unreadable). */
  otherCores: number | undefined;
  /**
   * Milliseconds of CPU the server's processes (not PostgreSQL's or Redis') used per request
   * answered, in the median run; undefined where /proc is unreadable.
   */
  serverCpuMs: number | undefined;
  /** (highest − lowest req/s) ÷ median req/s over repeated runs; undefined for one run. */
  spread: number | undefined;
}

function cpuModel(): string {
  try {
    const line = fs
      .readFileSync("/proc/cpuinfo", "utf8")
      .split("\n")
      .find((l) => l.startsWith("model name"));
    if (line) return line.slice(line.indexOf(":") + 1).trim();
  } catch {
    // Not Linux: fall through to what Node knows.
  }
  return os.cpus()[0]?.model ?? "unknown";
}

function commit(): string {
  const head = spawnSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" });
  if (head.status !== 0) return "unknown (not a git checkout)";
  const status = spawnSync("git", ["status", "--porcelain"], { encoding: "utf8" });
  const dirty = status.status === 0 && status.stdout.trim() !== "";
  return `${head.stdout.trim()}${dirty ? " (with uncommitted changes)" : ""}`;
}

/** Lines describing the tool, the machine, Node and the commit. */
export function describeRun(facts: {
  busyBefore: number | undefined;
  tool: string;
  pinning: string;
  settings: string;
  services: string[];
}): string[] {
  return [
    `tool:     ${facts.tool}`,
    `pinning:  ${facts.pinning}`,
    `each:     ${facts.settings}`,
    `node:     ${process.version}`,
    `cpu:      ${cpuModel()} × ${os.availableParallelism()}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Linux ${os.release()}`,
    `commit:   ${commit()}`,
    `busy:     ${facts.busyBefore === undefined ? "unknown" : facts.busyBefore.toFixed(2)} cores used by other processes in the second before the run`,
    ...facts.services.map((s) => `service:  ${s}`),
  ];
}

const number = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** The results as a Markdown table (readable as it is in a terminal). */
export function formatTable(rows: Measurement[]): string {
  const withSpread = rows.some((row) => row.spread !== undefined);
  const header = [
    "target",
    "query",
    "req/s",
    "p50 ms",
    "p99 ms",
    "÷ bare",
    "× Apollo",
    "server CPU ms/req",
    "non-2xx",
    "socket errors",
    "other CPU",
  ];
  if (withSpread) header.splice(3, 0, "spread");
  const body = rows.map(({ target, query, result, bare, apollo, otherCores, serverCpuMs, spread }) => {
    const cells = [
      target,
      query,
      number.format(result.requestsPerSecond),
      result.p50Ms.toFixed(2),
      result.p99Ms.toFixed(2),
      bare ? (result.requestsPerSecond / bare.requestsPerSecond).toFixed(3) : "–",
      apollo ? (result.requestsPerSecond / apollo.requestsPerSecond).toFixed(2) : "–",
      serverCpuMs === undefined ? "?" : serverCpuMs.toFixed(3),
      String(result.non2xx),
      String(result.socketErrors),
      otherCores === undefined ? "?" : otherCores.toFixed(2),
    ];
    if (withSpread) cells.splice(3, 0, spread === undefined ? "–" : `±${((spread / 2) * 100).toFixed(0)}%`);
    return cells;
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const numeric = (i: number) => i >= 2;
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (numeric(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (numeric(i) ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [line(header), rule, ...body.map(line)].join("\n");
}
