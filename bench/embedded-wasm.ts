/**
 * The embedded database's process with V8's default WebAssembly tiering budget against the one
 * src/db/embedded-server.ts sets, side by side in one run: resident memory after a start and a few
 * queries, then the CPU, time and memory of a heavy workload (100,000 inserted rows, 40 aggregates
 * and 40 joins over them). Each round starts both processes afresh from the migrated template,
 * alternating which goes first.
 *
 *   npm run bench:embedded-wasm [-- --repeat N]
 */
import { type ChildProcess, fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { embeddedServerCommand } from "../src/db/embedded.ts";
import { CACHE_DIRECTORY } from "../src/db/embedded-template.ts";
import { describeRun, median } from "./report.ts";

/** V8's own default (`node --v8-options`), given on the command line so the process keeps it. */
const V8_DEFAULT = ["--wasm-tiering-budget=1800000"];

interface Sample {
  idleMiB: number;
  peakMiB: number;
  heavyCpuMs: number;
  heavyWallMs: number;
  afterHeavyMiB: number;
}

function argument(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  const value = at === -1 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`usage: npm run bench:embedded-wasm [-- --repeat N]`);
  return value;
}

function template(): string {
  const found = fs
    .readdirSync(CACHE_DIRECTORY)
    .filter((name) => name.startsWith("embedded-pglite-"))
    .map((name) => path.join(CACHE_DIRECTORY, name))
    .find((dir) => fs.existsSync(path.join(dir, "PG_VERSION")));
  if (!found) throw new Error("no embedded database template: run npm ci first");
  return found;
}

/** Resident and peak resident memory of a process, in MiB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
  return { rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
}

/** CPU time (user + system) a process has used, in ms. */
function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function start(execArgv: string[], dir: string): Promise<ChildProcess> {
  fs.cpSync(template(), path.join(dir, "pgdata"), { recursive: true });
  fs.mkdirSync(path.join(dir, "run"));
  const { script, execArgv: base } = embeddedServerCommand();
  const child = fork(script, [path.join(dir, "pgdata"), path.join(dir, "run", ".s.PGSQL.5432")], {
    execArgv: [...base, ...execArgv],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  await new Promise<void>((resolve, reject) => {
    child.once("message", (message: { type?: string; message?: string }) =>
      message.type === "ready" ? resolve() : reject(new Error(message.message ?? "not ready")),
    );
    child.once("exit", (code) => reject(new Error(`the database process exited (${code})`)));
  });
  return child;
}

async function measure(execArgv: string[]): Promise<Sample> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-bench-wasm-"));
  const child = await start(execArgv, dir);
  const client = new pg.Client({
    host: path.join(dir, "run"),
    port: 5432,
    user: "postgres",
    database: "postgres",
  });
  try {
    await client.connect();
    for (const sql of [
      "select count(*) from repositories",
      "select count(*) from occurrences",
      "select * from users limit 5",
      "select now()",
    ])
      await client.query(sql);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const idle = memoryOf(child.pid!);
    const cpuBefore = cpuMsOf(child.pid!);
    const began = performance.now();
    await client.query("create temporary table t (id int, path text, message text, line int)");
    for (let batch = 0; batch < 20; batch++) {
      await client.query(
        "insert into t select g, 'src/file' || (g % 300) || '.js', repeat('message ', 8) || g, g % 500 from generate_series($1::int, $1::int + 4999) g",
        [batch * 5000],
      );
    }
    for (let i = 0; i < 40; i++) {
      await client.query(
        "select path, count(*), sum(length(message)), max(line) from t group by path order by 2 desc limit 20",
      );
      await client.query("select count(*) from t a join t b on a.id = b.id + 1 where a.line < 100");
    }
    const heavyWallMs = performance.now() - began;
    const heavyCpuMs = cpuMsOf(child.pid!) - cpuBefore;
    const after = memoryOf(child.pid!);
    return { idleMiB: idle.rss, peakMiB: idle.peak, heavyCpuMs, heavyWallMs, afterHeavyMiB: after.rss };
  } finally {
    await client.end().catch(() => {});
    child.send({ type: "stop" });
    await new Promise((resolve) => child.once("exit", resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const repeat = argument("--repeat", 3);
const variants = [
  {
    label: "V8's default tiering budget (--wasm-tiering-budget=1800000)",
    execArgv: V8_DEFAULT,
    samples: [] as Sample[],
  },
  { label: "Assay's (embedded-server.ts)", execArgv: [], samples: [] as Sample[] },
];
for (let round = 0; round < repeat; round++) {
  process.stderr.write(`round ${round + 1} of ${repeat}\n`);
  const order = round % 2 === 0 ? variants : [...variants].reverse();
  for (const variant of order) variant.samples.push(await measure(variant.execArgv));
}
console.log(
  describeRun({
    busyBefore: undefined,
    tool: "bench/embedded-wasm.ts",
    pinning: "none",
    settings: `${repeat} fresh starts of the database process per row, medians (ranges)`,
    services: [],
  }).join("\n"),
);
const columns: Array<[string, keyof Sample, number]> = [
  ["idle after 4 queries, MiB", "idleMiB", 0],
  ["peak until then, MiB", "peakMiB", 0],
  ["heavy workload CPU, ms", "heavyCpuMs", 0],
  ["heavy workload time, ms", "heavyWallMs", 0],
  ["after it, MiB", "afterHeavyMiB", 0],
];
console.log(`\n| database process | ${columns.map(([name]) => name).join(" | ")} |`);
console.log(`|---|${columns.map(() => "---:").join("|")}|`);
for (const variant of variants) {
  const cells = columns.map(([, key]) => {
    const values = variant.samples.map((sample) => sample[key]);
    return `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;
  });
  console.log(`| ${variant.label} | ${cells.join(" | ")} |`);
}
const [base, ours] = variants.map((variant) => variant.samples);
console.log(
  `\nAssay's ÷ V8's default: ${columns
    .map(
      ([name, key]) =>
        `${name.split(",")[0]} ${(median(ours!.map((s) => s[key])) / median(base!.map((s) => s[key]))).toFixed(2)}`,
    )
    .join(", ")}`,
);
