import fs from "node:fs";
import { openDatabase } from "../src/db/database.ts";
import { processSarif } from "../src/ingestion/sarif-process.ts";

/**
 * The child process of test/ingest-memory.test.ts: processes one SARIF file as the stored bytes
 * of artifact `artifactId` (no base check), reading it in 1 MiB chunks, and prints one JSON line
 * with the counts, the seconds taken and its peak resident memory (`VmHWM`).
 *
 * Usage: node --import tsx test/ingest-memory-child.ts FILE ARTIFACT_ID
 * with DATABASE_URL (PostgreSQL) or ASSAY_DATA_DIR (an embedded database another process serves).
 */

const [file, artifactId] = process.argv.slice(2);
if (!file || !artifactId) throw new Error("usage: ingest-memory-child.ts FILE ARTIFACT_ID");

/** This process's peak resident memory in kB, from /proc/self/status. */
function peakRssKb(): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync("/proc/self/status", "utf8"));
  if (!match) throw new Error("VmHWM is missing from /proc/self/status");
  return Number(match[1]);
}

const handle = await openDatabase({
  databaseUrl: process.env.DATABASE_URL || undefined,
  dataDir: process.env.ASSAY_DATA_DIR ?? "",
  databasePoolSize: 2,
});
try {
  const db = handle.db;
  const artifact = await db
    .selectFrom("artifacts")
    .selectAll()
    .where("id", "=", artifactId)
    .executeTakeFirstOrThrow();
  const run = await db
    .selectFrom("analysis_runs")
    .selectAll()
    .where("id", "=", artifact.run_id)
    .executeTakeFirstOrThrow();
  const repository = await db
    .selectFrom("repositories")
    .selectAll()
    .where("id", "=", artifact.repository_id)
    .executeTakeFirstOrThrow();
  const check = await db
    .selectFrom("checks")
    .select(["id", "key", "run_id", "analyzer_id"])
    .where("id", "=", artifact.check_id)
    .executeTakeFirstOrThrow();
  const started = performance.now();
  const result = await db.transaction().execute((tx) =>
    processSarif({
      tx,
      artifact,
      repository,
      run,
      check,
      baseCheckId: null,
      text: () => fs.createReadStream(file, { highWaterMark: 1024 * 1024 }),
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify({ result, seconds, peakRssKb: peakRssKb() })}\n`);
} finally {
  await handle.close();
}
