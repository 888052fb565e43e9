/**
 * `node --import tsx bench/ingest.ts`: how fast a SARIF artifact becomes occurrences. On a fresh
 * database (PostgreSQL under DATABASE_URL, else the embedded one) holding the demo seed, it writes
 * a generated SARIF log to a temp file and measures, in one run:
 *
 * - the streaming reader alone over the file (the ceiling for everything after it);
 * - `processSarif` end to end from the file's bytes, for each batch size;
 * - the same as the worker runs it: each batch a step (a transaction) of its own, one or two at once;
 * - a read the API makes (a page of a check's findings) in a loop on another connection, alone
 *   and while the report is processed again;
 * - the report again as the next run's, against the previous one (every finding EXISTING);
 * - the report once more into that check, as a CI job run again (every finding already reported);
 * - another shard of the same build into that check: as many other findings (all INTRODUCED);
 * - a shard of a hundredth as many other findings into that check, then twice the report's size;
 * - the insert alone on the same rows: the `unnest` statement processSarif uses, against plain
 *   multi-row `VALUES` inserts (the baseline) and one INSERT per row;
 *
 * and prints each rate with its ratio to the baseline. docs/benchmarks.md "Ingestion" has the
 * figures and how to read them.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { openDatabase } from "../src/db/database.ts";
import type { Database, IssueSeverity } from "../src/db/types.ts";
import type { ArtifactRow } from "../src/db/types-ingestion.ts";
import { readSarif } from "../src/formats/sarif/reader.ts";
import { findWorkingDirectories } from "../src/formats/sarif/working-directories.ts";
import { newOrderedRowKey, newRowKey } from "../src/graphql/global-id.ts";
import { leasedSteps } from "../src/ingestion/process-job.ts";
import {
  OCCURRENCE_BATCH_SIZE,
  OccurrenceBatch,
  type OccurrenceRow,
} from "../src/ingestion/sarif/occurrence-writer.ts";
import { processSarif, stageSarif } from "../src/ingestion/sarif/process.ts";
import type { ProcessResult, ProcessStep, PublishStep } from "../src/ingestion/types.ts";
import { claimJobs, enqueueJob, finishJob } from "../src/jobs/job-store.ts";
import { type BatchTarget, insertOccurrenceBatch } from "../src/modules/checks/occurrence-write-store.ts";
import { writeGeneratedSarif } from "../test/helpers/generated-sarif.ts";
import { otherCpuCores, snapshotCpu } from "./contention.ts";
import { createBenchDatabase, postgresVersion } from "./databases.ts";
import { Cleanup, describe } from "./processes.ts";
import { describeRun } from "./report.ts";

/** The checkout directory the artifacts name with --work-dir. */
const BENCH_WORK_DIR = "/bench/checkout";

const USAGE = `Usage: node --import tsx bench/ingest.ts [options]

Measures SARIF ingestion into the database DATABASE_URL names (the embedded database when it is
unset): the reader alone, processSarif end to end for each batch size, and the insert statement
alone against plain multi-row VALUES inserts of the same rows and (on PostgreSQL) COPY into the
real table and into an unindexed copy of it.

Options:
  --results N        results in the generated SARIF log, default 200000 (about 400 bytes each)
  --batch-sizes A,B  processSarif batch sizes to measure, default 1000,5000,10000
  --row-by-row N     rows for the one-INSERT-per-row figure, default 10000
  --reader-only      measure the reader alone (no database) and print only its rows
  --work-dir         the artifacts carry a workDir (${BENCH_WORK_DIR}), so processing first
                     looks for the runs' working directories (docs/ingestion-sarif.md "Paths")
  --held N           before measuring, the table holds N findings of an earlier report with
                     random keys, as a table grown before keys were ordered (default 0); the
                     measurements never empty them
  --locale NAME      (PostgreSQL) make the measured database with this locale, e.g. en_US.utf8
                     (a language's collation, as many installations have; the server must
                     know it: \`locale -a\`); default the server's
  --working-directory DIR
                     the generated run names ${BENCH_WORK_DIR}/DIR as its working directory,
                     after its results (implies --work-dir)
  --help             this text
`;

interface Options {
  results: number;
  batchSizes: number[];
  rowByRow: number;
  readerOnly: boolean;
  /** The artifacts' workDir, null without --work-dir. */
  workDir: string | null;
  /** The generated run's working directory (absolute), when --working-directory names one. */
  workingDirectory: string | undefined;
  /** Findings of an earlier report the table holds throughout (--held). */
  held: number;
  /** The measured database's locale (--locale), undefined for the server's default. */
  locale: string | undefined;
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

function positive(name: string, raw: string): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return Number(raw);
}

