import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { listToolFixtures, readToolFixture, readToolSummary } from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { importAdvisories } from "../src/modules/dependencies/advisory-import.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { artifactsProcessed } from "./helpers/builders-artifacts.ts";
import { gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * An npm workspace with a `file:` link and a second project (test/fixtures/tools/npm-workspaces),
 * as npm's `npm sbom` (CycloneDX and SPDX), cyclonedx-npm (JSON and XML) and cdxgen (with and
 * without recursing) describe it, uploaded through the server (docs/ingestion-sbom.md "The
 * project's own packages", "Several projects"). The answers are compared with npm's own account of
 * the tree (`npm query` in the fixture's summary): the links and workspaces are not dependencies,
 * npm's third-party packages are, and what the root, the workspaces and the links depend on is
 * direct. The vendored copy of lodash 4.17.11 is the project's own code, so lodash's advisory is
 * not matched, as `npm audit` skips links.
 */

interface Figures {
  npm: {
    links: string[];
    workspaces: string[];
    thirdParty: string[];
    direct: string[];
    transitive: string[];
    changelogDirect: string[];
  };
  cdxgen: { nestedProjects: string[]; linked: string[]; srcFiles: string[] };
  cdxgenNoRecurse: { nestedProjects: string[]; srcFiles: string[] };
}

const UPLOAD = `mutation($input: UploadArtifactInput!) {
  uploadArtifact(input: $input) { ok error warnings run { runUid } }
}`;

const RUN_QUERY = `query($uid: UUID!) { run(runUid: $uid) {
  checks { edges { node { analyzer { shortcode } metrics { shortcode items { key latestValue } } } } }
  artifacts { edges { node { status readCount storedCount skipped { reason count } warnings } } }
  scaChecks { edges { node { dependencyCount directDependencyCount transitiveDependencyCount
    target { lockfilePath } vulnerabilityOccurrences { totalCount } } } } } }`;

interface RunOut {
  checks: {
    edges: Array<{
      node: {
        analyzer: { shortcode: string };
        metrics: Array<{ shortcode: string; items: Array<{ key: string; latestValue: number | null }> }>;
      };
    }>;
  };
  artifacts: {
    edges: Array<{
      node: {
        status: string;
        readCount: number;
        storedCount: number;
        skipped: Array<{ reason: string; count: number }>;
        warnings: string[];
      };
    }>;
  };
  scaChecks: {
    edges: Array<{
      node: {
        dependencyCount: number;
        directDependencyCount: number;
        transitiveDependencyCount: number;
        target: { lockfilePath: string } | null;
        vulnerabilityOccurrences: { totalCount: number };
      };
    }>;
  };
}

const LODASH_ADVISORY = "GHSA-jf85-cpcp-j695";

let server: TestServer;
let account: AccountRow;
let token: string;
let commits = 0;
const figures = readToolSummary("sbom", "workspaces", "npm-cyclonedx.json").figures as unknown as Figures;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, {}, [{ user, role: "MEMBER" }]);
  token = await aToken(server.db, server.config.tokenPepper, user);
  // lodash's published advisory (fixed in 4.17.12): it affects the registry's lodash 4.17.11,
  // whose name and version the vendored copy keeps.
  await importAdvisories(server.db, [
    {
      name: `${LODASH_ADVISORY}.json`,
      text: readFileSync(
        new URL(`../src/formats/osv/fixtures/${LODASH_ADVISORY}.json`, import.meta.url),
        "utf8",
      ),
    },
  ]);
});
after(() => server?.stop());

function aCommit(): string {
  commits += 1;
  return `${commits.toString(16).padStart(6, "0")}${"a0c5e1".repeat(5)}77`;
}

async function uploadFixture(
  repository: RepositoryRow,
  file: string,
): Promise<{ run: RunOut; warnings: string[] }> {
  const res = await gql<{
    uploadArtifact: { ok: boolean; error: string; warnings: string[]; run: { runUid: string } };
  }>(server.endpoint, token, UPLOAD, {
    input: {
      repositoryId: encodeGlobalId("Repository", repository.key),
      commitOid: aCommit(),
      branch: "main",
      analyzer: "sca",
      data: readToolFixture("sbom", "workspaces", file),
    },
  });
  assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
  const answer = res.body.data!.uploadArtifact;
  assert.equal(answer.ok, true, answer.error);
  await artifactsProcessed(server.db, repository.id);
  const out = await gql<{ run: RunOut }>(server.endpoint, token, RUN_QUERY, { uid: answer.run.runUid });
  assert.deepEqual(out.body.errors, undefined, JSON.stringify(out.body.errors));
  return { run: out.body.data!.run, warnings: answer.warnings };
}

function ddpOf(run: RunOut): number | null | undefined {
  const sca = run.checks.edges.find((e) => e.node.analyzer.shortcode === "sca")!.node;
  return sca.metrics.find((m) => m.shortcode === "DDP")?.items.find((i) => i.key === "AGGREGATE")
    ?.latestValue;
}

/** The package versions the repository's scans hold in the target of `lockfilePath`: name@version → direct. */
async function dependenciesOfTarget(
  repository: RepositoryRow,
  lockfilePath: string,
): Promise<Record<string, boolean>> {
  const rows = await server.db
    .selectFrom("sca_check_dependencies as d")
    .innerJoin("repository_targets as t", "t.id", "d.target_id")
    .innerJoin("package_versions as v", "v.id", "d.package_version_id")
    .innerJoin("packages as p", "p.id", "v.package_id")
    .select(["p.name", "v.version", "d.is_direct"])
    .where("t.repository_id", "=", repository.id)
    .where("t.lockfile_path", "=", lockfilePath)
    .execute();
  return Object.fromEntries(rows.map((r) => [`${r.name}@${r.version}`, r.is_direct]));
}

