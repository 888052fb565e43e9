/**
 * `npm run bench:plans`: for every connection, the SQL Assay runs for a page, with the plan
 * PostgreSQL chooses for it and what it costs on the first page, after 10,000 rows by cursor and
 * at `offset: 10000`, each next to the first page measured in the same run.
 *
 * Runs against the database in DATABASE_URL, which must be migrated and seeded with
 * `demo seed --size large`. It adds the deep parents of bench/plans-fixture.ts (removed at the
 * end unless `--keep`), starts Assay in this process, sends real GraphQL requests as the demo
 * user, captures each page statement with its parameters from the `pg` driver, and replays it on
 * a connection of its own: EXPLAIN (ANALYZE, BUFFERS) for the plan, then timed runs. Then the
 * same for reads that are not pages (bench/plans-cases.ts `READ_CASES`), one statement each.
 * `--help` lists the options; docs/benchmarks.md has the figures and how to read them.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { Kysely } from "kysely";
import pg from "pg";
import { type RunningApp, startApp } from "../src/app.ts";
import { parseConfig } from "../src/config.ts";
import type { Database } from "../src/db/types.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { createLogger } from "../src/logger.ts";
import { createToken } from "../src/modules/auth/token-service.ts";
import { DEMO_USER_EMAIL } from "../src/modules/demo/account-plan.ts";
import { countDistinctPackagesOfRun } from "../src/modules/dependencies/sbom-store.ts";
import { integerOption } from "./options.ts";
import { PLAN_CASES, type PlanCase, READ_CASES, type ReadCase } from "./plans-cases.ts";
import { createFixture, fixtureExists, fixtureRows, removeFixture } from "./plans-fixture.ts";

const USAGE = `Usage: DATABASE_URL=postgres://... npm run bench:plans [-- options]

Needs a PostgreSQL database migrated and seeded with \`npm run assay -- demo seed --size large\`.
Adds deep parents (bench/plans-fixture.ts), then for every connection prints the plan of its page
query, the first page's time, the time of a page after --depth rows by cursor and by offset, and
their ratios to the first page; then the plan and time of reads that are not pages (latest
metric values, coverage, a run's DDP).

Options:
  --runs N           timed runs per figure (the median is shown), default 9
  --warmup N         untimed runs before them, default 2
  --page N           page size (first:), default 100
  --depth N          rows skipped for the deep page, default 10000
  --fixture-rows N   rows under each deep parent, default 12000 (more than depth + page)
  --only TEXT[,TEXT] only cases whose field or source contains one of the TEXTs
  --plans            print each measured statement's plan (EXPLAIN ANALYZE, BUFFERS) in full
  --keep             leave the deep parents in the database (a later run reuses them)
  --any-size         run on a database smaller than the large seed
  --help             this text
`;

interface Options {
  runs: number;
  warmup: number;
  page: number;
  depth: number;
  fixtureRows: number;
  only: string[] | undefined;
  plans: boolean;
  keep: boolean;
  anySize: boolean;
}

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: "string" },
      warmup: { type: "string" },
      page: { type: "string" },
      depth: { type: "string" },
      "fixture-rows": { type: "string" },
      only: { type: "string" },
      plans: { type: "boolean" },
      keep: { type: "boolean" },
      "any-size": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const options: Options = {
    runs: integerOption("runs", values.runs, 9),
    warmup: integerOption("warmup", values.warmup, 2, 0),
    page: integerOption("page", values.page, 100),
    depth: integerOption("depth", values.depth, 10_000),
    fixtureRows: integerOption("fixture-rows", values["fixture-rows"], 12_000),
    only: values.only?.split(","),
    plans: values.plans === true,
    keep: values.keep === true,
    anySize: values["any-size"] === true,
  };
  if (options.fixtureRows <= options.depth + options.page) {
    throw new Error("--fixture-rows must exceed --depth + --page");
  }
  return options;
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

// ---------------------------------------------------------------------------------------------
// Capturing the page statements Assay sends.

/** One statement with the parameters it was sent with. */
interface Statement {
  text: string;
  values: unknown[];
}

/**
 * Only the keyset page query of src/graphql/pagination.ts (`loadPages`) selects this, whether it
 * names its parents as arrays or, for one parent of a `samePlanForEveryParent` source, as plain
 * parameters.
 */
