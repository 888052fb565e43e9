import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { AccountRow, RepositoryRow } from "../../src/db/types.ts";
import { readToolFixture } from "../../src/formats/fixtures.ts";
import { encodeGlobalId } from "../../src/graphql/global-id.ts";
import { importAdvisories } from "../../src/modules/dependencies/advisory-import.ts";
import { anAccount, aRepository, aToken, aUser } from "./builders.ts";
import { artifactsProcessed } from "./builders-artifacts.ts";
import { gql, type TestServer } from "./server.ts";

/**
 * A repository whose dependencies are scanned through real uploads of real tools' SBOMs (npm's
 * own for the root lockfile, cdxgen's for the same project kept under `web/`), and the reads the
 * tests of current dependency scans make. The advisory is the published lodash one, imported from
 * its OSV record.
 */

const UPLOAD = `mutation($input: UploadArtifactInput!) {
  uploadArtifact(input: $input) { ok error artifact { id } } }`;

const CURRENT = `query($name: String!, $login: String!) {
  repository(name: $name, login: $login, vcsProvider: GITHUB) {
    dependencyVulnerabilityOccurrences(first: 10) { totalCount
      edges { node { id package { name } packageVersion { version } vulnerability { identifier } } } } } }`;

const DDP = `query($name: String!, $login: String!) {
  repository(name: $name, login: $login, vcsProvider: GITHUB) {
    metrics(shortcodeIn: [DDP]) { items { key latestValue } } } }`;

const ARTIFACT = `query($id: ID!) { node(id: $id) { ... on Artifact { status warnings } } }`;

/** The lodash advisory (fixed in 4.17.12) as GitHub publishes it in OSV. */
export const ADVISORY = "GHSA-jf85-cpcp-j695";
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
    // Where npm says a registry package came from; without it, npm's document means a link.
    externalReferences: [
      { type: "distribution", url: "https://registry.npmjs.org/lodash/-/lodash-4.17.11.tgz" },
    ],
    ...(lockfile && { properties: [{ name: "SrcFile", value: lockfile }] }),
  });
  bom.dependencies.find((d) => d.ref === bom.metadata.component["bom-ref"])!.dependsOn.push(ref);
  bom.dependencies.push({ ref, dependsOn: [] });
  return bom;
}

/** npm's CycloneDX SBOM of the fixture project: the root target, package-lock.json. */
export function rootSbom(lodash: boolean): string {
  const bom = JSON.parse(readToolFixture("sbom", "npm", "cyclonedx.json")) as Bom;
  return JSON.stringify(lodash ? withLodash(bom, "lodash@4.17.11") : bom);
}

/** cdxgen's SBOM of the same project kept under web/: every component names web/package-lock.json. */
export function webSbom(lodash: boolean): string {
  const bom = JSON.parse(readToolFixture("sbom", "cdxgen", "bom.json")) as Bom;
  for (const component of bom.components) {
    for (const property of component.properties ?? []) {
      if (property.name === "SrcFile") property.value = `web/${property.value}`;
    }
  }
  return JSON.stringify(lodash ? withLodash(bom, LODASH, "web/package-lock.json") : bom);
}

/** The published lodash advisory, imported from its OSV record. */
export function importLodashAdvisory(server: TestServer) {
  return importAdvisories(server.db, [
    {
      name: `${ADVISORY}.json`,
      text: readFileSync(new URL(`../../src/formats/osv/fixtures/${ADVISORY}.json`, import.meta.url), "utf8"),
    },
  ]);
}

let commits = 0;

/** A new commit SHA, different on every call. */
export const aCommit = () => `${(++commits).toString(16).padStart(8, "0")}${"c0ffee".repeat(5)}00`;

/** A current occurrence and the lockfile of the target whose scan found it. */
export interface CurrentOccurrence {
  id: string;
  lockfile: string;
}

/** What {@link anSbomScene} answers. */
export interface SbomScene {
  repository: RepositoryRow;
  account: AccountRow;
  /** A MEMBER's token. */
  token: string;
  /** Uploads `text` as the SBOM of `commit` on main, waits until it is processed, answers the artifact's id. */
  uploadSbom(commit: string, text: string, extra?: Record<string, unknown>): Promise<string>;
  /** The status and warnings of the artifact with global id `id`. */
  artifact(id: string): Promise<{ status: string; warnings: string[] }>;
  /** The repository's current occurrences (every one of lodash's advisory), by lockfile. */
  current(): Promise<CurrentOccurrence[]>;
  /** The repository's newest DDP value, as the API answers it. */
  dependencies(): Promise<number | null>;
}

/** A member's token and a repository of their account on `server` (whose worker must run). */
export async function anSbomScene(server: TestServer): Promise<SbomScene> {
  const user = await aUser(server.db);
  const account = await anAccount(server.db, {}, [{ user, role: "MEMBER" }]);
  const token = await aToken(server.db, server.config.tokenPepper, user);
  const repository = await aRepository(server.db, account);

  async function uploadSbom(commit: string, text: string, extra: Record<string, unknown> = {}) {
    const res = await gql<{ uploadArtifact: { ok: boolean; error: string; artifact: { id: string } } }>(
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
          ...extra,
        },
      },
    );
    assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
    assert.equal(res.body.data!.uploadArtifact.ok, true, res.body.data!.uploadArtifact.error);
    await artifactsProcessed(server.db, repository.id);
    return res.body.data!.uploadArtifact.artifact.id;
  }

  async function artifact(id: string) {
    const res = await gql<{ node: { status: string; warnings: string[] } }>(
      server.endpoint,
      token,
      ARTIFACT,
      {
        id,
      },
    );
    assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data!.node;
  }

  async function current(): Promise<CurrentOccurrence[]> {
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

  async function dependencies(): Promise<number | null> {
    const res = await gql<{
      repository: { metrics: Array<{ items: Array<{ key: string; latestValue: number | null }> }> };
    }>(server.endpoint, token, DDP, { name: repository.name, login: account.login });
    assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
    const item = res.body.data!.repository.metrics[0]?.items.find((i) => i.key === "AGGREGATE");
    return item?.latestValue ?? null;
  }

  return { repository, account, token, uploadSbom, artifact, current, dependencies };
}
