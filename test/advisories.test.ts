import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { zipSync } from "fflate";
import type { AccountRow, AnalysisRunRow, RepositoryRow, ScaCheckRow, UserRow } from "../src/db/types.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import {
  importAdvisories,
  importEpss,
  type RecordSource,
} from "../src/modules/dependencies/advisory-import.ts";
import { matchScaCheck } from "../src/modules/dependencies/advisory-matching.ts";
import { anAccount, aRepository, aRun, aToken, aUser } from "./helpers/builders.ts";
import {
  anScaCheck,
  aPackage,
  aPackageVersion,
  aTarget,
  scaCheckDependencies,
} from "./helpers/builders-dependencies.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/database.ts";
import { startInstance, type TestInstance } from "./helpers/instance.ts";
import { dataOf, gql } from "./helpers/server.ts";
import { assayArgs } from "./helpers/start-command.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURES = path.join(ROOT, "src/formats/osv/fixtures");
const LODASH = "GHSA-jf85-cpcp-j695";
const JINJA = "GHSA-h5c8-rqwp-cp95";
const NEWTONSOFT = "GHSA-5crp-9r3c-p9vr";

function fixture(id: string): RecordSource {
  return { name: `${id}.json`, text: readFileSync(path.join(FIXTURES, `${id}.json`), "utf8") };
}

interface OccurrenceNode {
  fixability: string;
  reachability: string;
  package: { name: string; ecosystem: string };
  packageVersion: { version: string };
  vulnerability: {
    identifier: string;
    aliases: string[];
    severity: string | null;
    cvssV3Vector: string | null;
    cvssV3BaseScore: number | null;
    cvssV3Severity: string | null;
    fixedVersions: string[];
    withdrawnAt: string | null;
    epssScore: number | null;
    epssPercentile: number | null;
    referenceUrls: string[];
  };
}

const OCCURRENCE_FIELDS = `fixability reachability package { name ecosystem } packageVersion { version }
  vulnerability { identifier aliases severity cvssV3Vector cvssV3BaseScore cvssV3Severity fixedVersions
    withdrawnAt epssScore epssPercentile referenceUrls }`;

