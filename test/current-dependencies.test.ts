import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, describe, test } from "node:test";
import { sql } from "kysely";
import { readToolFixture } from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { importAdvisories } from "../src/modules/dependencies/advisory-import.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { artifactsProcessed } from "./helpers/builders-artifacts.ts";
import { gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * The repository's current dependency vulnerabilities through real uploads (docs/read-model.md
 * "Current dependency scans"): two targets scanned by real tools' SBOMs (npm's own for the root
 * lockfile, cdxgen's for a project under `web/`), each read from the newest run that scanned it.
 * The advisory is the published lodash one, imported from its OSV record.
 */

const UPLOAD = `mutation($input: UploadArtifactInput!) {
  uploadArtifact(input: $input) { ok error run { runUid } } }`;

const CURRENT = `query($name: String!, $login: String!) {
  repository(name: $name, login: $login, vcsProvider: GITHUB) {
    dependencyVulnerabilityOccurrences(first: 10) { totalCount
      edges { node { id package { name } packageVersion { version } vulnerability { identifier } } } } } }`;

const DDP = `query($name: String!, $login: String!) {
  repository(name: $name, login: $login, vcsProvider: GITHUB) {
    metrics(shortcodeIn: [DDP]) { items { key latestValue } } } }`;

/** The lodash advisory (fixed in 4.17.12) as GitHub publishes it in OSV. */
const ADVISORY = "GHSA-jf85-cpcp-j695";
const LODASH = "pkg:npm/lodash@4.17.11";

interface Bom {
  metadata: { component: { "bom-ref": string } };
  components: Array<Record<string, unknown> & { properties?: Array<{ name: string; value: string }> }>;
  dependencies: Array<{ ref: string; dependsOn: string[] }>;
}

/** `bom` with lodash 4.17.11 as a direct dependency of its root (`lockfile` named as cdxgen does, when given). */
function withLodash(bom: Bom, ref: string, lockfile?: string): Bom {
  bom.components.push({
    type: "library",
    "bom-ref": ref,
    name: "lodash",
    version: "4.17.11",
    purl: LODASH,
    ...(lockfile && { properties: [{ name: "SrcFile", value: lockfile }] }),
  });
  bom.dependencies.find((d) => d.ref === bom.metadata.component["bom-ref"])!.dependsOn.push(ref);
  bom.dependencies.push({ ref, dependsOn: [] });
  return bom;
}

/** npm's CycloneDX SBOM of the fixture project: the root target, package-lock.json. */
function rootSbom(lodash: boolean): string {
  const bom = JSON.parse(readToolFixture("sbom", "npm", "cyclonedx.json")) as Bom;
  return JSON.stringify(lodash ? withLodash(bom, "lodash@4.17.11") : bom);
}

/** cdxgen's SBOM of the same project kept under web/: every component names web/package-lock.json. */
function webSbom(lodash: boolean): string {
  const bom = JSON.parse(readToolFixture("sbom", "cdxgen", "bom.json")) as Bom;
  for (const component of bom.components) {
    for (const property of component.properties ?? []) {
      if (property.name === "SrcFile") property.value = `web/${property.value}`;
    }
  }
  return JSON.stringify(lodash ? withLodash(bom, LODASH, "web/package-lock.json") : bom);
}

/** The published lodash advisory, imported from its OSV record. */
function importLodashAdvisory(server: TestServer) {
  return importAdvisories(server.db, [
    {
      name: `${ADVISORY}.json`,
      text: readFileSync(new URL(`../src/formats/osv/fixtures/${ADVISORY}.json`, import.meta.url), "utf8"),
    },
  ]);
}

