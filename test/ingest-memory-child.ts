import fs from "node:fs";
import { openDatabase } from "../src/db/database.ts";
import { processInputOf } from "../src/ingestion/process-job.ts";
import { processSarif } from "../src/ingestion/sarif/process.ts";

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
  const started = performance.now();
  // The artifact's rows as the job reads them, but the text from the file: the file is the
  // artifact's bytes, and storing 200 MB first would only slow the test down.
  const result = await db.transaction().execute(async (tx) =>
    processSarif({
      ...(await processInputOf(tx, artifact, Number.MAX_SAFE_INTEGER)),
      text: () => fs.createReadStream(file, { highWaterMark: 1024 * 1024 }),
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify({ result, seconds, peakRssKb: peakRssKb() })}\n`);
} finally {
  await handle.close();
}