const isPageStatement = (text: string) => text.includes("AS __parent, x.*");
const captured: Statement[] = [];
/** While a request is measured: which of its statements to record. */
let capturing: ((text: string) => boolean) | undefined;

/**
 * Runs `request` with the statements it sends that `wanted` accepts recorded; returns its result
 * and the one statement recorded, or throws naming `what` when it recorded none or several.
 */
async function captureOne<T>(
  what: string,
  wanted: (text: string) => boolean,
  request: () => Promise<T>,
): Promise<{ result: T; statement: Statement }> {
  captured.length = 0;
  capturing = wanted;
  let result: T;
  try {
    result = await request();
  } finally {
    capturing = undefined;
  }
  if (captured.length !== 1) throw new Error(`${what}: expected one statement, captured ${captured.length}`);
  return { result, statement: captured[0]! };
}

/**
 * Wraps `pg.Client#query` in this process, so the statements Kysely sends through the app's pool
 * are recorded with their parameters (the app's `onQuery` hook sees only the SQL text).
 */
function captureStatements(): void {
  const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    // A statement seen before goes as a named (prepared) one: a config object with its text.
    const [first, second] = args;
    const config =
      typeof first === "object" && first !== null
        ? (first as { text?: unknown; values?: unknown })
        : undefined;
    const text = config ? config.text : first;
    const values = config ? config.values : second;
    if (capturing && typeof text === "string" && capturing(text)) {
      captured.push({ text, values: Array.isArray(values) ? [...values] : [] });
    }
    return original.apply(this, args);
  } as typeof pg.Client.prototype.query;
}

// ---------------------------------------------------------------------------------------------
// GraphQL.

interface Connection {
  edges: Array<{ cursor: string }>;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/** Finds the connection object in a GraphQL answer (the only object with `edges`). */
function findConnection(value: unknown): Connection | undefined {
  if (value === null || typeof value !== "object") return undefined;
  if ("edges" in value && "pageInfo" in value) return value as Connection;
  for (const inner of Object.values(value)) {
    const found = findConnection(inner);
    if (found) return found;
  }
  return undefined;
}

interface Requester {
  /** Sends the case's document with `paging`; returns the connection and its page statement. */
  page(
    c: PlanCase,
    parent: Parent,
    paging: string,
  ): Promise<{ connection: Connection; statement: Statement }>;
  /** Sends the read's document, or makes its store call; returns its statement. */
  read(c: ReadCase, parent: Parent): Promise<Statement>;
}

function requester(endpoint: string, token: string, db: Kysely<Database>): Requester {
  const send = async (what: string, query: string, parent: Parent) => {
    const response = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables: query.includes("$id") ? { id: parent.id } : {} }),
    });
    const body = (await response.json()) as { data?: unknown; errors?: Array<{ message: string }> };
    if (body.errors?.length) throw new Error(`${what}: ${body.errors.map((e) => e.message).join("; ")}`);
    return body.data;
  };
  return {
    async page(c, parent, paging) {
      const fieldName = c.field.split(".")[1]!;
      const args = [c.args?.(parent.arg), paging].filter(Boolean).join(", ");
      const selection = `${fieldName}(${args}) { edges { cursor } pageInfo { hasNextPage endCursor } }`;
      const { result, statement } = await captureOne(c.field, isPageStatement, () =>
        send(c.field, c.document(selection), parent),
      );
      const connection = findConnection(result);
      if (!connection) throw new Error(`${c.field}: no connection in ${JSON.stringify(result)}`);
      return { connection, statement };
    },
    async read(c, parent) {
      const { document, call } = c;
      const request = document
        ? () => send(c.field, document, parent)
        : call === "countDistinctPackagesOfRun" && parent.arg
          ? () => countDistinctPackagesOfRun(db, parent.arg!)
          : undefined;
      if (!request) throw new Error(`${c.field}: neither a document nor a store call with an id`);
      return (await captureOne(c.field, c.statement, request)).statement;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Plans.

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  "Sort Method"?: string;
  Plans?: PlanNode[];
}

/** What the benchmark reads from a plan. */
interface PlanSummary {
  /**
   * The scan that reads the most rows of a big table (the connection's own table, as a rule), or
   * of any table when none is big: its index, or `Seq Scan on <table>`, and the rows it visited
   * (filtered-out ones included, over all loops).
   */
  mainScan: { via: string; rows: number };
  /** Sequential scans of tables over {@link BIG_TABLE_ROWS} rows. */
  bigSeqScans: string[];
  /** The largest input of a Sort node, in rows (0 without one). */
  sortedRows: number;
  /** Shared buffers hit and read by the statement. */
  buffers: number;
}

/** A table this large is read through an index or the plan is flagged. */
const BIG_TABLE_ROWS = 10_000;

function summarise(root: PlanNode, tableRows: Map<string, number>): PlanSummary {
  const summary: PlanSummary = {
    mainScan: { via: "none", rows: -1 },
    bigSeqScans: [],
    sortedRows: 0,
    buffers: (root["Shared Hit Blocks"] ?? 0) + (root["Shared Read Blocks"] ?? 0),
  };
  let mainScan: PlanSummary["mainScan"] | undefined;
  let mainIsBig = false;
  const visit = (node: PlanNode) => {
    const type = node["Node Type"];
    const relation = node["Relation Name"];
    if (relation && type.endsWith("Scan")) {
      const rows = (node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0)) * node["Actual Loops"];
      const via = node["Index Name"] ?? `${type} on ${relation}`;
      const big = (tableRows.get(relation) ?? 0) > BIG_TABLE_ROWS;
      // A big table's scan wins over a catalog table's (issues, analyzers) of more rows.
      if (big && !mainIsBig) mainScan = undefined;
      if ((big || !mainIsBig) && rows > (mainScan?.rows ?? -1)) {
        mainScan = { via, rows };
        mainIsBig = big;
      }
      if (type === "Seq Scan" && big) summary.bigSeqScans.push(relation);
    }
    if (type === "Sort" || type === "Incremental Sort") {
      const input = (node.Plans ?? []).reduce(
        (sum, child) => sum + child["Actual Rows"] * child["Actual Loops"],
        0,
      );
      summary.sortedRows = Math.max(summary.sortedRows, input);
    }
    for (const child of node.Plans ?? []) visit(child);
  };
  visit(root);
  if (mainScan) summary.mainScan = mainScan;
  return summary;
}

