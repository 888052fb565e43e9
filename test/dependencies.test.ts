import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type {
  AccountRow,
  AnalysisRunStatus,
  PackageVersionRow,
  RepositoryRow,
  RepositoryTargetRow,
  ScaCheckRow,
  UserRow,
  VulnerabilityRow,
  VulnerabilitySeverity,
} from "../src/db/types.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aRun, aToken, aUser } from "./helpers/builders.ts";
import { anArtifact } from "./helpers/builders-artifacts.ts";
import { aCheck } from "./helpers/builders-checks.ts";
import {
  anScaCheck,
  aPackage,
  aPackageVersion,
  aTarget,
  aVulnerability,
  aVulnerabilityOccurrence,
  type OccurrenceSpec,
  vulnerabilityOccurrences,
} from "./helpers/builders-dependencies.ts";
import { assertPageSizeIndependent, startInstance, type TestInstance } from "./helpers/instance.ts";
import type { PageInfo } from "./helpers/paging.ts";
import { dataOf, type GraphQLResponse, gql } from "./helpers/server.ts";

/** A page of any connection, each node reduced to its id. */
interface Page {
  totalCount: number;
  pageInfo: PageInfo;
  ids: string[];
}

interface RawConnection {
  totalCount: number;
  pageInfo: PageInfo;
  edges: Array<{ cursor: string; node: { id: string } }>;
}

interface PageArgs {
  first?: number;
  last?: number;
  after?: string | null;
  before?: string | null;
}

const PAGE_VARIABLES = "$first: Int, $last: Int, $after: String, $before: String";
const PAGE_ARGUMENTS = "first: $first, last: $last, after: $after, before: $before";
const PAGE_FIELDS =
  "totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id } }";

function toPage(connection: RawConnection): Page {
  for (const edge of connection.edges) assert.equal(typeof edge.cursor, "string");
  return {
    totalCount: connection.totalCount,
    pageInfo: connection.pageInfo,
    ids: connection.edges.map((edge) => edge.node.id),
  };
}

/** Pages forward with `first` to the end, checking pageInfo on the way; returns every id. */
async function pageForward(load: (args: PageArgs) => Promise<Page>, size: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let n = 0; ; n++) {
    const page = await load({ first: size, after: cursor });
    assert.ok(page.ids.length > 0 && page.ids.length <= size, `page ${n} size`);
    assert.equal(page.pageInfo.hasPreviousPage, n > 0, `page ${n} hasPreviousPage`);
    ids.push(...page.ids);
    if (!page.pageInfo.hasNextPage) return ids;
    assert.equal(page.ids.length, size, "only the last page may be short");
    cursor = page.pageInfo.endCursor;
  }
}

/** Pages backward with `last` to the start, checking pageInfo on the way; returns every id. */
async function pageBackward(load: (args: PageArgs) => Promise<Page>, size: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let n = 0; ; n++) {
    const page = await load({ last: size, before: cursor });
    assert.ok(page.ids.length > 0 && page.ids.length <= size, `page ${n} size`);
    assert.equal(page.pageInfo.hasNextPage, n > 0, `page ${n} hasNextPage`);
    ids.unshift(...page.ids);
    if (!page.pageInfo.hasPreviousPage) return ids;
    assert.equal(page.ids.length, size, "only the first page may be short");
    cursor = page.pageInfo.startCursor;
  }
}

/** CVSS severities of an advisory. */
type Cvss = Partial<
  Record<"cvss_v2_severity" | "cvss_v3_severity" | "cvss_v4_severity", VulnerabilitySeverity>
>;

const occurrenceId = (row: { key: string }) => encodeGlobalId("VulnerabilityOccurrence", row.key);
const targetId = (row: { key: string }) => encodeGlobalId("RepositoryTarget", row.key);
const scaCheckId = (row: { key: string }) => encodeGlobalId("SCACheck", row.key);

/** Sorts rows by an explicit rank, then by key: the order the occurrence connections promise. */
function byRankThenKey<T extends { key: string }>(rows: Array<{ row: T; rank: number }>): string[] {
  return [...rows]
    .sort((a, b) => a.rank - b.rank || (a.row.key < b.row.key ? -1 : 1))
    .map(({ row }) => occurrenceId(row));
}

