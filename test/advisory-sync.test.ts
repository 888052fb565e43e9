// test-runner: execution-mode independent (sync runs no GraphQL execution)
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { zipSync } from "fflate";
import { sql } from "kysely";
import { DownloadError, downloadExport, redirectTarget } from "../src/advisory-sync/download.ts";
import { type SourceOutcome, type SyncSettings, syncAdvisorySources } from "../src/advisory-sync/sync.ts";
import { ADVISORY_SYNC_JOB_KIND } from "../src/advisory-sync/sync-job.ts";
import type { ScaCheckRow } from "../src/db/types.ts";
import { anAccount, aRepository, aRun, aUser } from "./helpers/builders.ts";
import {
  anScaCheck,
  aPackage,
  aPackageVersion,
  aTarget,
  scaCheckDependencies,
} from "./helpers/builders-dependencies.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/database.ts";
import { startInstance, type TestInstance, waitFor } from "./helpers/instance.ts";
import { type ScriptedServer, startScriptedServer } from "./helpers/scripted-server.ts";
import { assayArgs } from "./helpers/start-command.ts";

/**
 * `advisories sync` (docs/advisories.md "Sync") against a local HTTP server that serves an OSV
 * export zipped from the real records in src/formats/osv/fixtures/, with ETags and 304s as a
 * bucket answers them.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURES = path.join(ROOT, "src/formats/osv/fixtures");
const LODASH = "GHSA-jf85-cpcp-j695";
const JINJA = "GHSA-h5c8-rqwp-cp95";
const NEWTONSOFT = "GHSA-5crp-9r3c-p9vr";
const SIX_HOURS_MS = 6 * 3_600_000;

type OsvRecord = Record<string, unknown>;

function record(id: string): OsvRecord {
  return JSON.parse(readFileSync(path.join(FIXTURES, `${id}.json`), "utf8")) as OsvRecord;
}

/** An export as OSV publishes it: one `<id>.json` per record at the top of the archive. */
function exportZip(records: readonly OsvRecord[]): Buffer {
  const entries: Record<string, Uint8Array> = {};
  for (const r of records) entries[`${String(r.id)}.json`] = new TextEncoder().encode(JSON.stringify(r));
  return Buffer.from(zipSync(entries));
}

/** One published version of an export. */
interface Published {
  body: Buffer;
  etag: string;
  lastModified: string;
  contentType?: string;
}

/** Answers like a bucket: 304 when the client's ETag is the current one, else the body. */
function serveExport(current: () => Published): ScriptedServer["respond"] {
  return (req, res) => {
    const published = current();
    const validators = { etag: published.etag, "last-modified": published.lastModified };
    if (req.headers["if-none-match"] === published.etag) {
      res.writeHead(304, validators);
      res.end();
      return;
    }
    res.writeHead(200, {
      ...validators,
      "content-type": published.contentType ?? "application/zip",
      "content-length": String(published.body.length),
    });
    res.end(published.body);
  };
}

function only<T>(list: readonly T[]): T {
  assert.equal(list.length, 1, `expected one item, got ${list.length}`);
  return list[0]!;
}

function assertImported(outcome: SourceOutcome): Extract<SourceOutcome, { status: "IMPORTED" }> {
  assert.equal(outcome.status, "IMPORTED", JSON.stringify(outcome));
  return outcome as Extract<SourceOutcome, { status: "IMPORTED" }>;
}