async function explain(client: pg.Client, statement: Statement, tableRows: Map<string, number>) {
  const result = await client.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
    `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.text}`,
    statement.values,
  );
  const [plan] = result.rows[0]!["QUERY PLAN"];
  return summarise(plan!.Plan, tableRows);
}

async function textPlan(client: pg.Client, statement: Statement): Promise<string> {
  const result = await client.query<{ "QUERY PLAN": string }>(
    `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${statement.text}`,
    statement.values,
  );
  return result.rows.map((row) => row["QUERY PLAN"]).join("\n");
}

// ---------------------------------------------------------------------------------------------
// Timing.

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A statement's median times in ms. */
interface Timing {
  /** Planning plus execution in the server, from EXPLAIN (ANALYZE, TIMING OFF). */
  server: number;
  /** The whole round trip through `pg`, rows decoded: what Assay waits for. */
  wall: number;
}

/**
 * Runs the statements in turns (first, deep, offset; first, deep, offset; ...) so a change in the
 * machine's load touches all of them alike, each once plainly (wall time) and once under EXPLAIN
 * (ANALYZE, TIMING OFF) (server time, without the round trip and the decoding of the rows).
 */
async function timeStatements(
  client: pg.Client,
  statements: Statement[],
  options: Options,
): Promise<Timing[]> {
  const wall = statements.map(() => [] as number[]);
  const server = statements.map(() => [] as number[]);
  for (let round = 0; round < options.warmup + options.runs; round++) {
    for (const [i, statement] of statements.entries()) {
      const started = performance.now();
      await client.query(statement.text, statement.values);
      const elapsed = performance.now() - started;
      const explained = await client.query<{
        "QUERY PLAN": Array<{ "Planning Time": number; "Execution Time": number }>;
      }>(`EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ${statement.text}`, statement.values);
      const [plan] = explained.rows[0]!["QUERY PLAN"];
      if (round >= options.warmup) {
        wall[i]!.push(elapsed);
        server[i]!.push(plan!["Planning Time"] + plan!["Execution Time"]);
      }
    }
  }
  return statements.map((_, i) => ({ server: median(server[i]!), wall: median(wall[i]!) }));
}

