/**
 * `npm run bench:idle-read`: what the first read after a pause costs. The API's pool keeps
 * `API_IDLE_CONNECTIONS` connections open while idle, with their named statements and PostgreSQL's
 * generic plans (docs/decisions.md "The API's pool keeps four connections open while idle"); the
 * baseline is the same server with a pool that closes every connection after 30 s idle, as it
 * did before. Each is started in this process on one seeded database, warmed up, timed warm, then
 * left idle `--idle` seconds (longer than the 30 s idle timeout) `--pauses` times, after each of
 * which the first request and the next few are timed. The query is `npm run bench`'s heavy one
 * (a repository's issues with their first findings and both totals), sent one at a time.
 *
 * PostgreSQL under DATABASE_URL, else the embedded database. docs/benchmarks.md "Connections kept
 * open while idle" has the figures.
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { API_IDLE_CONNECTIONS } from "../src/db/database.ts";
import { type BenchDatabase, createBenchDatabase, startAppOver } from "./databases.ts";
import { integerOption } from "./options.ts";
import { Cleanup } from "./processes.ts";
import { describeRun, median } from "./report.ts";
import { QUERIES } from "./targets.ts";

const USAGE = `Usage: [DATABASE_URL=postgres://...] npm run bench:idle-read [-- options]

Times the heavy read warm and after pauses longer than the pool's idle timeout, on a server whose
API pool keeps ${API_IDLE_CONNECTIONS} connections open while idle and on one that closes them all
(the baseline), and prints the ratios.

Options:
  --idle SECONDS   length of each pause, default 40 (the idle timeout is 30)
  --pauses N       pauses per server, default 3
  --after N        requests timed after each pause besides the first, default 4
  --warmup N       untimed requests after the start, default 30
  --runs N         warm requests timed before the first pause, default 10
  --help           this text
`;

interface Options {
  idleSeconds: number;
  pauses: number;
  after: number;
  warmup: number;
  runs: number;
}

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      idle: { type: "string" },
      pauses: { type: "string" },
      after: { type: "string" },
      warmup: { type: "string" },
      runs: { type: "string" },
      help: { type: "boolean" },
    },
  });
  if (values.help) return undefined;
  return {
    idleSeconds: integerOption("idle", values.idle, 40),
    pauses: integerOption("pauses", values.pauses, 3),
    after: integerOption("after", values.after, 4, 0),
    warmup: integerOption("warmup", values.warmup, 30, 0),
    runs: integerOption("runs", values.runs, 10),
  };
}

const HEAVY = QUERIES.find((query) => query.name.startsWith("issues("));
if (!HEAVY) throw new Error("bench/targets.ts has no heavy query");

interface Timings {
  warm: number;
  first: number[];
  next: number[];
  /** The API pool's open connections at the end of each pause, before the first request. */
  openAfterIdle: number[];
}

/** Starts the app on `database` with the API pool keeping `idleConnections`, and times it. */
async function measure(
  database: BenchDatabase,
  pepper: string,
  idleConnections: number,
  options: Options,
): Promise<Timings> {
  const app = await startAppOver(database, pepper, { database: { idleConnections } });
  try {
    const endpoint = `${app.url}/graphql/`;
    const body = HEAVY!.body(database);
    const send = async (): Promise<number> => {
      const started = performance.now();
      const response = await fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${database.token}` },
        body,
      });
      const answer = (await response.json()) as { data?: unknown; errors?: Array<{ message: string }> };
      const elapsed = performance.now() - started;
      if (answer.errors?.length) throw new Error(answer.errors.map((e) => e.message).join("; "));
      const wrong = HEAVY!.checkData(answer.data, database);
      if (wrong) throw new Error(`unexpected answer: ${wrong}`);
      return elapsed;
    };
    for (let i = 0; i < options.warmup; i += 1) await send();
    const warm: number[] = [];
    for (let i = 0; i < options.runs; i += 1) warm.push(await send());
    const timings: Timings = { warm: median(warm), first: [], next: [], openAfterIdle: [] };
    for (let pause = 0; pause < options.pauses; pause += 1) {
      process.stderr.write(`  idle ${options.idleSeconds} s (${pause + 1} of ${options.pauses})...\n`);
      await new Promise((resolve) => setTimeout(resolve, options.idleSeconds * 1000));
      timings.openAfterIdle.push(app.database.poolStats().total);
      timings.first.push(await send());
      for (let i = 0; i < options.after; i += 1) timings.next.push(await send());
    }
    return timings;
  } finally {
    await app.stop();
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (!options) {
    process.stdout.write(USAGE);
    return;
  }
  const cleanup = new Cleanup();
  const pepper = randomBytes(16).toString("hex");
  const backend = process.env.DATABASE_URL ? "postgres" : "embedded";
  try {
    process.stderr.write(`seeding ${backend === "postgres" ? "a PostgreSQL" : "an embedded"} database...\n`);
    const database = await createBenchDatabase(backend, process.env.DATABASE_URL, pepper, cleanup);
    const variants = [
      { name: "closes idle connections (baseline)", idleConnections: 0 },
      {
        name: `keeps ${API_IDLE_CONNECTIONS} open while idle (Assay)`,
        idleConnections: API_IDLE_CONNECTIONS,
      },
    ];
    const results = [];
    for (const variant of variants) {
      process.stderr.write(`${variant.name}\n`);
      results.push({ ...variant, ...(await measure(database, pepper, variant.idleConnections, options)) });
    }
    const run = describeRun({
      busyBefore: undefined,
      tool: "bench/idle-read.ts: sequential requests from this process",
      pinning: "none",
      settings: `${options.warmup} warm-up and ${options.runs} warm requests timed, then ${options.pauses} pauses of ${options.idleSeconds} s, each followed by 1 + ${options.after} timed requests; rate limit off`,
      services: [backend === "postgres" ? "PostgreSQL (DATABASE_URL)" : "embedded database"],
    });
    process.stdout.write(`${run.join("\n")}\n\n`);
    process.stdout.write(
      "| API pool | connections open after the pause | warm, median ms | first after a pause, median ms (all) | next, median ms | first ÷ warm |\n" +
        "|---|---|---:|---:|---:|---:|\n",
    );
    for (const result of results) {
      const first = median(result.first);
      process.stdout.write(
        `| ${result.name} | ${result.openAfterIdle.join(", ")} | ${result.warm.toFixed(1)} | ${first.toFixed(1)} (${result.first.map((ms) => ms.toFixed(1)).join(", ")}) | ${median(result.next).toFixed(1)} | ${(first / result.warm).toFixed(2)} |\n`,
      );
    }
    const [baseline, assay] = results as [(typeof results)[0], (typeof results)[0]];
    process.stdout.write(
      `\nfirst read after a pause, Assay ÷ baseline: ${(median(assay.first) / median(baseline.first)).toFixed(2)}; ` +
        `next reads: ${(median(assay.next) / median(baseline.next)).toFixed(2)}\n`,
    );
  } finally {
    await cleanup.runAll();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