describe("advisory sync of configured export URLs", () => {
  let server: TestInstance;
  let osv: ScriptedServer;
  let published: Published;
  let check: ScaCheckRow;
  let url: string;
  const settings = (urls: string[], fields: Partial<SyncSettings> = {}): SyncSettings => ({
    urls,
    maxBytes: 1_048_576,
    allowPrivateNetworks: true,
    ...fields,
  });

  before(async () => {
    server = await startInstance();
    osv = await startScriptedServer();
    url = `${osv.url}/npm/all.zip`;
    published = {
      body: exportZip([record(LODASH), record(JINJA), record(NEWTONSOFT)]),
      etag: '"v1"',
      lastModified: "Mon, 23 Nov 2026 10:00:00 GMT",
    };
    osv.respond = serveExport(() => published);
    // The latest finished run of a repository depends on a vulnerable lodash.
    const team = await anAccount(server.db, {}, [{ user: await aUser(server.db), role: "ADMIN" }]);
    const repository = await aRepository(server.db, team);
    const target = await aTarget(server.db, repository, {
      ecosystem: "NPM",
      lockfilePath: "package-lock.json",
    });
    const lodash = await aPackage(server.db, { ecosystem: "NPM", name: "lodash" });
    check = await anScaCheck(server.db, await aRun(server.db, repository), { target });
    await scaCheckDependencies(server.db, check, target, [
      await aPackageVersion(server.db, lodash, { version: "4.17.11" }),
    ]);
  });
  after(async () => {
    await osv.stop();
    await server.stop();
  });

  const source = () =>
    server.db.selectFrom("advisory_sources").selectAll().where("url", "=", url).executeTakeFirstOrThrow();
  const occurrences = async () =>
    (
      await server.db
        .selectFrom("vulnerability_occurrences as vo")
        .innerJoin("vulnerabilities as v", "v.id", "vo.vulnerability_id")
        .select("v.identifier")
        .where("vo.sca_check_id", "=", check.id)
        .execute()
    ).map((r) => r.identifier);
  const vulnerability = (identifier: string) =>
    server.db
      .selectFrom("vulnerabilities")
      .select(["summary", "withdrawn_at", "source_modified"])
      .where("identifier", "=", identifier)
      .executeTakeFirstOrThrow();

  test("the first sync downloads and imports the export, records its ETag and Last-Modified, and matches the latest run", async () => {
    const outcome = assertImported(only(await syncAdvisorySources(server.db, settings([url]))));
    assert.equal(outcome.bytes, published.body.length);
    assert.equal(outcome.summary.read, 3);
    assert.equal(outcome.summary.imported, 3);
    assert.equal(outcome.summary.rematchedChecks, 1);
    const request = only(osv.captured);
    assert.equal(request.url, "/npm/all.zip");
    assert.equal(request.headers["if-none-match"], undefined);
    assert.equal(request.headers["if-modified-since"], undefined);
    assert.match(String(request.headers["user-agent"]), /^Assay-Advisory-Sync\//);

    const row = await source();
    assert.equal(row.status, "IMPORTED");
    assert.equal(row.etag, '"v1"');
    assert.equal(row.last_modified, published.lastModified);
    assert.equal(row.error, null);
    assert.equal(Number(row.downloaded_bytes), published.body.length);
    assert.ok(row.imported_at && row.checked_at);
    assert.equal((row.import_summary as { imported: number }).imported, 3);
    assert.deepEqual(await occurrences(), [LODASH]);
  });

  test("a second sync sends the stored validators, gets 304 and imports nothing", async () => {
    const before = await source();
    const outcome = only(await syncAdvisorySources(server.db, settings([url])));
    assert.deepEqual(outcome, { url, status: "NOT_MODIFIED" });
    const request = osv.captured.at(-1)!;
    assert.equal(request.headers["if-none-match"], '"v1"');
    assert.equal(request.headers["if-modified-since"], published.lastModified);
    const row = await source();
    assert.equal(row.status, "NOT_MODIFIED");
    assert.equal(row.etag, '"v1"');
    assert.deepEqual(row.imported_at, before.imported_at);
    assert.ok(row.checked_at! > before.checked_at!, "the check time moves on");
    assert.deepEqual(row.import_summary, before.import_summary);
  });

  test("a changed export updates the modified record, withdraws the withdrawn one, and its occurrence goes", async () => {
    const lodash = { ...record(LODASH), modified: "2026-11-20T00:00:00Z", withdrawn: "2026-11-20T00:00:00Z" };
    const jinja = { ...record(JINJA), modified: "2026-11-21T00:00:00Z", summary: "Jinja: xmlattr injection" };
    published = {
      body: exportZip([lodash, jinja, record(NEWTONSOFT)]),
      etag: '"v2"',
      lastModified: "Sat, 21 Nov 2026 00:00:00 GMT",
    };
    const outcome = assertImported(only(await syncAdvisorySources(server.db, settings([url]))));
    assert.equal(osv.captured.at(-1)!.headers["if-none-match"], '"v1"');
    assert.equal(outcome.summary.imported, 2);
    assert.equal(outcome.summary.withdrawn, 1);
    assert.equal(outcome.summary.unchanged, 1);
    assert.equal(outcome.summary.occurrencesRemoved, 1);
    assert.ok((await vulnerability(LODASH)).withdrawn_at);
    assert.equal((await vulnerability(JINJA)).summary, "Jinja: xmlattr injection");
    assert.deepEqual(await occurrences(), []);
    const row = await source();
    assert.equal(row.etag, '"v2"');
    assert.equal(row.last_modified, published.lastModified);
  });

  test("a server error is recorded as a failure without the body, keeping the last import's validators", async () => {
    osv.respond = (_req, res) => {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end("internal detail: bucket-key=s3cr3t");
    };
    try {
      const outcome = only(await syncAdvisorySources(server.db, settings([url])));
      assert.deepEqual(outcome, { url, status: "FAILED", error: "the server answered HTTP 500" });
      const row = await source();
      assert.equal(row.status, "FAILED");
      assert.equal(row.error, "the server answered HTTP 500");
      assert.equal(row.etag, '"v2"', "the next check still asks for what changed since the last import");
      assert.equal((row.import_summary as { imported: number }).imported, 2);
    } finally {
      osv.respond = serveExport(() => published);
    }
    // The next tick retries, and the export is the one imported last.
    assert.equal(only(await syncAdvisorySources(server.db, settings([url]))).status, "NOT_MODIFIED");
  });

  test("an export over the size limit is refused, declared or streamed, and nothing of it is imported", async () => {
    const newtonsoft = { ...record(NEWTONSOFT), modified: "2026-11-22T00:00:00Z", summary: "changed" };
    const body = exportZip([newtonsoft]);
    const limit = { maxBytes: body.length - 1 };
    const declaredUrl = `${osv.url}/declared/all.zip`;
    const streamedUrl = `${osv.url}/streamed/all.zip`;
    osv.respond = (req, res) => {
      if (req.url === "/declared/all.zip") {
        res.writeHead(200, { "content-type": "application/zip", "content-length": String(body.length) });
        res.end(body);
        return;
      }
      // No Content-Length: the size shows only while reading.
      res.writeHead(200, { "content-type": "application/zip" });
      res.write(body.subarray(0, 100));
      res.end(body.subarray(100));
    };
    try {
      const outcomes = await syncAdvisorySources(server.db, settings([declaredUrl, streamedUrl], limit));
      for (const outcome of outcomes) {
        assert.equal(outcome.status, "FAILED");
        assert.match(
          (outcome as { error: string }).error,
          new RegExp(`^the export is larger than ${limit.maxBytes} bytes`),
        );
      }
      assert.equal(outcomes.length, 2);
    } finally {
      osv.respond = serveExport(() => published);
    }
    assert.notEqual((await vulnerability(NEWTONSOFT)).summary, "changed");
    const rows = await server.db
      .selectFrom("advisory_sources")
      .select(["status", "etag", "imported_at"])
      .where("url", "in", [declaredUrl, streamedUrl])
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.status, r.etag, r.imported_at]),
      [
        ["FAILED", null, null],
        ["FAILED", null, null],
      ],
    );
  });

  test("a JSON array export behind a redirect imports; a body that is neither ZIP nor JSON fails naming its type", async () => {
    const pypi = { ...record(JINJA), modified: "2026-11-23T00:00:00Z", summary: "from a JSON export" };
    osv.respond = (req, res) => {
      if (req.url === "/moved.json") {
        res.writeHead(302, { location: "/records.json" });
        res.end();
      } else if (req.url === "/records.json") {
        res.writeHead(200, { "content-type": "application/json", etag: '"j1"' });
        res.end(JSON.stringify([pypi]));
      } else {
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<html>not an export</html>");
      }
    };
    try {
      const [json, html] = await syncAdvisorySources(
        server.db,
        settings([`${osv.url}/moved.json`, `${osv.url}/index.html`]),
      );
      assert.equal(assertImported(json!).summary.imported, 1);
      assert.equal((await vulnerability(JINJA)).summary, "from a JSON export");
      assert.deepEqual(html, {
        url: `${osv.url}/index.html`,
        status: "FAILED",
        error: "the export is neither a ZIP archive nor JSON (content type text/html)",
      });
    } finally {
      osv.respond = serveExport(() => published);
    }
  });

  test("a loopback address is refused unless private networks are allowed, and nothing is requested", async () => {
    const requests = osv.captured.length;
    const outcome = only(
      await syncAdvisorySources(
        server.db,
        settings([`${osv.url}/private/all.zip`], { allowPrivateNetworks: false }),
      ),
    );
    assert.equal(outcome.status, "FAILED");
    assert.match(
      (outcome as { error: string }).error,
      /^not fetched: 127\.0\.0\.1 resolves to 127\.0\.0\.1, a loopback \(127\.0\.0\.0\/8\) address \(set ASSAY_ADVISORY_SYNC_ALLOW_PRIVATE_NETWORKS=true/,
    );
    assert.equal(osv.captured.length, requests);
  });
});