const union = (...lists: string[][]) => [...new Set(lists.flat())].sort();

describe("an npm workspace with a file: link, as each tool describes it", () => {
  test("the fixtures are the six documents of the workspace, and npm counts three links, two of them workspaces", () => {
    assert.deepEqual(
      listToolFixtures("sbom")
        .filter((f) => f.tool === "workspaces")
        .map((f) => f.file),
      [
        "workspaces/npm-cyclonedx.json",
        "workspaces/npm-spdx.json",
        "workspaces/cyclonedx-npm.json",
        "workspaces/cyclonedx-npm.xml",
        "workspaces/cdxgen.json",
        "workspaces/cdxgen-recurse.json",
      ],
    );
    assert.equal(figures.npm.links.length, 3);
    assert.equal(figures.npm.workspaces.length, 2);
    assert.ok(figures.npm.links.includes("lodash@4.17.11"));
    assert.deepEqual(figures.cdxgen.linked.length, figures.npm.links.length);
  });

  for (const file of [
    "npm-cyclonedx.json",
    "npm-spdx.json",
    "cyclonedx-npm.json",
    "cyclonedx-npm.xml",
    "cdxgen.json",
  ]) {
    test(`${file}: npm's third-party packages are the dependencies, its links are left out and said, lodash's advisory is not matched`, async () => {
      const repository = await aRepository(server.db, account);
      const { run, warnings } = await uploadFixture(repository, file);
      const { npm } = figures;
      const [scan] = run.scaChecks.edges.map((e) => e.node);
      assert.deepEqual(
        {
          dependencies: scan!.dependencyCount,
          direct: scan!.directDependencyCount,
          transitive: scan!.transitiveDependencyCount,
          target: scan!.target?.lockfilePath,
          vulnerabilities: scan!.vulnerabilityOccurrences.totalCount,
          ddp: ddpOf(run),
        },
        {
          dependencies: npm.thirdParty.length,
          direct: npm.direct.length,
          transitive: npm.transitive.length,
          target: "package-lock.json",
          vulnerabilities: 0,
          ddp: npm.thirdParty.length,
        },
      );
      assert.deepEqual(await dependenciesOfTarget(repository, "package-lock.json"), {
        ...Object.fromEntries(npm.direct.map((p) => [p, true])),
        ...Object.fromEntries(npm.transitive.map((p) => [p, false])),
      });
      const artifact = run.artifacts.edges[0]!.node;
      assert.equal(artifact.status, "PROCESSED");
      assert.deepEqual(artifact.skipped, [{ reason: "PROJECT_PACKAGE", count: npm.links.length }]);
      assert.equal(artifact.storedCount, npm.thirdParty.length);
      const sentence = artifact.warnings.find((w) => w.includes("the project's own packages"));
      assert.match(
        sentence ?? "",
        new RegExp(`^${npm.links.length} of ${artifact.readCount} components are the project's own packages`),
      );
      assert.ok(warnings.includes(sentence!), "the upload's answer says it too");
    });
  }

  test("cdxgen recursing: the nested project's dependencies are direct, each package is filed in every lockfile that holds it", async () => {
    const repository = await aRepository(server.db, account);
    const { run } = await uploadFixture(repository, "cdxgen-recurse.json");
    const { npm, cdxgen } = figures;
    assert.deepEqual(cdxgen.nestedProjects, ["pkg:npm/changelog@0.4.0"]);
    const all = union(npm.thirdParty, npm.changelogDirect);
    const direct = union(npm.direct, npm.changelogDirect);
    const [scan] = run.scaChecks.edges.map((e) => e.node);
    assert.deepEqual(
      {
        dependencies: scan!.dependencyCount,
        direct: scan!.directDependencyCount,
        transitive: scan!.transitiveDependencyCount,
        target: scan!.target?.lockfilePath,
        vulnerabilities: scan!.vulnerabilityOccurrences.totalCount,
        ddp: ddpOf(run),
      },
      {
        dependencies: all.length,
        direct: direct.length,
        transitive: all.length - direct.length,
        target: "package-lock.json",
        vulnerabilities: 0,
        ddp: all.length,
      },
    );
    // What npm reads in tools/changelog's own lockfile is that target's; the root's lockfile holds
    // npm's third-party packages of the workspace. No target for the lockfiles cdxgen names for the
    // links (packages/web/package-lock.json...), which do not exist.
    assert.deepEqual(
      Object.keys(await dependenciesOfTarget(repository, "tools/changelog/package-lock.json")).sort(),
      npm.changelogDirect,
    );
    assert.deepEqual(
      Object.keys(await dependenciesOfTarget(repository, "package-lock.json")).sort(),
      npm.thirdParty,
    );
    const targets = await server.db
      .selectFrom("repository_targets")
      .select("lockfile_path")
      .where("repository_id", "=", repository.id)
      .orderBy("lockfile_path")
      .execute();
    assert.deepEqual(
      targets.map((t) => t.lockfile_path),
      ["package-lock.json", "tools/changelog/package-lock.json"],
    );
    assert.ok(
      cdxgen.srcFiles.includes("packages/web/package-lock.json"),
      "cdxgen names lockfiles of the links",
    );
  });
});