function atLeastZero(name: string, raw: string): number {
  return raw.trim() === "0" ? 0 : positive(name, raw);
}

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      results: { type: "string" },
      "batch-sizes": { type: "string" },
      "row-by-row": { type: "string" },
      "reader-only": { type: "boolean" },
      "work-dir": { type: "boolean" },
      "working-directory": { type: "string" },
      held: { type: "string" },
      locale: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) return undefined;
  return {
    results: positive("--results", values.results ?? "200000"),
    batchSizes: (values["batch-sizes"] ?? "1000,5000,10000")
      .split(",")
      .map((n) => positive("--batch-sizes", n)),
    rowByRow: positive("--row-by-row", values["row-by-row"] ?? "10000"),
    readerOnly: values["reader-only"] ?? false,
    workDir: values["work-dir"] || values["working-directory"] !== undefined ? BENCH_WORK_DIR : null,
    workingDirectory:
      values["working-directory"] === undefined
        ? undefined
        : `${BENCH_WORK_DIR}/${values["working-directory"]}`,
    held: atLeastZero("--held", values.held ?? "0"),
    locale: values.locale,
  };
}

/** A run, a check and a SARIF artifact of `analyzerId` in `repositoryId`, for one measurement. */
async function aTarget(
  db: Kysely<Database>,
  ids: { repositoryId: string; analyzerId: string; analyzer: string; workDir?: string | null },
  reportBytes: number | null = null,
): Promise<{ artifact: ArtifactRow; checkId: string }> {
  const run = await db
    .insertInto("analysis_runs")
    .values({
      key: newRowKey(),
      run_uid: crypto.randomUUID(),
      repository_id: ids.repositoryId,
      branch_name: "main",
      commit_oid: randomBytes(20).toString("hex"),
      status: "PENDING",
      updated_at: new Date(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const check = await db
    .insertInto("checks")
    .values({
      key: newRowKey(),
      run_id: run.id,
      analyzer_id: ids.analyzerId,
      sequence: 1,
      status: "PENDING",
      updated_at: new Date(),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { artifact: await anArtifactOf(db, ids, run.id, check.id, reportBytes), checkId: check.id };
}

/**
 * A QUEUED SARIF artifact of `checkId` in `runId`, as the intake stores it (without its bytes),
 * with the size of its report when it is known.
 */
function anArtifactOf(
  db: Kysely<Database>,
  ids: { repositoryId: string; analyzer: string; workDir?: string | null },
  runId: string,
  checkId: string,
  reportBytes: number | null = null,
): Promise<ArtifactRow> {
  return db
    .insertInto("artifacts")
    .values({
      key: newRowKey(),
      repository_id: ids.repositoryId,
      run_id: runId,
      check_id: checkId,
      kind: "SARIF",
      analyzer: ids.analyzer,
      analyzer_type: "community",
      reporter: "bench",
      compression: "NONE",
      work_dir: ids.workDir ?? null,
      stored_bytes: 0,
      report_bytes: reportBytes,
      content_sha256: randomBytes(32),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Peak resident memory of this process so far, in MiB (Linux). */
function peakRssMiB(): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync("/proc/self/status", "utf8"));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

function fileChunks(file: string): AsyncIterable<Uint8Array> {
  return fs.createReadStream(file, { highWaterMark: 1024 * 1024 });
}

/** One printed figure. */
interface Figure {
  label: string;
  rows: number;
  seconds: number;
  /** CPU seconds this process used. */
  nodeCpu: number;
  /** CPU seconds the PostgreSQL backend of the transaction used; undefined when not readable. */
  databaseCpu: number | undefined;
  /** Cores' worth of CPU every other process used meanwhile; undefined where /proc is unreadable. */
  otherCores: number | undefined;
}

const number = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

function formatFigures(figures: Figure[], baseline: Figure): string {
  const rate = (f: Figure) => f.rows / f.seconds;
  const perRow = (cpu: number | undefined, f: Figure) =>
    cpu === undefined ? "–" : ((cpu * 1e6) / f.rows).toFixed(1);
  const lines = [
    "| measurement | rows | seconds | rows/s | ÷ baseline | node CPU µs/row | PostgreSQL CPU µs/row | other CPU |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...figures.map(
      (f) =>
        `| ${f.label} | ${number.format(f.rows)} | ${f.seconds.toFixed(2)} | ${number.format(rate(f))} | ${(rate(f) / rate(baseline)).toFixed(2)} | ${perRow(f.nodeCpu, f)} | ${perRow(f.databaseCpu, f)} | ${f.otherCores?.toFixed(2) ?? "?"} |`,
    ),
  ];
  return lines.join("\n");
}

const TICKS_PER_SECOND =
  Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout?.trim()) || 100;

/** CPU seconds process `pid` used so far, when it is a PostgreSQL process of this machine. */
function postgresCpuSeconds(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    if (!stat.includes("(postgres)")) return undefined;
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * Runs `work` in one transaction and measures it: wall time, this process's CPU, the CPU of the
 * PostgreSQL backend serving the transaction, and what every other process used meanwhile.
 */
async function measure<T>(
  db: Kysely<Database>,
  label: string,
  work: (tx: Kysely<Database>) => Promise<T>,
  rowsOf: (value: T) => number,
): Promise<{ value: T; figure: Figure }> {
  const before = snapshotCpu();
  const node = process.cpuUsage();
  const started = performance.now();
  let backend: { pid: number; cpu: number | undefined } | undefined;
  const value = await db.transaction().execute(async (tx) => {
    const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx);
    backend = { pid: rows[0]!.pid, cpu: postgresCpuSeconds(rows[0]!.pid) };
    return work(tx);
  });
  const backendAfter = backend ? postgresCpuSeconds(backend.pid) : undefined;
  const databaseCpu =
    backend?.cpu !== undefined && backendAfter !== undefined ? backendAfter - backend.cpu : undefined;
  return { value, figure: figureSince({ before, node, started }, label, rowsOf(value), databaseCpu) };
}

/** When a measurement started: the machine's CPU, this process's, and the wall clock. */
interface Start {
  before: ReturnType<typeof snapshotCpu>;
  node: NodeJS.CpuUsage;
  started: number;
}

/** The figure of a measurement that began at `start` and ends now. */
function figureSince(start: Start, label: string, rows: number, databaseCpu: number | undefined): Figure {
  const seconds = (performance.now() - start.started) / 1000;
  const nodeUsage = process.cpuUsage(start.node);
  const others = otherCpuCores(start.before, snapshotCpu(), seconds, new Set());
  return {
    label,
    rows,
    seconds,
    nodeCpu: (nodeUsage.user + nodeUsage.system) / 1e6,
    databaseCpu,
    // The backends are not children of this process, so otherCpuCores counted them: take them out.
    otherCores: others === undefined ? undefined : Math.max(0, others - (databaseCpu ?? 0) / seconds),
  };
}

/** CPU seconds used so far by each backend connected to this database (PostgreSQL). */
async function backendCpuSeconds(db: Kysely<Database>): Promise<Map<number, number>> {
  const { rows } = await sql<{ pid: number }>`
    SELECT pid FROM pg_stat_activity WHERE datname = current_database()`.execute(db);
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    const seconds = postgresCpuSeconds(pid);
    if (seconds !== undefined) cpu.set(pid, seconds);
  }
  return cpu;
}

const BENCH_JOB_KIND = "bench.ingest";

/**
 * Measures `work` as the worker runs it: each step a transaction of its own on the pool's
 * connections (the worker's `leasedSteps`, under a job claimed for it), the publication in one
 * more. The database's CPU is that of every backend connected to the bench database (it has no
 * other clients).
 */
async function measureInSteps(
  db: Kysely<Database>,
  postgres: boolean,
  label: string,
  work: (step: ProcessStep) => Promise<PublishStep>,
  rowsOf: (value: ProcessResult) => number,
): Promise<{ value: ProcessResult; figure: Figure }> {
  const backendsBefore = postgres ? await backendCpuSeconds(db) : undefined;
  const before = snapshotCpu();
  const node = process.cpuUsage();
  const started = performance.now();
  // The steps of a job claimed for the measurement, as the worker takes them.
  await enqueueJob(db, { kind: BENCH_JOB_KIND, payload: {} });
  const [job] = await claimJobs(db, {
    kinds: [BENCH_JOB_KIND],
    limit: 1,
    leaseSeconds: 600,
    workerId: "bench",
  });
  if (!job) throw new Error("the benchmark's job could not be claimed");
  const publish = await work(leasedSteps(db, job, new AbortController().signal, undefined));
  await finishJob(db, job);
  const value = await db.transaction().execute((tx) => publish(tx));
  let databaseCpu: number | undefined;
  if (backendsBefore) {
    databaseCpu = 0;
    for (const [pid, cpu] of await backendCpuSeconds(db)) databaseCpu += cpu - (backendsBefore.get(pid) ?? 0);
  }
  return { value, figure: figureSince({ before, node, started }, label, rowsOf(value), databaseCpu) };
}

/** A COMMUNITY analyzer of its own, its shortcode `prefix` and a random suffix. */
async function aBenchAnalyzer(
  db: Kysely<Database>,
  prefix: string,
  name: string,
): Promise<{ id: string; shortcode: string }> {
  const shortcode = `${prefix}-${randomBytes(3).toString("hex")}`;
  const { id } = await db
    .insertInto("analyzers")
    .values({ key: newRowKey(), shortcode, name, type: "COMMUNITY" })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { id, shortcode };
}

/**
 * `count` findings of an earlier report in a check of another analyzer, which the measurements'
 * emptying leaves alone: random keys (12 hex characters, so a million rarely repeat) and md5
 * fingerprints, as a table written before keys were ordered holds them, so each measurement
 * inserts into indexes of that size.
 */
async function holdEarlierFindings(
  db: Kysely<Database>,
  ids: { repositoryId: string },
  count: number,
): Promise<void> {
  if (count === 0) return;
  const analyzer = await aBenchAnalyzer(db, "bench-held", "Bench (held)");
  const { artifact, checkId } = await aTarget(db, {
    ...ids,
    analyzerId: analyzer.id,
    analyzer: analyzer.shortcode,
  });
  await sql`INSERT INTO occurrences (key, check_id, issue_id, artifact_id, path, begin_line, end_line,
      title, fingerprint, state)
    SELECT substr(md5(random()::text), 1, 12), ${checkId}, i.ids[1 + n % cardinality(i.ids)], ${artifact.id},
      'pkg-' || (n / 100 % 40) || '/src/module-' || (n / 100) || '/earlier.ts', n % 100 * 2 + 1,
      n % 100 * 2 + 1, 'An earlier finding', md5(n::text), 'INTRODUCED'
    FROM generate_series(0, ${count - 1}::int) AS n,
      (SELECT array_agg(id) AS ids FROM (SELECT id FROM issues ORDER BY id LIMIT 40) AS x) AS i`.execute(db);
  await sql`VACUUM ANALYZE occurrences`.execute(db);
}

/** Empties the occurrences table between measurements, so each starts from the same table. */
async function emptyOccurrences(db: Kysely<Database>, analyzerId: string): Promise<void> {
  await sql`DELETE FROM occurrences AS o USING checks AS c WHERE c.id = o.check_id AND c.analyzer_id = ${analyzerId}`.execute(
    db,
  );
  await sql`VACUUM ANALYZE occurrences`.execute(db);
}

/** The demo check with the most findings: the read-path query pages its occurrences. */
async function busiestCheck(db: Kysely<Database>): Promise<string> {
  const row = await db
    .selectFrom("occurrences")
    .select((eb) => ["check_id", eb.fn.countAll().as("n")])
    .groupBy("check_id")
    .orderBy("n", "desc")
    .limit(1)
    .executeTakeFirstOrThrow();
  return row.check_id;
}

/**
 * Latencies in ms of a read the API makes (the first page of a check's findings, as
 * `Check.issues` orders them) sent one after another on a connection of its own until `done()`.
 */
async function readLatencies(db: Kysely<Database>, checkId: string, done: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  while (!done()) {
    const started = performance.now();
    await sql`
      SELECT o.key, o.path, o.begin_line, i.shortcode FROM occurrences AS o JOIN issues AS i ON i.id = o.issue_id
      WHERE o.check_id = ${checkId} AND o.state <> 'RESOLVED' ORDER BY o.path, o.begin_line, o.key LIMIT 100
    `.execute(db);
    latencies.push(performance.now() - started);
  }
  return latencies;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function describeLatencies(values: number[]): string {
  return `${values.length} reads, p50 ${percentile(values, 50).toFixed(2)} ms, p99 ${percentile(values, 99).toFixed(2)} ms, max ${Math.max(...values).toFixed(0)} ms`;
}

/** The rows processSarif stored for `artifactId`, as insert batches of `size`. */
async function storedBatches(
  db: Kysely<Database>,
  artifactId: string,
  size: number,
): Promise<OccurrenceBatch[]> {
  const rows = await db
    .selectFrom("occurrences")
    .select([
      "issue_id",
      "path",
      "begin_line",
      "begin_column",
      "end_line",
      "end_column",
      "title",
      "fingerprint",
      "is_suppressed",
      "severity",
    ])
    .where("artifact_id", "=", artifactId)
    .orderBy("id")
    .execute();
  const batches: OccurrenceBatch[] = [];
  for (let start = 0; start < rows.length; start += size) {
    const batch = new OccurrenceBatch();
    for (const row of rows.slice(start, start + size)) batch.push(rowOf(row));
    batches.push(batch);
  }
  return batches;
}

function rowOf(row: {
  issue_id: string;
  path: string;
  begin_line: number;
  begin_column: number;
  end_line: number;
  end_column: number;
  title: string;
  fingerprint: string;
  is_suppressed: boolean;
  severity: IssueSeverity | null;
}): OccurrenceRow {
  return {
    issueId: row.issue_id,
    path: row.path,
    beginLine: row.begin_line,
    beginColumn: row.begin_column,
    endLine: row.end_line,
    endColumn: row.end_column,
    title: row.title,
    fingerprint: row.fingerprint,
    isSuppressed: row.is_suppressed,
    severity: row.severity ?? "MINOR",
  };
}

/** The baseline: the same rows through Kysely's multi-row VALUES, `perStatement` rows a statement. */
async function insertWithValues(
  tx: Kysely<Database>,
  target: BatchTarget,
  batches: OccurrenceBatch[],
  perStatement: number,
): Promise<void> {
  for (const batch of batches) {
    for (let start = 0; start < batch.size; start += perStatement) {
      const values = [];
      for (let i = start; i < Math.min(start + perStatement, batch.size); i += 1)
        values.push(valuesRow(target, batch, i));
      await tx.insertInto("occurrences").values(values).execute();
    }
  }
}

function valuesRow(target: BatchTarget, batch: OccurrenceBatch, i: number) {
  return {
    key: newOrderedRowKey(),
    check_id: target.checkId,
    issue_id: batch.issueIds[i]!,
    artifact_id: target.artifactId,
    path: batch.paths[i]!,
    begin_line: batch.beginLines[i]!,
    begin_column: batch.beginColumns[i]!,
    end_line: batch.endLines[i]!,
    end_column: batch.endColumns[i]!,
    title: batch.titles[i]!,
    fingerprint: batch.fingerprints[i]!,
    state: "INTRODUCED" as const,
    is_suppressed: batch.suppressed[i]!,
    severity: batch.severities[i]!,
  };
}

/** One INSERT per row, for the first `limit` rows. */
async function insertRowByRow(
  tx: Kysely<Database>,
  target: BatchTarget,
  batches: OccurrenceBatch[],
  limit: number,
): Promise<number> {
  let written = 0;
  for (const batch of batches) {
    for (let i = 0; i < batch.size && written < limit; i += 1, written += 1) {
      await tx
        .insertInto("occurrences")
        .values(valuesRow(target, batch, i))
        .execute();
    }
  }
  return written;
}

/** The columns every insert-only figure writes, in COPY's order. */
const COPY_COLUMNS =
  "key, check_id, issue_id, artifact_id, path, begin_line, begin_column, end_line, end_column, title, fingerprint, state, is_suppressed, severity";

/** A value in COPY's text format: backslash, tab, newline and carriage return escaped. */
function copyText(value: string): string {
  return value.replace(/[\\\t\n\r]/g, (c) =>
    c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r",
  );
}

/** The rows as COPY text lines, in chunks of about 1 MiB, made as COPY asks for them. */
function* copyChunks(target: BatchTarget, batches: OccurrenceBatch[]): Generator<string> {
  let chunk = "";
  for (const batch of batches) {
    for (let i = 0; i < batch.size; i += 1) {
      chunk += `${newOrderedRowKey()}\t${target.checkId}\t${batch.issueIds[i]}\t${target.artifactId}\t${copyText(batch.paths[i]!)}\t${batch.beginLines[i]}\t${batch.beginColumns[i]}\t${batch.endLines[i]}\t${batch.endColumns[i]}\t${copyText(batch.titles[i]!)}\t${copyText(batch.fingerprints[i]!)}\tINTRODUCED\t${batch.suppressed[i] ? "t" : "f"}\t${batch.severities[i]}\n`;
      if (chunk.length >= 2 ** 20) {
        yield chunk;
        chunk = "";
      }
    }
  }
  if (chunk !== "") yield chunk;
}

/**
 * `COPY table FROM STDIN` of the rows in one transaction on a connection of its own, measured as
 * {@link measure} measures: wall time, this process's CPU, its backend's CPU, everyone else's.
 */
async function measureCopy(
  databaseUrl: string,
  label: string,
  table: string,
  target: BatchTarget,
  batches: OccurrenceBatch[],
): Promise<Figure> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const before = snapshotCpu();
    const node = process.cpuUsage();
    const started = performance.now();
    await client.query("BEGIN");
    const pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
    const backendBefore = postgresCpuSeconds(pid);
    const copy = client.query(copyFrom(`COPY ${table} (${COPY_COLUMNS}) FROM STDIN`));
    await pipeline(Readable.from(copyChunks(target, batches)), copy);
    await client.query("COMMIT");
    const seconds = (performance.now() - started) / 1000;
    const nodeUsage = process.cpuUsage(node);
    const backendAfter = postgresCpuSeconds(pid);
    const databaseCpu =
      backendBefore !== undefined && backendAfter !== undefined ? backendAfter - backendBefore : undefined;
    const others = otherCpuCores(before, snapshotCpu(), seconds, new Set());
    return {
      label,
      rows: copy.rowCount,
      seconds,
      nodeCpu: (nodeUsage.user + nodeUsage.system) / 1e6,
      databaseCpu,
      otherCores: others === undefined ? undefined : Math.max(0, others - (databaseCpu ?? 0) / seconds),
    };
  } finally {
    await client.end();
  }
}

/** The streaming reader alone over `file`, counting results: the ceiling for everything after it. */
async function measureReader(file: string): Promise<Figure> {
  const before = snapshotCpu();
  const node = process.cpuUsage();
  const started = performance.now();
  let results = 0;
  for await (const event of readSarif(fileChunks(file))) if (event.type === "result") results += 1;
  const seconds = (performance.now() - started) / 1000;
  const usage = process.cpuUsage(node);
  log(`reader: ${number.format(results / seconds)} results/s`);
  return {
    label: "reader alone (no database)",
    rows: results,
    seconds,
    nodeCpu: (usage.user + usage.system) / 1e6,
    databaseCpu: undefined,
    otherCores: otherCpuCores(before, snapshotCpu(), seconds, new Set()),
  };
}

/**
 * The look for the runs' working directories that processing does first when the artifact has a
 * workDir (findWorkingDirectories): a search for the key's bytes, and a scan when it is there.
 */
async function measureWorkingDirectories(file: string, workDir: string): Promise<Figure> {
  const before = snapshotCpu();
  const node = process.cpuUsage();
  const started = performance.now();
  const found = await findWorkingDirectories(() => fileChunks(file), workDir);
  const seconds = (performance.now() - started) / 1000;
  const usage = process.cpuUsage(node);
  log(`working directories: ${JSON.stringify([...found])} in ${seconds.toFixed(3)} s`);
  return {
    label: `working directories found first (${found.size === 0 ? "none named" : "one named"})`,
    rows: 0,
    seconds,
    nodeCpu: (usage.user + usage.system) / 1e6,
    databaseCpu: undefined,
    otherCores: otherCpuCores(before, snapshotCpu(), seconds, new Set()),
  };
}

/** `--reader-only`: the generated log through the reader alone, with no database at all. */
async function runReaderOnly(options: Options, cleanup: Cleanup): Promise<void> {
  const header = describeRun({
    tool: "bench/ingest.ts --reader-only",
    pinning: "none",
    settings: `${number.format(options.results)} generated SARIF results, read from a temp file in 1 MiB chunks${options.held > 0 ? `, into a table holding ${number.format(options.held)} earlier findings` : ""}`,
    services: [],
    busyBefore: undefined,
  });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "assay-bench-ingest-"));
  cleanup.add(`remove ${scratch}`, async () => fs.rmSync(scratch, { recursive: true, force: true }));
  const file = path.join(scratch, "generated.sarif");
  const bytes = await writeGeneratedSarif(file, {
    results: options.results,
    workingDirectory: options.workingDirectory,
  });
  const figure = await measureReader(file);
  const lookFirst = options.workDir === null ? null : await measureWorkingDirectories(file, options.workDir);
  const perResult = (seconds: number) => `${((seconds * 1e6) / options.results).toFixed(2)} µs/result`;
  const lookLine =
    lookFirst === null
      ? ""
      : `${lookFirst.label}: ${lookFirst.seconds.toFixed(3)} s, node CPU ${perResult(lookFirst.nodeCpu)}\n`;
  process.stdout.write(
    `${header.join("\n")}\nsarif:    ${(bytes / 2 ** 20).toFixed(0)} MiB, ${number.format(options.results)} results\n\n` +
      `${figure.label}: ${number.format(figure.rows)} results in ${figure.seconds.toFixed(2)} s, ${number.format(figure.rows / figure.seconds)} results/s, ` +
      `node CPU ${((figure.nodeCpu * 1e6) / figure.rows).toFixed(2)} µs/result, other CPU ${figure.otherCores?.toFixed(2) ?? "?"} cores\n${lookLine}`,
  );
}

async function runBench(options: Options, cleanup: Cleanup): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  if (!databaseUrl) log("DATABASE_URL is not set: measuring the embedded database.");
  const backend = databaseUrl ? "postgres" : "embedded";
  const services = databaseUrl ? [`PostgreSQL ${await postgresVersion(databaseUrl)} (same machine)`] : [];
  const header = describeRun({
    tool: "bench/ingest.ts",
    pinning: "none",
    settings: `${number.format(options.results)} generated SARIF results, read from a temp file in 1 MiB chunks${options.held > 0 ? `, into a table holding ${number.format(options.held)} earlier findings` : ""}${options.locale ? `, database locale ${options.locale}` : ""}`,
    services,
    busyBefore: undefined,
  });
  log(header.join("\n"));

  log(`\nseeding a fresh ${backend} database...`);
  if (options.locale && !databaseUrl) throw new Error("--locale is for PostgreSQL (set DATABASE_URL)");
  const bench = await createBenchDatabase(
    backend,
    databaseUrl,
    randomBytes(24).toString("hex"),
    cleanup,
    options.locale,
  );
  const handle = await openDatabase({
    databaseUrl: bench.databaseUrl,
    dataDir: bench.dataDir,
    // Two steps in flight, the statements around them, and the reader of the read-path figure.
    databasePoolSize: 4,
  });
  cleanup.add("close the database", () => handle.close());
  const db = handle.db;

  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "assay-bench-ingest-"));
  cleanup.add(`remove ${scratch}`, async () => fs.rmSync(scratch, { recursive: true, force: true }));
  const file = path.join(scratch, "generated.sarif");
  const bytes = await writeGeneratedSarif(file, {
    results: options.results,
    workingDirectory: options.workingDirectory,
  });
  log(
    `generated ${(bytes / 2 ** 20).toFixed(0)} MiB of SARIF with ${number.format(options.results)} results`,
  );

  const repository = await db.selectFrom("repositories").select(["id"]).limit(1).executeTakeFirstOrThrow();
  const analyzer = await aBenchAnalyzer(db, "bench", "Bench");
  const ids = {
    repositoryId: repository.id,
    analyzerId: analyzer.id,
    analyzer: analyzer.shortcode,
    workDir: options.workDir,
  };
  const figures: Figure[] = [];

  if (options.held > 0) {
    const started = performance.now();
    await holdEarlierFindings(db, ids, options.held);
    log(
      `the table holds ${number.format(options.held)} findings of an earlier report (${((performance.now() - started) / 1000).toFixed(1)} s to write)`,
    );
  }
  figures.push(await measureReader(file));

  // processSarif end to end, per batch size; the last run's rows feed the insert-only figures.
  const repositoryRow = await db
    .selectFrom("repositories")
    .selectAll()
    .where("id", "=", ids.repositoryId)
    .executeTakeFirstOrThrow();
  const processFile = async (
    label: string,
    batchSize: number,
    baseCheckId: string | null,
    into?: { artifact: ArtifactRow; checkId: string },
    source = file,
  ) => {
    const reportBytes = fs.statSync(source).size;
    const { artifact, checkId } = into
      ? {
          artifact: await anArtifactOf(db, ids, into.artifact.run_id, into.checkId, reportBytes),
          checkId: into.checkId,
        }
      : await aTarget(db, ids, reportBytes);
    const run = await db
      .selectFrom("analysis_runs")
      .selectAll()
      .where("id", "=", artifact.run_id)
      .executeTakeFirstOrThrow();
    const { value, figure } = await measure(
      db,
      label,
      (tx): Promise<ProcessResult> =>
        processSarif(
          {
            tx,
            artifact,
            repository: repositoryRow,
            run,
            check: { id: checkId, key: "", run_id: run.id, analyzer_id: ids.analyzerId },
            baseCheckId,
            text: () => fileChunks(source),
          },
          { batchSize },
        ),
      // Findings stored, or looked up and found already reported (the same report sent again).
      (result) => result.stored + (result.skipped.ALREADY_REPORTED ?? 0),
    );
    figures.push(figure);
    log(`${label}: ${number.format(figure.rows / figure.seconds)} occurrences/s (${JSON.stringify(value)})`);
    return { artifact, checkId };
  };
  // The worker's way: each batch a step of its own, one or two in flight.
  for (const inFlight of [1, 2]) {
    await emptyOccurrences(db, ids.analyzerId);
    const { artifact, checkId } = await aTarget(db, ids);
    const run = await db
      .selectFrom("analysis_runs")
      .selectAll()
      .where("id", "=", artifact.run_id)
      .executeTakeFirstOrThrow();
    const label = `processSarif in steps of ${number.format(OCCURRENCE_BATCH_SIZE)} (the worker's), ${inFlight} in flight`;
    const { value, figure } = await measureInSteps(
      db,
      backend === "postgres",
      label,
      (step) =>
        stageSarif(
          {
            tx: db,
            artifact,
            repository: repositoryRow,
            run,
            check: { id: checkId, key: "", run_id: run.id, analyzer_id: ids.analyzerId },
            baseCheckId: null,
            text: () => fileChunks(file),
          },
          step,
          { batchSize: OCCURRENCE_BATCH_SIZE, inFlight },
        ),
      (result) => result.stored,
    );
    figures.push(figure);
    log(`${label}: ${number.format(figure.rows / figure.seconds)} occurrences/s (${JSON.stringify(value)})`);
  }

  let last: { artifact: ArtifactRow; checkId: string } | undefined;
  for (const batchSize of options.batchSizes) {
    await emptyOccurrences(db, ids.analyzerId);
    last = await processFile(
      `processSarif end to end, batches of ${number.format(batchSize)}`,
      batchSize,
      null,
    );
  }

  // The read path: a page of findings read in a loop, first alone, then while a report is processed.
  const readCheck = await busiestCheck(db);
  const idleUntil = performance.now() + 3000;
  const idleReads = await readLatencies(db, readCheck, () => performance.now() > idleUntil);
  let processing = true;
  const reading = readLatencies(db, readCheck, () => !processing);
  await processFile(
    "processSarif end to end, while another connection reads in a loop",
    OCCURRENCE_BATCH_SIZE,
    null,
  ).finally(() => {
    processing = false;
  });
  const busyReads = await reading;
  const readPath = `read path (a page of a check's findings, one read after another on another connection): alone ${describeLatencies(idleReads)}; during processSarif ${describeLatencies(busyReads)}`;
  log(readPath);

  // The same report again as the next run's, against the last one: every finding EXISTING.
  const existing = await processFile(
    "processSarif end to end, against a base of the same findings (all EXISTING)",
    OCCURRENCE_BATCH_SIZE,
    last!.checkId,
  );

  // The same report once more into that check, as a CI job run again: every finding already
  // reported, looked up and not written.
  await processFile(
    "processSarif end to end, the same report again into the same check (all already reported)",
    OCCURRENCE_BATCH_SIZE,
    last!.checkId,
    existing,
  );

  // Another shard of the same build into that check: as many other findings, written against the
  // same base, into a check whose other findings were judged against it already.
  const shard = path.join(scratch, "shard.sarif");
  await writeGeneratedSarif(shard, {
    results: options.results,
    first: options.results,
    workingDirectory: options.workingDirectory,
  });
  await processFile(
    "processSarif end to end, another shard of as many other findings into that check (all INTRODUCED)",
    OCCURRENCE_BATCH_SIZE,
    last!.checkId,
    existing,
    shard,
  );

  // A small shard into that check, now twice the report: what a publication costs beyond its own
  // rows (statements over the whole check) is most of its time.
  const small = path.join(scratch, "small-shard.sarif");
  await writeGeneratedSarif(small, {
    results: Math.max(1, Math.round(options.results / 100)),
    first: 2 * options.results,
    workingDirectory: options.workingDirectory,
  });
  await processFile(
    "processSarif end to end, a shard of a hundredth as many other findings into that check (all INTRODUCED)",
    OCCURRENCE_BATCH_SIZE,
    last!.checkId,
    existing,
    small,
  );

  // The insert alone, on the same rows: unnest (processSarif's statement) against VALUES.
  const batches = await storedBatches(db, last!.artifact.id, OCCURRENCE_BATCH_SIZE);
  const rows = batches.reduce((sum, b) => sum + b.size, 0);
  const insertOnly = async (
    label: string,
    write: (tx: Kysely<Database>, target: BatchTarget) => Promise<number>,
  ) => {
    await emptyOccurrences(db, ids.analyzerId);
    const { artifact, checkId } = await aTarget(db, ids);
    const target = { checkId, artifactId: artifact.id, baseCheckId: null };
    const { figure } = await measure(
      db,
      label,
      (tx) => write(tx, target),
      (written) => written,
    );
    figures.push(figure);
    log(`${label}: ${number.format(figure.rows / figure.seconds)} rows/s`);
    return figure;
  };
  await insertOnly(
    `insert only: unnest, batches of ${number.format(OCCURRENCE_BATCH_SIZE)}`,
    async (tx, target) => {
      for (const batch of batches) await insertOccurrenceBatch(tx, target, batch);
      return rows;
    },
  );
  const baseline = await insertOnly(
    "insert only: multi-row VALUES, 1,000 rows a statement (baseline)",
    async (tx, target) => {
      await insertWithValues(tx, target, batches, 1000);
      return rows;
    },
  );
  await insertOnly(
    `insert only: one INSERT per row (first ${number.format(options.rowByRow)} rows)`,
    (tx, target) => insertRowByRow(tx, target, batches, options.rowByRow),
  );

  // COPY, the database's own bulk path: what the table, and the table without its indexes and
  // foreign keys, can take.
  let againstCopy =
    "COPY: measured on PostgreSQL only (the embedded database is reached through its own socket server)";
  if (bench.databaseUrl) {
    const copyInto = async (label: string, table: string) => {
      await emptyOccurrences(db, ids.analyzerId);
      const { artifact, checkId } = await aTarget(db, ids);
      const target = { checkId, artifactId: artifact.id, baseCheckId: null };
      const figure = await measureCopy(bench.databaseUrl!, label, table, target, batches);
      figures.push(figure);
      log(`${label}: ${number.format(figure.rows / figure.seconds)} rows/s`);
      return figure;
    };
    const { rows: shape } = await sql<{ indexes: number; foreignKeys: number }>`
      SELECT (SELECT count(*) FROM pg_indexes WHERE tablename = 'occurrences')::int AS indexes,
        (SELECT count(*) FROM pg_constraint WHERE conrelid = 'occurrences'::regclass AND contype = 'f')::int AS "foreignKeys"
    `.execute(db);
    const { indexes, foreignKeys } = shape[0]!;
    const real = await copyInto(
      `COPY into occurrences (its ${indexes} indexes and ${foreignKeys} foreign keys)`,
      "occurrences",
    );
    await sql`CREATE TABLE bench_occurrences_unindexed (LIKE occurrences INCLUDING DEFAULTS INCLUDING IDENTITY)`.execute(
      db,
    );
    const bare = await copyInto(
      "COPY into an unindexed copy of occurrences (no index, no foreign key)",
      "bench_occurrences_unindexed",
    );
    await sql`DROP TABLE bench_occurrences_unindexed`.execute(db);
    const endToEnd = figures.find(
      (f) => f.label === `processSarif end to end, batches of ${number.format(OCCURRENCE_BATCH_SIZE)}`,
    );
    const rate = (f: Figure) => f.rows / f.seconds;
    againstCopy = endToEnd
      ? `processSarif end to end, batches of ${number.format(OCCURRENCE_BATCH_SIZE)}: ${number.format(rate(endToEnd))} rows/s, ${(rate(endToEnd) / rate(real)).toFixed(2)}× COPY into the real table, ${(rate(endToEnd) / rate(bare)).toFixed(2)}× COPY into the unindexed one`
      : `COPY into the real table ${number.format(rate(real))} rows/s, into the unindexed one ${number.format(rate(bare))} rows/s`;
  }
  log(againstCopy);

  const peak = peakRssMiB();
  process.stdout.write(
    `\n${header.join("\n")}\nsarif:    ${(bytes / 2 ** 20).toFixed(0)} MiB, ${number.format(options.results)} results; backend ${backend}; peak RSS of this process ${peak === undefined ? "unknown" : `${peak.toFixed(0)} MiB`} (it also held ${number.format(rows)} rows for the insert-only figures)\n${readPath}\n\n${formatFigures(figures, baseline)}\n\n${againstCopy}\n`,
  );
}

async function main(): Promise<void> {
  let options: Options | undefined;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    log(`${describe(error)}\n\n${USAGE}`);
    process.exit(2);
  }
  if (!options) {
    process.stdout.write(USAGE);
    return;
  }
  const cleanup = new Cleanup();
  process.on("SIGINT", () => void cleanup.runAll().then(() => process.exit(130)));
  try {
    await (options.readerOnly ? runReaderOnly(options, cleanup) : runBench(options, cleanup));
  } catch (error) {
    log(`\nbenchmark failed: ${describe(error)}`);
    process.exitCode = 1;
  } finally {
    await cleanup.runAll();
  }
}

await main();