describe("downloading an export", () => {
  let osv: ScriptedServer;
  let dir: string;
  before(async () => {
    osv = await startScriptedServer();
    dir = mkdtempSync(path.join(tmpdir(), "assay-download-"));
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await osv.stop();
  });
  const download = (url: string) =>
    downloadExport({
      url,
      etag: null,
      lastModified: null,
      maxBytes: 1_048_576,
      allowPrivateNetworks: true,
      file: path.join(dir, "export"),
      idleTimeoutMs: 200,
    });

  test("a server that stops sending in the middle of the body fails the download after the idle timeout", async () => {
    osv.respond = (_req, res) => {
      res.writeHead(200, { "content-length": "1000" });
      res.write(Buffer.alloc(10));
    };
    await assert.rejects(download(`${osv.url}/stalls.zip`), (error: unknown) => {
      assert.ok(error instanceof DownloadError);
      assert.equal(error.message, "the server was silent for 0.2 s");
      return true;
    });
  });

  test("redirects are followed at most five times and never down to plain http", async () => {
    osv.respond = (req, res) => {
      const hop = Number(req.url?.slice(1));
      res.writeHead(302, { location: `/${hop + 1}` });
      res.end();
    };
    const requests = osv.captured.length;
    await assert.rejects(download(`${osv.url}/0`), /^DownloadError: more than 5 redirects$/);
    assert.equal(osv.captured.length - requests, 6);
    osv.respond = (_req, res) => {
      res.writeHead(301, { location: "https://127.0.0.1:1/all.zip" });
      res.end();
    };
    // From http up to https is fine (here it finds nothing listening); the reverse is refused.
    await assert.rejects(download(`${osv.url}/up`), /^DownloadError: connection refused$/);
    const from = new URL("https://exports.example/npm/all.zip");
    assert.equal(redirectTarget(from, "/mirror/all.zip").href, "https://exports.example/mirror/all.zip");
    assert.throws(
      () => redirectTarget(from, "http://exports.example/all.zip"),
      /from https:\/\/ to plain http/,
    );
    assert.throws(() => redirectTarget(from, "file:///etc/passwd"), /a redirect to a file: URL/);
    assert.throws(() => redirectTarget(from, "https://u:p@exports.example/"), /user name or password/);
    assert.throws(() => redirectTarget(from, undefined), /without a Location header/);
  });
});

