import { spawnSync } from "node:child_process";
import fs from "node:fs";

/**
 * How much CPU other programs took while a measurement ran. On a shared 2-core machine a test
 * suite started by someone else halves the figures; this makes such rows visible instead of
 * silently wrong. Linux only (reads /proc); elsewhere it reports nothing.
 *
 * "Other" is every process that is not this benchmark or one of its descendants (the servers,
 * the embedded database, the load tool) and not a kernel thread. PostgreSQL and Redis count as
 * other unless the target under load uses them: then their share cannot be told apart.
 */

interface ProcessTicks {
  ppid: number;
  comm: string;
  /** utime + stime + cutime + cstime: the process's CPU plus that of children it has reaped. */
  ticks: number;
}

/** Process names of the services a target may use. */
export const SERVICE_PROCESSES = { postgres: "postgres", redis: "redis-server" } as const;
const KTHREADD = 2;

function clockTicksPerSecond(): number {
  const result = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" });
  const ticks = Number(result.stdout?.trim());
  return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
}

const TICKS_PER_SECOND = clockTicksPerSecond();

/** Reads /proc/<pid>/stat for one process; undefined when it is gone or unreadable. */
function readProcess(pid: number): ProcessTicks | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may itself contain spaces or parentheses.
    const open = stat.indexOf("(");
    const close = stat.lastIndexOf(")");
    const fields = stat.slice(close + 2).split(" ");
    const at = (i: number) => Number(fields[i]);
    // Fields after the name, from 0: state, ppid, ..., utime (11), stime (12), cutime (13), cstime (14).
    return { ppid: at(1), comm: stat.slice(open + 1, close), ticks: at(11) + at(12) + at(13) + at(14) };
  } catch {
    return undefined;
  }
}

/** A snapshot of every process's CPU ticks. */
export type CpuSnapshot = Map<number, ProcessTicks>;

/**
 * Seconds of CPU that process `root` and its descendants (the embedded database's process, for
 * one) used between two snapshots; undefined where /proc is unreadable or `root` is gone.
 */
export function processTreeSeconds(
  before: CpuSnapshot,
  after: CpuSnapshot,
  root: number,
): number | undefined {
  if (!before.has(root) || !after.has(root)) return undefined;
  let ticks = 0;
  for (const [pid, info] of after) {
    let ours = false;
    for (let current: number | undefined = pid, hops = 0; current && hops < 64; hops++) {
      if (current === root) {
        ours = true;
        break;
      }
      current = after.get(current)?.ppid;
    }
    if (!ours) continue;
    const earlier = before.get(pid);
    ticks += Math.max(0, info.ticks - (earlier && earlier.comm === info.comm ? earlier.ticks : 0));
  }
  return ticks / TICKS_PER_SECOND;
}

/** Takes a snapshot (empty where /proc is not available). */
export function snapshotCpu(): CpuSnapshot {
  const snapshot: CpuSnapshot = new Map();
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return snapshot;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProcess(Number(entry));
    if (info) snapshot.set(Number(entry), info);
  }
  return snapshot;
}

function isOurs(pid: number, snapshot: CpuSnapshot): boolean {
  for (let current: number | undefined = pid, hops = 0; current && hops < 64; hops++) {
    if (current === process.pid) return true;
    current = snapshot.get(current)?.ppid;
  }
  return false;
}

function isOther(pid: number, info: ProcessTicks, snapshot: CpuSnapshot, services: Set<string>): boolean {
  if (pid === KTHREADD || info.ppid === KTHREADD) return false;
  if (services.has(info.comm)) return false;
  return !isOurs(pid, snapshot);
}

/**
 * Cores' worth of CPU that other processes used between `before` and `after`, taken `seconds`
 * apart, not counting the `services` (process names) the target uses; undefined when /proc could
 * not be read.
 */
export function otherCpuCores(
  before: CpuSnapshot,
  after: CpuSnapshot,
  seconds: number,
  services: Set<string>,
): number | undefined {
  if (before.size === 0 || after.size === 0) return undefined;
  let ticks = 0;
  for (const [pid, info] of after) {
    if (!isOther(pid, info, after, services)) continue;
    const earlier = before.get(pid);
    // A process started during the window counts in full; a recycled pid would too, rarely.
    ticks += Math.max(0, info.ticks - (earlier && earlier.comm === info.comm ? earlier.ticks : 0));
  }
  return ticks / TICKS_PER_SECOND / seconds;
}