// ---------------------------------------------------------------------------------------------
// One case.

interface Parent {
  id: string;
  key: string;
  rows: number;
  arg: string | null;
  fixture: boolean;
}

/** One statement of a case: its median times, plan and SQL. */
interface Figure {
  ms: number;
  wallMs: number;
  plan: PlanSummary;
  statement: Statement;
}

interface Measured {
  c: PlanCase;
  parent: Parent;
  first: Figure;
  deep?: Figure;
  offset?: Figure;
}

async function findParent(
  client: pg.Client,
  c: Pick<PlanCase, "parent">,
  viewerId: string,
  fixture: boolean,
) {
  const result = await client.query<{ type: string; key: string; rows: string; arg?: string | null }>(
    `SELECT * FROM (${c.parent}) AS parent WHERE $1::bigint IS NOT NULL AND $2::boolean IS NOT NULL`,
    [viewerId, fixture],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    id: row.type === "Query" || row.type === "User" ? "" : encodeGlobalId(row.type, row.key),
    key: row.key,
    rows: Number(row.rows),
    arg: row.arg ?? null,
    fixture,
  } satisfies Parent;
}

/** The case's parents: the seeded one, and the deep fixture's when the case has one. */
async function parentsOf(
  client: pg.Client,
  c: Pick<PlanCase, "field" | "source" | "parent" | "deep">,
  viewerId: string,
): Promise<Parent[]> {
  const parents: Parent[] = [];
  for (const fixture of c.deep ? [false, true] : [false]) {
    const parent = await findParent(client, c, viewerId, fixture);
    if (parent) parents.push(parent);
    else log(`${c.field} (${c.source}): no ${fixture ? "fixture" : "seeded"} parent; skipped`);
  }
  return parents;
}

async function measureCase(
  client: pg.Client,
  api: Requester,
  c: PlanCase,
  parent: Parent,
  options: Options,
  tableRows: Map<string, number>,
): Promise<Measured> {
  const first = await api.page(c, parent, `first: ${options.page}`);
  const statements = [first.statement];
  let deepAnswer: Awaited<ReturnType<Requester["page"]>> | undefined;
  let offsetAnswer: Awaited<ReturnType<Requester["page"]>> | undefined;
  if (parent.rows > options.depth + options.page) {
    // The cursor of row `depth`, as a client paging by cursor would hold it.
    const marker = await api.page(c, parent, `first: 1, offset: ${options.depth - 1}`);
    const cursor = marker.connection.pageInfo.endCursor;
    if (!cursor) throw new Error(`${c.field}: no row ${options.depth}`);
    deepAnswer = await api.page(c, parent, `first: ${options.page}, after: ${JSON.stringify(cursor)}`);
    offsetAnswer = await api.page(c, parent, `first: ${options.page}, offset: ${options.depth}`);
    const deepCursors = deepAnswer.connection.edges.map((e) => e.cursor).join();
    if (
      deepAnswer.connection.edges.length !== options.page ||
      deepCursors !== offsetAnswer.connection.edges.map((e) => e.cursor).join()
    ) {
      throw new Error(`${c.field}: the page after row ${options.depth} differs between cursor and offset`);
    }
    statements.push(deepAnswer.statement, offsetAnswer.statement);
  }
  const plans: PlanSummary[] = [];
  for (const statement of statements) plans.push(await explain(client, statement, tableRows));
  const ms = await timeStatements(client, statements, options);
  const figure = (i: number): Figure => ({
    ms: ms[i]!.server,
    wallMs: ms[i]!.wall,
    plan: plans[i]!,
    statement: statements[i]!,
  });
  return {
    c,
    parent,
    first: figure(0),
    ...(deepAnswer && { deep: figure(1), offset: figure(2) }),
  };
}

/** A read's one statement, measured. */
interface MeasuredRead {
  c: ReadCase;
  parent: Parent;
  figure: Figure;
}