describe("the scheduled advisory sync job", () => {
  let first: TestInstance | undefined;
  let second: TestInstance | undefined;
  let osv: ScriptedServer;
  after(async () => {
    await second?.stop();
    await first?.stop();
    await osv.stop();
  });

  test("runs through the real worker once across two instances, then queues its next run an interval later", async () => {
    osv = await startScriptedServer();
    const url = `${osv.url}/npm/all.zip`;
    const published: Published = {
      body: exportZip([record(LODASH), record(JINJA), record(NEWTONSOFT)]),
      etag: '"s1"',
      lastModified: "Mon, 23 Nov 2026 10:00:00 GMT",
    };
    const answer = serveExport(() => published);
    // The first download is held until the second instance is up and has queued the job too.
    const held: Array<() => void> = [];
    osv.respond = (req, res) => held.push(() => answer(req, res, Buffer.alloc(0)));
    const env = {
      ASSAY_ADVISORY_SYNC_URLS: url,
      ASSAY_ADVISORY_SYNC_ALLOW_PRIVATE_NETWORKS: "true",
      ASSAY_WORKER_POLL_MS: "20",
    };
    first = await startInstance({ env });
    const db = first.db;
    const jobs = () =>
      db
        .selectFrom("jobs")
        .select([
          "id",
          "locked_by",
          "attempts",
          "updated_at",
          sql<number>`extract(epoch FROM run_at - now())::float8`.as("due_in"),
        ])
        .where("kind", "=", ADVISORY_SYNC_JOB_KIND)
        .execute();
    await waitFor("the first download", () => held.length === 1, 15_000);
    const [running] = await jobs();
    assert.ok(running?.locked_by, "the job is claimed while it downloads");

    second = await startInstance({ env, sameDatabaseAs: first });
    await waitFor("the second instance's schedule to queue the job", async () => {
      const rows = await jobs();
      return rows.length === 1 && rows[0]!.updated_at.getTime() !== running.updated_at.getTime();
    });
    assert.equal((await jobs()).length, 1, "one job however many workers schedule it");
    held.shift()!();

    await waitFor(
      "the sync to be recorded",
      async () =>
        (await db.selectFrom("advisory_sources").select("status").where("url", "=", url).executeTakeFirst())
          ?.status === "IMPORTED",
      15_000,
    );
    await waitFor("the job to be queued again", async () => (await jobs())[0]?.locked_by === null);
    const [next] = await jobs();
    assert.equal(next!.attempts, 0);
    assert.ok(
      next!.due_in > SIX_HOURS_MS / 1000 - 120 && next!.due_in <= SIX_HOURS_MS / 1000,
      `the next run is one interval away, not ${next!.due_in} s`,
    );
    // No other job is due, so no worker fetches again before the interval is over.
    assert.equal(osv.captured.length, 1);
    const imported = await db
      .selectFrom("vulnerabilities")
      .select("identifier")
      .orderBy("identifier")
      .execute();
    assert.deepEqual(
      imported.map((r) => r.identifier),
      [NEWTONSOFT, JINJA, LODASH].sort(),
    );

    // When the interval is over, a worker checks again, conditionally.
    osv.respond = answer;
    await db
      .updateTable("jobs")
      .set({ run_at: sql<Date>`now()` })
      .where("kind", "=", ADVISORY_SYNC_JOB_KIND)
      .execute();
    await waitFor(
      "the second check",
      async () =>
        (await db.selectFrom("advisory_sources").select("status").where("url", "=", url).executeTakeFirst())
          ?.status === "NOT_MODIFIED",
      15_000,
    );
    assert.equal(osv.captured.length, 2);
    assert.equal(osv.captured[1]!.headers["if-none-match"], '"s1"');
  });
});

