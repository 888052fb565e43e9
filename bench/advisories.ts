/**
 * `node --import tsx bench/advisories.ts [--records N] [--components M]`: how long matching takes
 * against a large advisory set, on PostgreSQL (DATABASE_URL, a server whose `postgres` database can
 * create databases). In a fresh database it imports N generated OSV records (default 200,000) of
 * realistic shape, spread over the eight ecosystems with a long tail of packages (most packages
 * have one advisory, a few popular ones hundreds), one to three ranges each, some with
 * `last_affected`, some with explicit versions. Then it measures:
 *
 * - `matchScaCheck` of one SCA check of M components (default 5,000; a third of them packages
 *   with advisories), built directly in the database, several passes (the first writes every
 *   occurrence, the others find nothing changed);
 * - `processSbom` end to end on a generated CycloneDX document of M components (reading, planning,
 *   storing packages, versions and dependencies, the DDP value, matching), first as a run without
 *   a base, then as the next run whose base is that one, with a tenth of the versions changed.
 *
 * Each row prints this process's CPU time and the database's separately (the wall time on a shared
 * machine is noise): SQL ms is the time statements took as the client saw it, db CPU the
 * transaction's PostgreSQL backend's CPU from /proc. `--database NAME` imports into that database
 * the first time and reuses it after, so iterations skip the import; `--keep` leaves a generated
 * one. docs/advisories.md "Scale" and docs/benchmarks.md "Matching advisories" quote the figures.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { parseArgs } from "node:util";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import { migrateToLatest, openDatabase } from "../src/db/database.ts";
import type { Database, Ecosystem } from "../src/db/types.ts";
import type { ArtifactRow } from "../src/db/types-ingestion.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import { processSbom } from "../src/ingestion/sca/sbom-process.ts";
import { SCA_ANALYZER } from "../src/ingestion/types.ts";
import { ensureCatalog } from "../src/modules/catalog/catalog-data.ts";
import { importAdvisories, type RecordSource } from "../src/modules/dependencies/advisory-import.ts";
import { matchScaCheck } from "../src/modules/dependencies/advisory-matching.ts";

const USAGE = `Usage: DATABASE_URL=postgres://… node --import tsx bench/advisories.ts [options]

  --records N      generated OSV records to import, default 200000
  --components M   components of the SCA check and of each SBOM, default 5000
  --passes P       matchScaCheck passes, default 3
  --database NAME  use this database: import into it when it holds no advisories yet, keep it after
  --keep           keep the (generated) database after the run and print its name
  --statements     print each statement's time and SQL (120 characters) to stderr
  --help           this text
`;

const { values } = parseArgs({
  options: {
    records: { type: "string", default: "200000" },
    components: { type: "string", default: "5000" },
    passes: { type: "string", default: "3" },
    database: { type: "string" },
    keep: { type: "boolean", default: false },
    statements: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const RECORDS = Number(values.records);
const COMPONENTS = Number(values.components);
const PASSES = Number(values.passes);
const base = process.env.DATABASE_URL;
if (!base) {
  process.stderr.write("bench/advisories.ts needs DATABASE_URL (PostgreSQL)\n");
  process.exit(2);
}

const ECOSYSTEMS: [Ecosystem, string, string][] = [
  ["NPM", "npm", "npm"],
  ["PYPI", "PyPI", "pypi"],
  ["MAVEN", "Maven", "maven"],
  ["GO", "Go", "golang"],
  ["RUBYGEMS", "RubyGems", "gem"],
  ["NUGET", "NuGet", "nuget"],
  ["PACKAGIST", "Packagist", "composer"],
  ["CRATES_IO", "crates.io", "cargo"],
];

let seed = 42;
const rand = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
};
const int = (n: number) => Math.floor(rand() * n);

function packageName(ecosystem: Ecosystem, i: number): string {
  if (ecosystem === "MAVEN") return `org.example${i % 97}:artifact-${i}`;
  if (ecosystem === "GO") return `github.com/example${i % 89}/module-${i}`;
  if (ecosystem === "PACKAGIST") return `vendor${i % 83}/package-${i}`;
  return `package-${i}`;
}

const PACKAGES_PER_ECOSYSTEM = 40_000;

/** A package index with a long tail: low indexes (popular packages) get many advisories. */
const pickPackage = () => Math.floor(PACKAGES_PER_ECOSYSTEM * rand() ** 3);