describe("dependencies and vulnerabilities over HTTP", () => {
  let server: TestInstance;
  let alice: UserRow;
  let carol: UserRow;
  let team: AccountRow;
  let hidden: AccountRow;
  let aliceToken: string;
  let carolToken: string;

  before(async () => {
    server = await startInstance();
    alice = await aUser(server.db);
    carol = await aUser(server.db);
    team = await anAccount(server.db, {}, [{ user: alice, role: "ADMIN" }]);
    hidden = await anAccount(server.db, {}, [{ user: carol, role: "ADMIN" }]);
    aliceToken = await aToken(server.db, server.config.tokenPepper, alice);
    carolToken = await aToken(server.db, server.config.tokenPepper, carol);
  });
  after(() => server.stop());

  /** Runs `query` as `token` (alice by default) and fails the test on any error. */
  async function read<T>(query: string, variables: Record<string, unknown>, token = aliceToken): Promise<T> {
    const res = await gql(server.endpoint, token, query, variables);
    assert.deepEqual(res.body.errors, undefined, query);
    return dataOf(res) as T;
  }

  /** A page of a connection under `repository(...)`; `field` is the connection field with its arguments. */
  async function repositoryPage(repository: RepositoryRow, field: string, args: PageArgs): Promise<Page> {
    const data = await read<{ repository: Record<string, RawConnection> }>(
      `query($name: String!, $login: String!, ${PAGE_VARIABLES}) {
        repository(name: $name, login: $login, vcsProvider: GITHUB) { c: ${field}(${PAGE_ARGUMENTS}) { ${PAGE_FIELDS} } }
      }`,
      { name: repository.name, login: team.login, ...args },
    );
    const connection = data.repository.c;
    assert.ok(connection);
    return toPage(connection);
  }

  /** A page of a connection of the node `id`; `on` is the node's type. */
  async function nodePage(id: string, on: string, field: string, args: PageArgs): Promise<Page> {
    const data = await read<{ node: Record<string, RawConnection> }>(
      `query($id: ID!, ${PAGE_VARIABLES}) { node(id: $id) { ... on ${on} { c: ${field}(${PAGE_ARGUMENTS}) { ${PAGE_FIELDS} } } } }`,
      { id, ...args },
    );
    const connection = data.node.c;
    assert.ok(connection);
    return toPage(connection);
  }

  /** A package version and a vulnerability of the given overall severity. */
  async function advisory(
    severity: VulnerabilitySeverity | null = "HIGH",
    cvss: Cvss = {},
  ): Promise<{ version: PackageVersionRow; vulnerability: VulnerabilityRow }> {
    const pkg = await aPackage(server.db);
    const version = await aPackageVersion(server.db, pkg);
    const vulnerability = await aVulnerability(server.db, { severity, ...cvss });
    return { version, vulnerability };
  }

  /** The catalog's dependency-scanning analyzer, whose check in a run holds the run's scans. */
  const scaAnalyzer = () =>
    server.db.selectFrom("analyzers").selectAll().where("shortcode", "=", "sca").executeTakeFirstOrThrow();

  /**
   * A run of `repository` whose `sca` check (SUCCESS) scanned `target` (a new one unless given)
   * and found `specs`.
   */
  async function scannedRun(
    repository: RepositoryRow,
    specs: OccurrenceSpec[],
    run: Partial<{ branch: string; status: AnalysisRunStatus; createdAt: Date }> = {},
    target?: RepositoryTargetRow,
  ) {
    const analysisRun = await aRun(server.db, repository, run);
    const sca = await aCheck(server.db, analysisRun, await scaAnalyzer());
    const check = await anScaCheck(server.db, analysisRun, {
      check: sca,
      target: target ?? (await aTarget(server.db, repository)),
    });
    const occurrences = await vulnerabilityOccurrences(server.db, check, specs);
    return { run: analysisRun, check, occurrences };
  }

  test("a vulnerability occurrence answers every contract field, with its advisory, package and version", async () => {
    const repository = await aRepository(server.db, team);
    const pkg = await aPackage(server.db, { ecosystem: "PYPI", name: "requests", purl: "pkg:pypi/requests" });
    const version = await aPackageVersion(server.db, pkg, { version: "2.19.0", versionType: "ECOSYSTEM" });
    const vulnerability = await aVulnerability(server.db, {
      identifier: "GHSA-x84v-xcm2-53pg",
      aliases: ["CVE-2018-18074", "PYSEC-2018-28"],
      summary: "Credentials leak on redirect",
      details: "Requests sends the Authorization header to an http URI after a redirect.",
      severity: "HIGH",
      cvss_v2_vector: "AV:N/AC:L/Au:N/C:P/I:N/A:N",
      cvss_v2_base_score: 5,
      cvss_v2_severity: "MEDIUM",
      cvss_v3_vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N",
      cvss_v3_base_score: 7.5,
      cvss_v3_severity: "HIGH",
      cvss_v4_vector: "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:N/VA:N/SC:N/SI:N/SA:N",
      cvss_v4_base_score: 8.7,
      cvss_v4_severity: "HIGH",
      published_at: new Date("2018-10-29T19:06:45.000Z"),
      updated_at: new Date("2024-09-16T17:10:31.250Z"),
      withdrawn_at: new Date("2025-01-01T00:00:00.000Z"),
      epss_score: 0.0123,
      epss_percentile: 0.85,
      introduced_versions: ["0"],
      fixed_versions: ["2.20.0"],
      reference_urls: ["https://github.com/psf/requests/pull/4718"],
    });
    const { occurrences } = await scannedRun(repository, [
      { vulnerability, version, reachability: "REACHABLE", fixability: "AUTO_FIXABLE" },
    ]);
    const occurrence = occurrences[0]!;
    const data = await read<{ repository: { dependencyVulnerabilityOccurrence: Record<string, unknown> } }>(
      `query($name: String!, $login: String!, $id: ID!) {
        repository(name: $name, login: $login, vcsProvider: GITHUB) {
          dependencyVulnerabilityOccurrence(id: $id) {
            id reachability fixability
            package { id ecosystem name purl }
            packageVersion { id version versionType }
            vulnerability {
              id identifier aliases summary details severity
              cvssV2Vector cvssV2BaseScore cvssV2Severity
              cvssV3Vector cvssV3BaseScore cvssV3Severity
              cvssV4Vector cvssV4BaseScore cvssV4Severity
              publishedAt updatedAt withdrawnAt epssScore epssPercentile
              introducedVersions fixedVersions referenceUrls
            }
          }
        }
      }`,
      { name: repository.name, login: team.login, id: occurrenceId(occurrence) },
    );
    assert.deepEqual(data.repository.dependencyVulnerabilityOccurrence, {
      id: occurrenceId(occurrence),
      reachability: "REACHABLE",
      fixability: "AUTO_FIXABLE",
      package: {
        id: encodeGlobalId("Package", pkg.key),
        ecosystem: "PYPI",
        name: "requests",
        purl: "pkg:pypi/requests",
      },
      packageVersion: {
        id: encodeGlobalId("PackageVersion", version.key),
        version: "2.19.0",
        versionType: "ECOSYSTEM",
      },
      vulnerability: {
        id: encodeGlobalId("Vulnerability", vulnerability.key),
        identifier: "GHSA-x84v-xcm2-53pg",
        aliases: ["CVE-2018-18074", "PYSEC-2018-28"],
        summary: "Credentials leak on redirect",
        details: "Requests sends the Authorization header to an http URI after a redirect.",
        severity: "HIGH",
        cvssV2Vector: "AV:N/AC:L/Au:N/C:P/I:N/A:N",
        cvssV2BaseScore: 5,
        cvssV2Severity: "MEDIUM",
        cvssV3Vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N",
        cvssV3BaseScore: 7.5,
        cvssV3Severity: "HIGH",
        cvssV4Vector: "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:N/VA:N/SC:N/SI:N/SA:N",
        cvssV4BaseScore: 8.7,
        cvssV4Severity: "HIGH",
        publishedAt: "2018-10-29T19:06:45.000Z",
        updatedAt: "2024-09-16T17:10:31.250Z",
        withdrawnAt: "2025-01-01T00:00:00.000Z",
        epssScore: 0.0123,
        epssPercentile: 0.85,
        introducedVersions: ["0"],
        fixedVersions: ["2.20.0"],
        referenceUrls: ["https://github.com/psf/requests/pull/4718"],
      },
    });
  });

  test("an advisory with nothing but its identifier answers null and empty lists for the rest", async () => {
    const { vulnerability } = await advisory(null);
    const pkg = await aPackage(server.db, { purl: null });
    const version = await aPackageVersion(server.db, pkg, { versionType: null });
    const data = await read<{
      v: Record<string, unknown>;
      p: Record<string, unknown>;
      pv: Record<string, unknown>;
    }>(
      `query($v: ID!, $p: ID!, $pv: ID!) {
        v: node(id: $v) { ... on Vulnerability {
          aliases summary details severity cvssV2Vector cvssV2BaseScore cvssV2Severity cvssV3Severity cvssV4Severity
          withdrawnAt epssScore epssPercentile introducedVersions fixedVersions referenceUrls
        } }
        p: node(id: $p) { ... on Package { purl } }
        pv: node(id: $pv) { ... on PackageVersion { versionType } }
      }`,
      {
        v: encodeGlobalId("Vulnerability", vulnerability.key),
        p: encodeGlobalId("Package", pkg.key),
        pv: encodeGlobalId("PackageVersion", version.key),
      },
    );
    assert.deepEqual(data.v, {
      aliases: [],
      summary: null,
      details: null,
      severity: null,
      cvssV2Vector: null,
      cvssV2BaseScore: null,
      cvssV2Severity: null,
      cvssV3Severity: null,
      cvssV4Severity: null,
      withdrawnAt: null,
      epssScore: null,
      epssPercentile: null,
      introducedVersions: [],
      fixedVersions: [],
      referenceUrls: [],
    });
    assert.deepEqual(data.p, { purl: null });
    assert.deepEqual(data.pv, { versionType: null });
  });

  test("severity is the stored rating, else the highest CVSS rating present", async () => {
    const cases: Array<[VulnerabilitySeverity | null, Cvss, VulnerabilitySeverity | null]> = [
      ["LOW", { cvss_v3_severity: "CRITICAL" }, "LOW"],
      [null, { cvss_v2_severity: "LOW", cvss_v3_severity: "HIGH", cvss_v4_severity: "MEDIUM" }, "HIGH"],
      [null, { cvss_v2_severity: "CRITICAL", cvss_v3_severity: "MEDIUM" }, "CRITICAL"],
      [null, { cvss_v4_severity: "NONE" }, "NONE"],
      [null, {}, null],
    ];
    for (const [stored, cvss, expected] of cases) {
      const vulnerability = await aVulnerability(server.db, { severity: stored, ...cvss });
      const data = await read<{ node: { severity: string | null } }>(
        `query($id: ID!) { node(id: $id) { ... on Vulnerability { severity } } }`,
        { id: encodeGlobalId("Vulnerability", vulnerability.key) },
      );
      assert.equal(data.node.severity, expected, JSON.stringify({ stored, cvss }));
    }
  });

  test("dependencyVulnerabilityOccurrences lists only the open occurrences of a target's newest scan in a finished default-branch run", async () => {
    const repository = await aRepository(server.db, team, { defaultBranch: "main" });
    const target = await aTarget(server.db, repository);
    const { version, vulnerability } = await advisory("HIGH");
    const spec = (state: OccurrenceSpec["state"] = "EXISTING"): OccurrenceSpec => ({
      vulnerability,
      version,
      state,
    });
    const at = (minute: number) => new Date(Date.UTC(2025, 5, 1, 12, minute));
    const scan = (specs: OccurrenceSpec[], run: Parameters<typeof scannedRun>[2]) =>
      scannedRun(repository, specs, run, target);
    await scan([spec(), spec()], { status: "SUCCESS", createdAt: at(0) });
    const latest = await scan([spec("EXISTING"), spec("INTRODUCED"), spec("RESOLVED")], {
      status: "FAILURE",
      createdAt: at(1),
    });
    // Newer, but not finished or not on the default branch: none of these count.
    await scan([spec()], { status: "PENDING", createdAt: at(2) });
    await scan([spec()], { status: "CANCEL", createdAt: at(3) });
    await scan([spec()], { status: "TIMEOUT", createdAt: at(4) });
    await scan([spec()], { branch: "feature", status: "SUCCESS", createdAt: at(5) });

    const page = await repositoryPage(repository, "dependencyVulnerabilityOccurrences", {});
    const open = latest.occurrences.filter((o) => o.state !== "RESOLVED");
    assert.deepEqual(page.ids, byRankThenKey(open.map((row) => ({ row, rank: 0 }))));
    assert.equal(page.totalCount, 2);

    // A newer finished run's scan of the target takes over, even with nothing found.
    await scan([], { status: "SUCCESS", createdAt: at(6) });
    const afterwards = await repositoryPage(repository, "dependencyVulnerabilityOccurrences", {});
    assert.deepEqual(afterwards, {
      totalCount: 0,
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
      ids: [],
    });
  });

  test("a repository with no finished default-branch run has no vulnerability occurrences", async () => {
    const repository = await aRepository(server.db, team);
    const { version, vulnerability } = await advisory();
    await scannedRun(repository, [{ vulnerability, version }], { status: "PENDING" });
    await scannedRun(repository, [{ vulnerability, version }], { branch: "dev" });
    const page = await repositoryPage(repository, "dependencyVulnerabilityOccurrences", { first: 10 });
    assert.deepEqual([page.totalCount, page.ids], [0, []]);
  });

  /**
   * A repository with targets `root` and `web` both scanned by the run before the newest (one
   * occurrence each), whose newest run's `sca` check is `newest`: SUCCESS with a scan of `root`
   * only that finds another vulnerability and resolves the old one (web's SBOM not sent); FAILURE
   * with that scan and an SBOM that FAILED to process; or NEUTRAL, its one SBOM storing nothing (a
   * scan of no target).
   */
  async function newestScanWithout(newest: "ABSENT" | "FAILED" | "NEUTRAL") {
    const { db } = server;
    const repository = await aRepository(db, team);
    const [root, web] = [await aTarget(db, repository), await aTarget(db, repository)];
    const [old, fresh] = [await advisory("HIGH"), await advisory("CRITICAL")];
    const before = await aRun(db, repository, { createdAt: new Date(Date.now() - 60_000) });
    const beforeCheck = await aCheck(db, before, await scaAnalyzer());
    const kept = [
      await aVulnerabilityOccurrence(
        db,
        await anScaCheck(db, before, { check: beforeCheck, target: root }),
        old,
      ),
      await aVulnerabilityOccurrence(
        db,
        await anScaCheck(db, before, { check: beforeCheck, target: web }),
        old,
      ),
    ];
    const run = await aRun(db, repository, { status: newest === "FAILED" ? "FAILURE" : "SUCCESS" });
    const status = newest === "ABSENT" ? "SUCCESS" : newest === "FAILED" ? "FAILURE" : "NEUTRAL";
    const check = await aCheck(db, run, await scaAnalyzer(), { status });
    let found: string[] = [];
    if (newest === "NEUTRAL") {
      await anScaCheck(db, run, { check });
    } else {
      const scan = await anScaCheck(db, run, { check, target: root });
      const [introduced] = await vulnerabilityOccurrences(db, scan, [
        { ...fresh, state: "INTRODUCED" },
        { ...old, state: "RESOLVED" },
      ]);
      found = [occurrenceId(introduced!)];
    }
    if (newest === "FAILED")
      await anArtifact(db, run, check, { kind: "SBOM", analyzer: "sca", status: "FAILED" });
    return { repository, kept: kept.map(occurrenceId), found };
  }

  test("a target the newest run did not scan keeps the vulnerabilities of its newest scan, beside the others' newest", async () => {
    const { repository, kept, found } = await newestScanWithout("ABSENT");
    const page = await repositoryPage(repository, "dependencyVulnerabilityOccurrences", {});
    // The root's new CRITICAL one first, then web's HIGH one of the run before.
    assert.deepEqual(page.ids, [...found, kept[1]!]);
    assert.equal(page.totalCount, 2);
  });

  test("when an SBOM of the newest run failed to process, every target keeps the vulnerabilities of the run before", async () => {
    // Which target a failed SBOM was of is unknown (it may be a corrected SBOM of the root), so
    // the run's scans do not say what the code holds, as a check with a FAILED report does not.
    const { repository, kept } = await newestScanWithout("FAILED");
    const page = await repositoryPage(repository, "dependencyVulnerabilityOccurrences", {});
    assert.deepEqual(new Set(page.ids), new Set(kept));
    assert.equal(page.totalCount, 2);
  });

  test("an sca check of the newest run that stored nothing (NEUTRAL) leaves every target's vulnerabilities as they were", async () => {
    const { repository, kept } = await newestScanWithout("NEUTRAL");
    const page = await repositoryPage(repository, "dependencyVulnerabilityOccurrences", {});
    assert.deepEqual(new Set(page.ids), new Set(kept));
    assert.equal(page.totalCount, 2);
  });

  /** Occurrences of every severity (some rated only by CVSS, one unrated) and their expected ranks. */
  async function occurrencesOfEverySeverity(check: ScaCheckRow) {
    const ratings: Array<[VulnerabilitySeverity | null, Cvss, number]> = [
      ["LOW", {}, 3],
      ["CRITICAL", {}, 0],
      ["CRITICAL", {}, 0],
      [null, { cvss_v2_severity: "LOW", cvss_v3_severity: "HIGH" }, 1],
      ["NONE", {}, 4],
      [null, {}, 5],
      ["MEDIUM", {}, 2],
      ["MEDIUM", {}, 2],
      [null, { cvss_v4_severity: "CRITICAL" }, 0],
      ["HIGH", {}, 1],
      [null, { cvss_v3_severity: "MEDIUM" }, 2],
    ];
    const ranked = [];
    for (const [severity, cvss, rank] of ratings) {
      const { version, vulnerability } = await advisory(severity, cvss);
      const row = await aVulnerabilityOccurrence(server.db, check, { vulnerability, version });
      ranked.push({ row, rank });
    }
    return byRankThenKey(ranked);
  }

  test("dependencyVulnerabilityOccurrences pages both ways, most severe first, then by key", async () => {
    const repository = await aRepository(server.db, team);
    const { check } = await scannedRun(repository, []);
    const order = await occurrencesOfEverySeverity(check);
    const load = (args: PageArgs) => repositoryPage(repository, "dependencyVulnerabilityOccurrences", args);
    assert.deepEqual(await pageForward(load, 3), order);
    assert.deepEqual(await pageBackward(load, 3), order);
    assert.deepEqual(await pageForward(load, 1), order);
    const page = await load({ first: 4 });
    assert.equal(page.totalCount, 11);
    assert.deepEqual(page.ids, order.slice(0, 4));
  });

  test("a cursor of another connection is a BAD_USER_INPUT error on dependencyVulnerabilityOccurrences", async () => {
    const repository = await aRepository(server.db, team);
    await aTarget(server.db, repository);
    const targets = await read<{ repository: { targets: { pageInfo: { endCursor: string } } } }>(
      `query($name: String!, $login: String!) {
        repository(name: $name, login: $login, vcsProvider: GITHUB) { targets { pageInfo { endCursor } } }
      }`,
      { name: repository.name, login: team.login },
    );
    const res = await gql(
      server.endpoint,
      aliceToken,
      `query($name: String!, $login: String!, $after: String) {
        repository(name: $name, login: $login, vcsProvider: GITHUB) { dependencyVulnerabilityOccurrences(after: $after) { totalCount } }
      }`,
      { name: repository.name, login: team.login, after: targets.repository.targets.pageInfo.endCursor },
    );
    assert.equal(res.body.errors?.[0]?.extensions?.code, "BAD_USER_INPUT");
    assert.equal(res.body.errors?.[0]?.extensions?.field, "after");
  });

  test("targets answer every field and page both ways by lockfile path, then key", async () => {
    const repository = await aRepository(server.db, team);
    const first = await aTarget(server.db, repository, {
      ecosystem: "PYPI",
      packageManager: "POETRY",
      manifestPath: "pyproject.toml",
      lockfilePath: "a/poetry.lock",
      source: "CUSTOM",
      isActivated: false,
    });
    const paths = [
      "z/yarn.lock",
      "m/go.sum",
      "b/Cargo.lock",
      "c/uv.lock",
      "k/pnpm-lock.yaml",
      "d/Gemfile.lock",
    ];
    const targets = [first];
    for (const lockfilePath of paths) targets.push(await aTarget(server.db, repository, { lockfilePath }));
    const order = [...targets]
      .sort((a, b) => (a.lockfile_path < b.lockfile_path ? -1 : 1))
      .map((target) => targetId(target));
    const load = (args: PageArgs) => repositoryPage(repository, "targets", args);
    assert.deepEqual(await pageForward(load, 2), order);
    assert.deepEqual(await pageBackward(load, 2), order);
    assert.equal((await load({ first: 1 })).totalCount, 7);

    const data = await read<{ repository: { targets: { edges: Array<{ node: Record<string, unknown> }> } } }>(
      `query($name: String!, $login: String!) {
        repository(name: $name, login: $login, vcsProvider: GITHUB) {
          targets(first: 1) { edges { node { id ecosystem packageManager manifestPath lockfilePath source isActivated } } }
        }
      }`,
      { name: repository.name, login: team.login },
    );
    assert.deepEqual(data.repository.targets.edges[0]?.node, {
      id: targetId(first),
      ecosystem: "PYPI",
      packageManager: "POETRY",
      manifestPath: "pyproject.toml",
      lockfilePath: "a/poetry.lock",
      source: "CUSTOM",
      isActivated: false,
    });
  });

  test("targets with the same lockfile path in different repositories stay apart", async () => {
    const one = await aRepository(server.db, team);
    const two = await aRepository(server.db, team);
    const mine = await aTarget(server.db, one, { lockfilePath: "package-lock.json", manifestPath: null });
    await aTarget(server.db, two, { lockfilePath: "package-lock.json" });
    const page = await repositoryPage(one, "targets", {});
    assert.deepEqual([page.totalCount, page.ids], [1, [targetId(mine)]]);
  });

  test("AnalysisRun.scaChecks pages both ways, oldest first, then by key", async () => {
    const repository = await aRepository(server.db, team);
    const run = await aRun(server.db, repository);
    const tie = "2025-03-01T10:00:00.000001Z";
    const checks = [
      await anScaCheck(server.db, run, { createdAt: "2025-03-01T10:00:00.000002Z" }),
      await anScaCheck(server.db, run, { createdAt: tie }),
      await anScaCheck(server.db, run, { createdAt: tie }),
      await anScaCheck(server.db, run, { createdAt: tie }),
      await anScaCheck(server.db, run, { createdAt: "2025-03-01T09:59:59Z" }),
    ];
    const [later, tieA, tieB, tieC, earliest] = checks;
    const ties = [tieA!, tieB!, tieC!].sort((a, b) => (a.key < b.key ? -1 : 1));
    const order = [earliest!, ...ties, later!].map((check) => scaCheckId(check));
    // Another run's check is not listed.
    await anScaCheck(server.db, await aRun(server.db, repository));
    const runId = encodeGlobalId("AnalysisRun", run.key);
    const load = (args: PageArgs) => nodePage(runId, "AnalysisRun", "scaChecks", args);
    assert.deepEqual(await pageForward(load, 2), order);
    assert.deepEqual(await pageBackward(load, 2), order);
    assert.equal((await load({ first: 1 })).totalCount, 5);
  });

  test("SCACheck.vulnerabilityOccurrences lists the check's open occurrences, most severe first, both ways", async () => {
    const repository = await aRepository(server.db, team);
    const run = await aRun(server.db, repository, { branch: "feature" });
    const check = await anScaCheck(server.db, run);
    const order = await occurrencesOfEverySeverity(check);
    const { version, vulnerability } = await advisory("CRITICAL");
    await aVulnerabilityOccurrence(server.db, check, { vulnerability, version, state: "RESOLVED" });
    await aVulnerabilityOccurrence(server.db, await anScaCheck(server.db, run), { vulnerability, version });
    const load = (args: PageArgs) =>
      nodePage(scaCheckId(check), "SCACheck", "vulnerabilityOccurrences", args);
    assert.deepEqual(await pageForward(load, 4), order);
    assert.deepEqual(await pageBackward(load, 4), order);
    assert.equal((await load({ first: 1 })).totalCount, 11);
  });

  test("dependencyVulnerabilityOccurrence answers an occurrence of any run of the repository", async () => {
    const repository = await aRepository(server.db, team);
    const { version, vulnerability } = await advisory();
    const old = await scannedRun(repository, [{ vulnerability, version, state: "RESOLVED" }], {
      branch: "dev",
    });
    const data = await read<{ repository: { dependencyVulnerabilityOccurrence: { id: string } } }>(
      `query($name: String!, $login: String!, $id: ID!) {
        repository(name: $name, login: $login, vcsProvider: GITHUB) { dependencyVulnerabilityOccurrence(id: $id) { id } }
      }`,
      { name: repository.name, login: team.login, id: occurrenceId(old.occurrences[0]!) },
    );
    assert.equal(data.repository.dependencyVulnerabilityOccurrence.id, occurrenceId(old.occurrences[0]!));
  });

  /** The data of a 200 answer without errors. */
  function res200(res: GraphQLResponse): Record<string, unknown> {
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.errors, undefined);
    return dataOf(res);
  }

  /** Asks `field(id:)` of `repository` and returns the answer. */
  function askById(repository: RepositoryRow, field: string, id: string): Promise<GraphQLResponse> {
    return gql(
      server.endpoint,
      aliceToken,
      `query($name: String!, $login: String!, $id: ID!) {
        repository(name: $name, login: $login, vcsProvider: GITHUB) { name ${field}(id: $id) { id } }
      }`,
      { name: repository.name, login: team.login, id },
    );
  }

  test("dependencyVulnerabilityOccurrence and target answer NOT_FOUND, with one message, for any id not of this repository", async () => {
    const repository = await aRepository(server.db, team);
    const sibling = await aRepository(server.db, team);
    const stranger = await aRepository(server.db, hidden);
    const { version, vulnerability } = await advisory();
    const own = await scannedRun(repository, [{ vulnerability, version }]);
    const siblings = await scannedRun(sibling, [{ vulnerability, version }]);
    const strangers = await scannedRun(stranger, [{ vulnerability, version }]);
    const ownTarget = await aTarget(server.db, repository);
    const siblingTarget = await aTarget(server.db, sibling);
    const strangerTarget = await aTarget(server.db, stranger);

    const cases: Array<[string, string, string[], string]> = [
      [
        "dependencyVulnerabilityOccurrence",
        occurrenceId(own.occurrences[0]!),
        [
          occurrenceId(siblings.occurrences[0]!),
          occurrenceId(strangers.occurrences[0]!),
          encodeGlobalId("RepositoryTarget", ownTarget.key),
          encodeGlobalId("VulnerabilityOccurrence", ownTarget.key),
          encodeGlobalId("VulnerabilityOccurrence", "zzzzzzzzzz"),
          "not-an-id",
        ],
        "Vulnerability occurrence matching query does not exist",
      ],
      [
        "target",
        targetId(ownTarget),
        [
          targetId(siblingTarget),
          targetId(strangerTarget),
          occurrenceId(own.occurrences[0]!),
          encodeGlobalId("RepositoryTarget", own.occurrences[0]!.key),
          encodeGlobalId("RepositoryTarget", "zzzzzzzzzz"),
          "not-an-id",
        ],
        "Repository target matching query does not exist",
      ],
    ];
    for (const [field, ownId, foreignIds, message] of cases) {
      const ok = await askById(repository, field, ownId);
      assert.deepEqual(res200(ok), { repository: { name: repository.name, [field]: { id: ownId } } });
      for (const id of foreignIds) {
        const res = await askById(repository, field, id);
        assert.equal(res.status, 200, `${field} ${id}`);
        // The field is non-null, so the error nulls the (nullable) repository.
        assert.deepEqual(res.body.data, { repository: null }, `${field} ${id}`);
        assert.equal(res.body.errors?.length, 1, `${field} ${id}`);
        assert.equal(res.body.errors?.[0]?.extensions?.code, "NOT_FOUND", `${field} ${id}`);
        assert.equal(res.body.errors?.[0]?.message, message, `${field} ${id}`);
        assert.deepEqual(res.body.errors?.[0]?.path, ["repository", field], `${field} ${id}`);
      }
    }
  });

  test("node resolves all six dependency types for a member, and hides a stranger's findings", async () => {
    const repository = await aRepository(server.db, team);
    const pkg = await aPackage(server.db);
    const version = await aPackageVersion(server.db, pkg);
    const vulnerability = await aVulnerability(server.db);
    const target = await aTarget(server.db, repository);
    const run = await aRun(server.db, repository);
    const check = await anScaCheck(server.db, run, { target });
    const occurrence = await aVulnerabilityOccurrence(server.db, check, { vulnerability, version });
    const cases: Array<[string, string, string]> = [
      ["Package", pkg.key, "... on Package { name }"],
      ["PackageVersion", version.key, "... on PackageVersion { version }"],
      ["Vulnerability", vulnerability.key, "... on Vulnerability { identifier }"],
      ["VulnerabilityOccurrence", occurrence.key, "... on VulnerabilityOccurrence { fixability }"],
      ["RepositoryTarget", target.key, "... on RepositoryTarget { lockfilePath }"],
      ["SCACheck", check.key, "... on SCACheck { vulnerabilityOccurrences { totalCount } }"],
    ];
    for (const [type, key, fragment] of cases) {
      const id = encodeGlobalId(type, key);
      const query = `query($id: ID!) { node(id: $id) { __typename id ${fragment} } }`;
      const node = (await read<{ node: Record<string, unknown> }>(query, { id })).node;
      assert.equal(node.__typename, type);
      assert.equal(node.id, id);
      assert.equal(Object.keys(node).length, 3, type);

      // Carol shares no account with alice: the catalog types are public advisory data, the
      // repository's own objects do not exist for her.
      const res = await gql(server.endpoint, carolToken, query, { id });
      if (["Package", "PackageVersion", "Vulnerability"].includes(type)) {
        assert.deepEqual(res.body.errors, undefined, type);
        assert.equal((dataOf(res).node as { id: string }).id, id);
      } else {
        assert.deepEqual(res.body.data, { node: null }, type);
        assert.equal(res.body.errors?.[0]?.extensions?.code, "NOT_FOUND", type);
        assert.equal(res.body.errors?.[0]?.message, `No node with id "${id}" exists.`, type);
      }
    }
  });

  test("node answers NOT_FOUND for a dependency id of the wrong type", async () => {
    const repository = await aRepository(server.db, team);
    const target = await aTarget(server.db, repository);
    const pkg = await aPackage(server.db);
    for (const id of [encodeGlobalId("SCACheck", target.key), encodeGlobalId("Vulnerability", pkg.key)]) {
      const res = await gql(server.endpoint, aliceToken, `query($id: ID!) { node(id: $id) { id } }`, { id });
      assert.deepEqual(res.body.data, { node: null }, id);
      assert.equal(res.body.errors?.[0]?.message, `No node with id "${id}" exists.`, id);
    }
  });

  test("a stranger cannot reach a team's SCA checks or findings through a run either", async () => {
    const repository = await aRepository(server.db, team);
    const run = await aRun(server.db, repository);
    await anScaCheck(server.db, run);
    const res = await gql(
      server.endpoint,
      carolToken,
      `query($id: ID!) { node(id: $id) { ... on AnalysisRun { scaChecks { totalCount } } } }`,
      { id: encodeGlobalId("AnalysisRun", run.key) },
    );
    assert.deepEqual(res.body.data, { node: null });
    assert.equal(res.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
  });

  test("the number of SQL statements does not grow with the number of repositories listed", async () => {
    const reader = await aUser(server.db);
    const shared = await advisory("CRITICAL");
    const others = [await advisory("LOW"), await advisory(null, { cvss_v3_severity: "HIGH" })];
    for (let a = 0; a < 2; a++) {
      const account = await anAccount(server.db, {}, [{ user: reader, role: "MEMBER" }]);
      for (let r = 0; r < 12; r++) {
        const repository = await aRepository(server.db, account);
        const specs = [shared, ...others].map(({ vulnerability }, i) => ({
          vulnerability,
          version: [shared, ...others][(i + r) % 3]!.version,
        }));
        await scannedRun(repository, specs, {}, await aTarget(server.db, repository));
        await aTarget(server.db, repository);
      }
    }
    const readerToken = await aToken(server.db, server.config.tokenPepper, reader);
    // A token used within the minute is not touched again, so no UPDATE lands in either request.
    await server.db
      .updateTable("personal_access_tokens")
      .set({ last_used_at: new Date() })
      .where("user_id", "=", reader.id)
      .execute();
    // `accounts(first: 5)` keeps the nested default page sizes (100 targets per repository) under
    // the node limit at N=100.
    const query = `query($n: Int) { viewer { accounts(first: 5) { edges { node {
      repositories(first: $n) { edges { node {
        dependencyVulnerabilityOccurrences(first: 5) { totalCount edges { node {
          vulnerability { identifier severity } package { name } packageVersion { version }
        } } }
        targets { totalCount }
      } } }
    } } } } }`;
    type Result = {
      viewer: {
        accounts: {
          edges: Array<{
            node: {
              repositories: {
                edges: Array<{
                  node: {
                    dependencyVulnerabilityOccurrences: {
                      totalCount: number;
                      edges: Array<{ node: { vulnerability: { severity: string } } }>;
                    };
                    targets: { totalCount: number };
                  };
                }>;
              };
            };
          }>;
        };
      };
    };
    const measure = async (n: number) => {
      const start = server.statements.length;
      const res = await gql<Result>(server.endpoint, readerToken, query, { n });
      const statements = server.statements.slice(start);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.errors, undefined);
      const repositories =
        res.body.data?.viewer.accounts.edges.flatMap((a) => a.node.repositories.edges) ?? [];
      for (const { node } of repositories) {
        assert.equal(node.dependencyVulnerabilityOccurrences.totalCount, 3);
        assert.deepEqual(
          node.dependencyVulnerabilityOccurrences.edges.map((e) => e.node.vulnerability.severity),
          ["CRITICAL", "HIGH", "LOW"],
        );
        assert.equal(node.targets.totalCount, 2);
      }
      return { statements, repositories: repositories.length };
    };
    await measure(1); // Warm-up: nothing a first request does once may count.
    const small = await measure(10);
    const large = await measure(100);
    assert.deepEqual([small.repositories, large.repositories], [20, 24]);
    assertPageSizeIndependent(small.statements, large.statements);
  });
});