describe("OSV advisories: import, matching and occurrences through the API", () => {
  let server: TestInstance;
  let alice: UserRow;
  let team: AccountRow;
  let repository: RepositoryRow;
  let token: string;
  let baseRun: AnalysisRunRow;
  let headRun: AnalysisRunRow;
  let baseCheck: ScaCheckRow;
  let headCheck: ScaCheckRow;

  before(async () => {
    server = await startInstance();
    alice = await aUser(server.db);
    team = await anAccount(server.db, {}, [{ user: alice, role: "ADMIN" }]);
    repository = await aRepository(server.db, team, { defaultBranch: "main" });
    token = await aToken(server.db, server.config.tokenPepper, alice);
    const npm = await aTarget(server.db, repository, { ecosystem: "NPM", lockfilePath: "package-lock.json" });
    const lodash = await aPackage(server.db, { ecosystem: "NPM", name: "lodash" });
    const lodashEs = await aPackage(server.db, { ecosystem: "NPM", name: "lodash-es" });
    const jinja = await aPackage(server.db, { ecosystem: "PYPI", name: "Jinja2" });
    const newtonsoft = await aPackage(server.db, { ecosystem: "NUGET", name: "Newtonsoft.Json" });
    const v = (pkg: typeof lodash, version: string) => aPackageVersion(server.db, pkg, { version });
    baseRun = await aRun(server.db, repository, { createdAt: new Date("2026-01-01T00:00:00Z") });
    headRun = await aRun(server.db, repository, { createdAt: new Date("2026-01-02T00:00:00Z") });
    await server.db
      .updateTable("analysis_runs")
      .set({ base_run_id: baseRun.id })
      .where("id", "=", headRun.id)
      .execute();
    baseCheck = await anScaCheck(server.db, baseRun, { target: npm });
    headCheck = await anScaCheck(server.db, headRun, { target: npm });
    // The base depends on a vulnerable lodash; the head upgraded it to the fix, but added lodash-es
    // 4.17.13 (fixed only in 4.17.14) and moved Newtonsoft.Json to a pre-release of its fix.
    const jinja312 = await v(jinja, "3.1.2");
    await scaCheckDependencies(server.db, baseCheck, npm, [
      await v(lodash, "4.17.11"),
      jinja312,
      await v(newtonsoft, "12.0.3"),
    ]);
    await scaCheckDependencies(server.db, headCheck, npm, [
      await v(lodash, "4.17.12"),
      await v(lodashEs, "4.17.13"),
      jinja312,
      await v(newtonsoft, "13.0.1-beta1"),
    ]);
  });
  after(() => server.stop());

  async function occurrencesOf(check: ScaCheckRow): Promise<OccurrenceNode[]> {
    const res = await gql(
      server.endpoint,
      token,
      `query ($id: ID!) { node(id: $id) { ... on SCACheck { vulnerabilityOccurrences(first: 50) {
        edges { node { ${OCCURRENCE_FIELDS} } } } } } }`,
      { id: encodeGlobalId("SCACheck", check.key) },
    );
    const node = dataOf(res).node as { vulnerabilityOccurrences: { edges: { node: OccurrenceNode }[] } };
    return node.vulnerabilityOccurrences.edges.map((e) => e.node);
  }

  async function states(check: ScaCheckRow) {
    const rows = await server.db
      .selectFrom("vulnerability_occurrences as vo")
      .innerJoin("vulnerabilities as v", "v.id", "vo.vulnerability_id")
      .innerJoin("package_versions as pv", "pv.id", "vo.package_version_id")
      .select(["v.identifier", "pv.version", "vo.state", "vo.fix_version"])
      .where("vo.sca_check_id", "=", check.id)
      .orderBy("v.identifier")
      .orderBy("pv.version")
      .execute();
    return rows.map((r) => `${r.identifier} ${r.version} ${r.state} fix=${r.fix_version}`);
  }

  test("importing real records stores ids, aliases, CVSS scores computed from the vectors and ranges", async () => {
    const summary = await importAdvisories(server.db, [fixture(JINJA), fixture(NEWTONSOFT)]);
    assert.equal(summary.read, 2);
    assert.equal(summary.imported, 2);
    assert.equal(summary.invalid, 0);
    // No run has a dependency matched yet: the SCA checks of the latest run are matched now.
    assert.equal(summary.rematchedChecks, 1);
    const jinja = await server.db
      .selectFrom("vulnerabilities")
      .selectAll()
      .where("identifier", "=", JINJA)
      .executeTakeFirstOrThrow();
    assert.deepEqual(jinja.aliases, ["CVE-2024-22195"]);
    assert.equal(jinja.cvss_v3_vector, "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:L/I:L/A:N");
    // NVD publishes 5.4 (MEDIUM) for this vector; GitHub rates the advisory MODERATE.
    assert.equal(jinja.cvss_v3_base_score, 5.4);
    assert.equal(jinja.cvss_v3_severity, "MEDIUM");
    assert.equal(jinja.severity, "MEDIUM");
    assert.deepEqual(jinja.fixed_versions, ["3.1.3"]);
    assert.equal(jinja.published_at.toISOString(), "2024-01-11T15:20:48.000Z");
    const affected = await server.db
      .selectFrom("advisory_packages")
      .select(["ecosystem", "name"])
      .where("vulnerability_id", "=", jinja.id)
      .execute();
    assert.deepEqual(affected, [{ ecosystem: "PYPI", name: "jinja2" }]);
  });

  test("the latest run's check got its occurrences, compared with the base run's check", async () => {
    // The import matched the head (latest) run only; matching the base as SBOM processing would:
    await server.db.transaction().execute((tx) => matchScaCheck(tx, baseCheck.id));
    await server.db.transaction().execute((tx) => matchScaCheck(tx, headCheck.id));
    assert.deepEqual(await states(baseCheck), [
      `${NEWTONSOFT} 12.0.3 INTRODUCED fix=13.0.1`,
      `${JINJA} 3.1.2 INTRODUCED fix=3.1.3`,
    ]);
    // 13.0.1-beta1 is a pre-release of the fix, so still affected in NuGet's order.
    assert.deepEqual(await states(headCheck), [
      `${NEWTONSOFT} 13.0.1-beta1 EXISTING fix=13.0.1`,
      `${JINJA} 3.1.2 EXISTING fix=3.1.3`,
    ]);
    const nodes = await occurrencesOf(headCheck);
    assert.deepEqual(
      nodes.map((n) => [n.vulnerability.identifier, n.package.name, n.packageVersion.version, n.fixability]),
      [
        [JINJA, "Jinja2", "3.1.2", "MANUALLY_FIXABLE"],
        [NEWTONSOFT, "Newtonsoft.Json", "13.0.1-beta1", "MANUALLY_FIXABLE"],
      ],
    );
    const newtonsoft = nodes[1]!.vulnerability;
    assert.equal(newtonsoft.severity, "LOW");
    assert.equal(newtonsoft.cvssV3BaseScore, null);
    assert.deepEqual(newtonsoft.aliases, []);
    assert.equal(nodes[0]!.reachability, "UNKNOWN");
  });

  test("importing the same records again changes nothing", async () => {
    const before = await states(headCheck);
    const keys = await server.db
      .selectFrom("vulnerability_occurrences")
      .select("key")
      .orderBy("key")
      .execute();
    const summary = await importAdvisories(server.db, [fixture(JINJA), fixture(NEWTONSOFT)]);
    assert.equal(summary.imported, 0);
    assert.equal(summary.unchanged, 2);
    assert.equal(summary.occurrencesAdded, 0);
    assert.equal(summary.occurrencesRemoved, 0);
    assert.deepEqual(await states(headCheck), before);
    assert.deepEqual(
      await server.db.selectFrom("vulnerability_occurrences").select("key").orderBy("key").execute(),
      keys,
    );
  });

  test("a new advisory raises occurrences in the latest run: introduced where the base did not have it", async () => {
    const summary = await importAdvisories(server.db, [fixture(LODASH)]);
    assert.equal(summary.imported, 1);
    assert.equal(summary.occurrencesAdded, 1);
    // lodash 4.17.12 is the fix; lodash-es 4.17.13 is below its fix 4.17.14. The base's lodash
    // 4.17.11 is affected but the head no longer has it: recorded RESOLVED in the head.
    assert.deepEqual(await states(headCheck), [
      `${NEWTONSOFT} 13.0.1-beta1 EXISTING fix=13.0.1`,
      `${JINJA} 3.1.2 EXISTING fix=3.1.3`,
      `${LODASH} 4.17.11 RESOLVED fix=4.17.12`,
      `${LODASH} 4.17.13 INTRODUCED fix=4.17.14`,
    ]);
    const lodash = (await occurrencesOf(headCheck)).find((n) => n.vulnerability.identifier === LODASH)!;
    assert.equal(lodash.package.name, "lodash-es");
    assert.equal(lodash.vulnerability.cvssV3BaseScore, 9.1);
    assert.equal(lodash.vulnerability.cvssV3Severity, "CRITICAL");
    assert.equal(lodash.vulnerability.severity, "CRITICAL");
    const summaryRes = await gql(
      server.endpoint,
      token,
      `query ($id: ID!) { node(id: $id) { ... on AnalysisRun { summary { vulnerabilitiesIntroduced } } } }`,
      { id: encodeGlobalId("AnalysisRun", headRun.key) },
    );
    assert.deepEqual(dataOf(summaryRes).node, { summary: { vulnerabilitiesIntroduced: 1 } });
  });

  test("EPSS scores from FIRST's CSV land on the advisories known by each CVE", async () => {
    async function* lines() {
      yield "#model_version:v2025.03.14,score_date:2026-01-05T12:55:00Z";
      yield "cve,epss,percentile";
      yield "CVE-2019-10744,0.04342,0.88473";
      yield "CVE-2024-22195,0.00151,0.36212";
      yield "CVE-1999-0001,0.01,0.5";
    }
    const summary = await importEpss(server.db, lines());
    assert.deepEqual(summary, { rows: 3, updated: 2, unknown: 1, scoreDate: "2026-01-05T12:55:00Z" });
    const jinja = (await occurrencesOf(headCheck)).find((n) => n.vulnerability.identifier === JINJA)!;
    assert.equal(jinja.vulnerability.epssScore, 0.00151);
    assert.equal(jinja.vulnerability.epssPercentile, 0.36212);
    async function* bad() {
      yield "cve,score";
    }
    await assert.rejects(importEpss(server.db, bad()), /the header has no "epss" column/);
  });

  test("a withdrawn record withdraws: its occurrences go at the next import", async () => {
    const record = JSON.parse(fixture(JINJA).text);
    record.modified = "2026-01-03T00:00:00Z";
    record.withdrawn = "2026-01-03T00:00:00Z";
    const summary = await importAdvisories(server.db, [
      { name: "withdrawn.json", text: JSON.stringify(record) },
    ]);
    assert.equal(summary.withdrawn, 1);
    assert.equal(summary.occurrencesRemoved, 1);
    const nodes = await occurrencesOf(headCheck);
    assert.deepEqual(
      nodes.map((n) => n.vulnerability.identifier),
      [LODASH, NEWTONSOFT],
    );
    const row = await server.db
      .selectFrom("vulnerabilities")
      .select("withdrawn_at")
      .where("identifier", "=", JINJA)
      .executeTakeFirstOrThrow();
    assert.equal(row.withdrawn_at?.toISOString(), "2026-01-03T00:00:00.000Z");
  });

  test("bad records are counted and named, the rest imported", async () => {
    const summary = await importAdvisories(
      server.db,
      [
        { name: "a.json", text: "{ not json" },
        { name: "b.json", text: JSON.stringify({ id: "X-1" }) },
        { name: "c.json", text: JSON.stringify([1, 2]) },
      ],
      { rematch: false },
    );
    assert.equal(summary.invalid, 3);
    assert.match(summary.problems[0]!, /^a\.json: not JSON/);
    assert.equal(summary.problems[1], 'b.json: X-1: "modified" is not an RFC 3339 time');
    assert.equal(summary.problems[2], "c.json: an OSV record is a JSON object");
  });
});