function version(ecosystem: Ecosystem, major: number, minor: number, patch: number): string {
  const core = `${major}.${minor}.${patch}`;
  return ecosystem === "GO" ? `v${core}` : core;
}

function* records(): Generator<RecordSource> {
  for (let n = 0; n < RECORDS; n++) {
    const [ecosystem, osvName] = ECOSYSTEMS[n % ECOSYSTEMS.length]!;
    const name = packageName(ecosystem, pickPackage());
    const ranges = [];
    for (let r = 0, count = 1 + int(3); r < count; r++) {
      const major = r * 2 + int(2);
      const fixedMinor = 1 + int(9);
      ranges.push({
        type: "ECOSYSTEM",
        events:
          rand() < 0.1
            ? [
                { introduced: version(ecosystem, major, 0, 0) },
                { last_affected: version(ecosystem, major, fixedMinor, 3) },
              ]
            : [
                { introduced: r === 0 && rand() < 0.5 ? "0" : version(ecosystem, major, 0, 0) },
                { fixed: version(ecosystem, major, fixedMinor, int(5)) },
              ],
      });
    }
    const record = {
      schema_version: "1.6.0",
      id: `BENCH-${n}`,
      modified: "2026-01-01T00:00:00Z",
      published: "2025-06-01T00:00:00Z",
      aliases: [`CVE-2025-${100_000 + n}`],
      summary: `Generated advisory ${n}`,
      details: "A generated advisory for the matching benchmark.",
      severity: [{ type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" }],
      affected: [
        {
          package: { ecosystem: osvName, name },
          ranges,
          versions: rand() < 0.2 ? [version(ecosystem, 0, 9, 9)] : [],
        },
      ],
      references: [{ type: "ADVISORY", url: `https://example.test/advisories/${n}` }],
    };
    yield { name: `BENCH-${n}.json`, text: JSON.stringify(record) };
  }
}

/** One component of a generated dependency list. */
interface Component {
  ecosystem: Ecosystem;
  purlType: string;
  name: string;
  version: string;
}

/**
 * `count` components over the eight ecosystems: a third are packages advisories name (popular ones
 * more often), the rest have none. The same `componentSeed` gives the same list, whatever the
 * import drew before.
 */
function components(count: number, componentSeed: number): Component[] {
  seed = componentSeed;
  const list: Component[] = [];
  for (let i = 0; i < count; i++) {
    const [ecosystem, , purlType] = ECOSYSTEMS[i % ECOSYSTEMS.length]!;
    const index = i % 3 === 0 ? pickPackage() : PACKAGES_PER_ECOSYSTEM + i;
    list.push({
      ecosystem,
      purlType,
      name: packageName(ecosystem, index),
      version: version(ecosystem, int(5), int(12), int(6)),
    });
  }
  return list;
}

/** The same list with about a tenth of the versions changed: the next commit's dependencies. */
function nextCommit(list: readonly Component[]): Component[] {
  return list.map((c) =>
    rand() < 0.1 ? { ...c, version: version(c.ecosystem, int(5), int(12), int(6)) } : c,
  );
}

function purlOf(c: Component): string {
  const slash = c.ecosystem === "MAVEN" ? c.name.replace(":", "/") : c.name;
  return `pkg:${c.purlType}/${slash}@${c.version}`;
}

/** A CycloneDX 1.5 JSON document listing `list`. */
function cycloneDx(list: readonly Component[]): string {
  return JSON.stringify({
    bomFormat: "CycloneDX",
    specVersion: "1.5",
    version: 1,
    metadata: { component: { "bom-ref": "root", type: "application", name: "bench", version: "1.0.0" } },
    components: list.map((c) => ({
      "bom-ref": purlOf(c),
      type: "library",
      name: c.name,
      version: c.version,
      purl: purlOf(c),
    })),
  });
}

async function adminQuery(statement: string): Promise<void> {
  const url = new URL(base!);
  url.pathname = "/postgres";
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

const TICKS_PER_SECOND =
  Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout?.trim()) || 100;

/** A PostgreSQL backend's CPU seconds so far, from /proc; undefined where it cannot be read. */
function backendCpuSeconds(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** What statements took, as the client saw them (set by the database's `onQuery`). */
const statements = { count: 0, ms: 0 };

interface Figure {
  label: string;
  candidates: number;
  occurrences: number;
  statements: number;
  sqlMs: number;
  cpuMs: number;
  dbCpuMs: number | undefined;
  wallMs: number;
}

/** Runs `work` in one transaction and measures it. */
async function measure(
  db: Kysely<Database>,
  label: string,
  work: (tx: Kysely<Database>) => Promise<{ scaCheckId: string; occurrences: number }>,
): Promise<Figure> {
  let dbCpuMs: number | undefined;
  const startStatements = { ...statements };
  const cpu = process.cpuUsage();
  const started = performance.now();
  const outcome = await db.transaction().execute(async (tx) => {
    const pid = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx)).rows[0]!.pid;
    const before = backendCpuSeconds(pid);
    const value = await work(tx);
    const after = backendCpuSeconds(pid);
    if (before !== undefined && after !== undefined) dbCpuMs = (after - before) * 1000;
    return value;
  });
  const wallMs = performance.now() - started;
  const usage = process.cpuUsage(cpu);
  return {
    label,
    candidates: await countCandidates(db, outcome.scaCheckId),
    occurrences: outcome.occurrences,
    statements: statements.count - startStatements.count,
    sqlMs: statements.ms - startStatements.ms,
    cpuMs: (usage.user + usage.system) / 1000,
    dbCpuMs,
    wallMs,
  };
}

/**
 * The affected-package rows of the packages of an SCA check and of its base: what matching has to
 * consider, whatever it reads (the generated names are already in normal form).
 */
async function countCandidates(db: Kysely<Database>, scaCheckId: string): Promise<number> {
  const { rows } = await sql<{ count: string }>`
    WITH c AS (
      SELECT c.id FROM sca_checks AS c WHERE c.id = ${scaCheckId}
      UNION
      SELECT b.id FROM sca_checks AS c
      JOIN analysis_runs AS r ON r.id = c.run_id
      JOIN sca_checks AS b ON b.run_id = r.base_run_id AND b.target_id IS NOT DISTINCT FROM c.target_id
      WHERE c.id = ${scaCheckId}
    ), p AS (
      SELECT DISTINCT p.ecosystem, p.name FROM c
      JOIN sca_check_dependencies AS d ON d.sca_check_id = c.id
      JOIN package_versions AS pv ON pv.id = d.package_version_id
      JOIN packages AS p ON p.id = pv.package_id
    )
    SELECT count(*) AS count FROM p JOIN advisory_packages AS ap ON ap.ecosystem = p.ecosystem AND ap.name = p.name
  `.execute(db);
  return Number(rows[0]!.count);
}

const number = new Intl.NumberFormat("en-GB");

function printFigures(figures: readonly Figure[]): void {
  const header = ["", "candidates", "occurrences", "statements", "SQL ms", "CPU ms", "db CPU ms", "wall ms"];
  const rows = figures.map((f) => [
    f.label,
    number.format(f.candidates),
    number.format(f.occurrences),
    number.format(f.statements),
    number.format(Math.round(f.sqlMs)),
    number.format(Math.round(f.cpuMs)),
    f.dbCpuMs === undefined ? "?" : number.format(Math.round(f.dbCpuMs)),
    number.format(Math.round(f.wallMs)),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  process.stdout.write(`${line(header)}\n${rows.map(line).join("\n")}\n`);
}

/** A repository of a new account, for one measurement. */
async function aRepository(db: Kysely<Database>) {
  const account = await db
    .insertInto("accounts")
    .values({
      key: newRowKey(),
      login: `bench-${randomBytes(4).toString("hex")}`,
      vcs_provider: "GITHUB",
      type: "TEAM",
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return db
    .insertInto("repositories")
    .values({ key: newRowKey(), account_id: account.id, name: "bench", default_branch: "main" })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A run of `repositoryId` (its base `baseRunId`), with its `sca` check and an SBOM artifact. */
async function aRun(db: Kysely<Database>, repositoryId: string, baseRunId: string | null) {
  const run = await db
    .insertInto("analysis_runs")
    .values({
      key: newRowKey(),
      run_uid: crypto.randomUUID(),
      repository_id: repositoryId,
      branch_name: "main",
      commit_oid: randomBytes(20).toString("hex"),
      status: "PENDING",
      base_run_id: baseRunId,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const analyzer = await db
    .selectFrom("analyzers")
    .select("id")
    .where("shortcode", "=", SCA_ANALYZER)
    .executeTakeFirstOrThrow();
  const check = await db
    .insertInto("checks")
    .values({ key: newRowKey(), run_id: run.id, analyzer_id: analyzer.id, sequence: 1, status: "PENDING" })
    .returningAll()
    .executeTakeFirstOrThrow();
  const artifact: ArtifactRow = await db
    .insertInto("artifacts")
    .values({
      key: newRowKey(),
      repository_id: repositoryId,
      run_id: run.id,
      check_id: check.id,
      kind: "SBOM",
      analyzer: SCA_ANALYZER,
      reporter: "bench",
      compression: "NONE",
      stored_bytes: 0,
      content_sha256: randomBytes(32),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { run, check, artifact };
}

/** An SCA check of `list` built directly in the database (no SBOM), for `matchScaCheck` alone. */
async function aScaCheck(db: Kysely<Database>, list: readonly Component[]): Promise<string> {
  const repository = await aRepository(db);
  const { run } = await aRun(db, repository.id, null);
  const target = await db
    .insertInto("repository_targets")
    .values({
      key: newRowKey(),
      repository_id: repository.id,
      ecosystem: "NPM",
      package_manager: "NPM",
      lockfile_path: "package-lock.json",
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const check = await db
    .insertInto("sca_checks")
    .values({ key: newRowKey(), run_id: run.id, target_id: target.id })
    .returning("id")
    .executeTakeFirstOrThrow();
  const versionIds = new Set<string>();
  for (const c of list) {
    const pkg = await db
      .insertInto("packages")
      .values({ key: newRowKey(), ecosystem: c.ecosystem, name: c.name })
      .onConflict((oc) =>
        oc.columns(["ecosystem", "name"]).doUpdateSet({ key: (eb) => eb.ref("packages.key") }),
      )
      .returning("id")
      .executeTakeFirstOrThrow();
    const pv = await db
      .insertInto("package_versions")
      .values({ key: newRowKey(), package_id: pkg.id, version: c.version, version_type: "ECOSYSTEM" })
      .onConflict((oc) =>
        oc.columns(["package_id", "version"]).doUpdateSet({ key: (eb) => eb.ref("package_versions.key") }),
      )
      .returning("id")
      .executeTakeFirstOrThrow();
    versionIds.add(pv.id);
  }
  await db
    .insertInto("sca_check_dependencies")
    .values(
      [...versionIds].map((id) => ({
        sca_check_id: check.id,
        target_id: target.id,
        package_version_id: id,
        is_direct: true,
      })),
    )
    .execute();
  return check.id;
}

async function* bytesOf(text: string): AsyncIterable<Uint8Array> {
  yield Buffer.from(text);
}

/** Processes `document` as the SBOM of a new run of `repository` (base `baseRunId`). */
async function processDocument(
  tx: Kysely<Database>,
  repository: Awaited<ReturnType<typeof aRepository>>,
  { run, check, artifact }: Awaited<ReturnType<typeof aRun>>,
  document: string,
): Promise<{ scaCheckId: string; occurrences: number }> {
  const result = await processSbom({
    tx,
    artifact,
    repository,
    run,
    check,
    baseCheckId: null,
    text: () => bytesOf(document),
  });
  const scaCheck = await tx
    .selectFrom("sca_checks")
    .select("id")
    .where("run_id", "=", run.id)
    .executeTakeFirstOrThrow();
  const { counts } = result;
  return {
    scaCheckId: scaCheck.id,
    occurrences:
      (counts.vulnerabilitiesIntroduced ?? 0) +
      (counts.vulnerabilitiesExisting ?? 0) +
      (counts.vulnerabilitiesResolved ?? 0),
  };
}

const reused = values.database !== undefined;
const name = values.database ?? `assay_bench_osv_${randomBytes(4).toString("hex")}`;
await adminQuery(`CREATE DATABASE ${name}`).catch((error: unknown) => {
  // 42P04: the database named by --database exists already; it is reused.
  if (!(reused && (error as { code?: string }).code === "42P04")) throw error;
});
const url = new URL(base);
url.pathname = `/${name}`;
const handle = await openDatabase(
  { databaseUrl: url.toString(), dataDir: "/nonexistent", databasePoolSize: 4 },
  {
    onQuery: (sqlText, ms) => {
      if (values.statements)
        process.stderr.write(`${ms.toFixed(1)} ms  ${sqlText.replace(/\s+/g, " ").slice(0, 120)}\n`);
      statements.count += 1;
      statements.ms += ms;
    },
  },
);
try {
  const { db } = handle;
  await migrateToLatest(db);
  await ensureCatalog(db);
  const { rows } = await sql<{ count: string }>`SELECT count(*) AS count FROM vulnerabilities`.execute(db);
  if (Number(rows[0]!.count) === 0) {
    const started = Date.now();
    const summary = await importAdvisories(db, records(), { rematch: false });
    process.stdout.write(
      `imported ${summary.imported} generated records in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
    await sql`ANALYZE`.execute(db);
  } else {
    process.stdout.write(`database ${name} already holds ${rows[0]!.count} advisories\n`);
  }
  const list = components(COMPONENTS, 7);
  const next = nextCommit(list);
  const figures: Figure[] = [];

  const scaCheckId = await aScaCheck(db, list);
  await sql`ANALYZE`.execute(db);
  for (let pass = 1; pass <= PASSES; pass++) {
    figures.push(
      await measure(db, `matchScaCheck, pass ${pass}`, async (tx) => {
        const outcome = await matchScaCheck(tx, scaCheckId);
        if (!outcome) throw new Error(`SCA check ${scaCheckId} disappeared`);
        return { scaCheckId, occurrences: outcome.introduced + outcome.existing + outcome.resolved };
      }),
    );
  }

  const repository = await aRepository(db);
  const first = await aRun(db, repository.id, null);
  const second = await aRun(db, repository.id, first.run.id);
  const documents = [cycloneDx(list), cycloneDx(next)] as const;
  figures.push(
    await measure(db, "processSbom, no base", (tx) => processDocument(tx, repository, first, documents[0])),
    await measure(db, "processSbom, against its base", (tx) =>
      processDocument(tx, repository, second, documents[1]),
    ),
  );
  process.stdout.write(
    `${number.format(RECORDS)} records, ${number.format(COMPONENTS)} components (node ${process.version})\n`,
  );
  printFigures(figures);
} finally {
  await handle.close();
  if (values.keep || reused) process.stdout.write(`kept database ${name}\n`);
  else await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