// Each test has a server of its own: whether an advisory is imported before or after the uploads
// is part of what each one tests.
describe("current dependency vulnerabilities through uploads", () => {
  const servers: TestServer[] = [];
  after(async () => {
    for (const server of servers) await server.stop();
  });
  let commits = 0;
  const aCommit = () => `${(++commits).toString(16).padStart(8, "0")}${"c0ffee".repeat(5)}00`;

  /** A server, a member's token and a repository of their account. */
  async function setUp() {
    const server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
    servers.push(server);
    const user = await aUser(server.db);
    const account = await anAccount(server.db, {}, [{ user, role: "MEMBER" }]);
    const token = await aToken(server.db, server.config.tokenPepper, user);
    const repository = await aRepository(server.db, account);

    /** Uploads `text` as the SBOM of `commit` on main and waits until it is processed. */
    async function uploadSbom(commit: string, text: string): Promise<void> {
      const res = await gql<{ uploadArtifact: { ok: boolean; error: string } }>(
        server.endpoint,
        token,
        UPLOAD,
        {
          input: {
            repositoryId: encodeGlobalId("Repository", repository.key),
            commitOid: commit,
            branch: "main",
            analyzer: "sca",
            data: text,
          },
        },
      );
      assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
      assert.equal(res.body.data!.uploadArtifact.ok, true, res.body.data!.uploadArtifact.error);
      await artifactsProcessed(server.db, repository.id);
    }

    /** The repository's current occurrences, each with the lockfile of the target whose scan found it. */
    async function current() {
      const res = await gql<{
        repository: {
          dependencyVulnerabilityOccurrences: {
            totalCount: number;
            edges: Array<{
              node: {
                id: string;
                package: { name: string };
                packageVersion: { version: string };
                vulnerability: { identifier: string };
              };
            }>;
          };
        };
      }>(server.endpoint, token, CURRENT, { name: repository.name, login: account.login });
      assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
      const connection = res.body.data!.repository.dependencyVulnerabilityOccurrences;
      assert.equal(connection.totalCount, connection.edges.length);
      const found = [];
      for (const { node } of connection.edges) {
        assert.deepEqual(
          [node.package.name, node.packageVersion.version, node.vulnerability.identifier],
          ["lodash", "4.17.11", ADVISORY],
        );
        found.push({ id: node.id, lockfile: await lockfileOf(node.id) });
      }
      return found.sort((a, b) => a.lockfile.localeCompare(b.lockfile));
    }

    /** The lockfile path of the target whose scan found the occurrence with global id `id`. */
    async function lockfileOf(id: string): Promise<string> {
      const key = Buffer.from(id, "base64").toString("utf8").split(":").at(-1)!;
      const row = await server.db
        .selectFrom("vulnerability_occurrences as vo")
        .innerJoin("sca_checks as s", "s.id", "vo.sca_check_id")
        .innerJoin("repository_targets as t", "t.id", "s.target_id")
        .select("t.lockfile_path")
        .where("vo.key", "=", key)
        .executeTakeFirstOrThrow();
      return row.lockfile_path;
    }

    /** The repository's newest DDP value, as the API answers it. */
    async function dependencies(): Promise<number | null> {
      const res = await gql<{
        repository: { metrics: Array<{ items: Array<{ key: string; latestValue: number | null }> }> };
      }>(server.endpoint, token, DDP, { name: repository.name, login: account.login });
      assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
      const item = res.body.data!.repository.metrics[0]?.items.find((i) => i.key === "AGGREGATE");
      return item?.latestValue ?? null;
    }

    return { server, repository, uploadSbom, current, dependencies };
  }

  test("each target keeps the vulnerabilities of the newest run that scanned it, and a newer scan of it that finds none clears them", async () => {
    const { server, uploadSbom, current } = await setUp();
    await importLodashAdvisory(server);
    const first = aCommit();
    await uploadSbom(first, rootSbom(true));
    await uploadSbom(first, webSbom(true));
    const both = await current();
    assert.deepEqual(
      both.map((o) => o.lockfile),
      ["package-lock.json", "web/package-lock.json"],
    );

    // The next commit's CI scans only the root, which no longer depends on lodash: web/ keeps the
    // vulnerability its own newest scan found.
    await uploadSbom(aCommit(), rootSbom(false));
    assert.deepEqual(await current(), [both[1]]);

    // A scan of web/ without lodash clears it.
    await uploadSbom(aCommit(), webSbom(false));
    assert.deepEqual(await current(), []);
  });

  test("a run's DDP counts the packages of every target, a target it did not scan by its newest scan", async () => {
    const { server, repository, uploadSbom, dependencies } = await setUp();
    const first = aCommit();
    await uploadSbom(first, rootSbom(false));
    await uploadSbom(first, webSbom(true));
    const both = await dependencies();
    assert.ok(both !== null && both > 1, String(both));

    // The next commit's CI scans only the root: web/ still depends on what its newest scan found,
    // lodash included, which the root's own scan does not name.
    const second = aCommit();
    await uploadSbom(second, rootSbom(false));
    const ownScanOnly = await sql<{ count: number }>`
      SELECT count(DISTINCT v.package_id)::int AS count FROM analysis_runs AS r
      JOIN sca_checks AS s ON s.run_id = r.id
      JOIN sca_check_dependencies AS d ON d.sca_check_id = s.id
      JOIN package_versions AS v ON v.id = d.package_version_id
      WHERE r.repository_id = ${repository.id} AND r.commit_oid = ${second}`.execute(server.db);
    assert.ok(ownScanOnly.rows[0]!.count < both, "the second run's own scan names fewer packages");
    assert.equal(await dependencies(), both);

    // A scan of web/ without lodash: one package fewer.
    await uploadSbom(aCommit(), webSbom(false));
    assert.equal(await dependencies(), both - 1);
  });

  test("an advisory import matches each target's current scan, also one of an older run than the newest", async () => {
    const { server, uploadSbom, current } = await setUp();
    const first = aCommit();
    await uploadSbom(first, rootSbom(true));
    await uploadSbom(first, webSbom(true));
    await uploadSbom(aCommit(), rootSbom(false));
    assert.deepEqual(await current(), [], "no advisory is imported yet");

    await importLodashAdvisory(server);
    assert.deepEqual(
      (await current()).map((o) => o.lockfile),
      ["web/package-lock.json"],
    );
  });
});
