// test-runner: execution-mode independent (upload flows; the read queries are ordinary and covered elsewhere in both modes)
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { AccountRow } from "../src/db/types.ts";
import { fixtureDir, type ToolFixture, toolFixture } from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { aCommitOid } from "./helpers/builders-metrics.ts";
import { waitFor } from "./helpers/instance.ts";
import { gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * A report made in a subdirectory of the checkout (docs/ingestion.md "Where the report's paths
 * lead"): real tools' reports uploaded once as made at the repository's root (`workDir` alone, as
 * before) and once as made in the project's folder of a larger checkout (`workDir` that folder,
 * `repositoryRoot` its parent). The second must place every path the first stored under the
 * folder: relative paths (LCOV, oxlint's SARIF, cdxgen's lockfile locations) as well as absolute
 * ones (Clover, clang's `file://` URIs), and an SBOM's components without a location in the
 * folder's lockfile.
 */

let server: TestServer;
let account: AccountRow;
let token: string;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, {}, [{ user, role: "MEMBER" }]);
  token = await aToken(server.db, server.config.tokenPepper, user);
});
after(() => server?.stop());

async function query<T>(text: string, variables: Record<string, unknown>): Promise<T> {
  const res = await gql<T>(server.endpoint, token, text, variables);
  assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
  return res.body.data!;
}

const UPLOAD = `mutation Upload($input: UploadArtifactInput!) {
  uploadArtifact(input: $input) { ok error artifact { id } }
}`;

const READ = `query($id: ID!) {
  node(id: $id) {
    ... on Artifact {
      status storedCount skippedCount workDir repositoryRoot
      check {
        issues(first: 100) { edges { node { path } } }
        coverageFiles(first: 100) { edges { node { path lines { total covered } } } }
      }
      run { repository { targets(first: 20) { edges { node { lockfilePath } } } } }
    }
  }
}`;

interface Stored {
  storedCount: number;
  skippedCount: number;
  workDir: string | null;
  repositoryRoot: string | null;
  findings: string[];
  coverage: string[];
  lockfiles: string[];
}

interface ArtifactNode {
  status: string;
  storedCount: number;
  skippedCount: number;
  workDir: string | null;
  repositoryRoot: string | null;
  check: {
    issues: { edges: Array<{ node: { path: string } }> };
    coverageFiles: { edges: Array<{ node: { path: string; lines: { total: number; covered: number } } }> };
  } | null;
  run: { repository: { targets: { edges: Array<{ node: { lockfilePath: string } }> } } };
}

/** Uploads `fixture` to a repository of its own with these placement fields; answers what was stored. */
async function upload(
  fixture: ToolFixture,
  analyzer: { analyzer: string; analyzerType?: string; key?: string; goModules?: unknown },
  placement: { workDir: string; repositoryRoot?: string },
): Promise<Stored> {
  const repository = await aRepository(server.db, account);
  const data = await query<{
    uploadArtifact: { ok: boolean; error: string; artifact: { id: string } | null };
  }>(UPLOAD, {
    input: {
      repositoryId: encodeGlobalId("Repository", repository.key),
      commitOid: aCommitOid(),
      branch: repository.default_branch,
      ...analyzer,
      ...placement,
      data: fs.readFileSync(path.join(fixtureDir(fixture.kind), fixture.file), "utf8"),
    },
  });
  assert.equal(data.uploadArtifact.error, "", `${fixture.file} is accepted`);
  const id = data.uploadArtifact.artifact!.id;
  let artifact: ArtifactNode | undefined;
  await waitFor(
    `${fixture.file} to be processed`,
    async () => {
      artifact = (await query<{ node: ArtifactNode }>(READ, { id })).node;
      return artifact.status !== "QUEUED";
    },
    30_000,
  );
  const done = artifact!;
  assert.equal(done.status, "PROCESSED", `${fixture.file} is processed`);
  return {
    storedCount: done.storedCount,
    skippedCount: done.skippedCount,
    workDir: done.workDir,
    repositoryRoot: done.repositoryRoot,
    findings: (done.check?.issues.edges ?? []).map((edge) => edge.node.path).sort(),
    coverage: (done.check?.coverageFiles.edges ?? [])
      .map(({ node }) => `${node.path} ${node.lines.covered}/${node.lines.total}`)
      .sort(),
    lockfiles: done.run.repository.targets.edges.map((edge) => edge.node.lockfilePath).sort(),
  };
}