async function measureRead(
  client: pg.Client,
  api: Requester,
  c: ReadCase,
  parent: Parent,
  options: Options,
  tableRows: Map<string, number>,
): Promise<MeasuredRead> {
  const statement = await api.read(c, parent);
  const plan = await explain(client, statement, tableRows);
  const [timing] = await timeStatements(client, [statement], options);
  return { c, parent, figure: { ms: timing!.server, wallMs: timing!.wall, plan, statement } };
}

// ---------------------------------------------------------------------------------------------
// Report.

const counts = new Intl.NumberFormat("en-US");
function formatCount(n: number): string {
  return counts.format(n);
}

function formatMs(ms: number): string {
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(1);
}

function caseLabel(c: PlanCase, parent: Parent): string {
  const args = c.args?.(parent.arg);
  return `${args ? `${c.field}(${args})` : c.field}${c.note ? ` [${c.note}]` : ""}`;
}

function table(rows: Measured[], options: Options): string {
  const depth = formatCount(options.depth);
  const header = [
    "connection",
    "source",
    "parent",
    "rows",
    "read via",
    "rows read: first / after / offset",
    "sorted",
    "first ms",
    `after ${depth} ms`,
    "÷ first",
    `offset ${depth} ms`,
    "÷ first",
    "buffers: first / after / offset",
    "wall ms: first / after / offset",
  ];
  const body = rows.map((m) => {
    const figures = [m.first, m.deep, m.offset].filter((f) => f !== undefined);
    const vias = [...new Set(figures.map((f) => f.plan.mainScan.via))];
    const seq = [...new Set(figures.flatMap((f) => f.plan.bigSeqScans))];
    const sorted = figures.map((f) => f.plan.sortedRows);
    return [
      caseLabel(m.c, m.parent),
      m.c.source,
      m.parent.fixture ? "deep" : "seeded",
      formatCount(m.parent.rows),
      [...vias, ...seq.map((t) => `SEQ SCAN ${t}`)].join(" + "),
      figures.map((f) => formatCount(f.plan.mainScan.rows)).join(" / "),
      sorted.every((n) => n <= 2 * (options.page + 1)) ? "–" : sorted.map(formatCount).join(" / "),
      formatMs(m.first.ms),
      m.deep ? formatMs(m.deep.ms) : "–",
      m.deep ? (m.deep.ms / m.first.ms).toFixed(2) : "–",
      m.offset ? formatMs(m.offset.ms) : "–",
      m.offset ? (m.offset.ms / m.first.ms).toFixed(2) : "–",
      figures.map((f) => formatCount(f.plan.buffers)).join(" / "),
      figures.map((f) => formatMs(f.wallMs)).join(" / "),
    ];
  });
  return markdownTable(header, body, new Set([3, 7, 8, 9, 10, 11]));
}

/** The reads' table: one statement each. */
function readTable(rows: MeasuredRead[], options: Options): string {
  const header = [
    "read",
    "source",
    "parent",
    "rows",
    "read via",
    "rows read",
    "sorted",
    "ms",
    "blocks",
    "wall ms",
  ];
  const body = rows.map(({ c, parent, figure: { plan, ms, wallMs } }) => [
    `${c.field}${c.note ? ` [${c.note}]` : ""}`,
    c.source,
    parent.fixture ? "deep" : "seeded",
    formatCount(parent.rows),
    [plan.mainScan.via, ...plan.bigSeqScans.map((t) => `SEQ SCAN ${t}`)].join(" + "),
    formatCount(plan.mainScan.rows),
    plan.sortedRows <= 2 * (options.page + 1) ? "–" : formatCount(plan.sortedRows),
    formatMs(ms),
    formatCount(plan.buffers),
    formatMs(wallMs),
  ]);
  return markdownTable(header, body, new Set([3, 5, 7, 8, 9]));
}

