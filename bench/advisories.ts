/**
 * `node --import tsx bench/advisories.ts [--records N] [--components N]`: how long matching one
 * SCA check takes against a large advisory set, on PostgreSQL (DATABASE_URL, a server whose
 * `postgres` database can create databases). In a fresh database it imports N generated OSV
 * records (default 200,000) of realistic shape, spread over the eight ecosystems with a long tail
 * of packages (most packages have one advisory, a few popular ones dozens), one to three ranges
 * each, some with `last_affected`, some with explicit versions; then builds one SCA check with M
 * components (default 5,000), a third of them packages with advisories, and times `matchScaCheck`
 * (three times; the first also pays the cold cache). docs/advisories.md quotes the result.
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import pg from "pg";
import { migrateToLatest, openDatabase } from "../src/db/database.ts";
import type { Ecosystem } from "../src/db/types.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import { importAdvisories, type RecordSource } from "../src/modules/dependencies/advisory-import.ts";
import { matchScaCheck } from "../src/modules/dependencies/advisory-matching.ts";

const { values } = parseArgs({
  options: {
    records: { type: "string", default: "200000" },
    components: { type: "string", default: "5000" },
  },
});
const RECORDS = Number(values.records);
const COMPONENTS = Number(values.components);
const base = process.env.DATABASE_URL;
if (!base) {
  process.stderr.write("bench/advisories.ts needs DATABASE_URL (PostgreSQL)\n");
  process.exit(2);
}

const ECOSYSTEMS: [Ecosystem, string][] = [
  ["NPM", "npm"],
  ["PYPI", "PyPI"],
  ["MAVEN", "Maven"],
  ["GO", "Go"],
  ["RUBYGEMS", "RubyGems"],
  ["NUGET", "NuGet"],
  ["PACKAGIST", "Packagist"],
  ["CRATES_IO", "crates.io"],
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

const name = `assay_bench_osv_${randomBytes(4).toString("hex")}`;
await adminQuery(`CREATE DATABASE ${name}`);
const url = new URL(base);
url.pathname = `/${name}`;
const handle = await openDatabase({
  databaseUrl: url.toString(),
  dataDir: "/nonexistent",
  databasePoolSize: 4,
});
try {
  const { db } = handle;
  await migrateToLatest(db);
  let started = Date.now();
  const summary = await importAdvisories(db, records(), { rematch: false });
  process.stdout.write(
    `imported ${summary.imported} generated records in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  const account = await db
    .insertInto("accounts")
    .values({ key: newRowKey(), login: "bench", vcs_provider: "GITHUB", type: "TEAM" })
    .returning("id")
    .executeTakeFirstOrThrow();
  const repository = await db
    .insertInto("repositories")
    .values({ key: newRowKey(), account_id: account.id, name: "bench", default_branch: "main" })
    .returning("id")
    .executeTakeFirstOrThrow();
  const run = await db
    .insertInto("analysis_runs")
    .values({
      key: newRowKey(),
      run_uid: crypto.randomUUID(),
      repository_id: repository.id,
      branch_name: "main",
      commit_oid: "0".repeat(40),
      status: "SUCCESS",
    })
    .returning("id")
    .executeTakeFirstOrThrow();
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
  const versionIds: string[] = [];
  for (let i = 0; i < COMPONENTS; i++) {
    const [ecosystem] = ECOSYSTEMS[i % ECOSYSTEMS.length]!;
    // A third are packages advisories name (popular ones more often); the rest have none.
    const index = i % 3 === 0 ? pickPackage() : PACKAGES_PER_ECOSYSTEM + i;
    const pkg = await db
      .insertInto("packages")
      .values({ key: newRowKey(), ecosystem, name: packageName(ecosystem, index) })
      .onConflict((oc) =>
        oc.columns(["ecosystem", "name"]).doUpdateSet({ key: (eb) => eb.ref("packages.key") }),
      )
      .returning("id")
      .executeTakeFirstOrThrow();
    const pv = await db
      .insertInto("package_versions")
      .values({
        key: newRowKey(),
        package_id: pkg.id,
        version: version(ecosystem, int(5), int(12), int(6)),
        version_type: "ECOSYSTEM",
      })
      .onConflict((oc) =>
        oc.columns(["package_id", "version"]).doUpdateSet({ key: (eb) => eb.ref("package_versions.key") }),
      )
      .returning("id")
      .executeTakeFirstOrThrow();
    versionIds.push(pv.id);
  }
  await db
    .insertInto("sca_check_dependencies")
    .values(
      [...new Set(versionIds)].map((id) => ({
        sca_check_id: check.id,
        target_id: target.id,
        package_version_id: id,
        is_direct: true,
      })),
    )
    .execute();
  await db
    .executeQuery({ sql: "ANALYZE", parameters: [], query: { kind: "RawNode" } } as never)
    .catch(() => {});
  for (let pass = 1; pass <= 3; pass++) {
    started = Date.now();
    const outcome = await db.transaction().execute((tx) => matchScaCheck(tx, check.id));
    process.stdout.write(
      `match ${pass}: ${COMPONENTS} components against ${RECORDS} advisories in ${Date.now() - started} ms (${outcome.introduced} occurrences, ${outcome.added} new)\n`,
    );
  }
} finally {
  await handle.close();
  await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