describe("a worker stopping in the middle of a sync", () => {
  const instances: TestInstance[] = [];
  let osv: ScriptedServer;
  after(async () => {
    for (const instance of instances.reverse()) await instance.stop();
    await osv.stop();
  });

  test("gives the job back at once, and another instance's worker syncs", async () => {
    osv = await startScriptedServer();
    const url = `${osv.url}/npm/all.zip`;
    const answer = serveExport(() => ({
      body: exportZip([record(LODASH)]),
      etag: '"t1"',
      lastModified: "Mon, 23 Nov 2026 10:00:00 GMT",
    }));
    const closed: boolean[] = [];
    osv.respond = (_req, res) => {
      // Held: the worker that asked is stopped while it waits.
      const index = closed.push(false) - 1;
      res.on("close", () => {
        closed[index] = true;
      });
    };
    const env = {
      ASSAY_ADVISORY_SYNC_URLS: url,
      ASSAY_ADVISORY_SYNC_ALLOW_PRIVATE_NETWORKS: "true",
      ASSAY_WORKER_POLL_MS: "20",
      // Running jobs get no grace: stopping aborts the download at once.
      ASSAY_SHUTDOWN_TIMEOUT_SECONDS: "0",
    };
    // The database's owner runs no worker; the stopping instance is the only one at first.
    const owner = await startInstance({ env: { ASSAY_WORKER: "false" } });
    instances.push(owner);
    const stopping = await startInstance({ env, sameDatabaseAs: owner });
    instances.push(stopping);
    await waitFor("the first download", () => closed.length === 1, 15_000);
    const taker = await startInstance({ env, sameDatabaseAs: owner });
    instances.push(taker);
    osv.respond = answer;
    await stopping.stop();
    await waitFor("the held download to be aborted", () => closed[0] === true);
    await waitFor(
      "the other worker's sync",
      async () =>
        (
          await owner.db
            .selectFrom("advisory_sources")
            .select("status")
            .where("url", "=", url)
            .executeTakeFirst()
        )?.status === "IMPORTED",
      15_000,
    );
    assert.equal(osv.captured.length, 2);
    const job = () =>
      owner.db
        .selectFrom("jobs")
        .select(["locked_by", "last_error", "attempts"])
        .where("kind", "=", ADVISORY_SYNC_JOB_KIND)
        .executeTakeFirstOrThrow();
    // The sync is recorded before its job settles.
    await waitFor("the job to settle", async () => (await job()).locked_by === null);
    assert.deepEqual(await job(), { locked_by: null, last_error: null, attempts: 0 });
  });
});