describe("assay advisories import / import-epss", () => {
  let database: TestDatabase;
  let dir: string;
  before(async () => {
    database = await createTestDatabase();
    dir = mkdtempSync(path.join(tmpdir(), "assay-osv-"));
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await database.drop();
  });

  function runCli(args: string[]) {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ASSAY_DATA_DIR: database.dataDir,
      ASSAY_TOKEN_PEPPER: "cli-test-pepper-0123456789abcdef",
      LOG_LEVEL: "silent",
    };
    delete env.NODE_TEST_CONTEXT;
    if (database.databaseUrl) env.DATABASE_URL = database.databaseUrl;
    else delete env.DATABASE_URL;
    const result = spawnSync(process.execPath, assayArgs(...args), {
      cwd: ROOT,
      env,
      encoding: "utf8",
      timeout: 180_000,
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  test("imports an ecosystem export zip, then a directory with the same records changes nothing", () => {
    const zip = path.join(dir, "all.zip");
    const entries: Record<string, Uint8Array> = {};
    for (const id of [LODASH, JINJA, NEWTONSOFT])
      entries[`${id}.json`] = new TextEncoder().encode(fixture(id).text);
    writeFileSync(zip, zipSync(entries));
    const first = runCli(["advisories", "import", zip]);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /^3 records read: 3 imported \(0 withdrawn\), 0 unchanged, 0 invalid$/m);
    const again = runCli(["advisories", "import", FIXTURES]);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^3 records read: 0 imported \(0 withdrawn\), 3 unchanged, 0 invalid$/m);
  });

  test("bad input: a clear one-line error, no stack", () => {
    const missing = runCli(["advisories", "import", path.join(dir, "nope")]);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /^error: .*nope: no such file or directory$/m);
    const notZip = path.join(dir, "broken.zip");
    writeFileSync(notZip, Buffer.concat([Buffer.from("PK\u0003\u0004"), Buffer.alloc(10)]));
    const broken = runCli(["advisories", "import", notZip]);
    assert.equal(broken.status, 1);
    assert.match(broken.stderr, /^error: .*broken\.zip: no OSV records found$/m);
    assert.doesNotMatch(broken.stderr, /^\s+at /m);
    const csv = path.join(dir, "epss.csv");
    writeFileSync(csv, "cve,epss\nCVE-2019-10744,0.1\n");
    const epss = runCli(["advisories", "import-epss", csv]);
    assert.equal(epss.status, 1);
    assert.match(epss.stderr, /^error: .*epss\.csv: line 1: the header has no "percentile" column/m);
    assert.doesNotMatch(epss.stderr, /^\s+at /m);
  });
});
