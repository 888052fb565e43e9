import { parseArgs } from "node:util";

/**
 * The benchmark's own settings, from flags first and `BENCH_*` variables second. (The server's
 * settings, DATABASE_URL and REDIS_URL among them, go through src/config.ts as everywhere else.)
 */

/** How long and how hard each measurement runs, and which targets run. */
export interface BenchOptions {
  warmupSeconds: number;
  durationSeconds: number;
  connections: number;
  /** Measurements per row; the row shows the median one and the spread. */
  repeat: number;
  /**
   * Times every target is started and measured; each ratio is taken within a round, and the
   * table shows the rounds' median and range.
   */
  rounds: number;
  tool: "auto" | "wrk" | "autocannon";
  /** Target groups to run (`bare`, `embedded`, `postgres`); undefined runs every available one. */
  only: string[] | undefined;
}

export const USAGE = `Usage: npm run bench [-- options]

Loads a bare node:http server, Apollo Server 5 on Assay's schema and context, and Assay
(embedded database; PostgreSQL and Redis too when DATABASE_URL / REDIS_URL are set) with wrk, or
autocannon when wrk is not installed, and prints req/s, p50, p99, the ratio to the bare server
and Assay's ratio to Apollo on the same database for three queries.

Options (environment variable in brackets):
  --quick              smoke run: 1 s warm-up, 2 s per measurement
  --warmup SECONDS     warm-up before each measurement, default 3 [BENCH_WARMUP]
  --duration SECONDS   length of each measurement, default 10 [BENCH_DURATION]
  --connections N      concurrent keep-alive connections, default 50 [BENCH_CONNECTIONS]
  --repeat N           measure each row N times, show the median and the spread, default 1 [BENCH_REPEAT]
  --rounds N           start and measure every target N times, odd rounds in reverse order; each
                       ratio is taken within a round, the table shows the median and the range
                       of the rounds' ratios, default 1 [BENCH_ROUNDS]
  --tool NAME          wrk, autocannon or auto (wrk when installed), default auto [BENCH_TOOL]
  --only GROUPS        comma-separated subset of bare,embedded,postgres (each database's
                       group includes its Apollo row) [BENCH_ONLY]
  --help               this text
`;

const GROUPS = ["bare", "embedded", "postgres"];

/**
 * The integer value of option `--name`, at least `min`; `fallback` when it was not given. For the
 * benchmarks' own option parsers (bench/query-plans.ts, bench/heavy-read.ts).
 */
export function integerOption(name: string, raw: string | undefined, fallback: number, min = 1): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`--${name} must be an integer ≥ ${min}`);
  return Number(raw);
}

function positiveInteger(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === "") return fallback;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return Number(raw);
}

/** Parses `argv` (without node and the script) and `env`; undefined means help was asked for. */
export function parseBenchOptions(
  argv: string[],
  env: Record<string, string | undefined>,
): BenchOptions | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: "boolean" },
      warmup: { type: "string" },
      duration: { type: "string" },
      connections: { type: "string" },
      repeat: { type: "string" },
      rounds: { type: "string" },
      tool: { type: "string" },
      only: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const quick = values.quick === true;
  const tool = values.tool ?? env.BENCH_TOOL ?? "auto";
  if (tool !== "auto" && tool !== "wrk" && tool !== "autocannon") {
    throw new Error(`--tool must be wrk, autocannon or auto, got "${tool}"`);
  }
  const onlyRaw = values.only ?? env.BENCH_ONLY;
  const only = onlyRaw?.split(",").map((group) => group.trim());
  const unknown = only?.filter((group) => !GROUPS.includes(group)) ?? [];
  if (unknown.length > 0) throw new Error(`--only takes ${GROUPS.join(", ")}; got ${unknown.join(", ")}`);
  return {
    warmupSeconds: positiveInteger("--warmup", values.warmup ?? env.BENCH_WARMUP, quick ? 1 : 3),
    durationSeconds: positiveInteger("--duration", values.duration ?? env.BENCH_DURATION, quick ? 2 : 10),
    connections: positiveInteger("--connections", values.connections ?? env.BENCH_CONNECTIONS, 50),
    repeat: positiveInteger("--repeat", values.repeat ?? env.BENCH_REPEAT, 1),
    rounds: positiveInteger("--rounds", values.rounds ?? env.BENCH_ROUNDS, 1),
    tool,
    only,
  };
}