/**
 * The same report stored as made at the root and as made in its folder (`js-coverage/` ...) of a
 * checkout one level up: the same counts, every path under the folder.
 */
async function assertPlacedInFolder(
  fixture: ToolFixture,
  analyzer: { analyzer: string; analyzerType?: string; key?: string },
  nonEmpty: "findings" | "coverage" | "lockfiles",
): Promise<void> {
  const atRoot = await upload(fixture, analyzer, { workDir: fixture.workDir });
  const checkout = path.posix.dirname(fixture.workDir);
  const folder = path.posix.basename(fixture.workDir);
  const inFolder = await upload(fixture, analyzer, { workDir: fixture.workDir, repositoryRoot: checkout });

  assert.ok(atRoot[nonEmpty].length > 0, `${fixture.file} stores ${nonEmpty}`);
  assert.equal(atRoot.repositoryRoot, null);
  assert.equal(inFolder.repositoryRoot, checkout);
  assert.equal(inFolder.workDir, fixture.workDir);
  assert.equal(inFolder.storedCount, atRoot.storedCount);
  assert.equal(inFolder.skippedCount, atRoot.skippedCount);
  for (const key of ["findings", "coverage", "lockfiles"] as const) {
    assert.ok(
      atRoot[key].every((stored) => !stored.startsWith(`${folder}/`)),
      `${fixture.file} at the root: no path starts with ${folder}/`,
    );
    assert.deepEqual(
      inFolder[key],
      atRoot[key].map((stored) => `${folder}/${stored}`),
      `${fixture.file}: its ${key} in ${folder}/`,
    );
  }
}