describe("advisory sync turned off", () => {
  let instance: TestInstance;
  before(async () => {
    instance = await startInstance({ env: { ASSAY_WORKER_POLL_MS: "20" } });
  });
  after(() => instance.stop());

  test("queues no job, and a job left from when it was on ends without fetching anything", async () => {
    const count = async () =>
      (await instance.db.selectFrom("jobs").select("id").where("kind", "=", ADVISORY_SYNC_JOB_KIND).execute())
        .length;
    assert.equal(await count(), 0);
    await instance.db
      .insertInto("jobs")
      .values({ kind: ADVISORY_SYNC_JOB_KIND, payload: "{}", dedupe_key: ADVISORY_SYNC_JOB_KIND })
      .execute();
    await waitFor("the leftover job to end", async () => (await count()) === 0);
    const sources = await instance.db.selectFrom("advisory_sources").select("url").execute();
    assert.deepEqual(sources, []);
  });
});

describe("assay advisories sync / sources", () => {
  let database: TestDatabase;
  let osv: ScriptedServer;
  let published: Published;
  before(async () => {
    database = await createTestDatabase();
    osv = await startScriptedServer();
    published = {
      body: exportZip([record(LODASH)]),
      etag: '"c1"',
      lastModified: "Mon, 23 Nov 2026 10:00:00 GMT",
    };
    osv.respond = serveExport(() => published);
  });
  after(async () => {
    await osv.stop();
    await database.drop();
  });

  async function runCli(args: string[], env: Record<string, string>) {
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      ASSAY_DATA_DIR: database.dataDir,
      ASSAY_TOKEN_PEPPER: "cli-test-pepper-0123456789abcdef",
      LOG_LEVEL: "silent",
      ...env,
    };
    delete childEnv.NODE_TEST_CONTEXT;
    if (database.databaseUrl) childEnv.DATABASE_URL = database.databaseUrl;
    else delete childEnv.DATABASE_URL;
    // Asynchronously: the export server lives in this process and must keep answering.
    const child = spawn(process.execPath, assayArgs(...args), {
      cwd: ROOT,
      env: childEnv,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
    return { status, stdout, stderr };
  }

  test("prints one line per URL: imported, then not modified, and failures exit 1 naming the reason", async () => {
    const good = `${osv.url}/npm/all.zip?X-Signature=s3cr3t`;
    const bad = `${osv.url}/gone/all.zip`;
    const env = { ASSAY_ADVISORY_SYNC_URLS: good, ASSAY_ADVISORY_SYNC_ALLOW_PRIVATE_NETWORKS: "true" };
    const first = await runCli(["advisories", "sync"], env);
    assert.equal(first.status, 0, first.stderr);
    assert.match(
      first.stdout,
      new RegExp(
        `^${osv.url}/npm/all\\.zip\\?…: imported ${published.body.length} bytes; 1 read: 1 records imported`,
        "m",
      ),
    );
    const again = await runCli(["advisories", "sync"], env);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout, `${osv.url}/npm/all.zip?…: not modified\n`);

    osv.respond = (req, res) => {
      if (req.url === "/gone/all.zip") {
        res.writeHead(404);
        res.end();
      } else serveExport(() => published)(req, res, Buffer.alloc(0));
    };
    const failing = await runCli(["advisories", "sync"], {
      ...env,
      ASSAY_ADVISORY_SYNC_URLS: `${good},${bad}`,
    });
    assert.equal(failing.status, 1);
    assert.equal(
      failing.stdout,
      `${osv.url}/npm/all.zip?…: not modified\n${bad}: failed: the server answered HTTP 404\n`,
    );
    assert.match(failing.stderr, /^error: 1 of 2 export URL\(s\) failed to sync$/m);
    assert.doesNotMatch(failing.stderr + failing.stdout, /s3cr3t|^\s+at /m);

    const sources = await runCli(["advisories", "sources"], {});
    assert.equal(sources.status, 0, sources.stderr);
    assert.match(sources.stdout, /^ {2}status: {8}FAILED: the server answered HTTP 404$/m);
    assert.match(sources.stdout, /^ {2}etag: {10}"c1"$/m);
    assert.doesNotMatch(sources.stdout, /s3cr3t/);
  });

  test("without a configured URL the command says what to set", async () => {
    const result = await runCli(["advisories", "sync"], {});
    assert.equal(result.status, 1);
    assert.equal(result.stdout, "");
    assert.match(result.stderr, /^error: no export URL is configured: set ASSAY_ADVISORY_SYNC_URLS/m);
  });
});
