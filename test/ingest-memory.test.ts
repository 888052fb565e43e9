// test-runner: execution-mode independent (SARIF processing in a child process, no GraphQL)
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, it } from "node:test";
import { promisify } from "node:util";
import { type DatabaseHandle, openDatabase } from "../src/db/database.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import type { ProcessResult } from "../src/ingestion/types.ts";
import { anAccount, aRepository, aRun } from "./helpers/builders.ts";
import { anAnalyzer } from "./helpers/builders-catalog.ts";
import { aCheck } from "./helpers/builders-checks.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/database.ts";
import { writeGeneratedSarif } from "./helpers/generated-sarif.ts";

/**
 * Processing a 200 MB SARIF artifact of 500,000 results keeps memory bounded: a child process
 * (test/ingest-memory-child.ts) reads the file in chunks and stores every result, and its peak
 * resident memory stays under 512 MB (docs/ingestion.md, docs/benchmarks.md "Ingestion").
 */

const RESULTS = 500_000;
const MAX_PEAK_RSS_KB = 512 * 1024;

const execFileAsync = promisify(execFile);
let testDb: TestDatabase;
let handle: DatabaseHandle;
let scratch: string;

before(async () => {
  testDb = await createTestDatabase();
  // Opened here first, so the child joins the embedded database this process serves.
  handle = await openDatabase({
    databaseUrl: testDb.databaseUrl,
    dataDir: testDb.dataDir,
    databasePoolSize: 2,
  });
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "assay-ingest-memory-"));
});

after(async () => {
  await handle.close();
  await testDb.drop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

it("stores 500,000 results of a 200 MB SARIF file with a peak RSS under 512 MB", async () => {
  const db = handle.db;
  const repository = await aRepository(db, await anAccount(db));
  const analyzer = await anAnalyzer(db, { type: "COMMUNITY" });
  const run = await aRun(db, repository, { status: "PENDING" });
  const check = await aCheck(db, run, analyzer, { status: "PENDING", finishedAt: null });
  const file = path.join(scratch, "large.sarif");
  const bytes = await writeGeneratedSarif(file, { results: RESULTS });
  assert.ok(bytes >= 190 * 1024 * 1024, `the generated log has ${bytes} bytes`);
  const artifact = await db
    .insertInto("artifacts")
    .values({
      key: newRowKey(),
      repository_id: repository.id,
      run_id: run.id,
      check_id: check.id,
      kind: "SARIF",
      analyzer: analyzer.shortcode,
      analyzer_type: "community",
      reporter: "test",
      compression: "NONE",
      stored_bytes: bytes,
      content_sha256: randomBytes(32),
    })
    .returning("id")
    .executeTakeFirstOrThrow();

  const env: NodeJS.ProcessEnv = { ...process.env, ASSAY_DATA_DIR: testDb.dataDir };
  delete env.DATABASE_URL;
  if (testDb.databaseUrl) env.DATABASE_URL = testDb.databaseUrl;
  const { stdout } = await execFileAsync(
    process.execPath,
    ["--import", "tsx", path.join(import.meta.dirname, "ingest-memory-child.ts"), file, artifact.id],
    { env, cwd: path.join(import.meta.dirname, ".."), maxBuffer: 1024 * 1024 },
  );
  const report = JSON.parse(stdout.trim().split("\n").at(-1)!) as {
    result: ProcessResult;
    seconds: number;
    peakRssKb: number;
  };
  console.log(
    `ingest memory: ${(bytes / 2 ** 20).toFixed(0)} MiB, ${report.result.stored} occurrences in ${report.seconds.toFixed(1)} s ` +
      `(${Math.round(report.result.stored / report.seconds)}/s), child peak RSS ${(report.peakRssKb / 1024).toFixed(0)} MiB`,
  );
  assert.equal(report.result.read, RESULTS);
  assert.equal(report.result.stored, RESULTS);
  assert.equal(report.result.counts.introduced, RESULTS);
  const stored = await db
    .selectFrom("occurrences")
    .select((eb) => [
      eb.fn.countAll<string>().as("rows"),
      eb.fn.count<string>("fingerprint").distinct().as("fingerprints"),
    ])
    .where("artifact_id", "=", artifact.id)
    .executeTakeFirstOrThrow();
  assert.equal(Number(stored.rows), RESULTS);
  assert.equal(Number(stored.fingerprints), RESULTS);
  assert.ok(
    report.peakRssKb < MAX_PEAK_RSS_KB,
    `the child's peak RSS was ${(report.peakRssKb / 1024).toFixed(0)} MiB`,
  );
});
