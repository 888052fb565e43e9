import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { readToolFixture } from "../src/formats/fixtures.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { importAdvisories } from "../src/modules/dependencies/advisory-import.ts";
import { rowKeysOf, upsertPackageVersions } from "../src/modules/dependencies/sbom-store.ts";
import { dsnToken } from "../src/modules/repositories/dsn.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { artifactsProcessed } from "./helpers/builders-artifacts.ts";
import { aPackage, aPackageVersion } from "./helpers/builders-dependencies.ts";
import { gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * SBOM uploads through the real server (docs/ingestion-sbom.md): npm's own CycloneDX and SPDX
 * documents go up through `uploadArtifact` and `createArtifact` with analyzer `sca`, the worker
 * processes them, and the run's SCA check, the repository's targets and the DDP metric (with its
 * threshold and gate) show what they held. Bad SBOMs are refused at upload with nothing stored.
 */

const UPLOAD = `mutation($input: UploadArtifactInput!) {
  uploadArtifact(input: $input) { ok error warnings artifact { kind format status } run { runUid } }
}`;
const CLI_MUTATION =
  "mutation($input: CreateArtifactInput!) { createArtifact(input: $input) { ok message error } }";

const RUN_QUERY = `query($uid: UUID!) { run(runUid: $uid) { status
  checks { edges { node { status analyzer { shortcode }
    metrics { shortcode items { key latestValue threshold thresholdStatus } } } } }
  artifacts { edges { node { kind format status error readCount storedCount skipped { reason count } warnings } } }
  scaChecks { totalCount edges { node { id format dependencyCount directDependencyCount transitiveDependencyCount
    target { lockfilePath manifestPath packageManager ecosystem source isActivated }
    vulnerabilityOccurrences { totalCount } } } } } }`;

interface RunOut {
  status: string;
  checks: {
    edges: Array<{
      node: {
        status: string;
        analyzer: { shortcode: string };
        metrics: Array<{
          shortcode: string;
          items: Array<{
            key: string;
            latestValue: number | null;
            threshold: number | null;
            thresholdStatus: string | null;
          }>;
        }>;
      };
    }>;
  };
  artifacts: {
    edges: Array<{
      node: {
        kind: string;
        format: string;
        status: string;
        error: string | null;
        readCount: number;
        storedCount: number;
        skipped: Array<{ reason: string; count: number }>;
        warnings: string[];
      };
    }>;
  };
  scaChecks: {
    totalCount: number;
    edges: Array<{
      node: {
        id: string;
        format: string;
        dependencyCount: number;
        directDependencyCount: number;
        transitiveDependencyCount: number;
        target: Record<string, unknown> | null;
        vulnerabilityOccurrences: { totalCount: number };
      };
    }>;
  };
}

let server: TestServer;
let account: AccountRow;
let token: string;
let commits = 0;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, {}, [{ user, role: "MEMBER" }]);
  token = await aToken(server.db, server.config.tokenPepper, user);
});
after(() => server?.stop());

function aCommit(): string {
  commits += 1;
  return `${commits.toString(16).padStart(6, "0")}${"5b0a11".repeat(5)}cd`;
}

const NPM_CYCLONEDX = () => readToolFixture("sbom", "npm", "cyclonedx.json");
const NPM_SPDX = () => readToolFixture("sbom", "npm", "spdx.json");

/** npm's CycloneDX document without picocolors: what the project's next commit depends on. */
function withoutPicocolors(): string {
  const bom = JSON.parse(NPM_CYCLONEDX()) as {
    components: Array<{ name: string }>;
    dependencies: Array<{ ref: string; dependsOn: string[] }>;
  };
  bom.components = bom.components.filter((c) => c.name !== "picocolors");
  bom.dependencies = bom.dependencies
    .filter((d) => !d.ref.startsWith("picocolors@"))
    .map((d) => ({ ...d, dependsOn: d.dependsOn.filter((ref) => !ref.startsWith("picocolors@")) }));
  return JSON.stringify(bom, null, 2);
}

