import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import type { LoadResult } from "./load.ts";

/** What the run was on, and the table of results. */

/** What a measured row is: the baseline servers, or Assay (whose rows are divided by theirs). */
export type Role = "bare" | "apollo" | "assay";

/** One row measured in one round: a target's figures for one query. */
export interface Measurement {
  target: string;
  role: Role;
  /** The database the target reads (undefined for the bare server). */
  backend: "embedded" | "postgres" | undefined;
  query: string;
  /** The median of the round's repeated runs (see `summarizeRuns`). */
  result: LoadResult;
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

/**
 * A ratio taken in each round: the median of the rounds' ratios (the lower middle one for an even
 * count, as for repeated runs), and the lowest and highest.
 */
export interface Ratio {
  median: number;
  lowest: number;
  highest: number;
  rounds: number;
}

/** One row of the table: a target and query over every round. */
export interface TableRow {
  target: string;
  query: string;
  /** The figures of the round whose req/s is the median. */
  result: LoadResult;
  /** req/s ÷ the bare server's req/s in the same round, when the bare server ran. */
  toBare: Ratio | undefined;
  /** req/s ÷ Apollo's req/s on the same database in the same round (Assay rows only). */
  toApollo: Ratio | undefined;
  /** The most CPU other programs used in any round. */
  otherCores: number | undefined;
  /** The median round's server CPU per request. */
  serverCpuMs: number | undefined;
  /**
   * (highest − lowest req/s) ÷ median req/s: over the rounds when there are several, otherwise
   * over the one round's repeated runs.
   */
  spread: number | undefined;
}

/** A measured run of a query: what the load tool saw, and the machine meanwhile. */
export interface MeasuredRun {
  result: LoadResult;
  /** Cores' worth of CPU other programs used meanwhile (undefined where /proc is unreadable). */
  otherCores: number | undefined;
  /** The server's CPU per request answered (undefined where /proc is unreadable). */
  serverCpuMs: number | undefined;
}

/** Runs of one query summed up: the median run by req/s, and how much they and the machine varied. */
export interface RunSummary {
  /** The median run's figures, with the refused answers and socket errors of every run. */
  result: LoadResult;
  /** The most CPU other programs used in any run (undefined if unknown for one). */
  otherCores: number | undefined;
  /** The median run's server CPU per request. */
  serverCpuMs: number | undefined;
  /** (highest − lowest req/s) ÷ median req/s over the runs; undefined for one run. */
  spread: number | undefined;
}

/** The middle value of `values` (the lower middle one for an even count). */
function middleOf<T>(values: readonly T[], by: (value: T) => number): T {
  return [...values].sort((a, b) => by(a) - by(b))[Math.floor((values.length - 1) / 2)]!;
}

/** Sums up runs of one query (repeats of a measurement, or one row's rounds). */
export function summarizeRuns(runs: readonly MeasuredRun[]): RunSummary {
  const rps = (run: MeasuredRun) => run.result.requestsPerSecond;
  const middle = middleOf(runs, rps);
  const others = runs.map((r) => r.otherCores).filter((c): c is number => c !== undefined);
  const lowest = Math.min(...runs.map(rps));
  const highest = Math.max(...runs.map(rps));
  return {
    result: {
      ...middle.result,
      non2xx: runs.reduce((sum, r) => sum + r.result.non2xx, 0),
      socketErrors: runs.reduce((sum, r) => sum + r.result.socketErrors, 0),
    },
    otherCores: others.length === runs.length ? Math.max(...others) : undefined,
    serverCpuMs: middle.serverCpuMs,
    spread: runs.length > 1 ? (highest - lowest) / rps(middle) : undefined,
  };
}

function ratioOver(values: number[]): Ratio | undefined {
  if (values.length === 0) return undefined;
  return {
    median: middleOf(values, (v) => v),
    lowest: Math.min(...values),
    highest: Math.max(...values),
    rounds: values.length,
  };
}

/**
 * The table's rows from every round's measurements, in the first round's order. Each ratio is
 * taken within a round (Assay against the Apollo and the bare server measured in that round), and
 * the table shows the median of the rounds' ratios with their range. A machine whose speed drifts
 * between minutes moves the servers of one round together, so a ratio within a round is steadier
 * than a ratio of two medians measured minutes apart.
 */
export function combineRounds(rounds: Measurement[][]): TableRow[] {
  const rows = new Map<string, { measured: Measurement[]; toBare: number[]; toApollo: number[] }>();
  for (const round of rounds) {
    const bare = new Map<string, number>();
    const apollo = new Map<string, number>();
    for (const m of round) {
      if (m.role === "bare") bare.set(m.query, m.result.requestsPerSecond);
      if (m.role === "apollo") apollo.set(`${m.backend} ${m.query}`, m.result.requestsPerSecond);
    }
    for (const m of round) {
      const key = `${m.target}\u0000${m.query}`;
      const row = rows.get(key) ?? { measured: [], toBare: [], toApollo: [] };
      rows.set(key, row);
      row.measured.push(m);
      const bareRps = bare.get(m.query);
      if (bareRps) row.toBare.push(m.result.requestsPerSecond / bareRps);
      const apolloRps = m.role === "assay" ? apollo.get(`${m.backend} ${m.query}`) : undefined;
      if (apolloRps) row.toApollo.push(m.result.requestsPerSecond / apolloRps);
    }
  }
  return [...rows.values()].map(({ measured, toBare, toApollo }) => {
    const summary = summarizeRuns(measured);
    const first = measured[0]!;
    return {
      target: first.target,
      query: first.query,
      ...summary,
      // One round: the spread of its repeated runs.
      spread: measured.length > 1 ? summary.spread : first.spread,
      toBare: ratioOver(toBare),
      toApollo: ratioOver(toApollo),
    };
  });
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

/** The middle value of `values` (the upper one of the two middles when there are as many above as below). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
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

/** A ratio with its range over the rounds when there were several; `none` when it was not measured. */
function formatRatio(ratio: Ratio | undefined, digits: number, none: string): string {
  if (!ratio) return none;
  const median = ratio.median.toFixed(digits);
  if (ratio.rounds < 2) return median;
  return `${median} (${ratio.lowest.toFixed(digits)}–${ratio.highest.toFixed(digits)})`;
}

/** The results as a Markdown table (readable as it is in a terminal). */
export function formatTable(rows: TableRow[]): string {
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
  const body = rows.map(({ target, query, result, toBare, toApollo, otherCores, serverCpuMs, spread }) => {
    const cells = [
      target,
      query,
      number.format(result.requestsPerSecond),
      result.p50Ms.toFixed(2),
      result.p99Ms.toFixed(2),
      formatRatio(toBare, 3, "–"),
      formatRatio(toApollo, 2, "–"),
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