/** A Markdown table, the columns in `numeric` aligned right. */
function markdownTable(header: string[], body: string[][], numeric: Set<number>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => (numeric.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (numeric.has(i) ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [line(header), rule, ...body.map(line)].join("\n");
}

/** Foreign keys whose columns do not lead any index: each delete of a parent row scans the table. */
async function unindexedForeignKeys(client: pg.Client): Promise<string[]> {
  const result = await client.query<{ fk: string }>(`
    SELECT c.conrelid::regclass || ' (' || string_agg(a.attname, ', ' ORDER BY k.n) || ') → ' ||
      c.confrelid::regclass AS fk
    FROM pg_constraint c
    CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)
    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
    WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace
      AND NOT EXISTS (
        SELECT 1 FROM pg_index i WHERE i.indrelid = c.conrelid
          AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] @> c.conkey
          AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] <@ c.conkey)
    GROUP BY c.oid, c.conrelid, c.confrelid ORDER BY 1`);
  return result.rows.map((row) => row.fk);
}

async function facts(client: pg.Client, loadAtStart: number): Promise<string[]> {
  const version = (await client.query<{ v: string }>("SELECT split_part(version(), ' on ', 1) AS v")).rows[0]!
    .v;
  const sizes = await client.query<{ relname: string; n: string }>(
    `SELECT relname, reltuples::bigint AS n FROM pg_class
     WHERE relname IN ('repositories', 'analysis_runs', 'checks', 'occurrences', 'metric_values') ORDER BY 1`,
  );
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    // Not a git checkout.
  }
  const cpus = os.cpus();
  return [
    `node:     ${process.version}`,
    `cpu:      ${cpus[0]?.model.trim() ?? "unknown"} × ${os.availableParallelism()}, ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    `database: ${version} (same machine)`,
    `commit:   ${commit}`,
    `rows:     ${sizes.rows.map((r) => `${r.relname} ${formatCount(Number(r.n))}`).join(", ")} (estimates, fixture included)`,
    // Other work on a shared machine shows here; figures from a busy run are not comparable.
    `load:     ${loadAtStart.toFixed(2)} at the start, ${os.loadavg()[0]!.toFixed(2)} at the end (1-minute load average)`,
  ];
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (!options) {
    process.stdout.write(USAGE);
    return;
  }
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl)
    throw new Error("DATABASE_URL must name a PostgreSQL database seeded with demo seed --size large");

  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let app: RunningApp | undefined;
  let tokenId: string | undefined;
  let removeAtEnd = false;
  let dataDir: string | undefined;
  const cleanup = async () => {
    await app?.stop();
    app = undefined;
    if (tokenId) await client.query("DELETE FROM personal_access_tokens WHERE id = $1", [tokenId]);
    tokenId = undefined;
    if (removeAtEnd) {
      removeAtEnd = false;
      log("removing the deep fixture ...");
      const took = await removeFixture(client);
      log(
        `removed (account and its rows ${took.account.toFixed(1)} s, users ${took.users.toFixed(1)} s); VACUUM (ANALYZE) ...`,
      );
      await client.query("VACUUM (ANALYZE)");
    }
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    dataDir = undefined;
  };
  process.once("SIGINT", () => {
    log("interrupted: cleaning up");
    cleanup()
      .catch((error) => log(String(error)))
      .finally(() => process.exit(130));
  });

  try {
    const size = await client.query<{ n: string }>("SELECT count(*) AS n FROM occurrences");
    if (!options.anySize && Number(size.rows[0]?.n ?? 0) < 1_000_000) {
      throw new Error(
        "the database is not the large data set (under 1,000,000 occurrences): seed it with `npm run assay -- demo seed --size large`, or pass --any-size",
      );
    }
    const viewer = await client.query<{ id: string }>("SELECT id FROM users WHERE lower(email) = lower($1)", [
      DEMO_USER_EMAIL,
    ]);
    const viewerId = viewer.rows[0]?.id;
    if (!viewerId) throw new Error(`no demo user ${DEMO_USER_EMAIL}: seed the demo first`);

    if (await fixtureExists(client)) {
      removeAtEnd = !options.keep;
      log(
        `reusing the deep fixture left by an earlier --keep run (${formatCount(await fixtureRows(client))} rows)`,
      );
    } else {
      log(`adding the deep fixture (${formatCount(options.fixtureRows)} rows per deep parent) ...`);
      const started = performance.now();
      removeAtEnd = !options.keep;
      await createFixture(client, viewerId, options.fixtureRows);
      log(`added in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    // As autovacuum would do before long: statistics for the planner, and the visibility map
    // that lets index-only scans skip the table (a freshly seeded database has neither).
    log("VACUUM (ANALYZE) ...");
    await client.query("VACUUM (ANALYZE)");

    captureStatements();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-plans-"));
    const config = parseConfig({
      ...process.env,
      NODE_ENV: "development",
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "silent",
      RATE_LIMIT_PER_HOUR: "0",
      REDIS_URL: undefined,
      ASSAY_DATA_DIR: dataDir,
      ASSAY_TOKEN_PEPPER: randomBytes(16).toString("hex"),
    });
    app = await startApp(config, createLogger(config.logLevel));
    const { token, row } = await createToken(app.database.db, config.tokenPepper, {
      userId: viewerId,
      name: "bench:plans",
      expiresInDays: 1,
    });
    tokenId = row.id;
    const api = requester(`${app.url}/graphql/`, token, app.database.db);

    const tables = await client.query<{ relname: string; n: string }>(
      "SELECT relname, reltuples::bigint AS n FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace",
    );
    const tableRows = new Map(tables.rows.map((r) => [r.relname, Number(r.n)]));

    const loadAtStart = os.loadavg()[0]!;
    const measured: Measured[] = [];
    const chosen = (c: { field: string; source: string }) =>
      !options.only || options.only.some((text) => c.field.includes(text) || c.source.includes(text));
    const cases = PLAN_CASES.filter(chosen);
    for (const c of cases) {
      for (const parent of await parentsOf(client, c, viewerId)) {
        const fixture = parent.fixture;
        const m = await measureCase(client, api, c, parent, options, tableRows);
        measured.push(m);
        log(
          `${caseLabel(c, parent)} [${fixture ? "deep fixture" : "seeded"}, ${formatCount(parent.rows)} rows]: first ${formatMs(m.first.ms)} ms${
            m.deep ? `, after ${formatMs(m.deep.ms)} ms, offset ${formatMs(m.offset!.ms)} ms` : ""
          }`,
        );
        if (options.plans) {
          for (const [name, figure] of [
            ["first page", m.first],
            [`after ${options.depth}`, m.deep],
            [`offset ${options.depth}`, m.offset],
          ] as const) {
            if (!figure) continue;
            process.stdout.write(
              `\n--- ${caseLabel(c, parent)} [${fixture ? "deep fixture" : "seeded"}], ${name}\n${await textPlan(client, figure.statement)}\n`,
            );
          }
        }
      }
    }

    const reads: MeasuredRead[] = [];
    for (const c of READ_CASES.filter(chosen)) {
      for (const parent of await parentsOf(client, c, viewerId)) {
        const m = await measureRead(client, api, c, parent, options, tableRows);
        reads.push(m);
        const label = `${c.field}${c.note ? ` [${c.note}]` : ""} [${parent.fixture ? "deep fixture" : "seeded"}, ${formatCount(parent.rows)} rows]`;
        log(`${label}: ${formatMs(m.figure.ms)} ms, ${formatCount(m.figure.plan.buffers)} blocks`);
        if (options.plans) {
          process.stdout.write(`\n--- ${label}\n${await textPlan(client, m.figure.statement)}\n`);
        }
      }
    }

    const unindexed = await unindexedForeignKeys(client);
    process.stdout.write(
      [
        "",
        ...(await facts(client, loadAtStart)),
        `each:     ${options.warmup} warm-up + ${options.runs} timed runs of each statement, in turns, on a connection of its own; medians`,
        "times:    ms = planning + execution in PostgreSQL (EXPLAIN ANALYZE, TIMING OFF); wall = round trip through pg, rows decoded",
        `paging:   first: ${options.page}; deep = after the cursor of row ${formatCount(options.depth)}; offset = offset: ${options.depth}`,
        "",
        table(measured, options),
        "",
        ...(reads.length > 0
          ? ["Reads that are not connection pages (one statement each):", "", readTable(reads, options), ""]
          : []),
        unindexed.length === 0
          ? "Foreign keys: every one leads an index."
          : `Foreign keys without an index leading with their columns:\n${unindexed.map((fk) => `  ${fk}`).join("\n")}`,
        "",
      ].join("\n"),
    );
  } finally {
    await cleanup();
    await client.end();
  }
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