async function upload(
  repository: RepositoryRow,
  commit: string,
  text: string,
  fields: { key?: string; analyzer?: string } = {},
) {
  const res = await gql<{
    uploadArtifact: {
      ok: boolean;
      error: string;
      warnings: string[];
      artifact: { kind: string; format: string; status: string } | null;
      run: { runUid: string } | null;
    };
  }>(server.endpoint, token, UPLOAD, {
    input: {
      repositoryId: encodeGlobalId("Repository", repository.key),
      commitOid: commit,
      branch: "main",
      analyzer: fields.analyzer ?? "sca",
      key: fields.key,
      data: text,
    },
  });
  assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
  return res.body.data!.uploadArtifact;
}

async function createArtifact(repository: RepositoryRow, commit: string, text: string, key = "") {
  const response = await fetch(`${server.url}/graphql/cli/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      query: CLI_MUTATION,
      variables: {
        input: {
          accessToken: dsnToken(repository, server.config.tokenPepper),
          commitOid: commit,
          reporter: "cli",
          key,
          data: text,
          analyzer: "sca",
          metadata: {},
        },
      },
    }),
  });
  assert.equal(response.status, 200);
  const body = (await response.json()) as {
    data: { createArtifact: { ok: boolean; message: string; error: string } };
  };
  return body.data.createArtifact;
}

/** Waits until every artifact of the repository is processed (or failed). */
function processed(repository: RepositoryRow): Promise<void> {
  return artifactsProcessed(server.db, repository.id);
}

async function query<T>(text: string, variables: Record<string, unknown>): Promise<T> {
  const res = await gql<T>(server.endpoint, token, text, variables);
  assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
  return res.body.data!;
}

async function runOf(runUid: string): Promise<RunOut> {
  return (await query<{ run: RunOut }>(RUN_QUERY, { uid: runUid })).run;
}

async function runOfCommit(repository: RepositoryRow, commit: string): Promise<RunOut> {
  const row = await server.db
    .selectFrom("analysis_runs")
    .select("run_uid")
    .where("repository_id", "=", repository.id)
    .where("commit_oid", "=", commit)
    .executeTakeFirstOrThrow();
  return runOf(row.run_uid);
}

function scaCheckOf(run: RunOut) {
  const check = run.checks.edges.find((e) => e.node.analyzer.shortcode === "sca");
  assert.ok(check, "the run has an sca check");
  return check.node;
}

const NPM_TARGET = {
  lockfilePath: "package-lock.json",
  manifestPath: "package.json",
  packageManager: "NPM",
  ecosystem: "NPM",
  source: "AUTO",
  isActivated: true,
};

async function repositoryView(repository: RepositoryRow) {
  return (
    await query<{
      repository: {
        targets: { totalCount: number; edges: Array<{ node: Record<string, unknown> }> };
        metrics: Array<{
          shortcode: string;
          items: Array<{
            key: string;
            latestValue: number | null;
            threshold: number | null;
            thresholdStatus: string | null;
          }>;
        }>;
      };
    }>(
      `query($name: String!, $login: String!) { repository(name: $name, login: $login, vcsProvider: GITHUB) {
        targets { totalCount edges { node { lockfilePath manifestPath packageManager ecosystem source isActivated } } }
        metrics(shortcodeIn: [DDP]) { shortcode items { key latestValue threshold thresholdStatus } } } }`,
      { name: repository.name, login: account.login },
    )
  ).repository;
}

describe("SBOM uploads through the API", () => {
  test("npm's CycloneDX SBOM uploaded with uploadArtifact becomes an SCA check, a target and the DDP value", async () => {
    const repository = await aRepository(server.db, account);
    const answer = await upload(repository, aCommit(), NPM_CYCLONEDX());
    assert.equal(answer.ok, true, answer.error);
    assert.deepEqual(answer.warnings, []);
    assert.deepEqual(answer.artifact, { kind: "SBOM", format: "CycloneDX 1.5 (JSON)", status: "QUEUED" });
    await processed(repository);

    const run = await runOf(answer.run!.runUid);
    assert.equal(run.status, "SUCCESS");
    const artifact = run.artifacts.edges[0]!.node;
    assert.deepEqual(
      [artifact.status, artifact.readCount, artifact.storedCount, artifact.skipped, artifact.error],
      ["PROCESSED", 3, 3, [], null],
    );
    assert.equal(run.scaChecks.totalCount, 1);
    const sca = run.scaChecks.edges[0]!.node;
    assert.deepEqual(
      {
        format: sca.format,
        dependencies: sca.dependencyCount,
        direct: sca.directDependencyCount,
        transitive: sca.transitiveDependencyCount,
        target: sca.target,
        occurrences: sca.vulnerabilityOccurrences.totalCount,
      },
      {
        format: "CycloneDX 1.5 (JSON)",
        dependencies: 3,
        direct: 3,
        transitive: 0,
        target: NPM_TARGET,
        occurrences: 0,
      },
    );
    const check = scaCheckOf(run);
    assert.equal(check.status, "SUCCESS");
    assert.deepEqual(check.metrics, [
      {
        shortcode: "DDP",
        items: [{ key: "AGGREGATE", latestValue: 3, threshold: null, thresholdStatus: null }],
      },
    ]);

    const view = await repositoryView(repository);
    assert.deepEqual(
      view.targets.edges.map((e) => e.node),
      [NPM_TARGET],
    );
    assert.deepEqual(view.metrics[0]!.items, [
      { key: "AGGREGATE", latestValue: 3, threshold: null, thresholdStatus: null },
    ]);

    // The SCA check is a node of its own.
    const node = await query<{ node: { id: string; dependencyCount: number } }>(
      `query($id: ID!) { node(id: $id) { id ... on SCACheck { dependencyCount } } }`,
      { id: sca.id },
    );
    assert.deepEqual(node.node, { id: sca.id, dependencyCount: 3 });
  });

  test("npm's SPDX SBOM through createArtifact stores the same packages, keyed by purl", async () => {
    const repository = await aRepository(server.db, account);
    const commit = aCommit();
    const answer = await createArtifact(repository, commit, NPM_SPDX());
    assert.equal(answer.ok, true, answer.error);
    await processed(repository);
    const run = await runOfCommit(repository, commit);
    assert.equal(run.status, "SUCCESS");
    const sca = run.scaChecks.edges[0]!.node;
    assert.deepEqual(
      [sca.format, sca.dependencyCount, sca.directDependencyCount, sca.target],
      ["SPDX 2.3 (JSON)", 3, 3, NPM_TARGET],
    );
    assert.equal(scaCheckOf(run).metrics[0]!.items[0]!.latestValue, 3);

    const packages = await server.db
      .selectFrom("packages as p")
      .innerJoin("package_versions as v", "v.package_id", "p.id")
      .select(["p.ecosystem", "p.name", "p.purl", "v.version"])
      .where("p.name", "in", ["debug", "ms", "picocolors"])
      .orderBy("p.name")
      .execute();
    assert.deepEqual(packages, [
      { ecosystem: "NPM", name: "debug", purl: "pkg:npm/debug", version: "4.3.7" },
      { ecosystem: "NPM", name: "ms", purl: "pkg:npm/ms", version: "2.1.3" },
      { ecosystem: "NPM", name: "picocolors", purl: "pkg:npm/picocolors", version: "1.1.1" },
    ]);
  });

  test("an SBOM of packages already known rewrites none of their rows, and gives a package the purl it lacked", async () => {
    const repository = await aRepository(server.db, account);
    assert.equal((await createArtifact(repository, aCommit(), NPM_SPDX())).ok, true);
    await processed(repository);
    // As a package first named by an advisory would be: no purl.
    await server.db
      .updateTable("packages")
      .set({ purl: null })
      .where("ecosystem", "=", "NPM")
      .where("name", "=", "ms")
      .execute();
    const rowVersions = () =>
      sql<{ name: string; purl: string | null; package_xmin: string; version_xmin: string }>`
        SELECT p.name, p.purl, p.xmin::text AS package_xmin, v.xmin::text AS version_xmin
        FROM packages AS p JOIN package_versions AS v ON v.package_id = p.id
        WHERE p.ecosystem = 'NPM' AND p.name IN ('debug', 'ms', 'picocolors') ORDER BY p.name`
        .execute(server.db)
        .then((result) => result.rows);
    const earlier = await rowVersions();

    assert.equal((await createArtifact(repository, aCommit(), NPM_SPDX())).ok, true);
    await processed(repository);
    const later = await rowVersions();
    assert.deepEqual(
      later.map((row) => [row.name, row.purl, row.version_xmin]),
      earlier.map((row) => [row.name, row.name === "ms" ? "pkg:npm/ms" : row.purl, row.version_xmin]),
    );
    assert.deepEqual(
      later.filter((row) => row.name !== "ms").map((row) => row.package_xmin),
      earlier.filter((row) => row.name !== "ms").map((row) => row.package_xmin),
    );
  });

  test("a package and a version whose keys another package's rows already hold are stored under their fallback keys", async () => {
    const name = `collides-${newRowKey()}`;
    const wanted = { ecosystem: "NPM" as const, name, packagePurl: `pkg:npm/${name}`, version: "1.0.0" };
    const packageKeys = rowKeysOf(`package:NPM:${name}`);
    const versionKeys = rowKeysOf(`package-version:NPM:${name}@1.0.0`);
    // Another package, and a version of it, holding the keys the wanted ones would get: what two
    // names whose hashes share their first ten characters would do.
    const squatter = await aPackage(server.db, { name: `${name}-squatter` });
    await server.db
      .updateTable("packages")
      .set({ key: packageKeys.key })
      .where("id", "=", squatter.id)
      .execute();
    const squatted = await aPackageVersion(server.db, squatter, { version: "9.9.9" });
    await server.db
      .updateTable("package_versions")
      .set({ key: versionKeys.key })
      .where("id", "=", squatted.id)
      .execute();

    const first = await server.db.transaction().execute((tx) => upsertPackageVersions(tx, [wanted]));
    const stored = await server.db
      .selectFrom("packages as p")
      .innerJoin("package_versions as v", "v.package_id", "p.id")
      .select(["p.id as packageId", "p.key as packageKey", "v.id as versionId", "v.key as versionKey"])
      .where("p.name", "=", name)
      .executeTakeFirstOrThrow();
    assert.deepEqual(first.get(`NPM:${name}@1.0.0`), {
      packageId: stored.packageId,
      versionId: stored.versionId,
    });
    assert.equal(stored.packageKey, packageKeys.fallback);
    assert.equal(stored.versionKey, versionKeys.fallback);
    // Named again, the rows are found, not inserted twice.
    const again = await server.db.transaction().execute((tx) => upsertPackageVersions(tx, [wanted]));
    assert.deepEqual(again.get(`NPM:${name}@1.0.0`), first.get(`NPM:${name}@1.0.0`));
  });

  test("cyclonedx-npm's CycloneDX 1.6 XML, key cyclonedx: two direct dependencies and one transitive", async () => {
    const repository = await aRepository(server.db, account);
    const answer = await upload(repository, aCommit(), readToolFixture("sbom", "cyclonedx-npm", "bom.xml"), {
      key: "cyclonedx",
    });
    assert.equal(answer.ok, true, answer.error);
    assert.equal(answer.artifact?.format, "CycloneDX 1.6 (XML)");
    await processed(repository);
    const run = await runOf(answer.run!.runUid);
    const sca = run.scaChecks.edges[0]!.node;
    assert.deepEqual(
      [sca.dependencyCount, sca.directDependencyCount, sca.transitiveDependencyCount, sca.target],
      [3, 2, 1, NPM_TARGET],
    );
    const stored = await server.db
      .selectFrom("sca_check_dependencies as d")
      .innerJoin("package_versions as v", "v.id", "d.package_version_id")
      .innerJoin("packages as p", "p.id", "v.package_id")
      .select(["p.name", "d.is_direct", "d.license_expression"])
      .where("d.sca_check_id", "=", (eb) =>
        eb
          .selectFrom("sca_checks")
          .select("id")
          .where("artifact_id", "=", (inner) =>
            inner.selectFrom("artifacts").select("id").where("repository_id", "=", repository.id),
          ),
      )
      .orderBy("p.name")
      .execute();
    assert.deepEqual(stored, [
      { name: "debug", is_direct: true, license_expression: "MIT" },
      { name: "ms", is_direct: false, license_expression: "MIT" },
      { name: "picocolors", is_direct: true, license_expression: "ISC" },
    ]);
  });

  test("cdxgen's CycloneDX 1.6 JSON: components, direct and transitive, and targets as the tool's document says", async () => {
    const text = readToolFixture("sbom", "cdxgen", "bom.json");
    // What the tool wrote: its components, the root's own dependencies, the lockfile named per component.
    const bom = JSON.parse(text) as {
      metadata: { component: { "bom-ref": string } };
      components: Array<{ name: string; purl: string; properties?: Array<{ name: string; value: string }> }>;
      dependencies: Array<{ ref: string; dependsOn: string[] }>;
    };
    const rootRef = bom.metadata.component["bom-ref"];
    const direct = new Set(bom.dependencies.find((d) => d.ref === rootRef)?.dependsOn);
    const srcFiles = [
      ...new Set(
        bom.components.flatMap((c) =>
          (c.properties ?? []).filter((p) => p.name === "SrcFile").map((p) => p.value),
        ),
      ),
    ];
    assert.ok(
      bom.components.length > 0 && srcFiles.length > 0,
      "the fixture names components and their lockfile",
    );

    const repository = await aRepository(server.db, account);
    const answer = await upload(repository, aCommit(), text);
    assert.equal(answer.ok, true, answer.error);
    assert.equal(answer.artifact?.format, "CycloneDX 1.6 (JSON)");
    await processed(repository);
    const sca = (await runOf(answer.run!.runUid)).scaChecks.edges[0]!.node;
    const directPurls = bom.components.filter((c) => direct.has(c.purl)).map((c) => c.purl);
    assert.deepEqual(
      [sca.dependencyCount, sca.directDependencyCount, sca.transitiveDependencyCount],
      [bom.components.length, directPurls.length, bom.components.length - directPurls.length],
    );
    assert.deepEqual(
      srcFiles.map((lockfilePath) => ({ ...NPM_TARGET, lockfilePath })),
      (await repositoryView(repository)).targets.edges.map((e) => e.node),
    );
    const stored = await server.db
      .selectFrom("sca_check_dependencies as d")
      .innerJoin("package_versions as v", "v.id", "d.package_version_id")
      .innerJoin("packages as p", "p.id", "v.package_id")
      .select(["p.name", "v.version", "d.is_direct"])
      .where("d.sca_check_id", "=", (eb) =>
        eb
          .selectFrom("sca_checks")
          .select("id")
          .where("artifact_id", "=", (inner) =>
            inner.selectFrom("artifacts").select("id").where("repository_id", "=", repository.id),
          ),
      )
      .orderBy("p.name")
      .execute();
    assert.deepEqual(
      stored.map((d) => [`pkg:npm/${d.name}@${d.version}`, d.is_direct]),
      bom.components
        .map((c) => [c.purl, direct.has(c.purl)] as [string, boolean])
        .sort(([a], [b]) => a.localeCompare(b)),
    );
  });

  test("a changed SBOM updates the counts: on a new commit, and replacing the same run's scan of that target", async () => {
    const repository = await aRepository(server.db, account);
    const first = await upload(repository, aCommit(), NPM_CYCLONEDX());
    await processed(repository);
    assert.equal((await runOf(first.run!.runUid)).scaChecks.edges[0]!.node.dependencyCount, 3);

    const next = await upload(repository, aCommit(), withoutPicocolors());
    assert.equal(next.ok, true, next.error);
    await processed(repository);
    const nextRun = await runOf(next.run!.runUid);
    assert.deepEqual(
      [
        nextRun.scaChecks.edges[0]!.node.dependencyCount,
        scaCheckOf(nextRun).metrics[0]!.items[0]!.latestValue,
      ],
      [2, 2],
    );
    assert.equal((await repositoryView(repository)).metrics[0]!.items[0]!.latestValue, 2);

    // The same commit again with the full SBOM: one scan of the target, counting 3.
    const commit = aCommit();
    await upload(repository, commit, withoutPicocolors());
    await processed(repository);
    const again = await upload(repository, commit, NPM_CYCLONEDX());
    assert.equal(again.ok, true, again.error);
    await processed(repository);
    const run = await runOfCommit(repository, commit);
    assert.equal(run.artifacts.edges.length, 2);
    assert.equal(run.scaChecks.totalCount, 1);
    assert.equal(run.scaChecks.edges[0]!.node.dependencyCount, 3);
    assert.equal(scaCheckOf(run).metrics[0]!.items[0]!.latestValue, 3);
    assert.equal((await repositoryView(repository)).targets.totalCount, 1);
  });

  test("a DDP threshold is read against each upload and, enforced, fails the sca check and the run", async () => {
    const repository = await aRepository(server.db, account);
    const repositoryId = encodeGlobalId("Repository", repository.key);
    const set = await query<{ setRepositoryMetricThreshold: { ok: boolean } }>(
      `mutation($input: SetRepositoryMetricThresholdInput!) { setRepositoryMetricThreshold(input: $input) { ok } }`,
      { input: { repositoryId, metricShortcode: "DDP", metricKey: "AGGREGATE", thresholdValue: 2 } },
    );
    assert.equal(set.setRepositoryMetricThreshold.ok, true);
    const enforce = await query<{ updateRepositoryMetricSetting: { ok: boolean } }>(
      `mutation($input: UpdateRepositoryMetricSettingInput!) { updateRepositoryMetricSetting(input: $input) { ok } }`,
      { input: { repositoryId, metricShortcode: "DDP", isReported: true, isThresholdEnforced: true } },
    );
    assert.equal(enforce.updateRepositoryMetricSetting.ok, true);

    const over = await upload(repository, aCommit(), NPM_CYCLONEDX());
    await processed(repository);
    const overRun = await runOf(over.run!.runUid);
    assert.deepEqual(scaCheckOf(overRun).metrics[0]!.items, [
      { key: "AGGREGATE", latestValue: 3, threshold: 2, thresholdStatus: "FAILING" },
    ]);
    assert.deepEqual([scaCheckOf(overRun).status, overRun.status], ["FAILURE", "FAILURE"]);

    const within = await upload(repository, aCommit(), withoutPicocolors());
    await processed(repository);
    const withinRun = await runOf(within.run!.runUid);
    assert.deepEqual(scaCheckOf(withinRun).metrics[0]!.items[0]!.thresholdStatus, "PASSING");
    assert.deepEqual([scaCheckOf(withinRun).status, withinRun.status], ["SUCCESS", "SUCCESS"]);
  });

  test("a dependency an imported OSV advisory affects becomes a vulnerability occurrence of the upload's SCA check", async () => {
    // The published lodash advisory (fixed in 4.17.12), imported before the upload.
    const advisory = "GHSA-jf85-cpcp-j695";
    await importAdvisories(server.db, [
      {
        name: `${advisory}.json`,
        text: readFileSync(new URL(`../src/formats/osv/fixtures/${advisory}.json`, import.meta.url), "utf8"),
      },
    ]);
    // npm's SBOM of the fixture project, which also depends on lodash 4.17.11 directly.
    const bom = JSON.parse(NPM_CYCLONEDX()) as {
      metadata: { component: { "bom-ref": string } };
      components: Array<Record<string, unknown>>;
      dependencies: Array<{ ref: string; dependsOn: string[] }>;
    };
    bom.components.push({
      type: "library",
      "bom-ref": "lodash@4.17.11",
      name: "lodash",
      version: "4.17.11",
      purl: "pkg:npm/lodash@4.17.11",
      // Where npm says a registry package came from; without it, npm's document means a link.
      externalReferences: [
        { type: "distribution", url: "https://registry.npmjs.org/lodash/-/lodash-4.17.11.tgz" },
      ],
    });
    bom.dependencies
      .find((d) => d.ref === bom.metadata.component["bom-ref"])!
      .dependsOn.push("lodash@4.17.11");
    bom.dependencies.push({ ref: "lodash@4.17.11", dependsOn: [] });

    const repository = await aRepository(server.db, account);
    const answer = await upload(repository, aCommit(), JSON.stringify(bom));
    assert.equal(answer.ok, true, answer.error);
    await processed(repository);
    const run = await runOf(answer.run!.runUid);
    const sca = run.scaChecks.edges[0]!.node;
    assert.equal(sca.dependencyCount, 4);
    const found = await query<{
      node: {
        vulnerabilityOccurrences: {
          totalCount: number;
          edges: Array<{ node: Record<string, unknown> }>;
        };
      };
    }>(
      `query($id: ID!) { node(id: $id) { ... on SCACheck { vulnerabilityOccurrences(first: 10) { totalCount
        edges { node { fixability package { name } packageVersion { version } vulnerability { identifier } } } } } } }`,
      { id: sca.id },
    );
    assert.deepEqual(found.node.vulnerabilityOccurrences.totalCount, 1, "only lodash is affected");
    assert.deepEqual(found.node.vulnerabilityOccurrences.edges[0]!.node, {
      fixability: "MANUALLY_FIXABLE",
      package: { name: "lodash" },
      packageVersion: { version: "4.17.11" },
      vulnerability: { identifier: advisory },
    });
  });

  test("bad SBOMs are refused at upload with a sentence naming the problem, and nothing is stored", async () => {
    const repository = await aRepository(server.db, account);
    const cyclonedx = NPM_CYCLONEDX();
    const cases: Array<[string, { key?: string; analyzer?: string }, string]> = [
      [
        cyclonedx.slice(0, 1500),
        {},
        "the SBOM is invalid: the CycloneDX SBOM: the document ends at byte 1500 before its value is complete (is the file cut short?)",
      ],
      [
        cyclonedx.replace('"specVersion": "1.5"', '"specVersion": "1.2"'),
        {},
        "the SBOM is invalid: CycloneDX 1.2 is not supported: upload CycloneDX 1.4, 1.5, 1.6 (most tools take a --spec-version option)",
      ],
      [
        NPM_SPDX().replace('"SPDX-2.3"', '"SPDX-3.0"'),
        {},
        "the SBOM is invalid: SPDX-3.0 is not supported: upload SPDX 2.2 or 2.3 (JSON or tag-value)",
      ],
      [
        cyclonedx,
        { key: "spdx" },
        "the SBOM is invalid: the upload's key says spdx, but the report is a CycloneDX SBOM (JSON)",
      ],
      [
        cyclonedx,
        { key: "swid" },
        "an sca upload's key names the SBOM's standard, cyclonedx or spdx (or leave it out to have it detected), got \"swid\"",
      ],
      [
        readToolFixture("sarif", "eslint", "eslint.sarif"),
        {},
        "this looks like a SARIF log, not an SBOM: upload it with the shortcode of the analyzer that wrote it (with analyzerType community for one outside the catalog)",
      ],
      [
        cyclonedx,
        { analyzer: "test-coverage", key: "javascript" },
        "this looks like a CycloneDX SBOM (JSON), not a coverage report: upload it with analyzer sca",
      ],
    ];
    for (const [text, fields, error] of cases) {
      const answer = await upload(repository, aCommit(), text, fields);
      assert.deepEqual([answer.ok, answer.error], [false, error]);
    }
    const cli = await createArtifact(repository, aCommit(), cyclonedx.slice(0, 1500), "cyclonedx");
    assert.deepEqual(
      [cli.ok, cli.error],
      [
        false,
        "the SBOM is invalid: the CycloneDX SBOM: the document ends at byte 1500 before its value is complete (is the file cut short?)",
      ],
    );
    const stored = await server.db
      .selectFrom("artifacts")
      .select("id")
      .where("repository_id", "=", repository.id)
      .execute();
    assert.equal(stored.length, 0);
  });

  test("components without a purl or of another registry are skipped, counted and said at upload", async () => {
    const repository = await aRepository(server.db, account);
    const bom = JSON.parse(NPM_CYCLONEDX()) as { components: Array<Record<string, unknown>> };
    bom.components.push(
      { type: "library", "bom-ref": "vendored", name: "vendored-lib", version: "1.0.0" },
      {
        type: "library",
        "bom-ref": "curl",
        name: "curl",
        version: "7.88.1",
        purl: "pkg:deb/debian/curl@7.88.1",
      },
    );
    const answer = await upload(repository, aCommit(), JSON.stringify(bom));
    assert.equal(answer.ok, true, answer.error);
    assert.deepEqual(answer.warnings, [
      "1 of 5 components has no valid package URL (purl) and will not be stored (first: vendored-lib 1.0.0).",
      "1 of 5 components is of a package type no supported registry uses and will not be stored (first: pkg:deb/debian/curl@7.88.1).",
    ]);
    await processed(repository);
    const run = await runOf(answer.run!.runUid);
    const artifact = run.artifacts.edges[0]!.node;
    assert.deepEqual(
      [artifact.readCount, artifact.storedCount, artifact.skipped],
      [
        5,
        3,
        [
          { reason: "NO_PURL", count: 1 },
          { reason: "UNSUPPORTED_ECOSYSTEM", count: 1 },
        ],
      ],
    );
    assert.equal(run.scaChecks.edges[0]!.node.dependencyCount, 3);
    assert.equal(run.status, "SUCCESS");
  });
});