describe("a report made in a subdirectory of the checkout (workDir inside repositoryRoot)", () => {
  it("places c8's LCOV (relative paths), Cobertura (relative to its source) and Clover (absolute) under the folder", async () => {
    const key = { analyzer: "test-coverage", key: "javascript" };
    await assertPlacedInFolder(toolFixture("coverage", "c8", "lcov.info"), key, "coverage");
    await assertPlacedInFolder(toolFixture("coverage", "c8", "cobertura-coverage.xml"), key, "coverage");
    await assertPlacedInFolder(toolFixture("coverage", "c8", "clover.xml"), key, "coverage");
    // coverage.py's Cobertura: `<source>` "" and the work directory, filenames relative to them.
    await assertPlacedInFolder(
      toolFixture("coverage", "coverage-py", "coverage.xml"),
      { analyzer: "test-coverage", key: "python" },
      "coverage",
    );
  });

  it("leaves a Go profile's files where the repository's Go modules place them", async () => {
    // The modules' directories are relative to the checkout's root (assay upload lists them
    // there), so a profile made in a module's directory is placed by them, not by its folder.
    const fixture = toolFixture("coverage", "go-modules", "backend.out");
    assert.ok(fixture.goModules);
    const key = { analyzer: "test-coverage", key: "go", goModules: fixture.goModules };
    const atRoot = await upload(fixture, key, { workDir: fixture.workDir });
    const inFolder = await upload(fixture, key, {
      workDir: `${fixture.workDir}/backend`,
      repositoryRoot: fixture.workDir,
    });
    assert.ok(atRoot.coverage.length > 0);
    assert.ok(
      atRoot.coverage.every((file) => file.startsWith("backend/")),
      atRoot.coverage.join(", "),
    );
    assert.deepEqual(inFolder.coverage, atRoot.coverage);
  });

  it("places oxlint's relative SARIF paths and clang's file:// URIs under the folder", async () => {
    const community = { analyzerType: "community" };
    await assertPlacedInFolder(
      toolFixture("sarif", "oxlint", "oxlint.sarif"),
      { analyzer: "oxlint", ...community },
      "findings",
    );
    await assertPlacedInFolder(
      toolFixture("sarif", "clang", "inventory.sarif"),
      { analyzer: "clang-analyzer", ...community },
      "findings",
    );
  });

  it("scans an SBOM's lockfiles in the folder, whether its components name one or not", async () => {
    // cdxgen names `package-lock.json` (relative to where it ran); npm's SBOM names none, so the
    // usual lockfile of the directory it was made in stands in.
    await assertPlacedInFolder(toolFixture("sbom", "cdxgen", "bom.json"), { analyzer: "sca" }, "lockfiles");
    await assertPlacedInFolder(
      toolFixture("sbom", "npm", "cyclonedx.json"),
      { analyzer: "sca" },
      "lockfiles",
    );
  });

  it("takes the same bytes made in two folders as two reports, and the same folder's again as a repeat", async () => {
    // Two services of one checkout with the same files and tests write the same LCOV.
    const repository = await aRepository(server.db, account);
    const commitOid = aCommitOid();
    const fixture = toolFixture("coverage", "c8", "lcov.info");
    const send = async (folder: string) => {
      const data = await query<{ uploadArtifact: { error: string; artifact: { id: string } } }>(UPLOAD, {
        input: {
          repositoryId: encodeGlobalId("Repository", repository.key),
          commitOid,
          branch: repository.default_branch,
          analyzer: "test-coverage",
          key: "javascript",
          workDir: `/ci/checkout/${folder}`,
          repositoryRoot: "/ci/checkout",
          data: fs.readFileSync(path.join(fixtureDir(fixture.kind), fixture.file), "utf8"),
        },
      });
      assert.equal(data.uploadArtifact.error, "");
      return data.uploadArtifact.artifact.id;
    };
    let files: string[] = [];
    const processed = (id: string) =>
      waitFor(
        "the report to be processed",
        async () => {
          const read = await query<{ node: ArtifactNode }>(READ, { id });
          files = (read.node.check?.coverageFiles.edges ?? []).map((edge) => edge.node.path);
          return read.node.status !== "QUEUED";
        },
        30_000,
      );
    // Each upload waits for the one before to be processed, so the folders' files are read from
    // one settled check (an upload racing processing is test/ingest-locks.test.ts's).
    const web = await send("web");
    await processed(web);
    const api = await send("api");
    assert.notEqual(api, web);
    await processed(api);
    assert.equal(await send("web"), web);
    const inApi = files.filter((file) => file.startsWith("api/")).map((file) => file.slice(4));
    const inWeb = files.filter((file) => file.startsWith("web/")).map((file) => file.slice(4));
    assert.ok(inApi.length > 0);
    assert.deepEqual(inApi.sort(), inWeb.sort());
    assert.equal(inApi.length + inWeb.length, files.length);
  });

  it("names repositoryRoot, not workDir, when a file lies outside the checkout", async () => {
    // coverage.py measured tabulate.py where Debian installs it, outside the project.
    const fixture = toolFixture("coverage", "coverage-py", "coverage.xml");
    const repository = await aRepository(server.db, account);
    const checkout = path.posix.dirname(fixture.workDir);
    const data = await query<{ uploadArtifact: { error: string; warnings: string[] } }>(
      `mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { error warnings } }`,
      {
        input: {
          repositoryId: encodeGlobalId("Repository", repository.key),
          commitOid: aCommitOid(),
          analyzer: "test-coverage",
          key: "python",
          workDir: fixture.workDir,
          repositoryRoot: checkout,
          data: fs.readFileSync(path.join(fixtureDir(fixture.kind), fixture.file), "utf8"),
        },
      },
    );
    assert.equal(data.uploadArtifact.error, "");
    const outside = data.uploadArtifact.warnings.find((warning) =>
      warning.includes("outside the repository"),
    );
    assert.ok(outside, JSON.stringify(data.uploadArtifact.warnings));
    assert.match(outside, new RegExp(`not under the upload's repositoryRoot "${checkout}"`));
  });

  it("refuses a workDir outside repositoryRoot, and a repositoryRoot that is not absolute", async () => {
    const repository = await aRepository(server.db, account);
    const fixture = toolFixture("coverage", "c8", "lcov.info");
    const send = (placement: Record<string, string>) =>
      query<{ uploadArtifact: { ok: boolean; error: string; artifact: unknown } }>(UPLOAD, {
        input: {
          repositoryId: encodeGlobalId("Repository", repository.key),
          commitOid: aCommitOid(),
          analyzer: "test-coverage",
          key: "javascript",
          data: fs.readFileSync(path.join(fixtureDir(fixture.kind), fixture.file), "utf8"),
          ...placement,
        },
      });
    const outside = await send({ workDir: "/ci/other/web", repositoryRoot: "/ci/checkout" });
    assert.equal(outside.uploadArtifact.ok, false);
    assert.equal(outside.uploadArtifact.artifact, null);
    assert.match(
      outside.uploadArtifact.error,
      /workDir "\/ci\/other\/web" is not inside repositoryRoot "\/ci\/checkout"/,
    );
    const relative = await send({ workDir: "/ci/checkout/web", repositoryRoot: "checkout" });
    assert.equal(relative.uploadArtifact.ok, false);
    assert.match(relative.uploadArtifact.error, /repositoryRoot must be an absolute directory/);
  });
});
