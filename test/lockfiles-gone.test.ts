import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { dsnToken } from "../src/modules/repositories/dsn.ts";
import { artifactsProcessed } from "./helpers/builders-artifacts.ts";
import {
  aCommit,
  anSbomScene,
  importLodashAdvisory,
  rootSbom,
  type SbomScene,
  webSbom,
} from "./helpers/sbom-scene.ts";
import { createArtifact, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * A detected dependency target whose lockfile is gone from the project (docs/read-model.md
 * "Current dependency scans"): the upload lists the lockfiles git tracks at its commit
 * (`lockfilePaths`), and a target listed when last scanned that the default branch's newest list
 * leaves out counts as scanned and empty, for its vulnerabilities and for DDP.
 */

/** Both projects' files, as `git ls-files` lists them at a commit that has both. */
const BOTH = ["package-lock.json", "package.json", "web/package-lock.json", "web/package.json"];
/** The files of a commit from which web/ was removed. */
const ROOT_ONLY = ["package-lock.json", "package.json"];

describe("a lockfile gone from the project", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
    await importLodashAdvisory(server);
  });
  after(() => server.stop());

  /** A repository whose first commit's two targets both depend on lodash, each scan listing `listed`. */
  async function bothVulnerable(listed: string[] | null = BOTH): Promise<SbomScene> {
    const scene = await anSbomScene(server);
    const first = aCommit();
    const extra = listed === null ? {} : { lockfilePaths: listed };
    await scene.uploadSbom(first, rootSbom(true), extra);
    await scene.uploadSbom(first, webSbom(true), extra);
    assert.deepEqual(
      (await scene.current()).map((o) => o.lockfile),
      ["package-lock.json", "web/package-lock.json"],
    );
    return scene;
  }

  /** The paths kept on the run of `commit` in `scene`'s repository. */
  async function listOf(scene: SbomScene, commit: string): Promise<string[] | null> {
    const row = await server.db
      .selectFrom("analysis_runs")
      .select("lockfile_paths")
      .where("repository_id", "=", scene.repository.id)
      .where("commit_oid", "=", commit)
      .executeTakeFirstOrThrow();
    return row.lockfile_paths;
  }

  test("a detected target the newest list leaves out loses its vulnerabilities and leaves DDP; scanned again, it counts again", async () => {
    const scene = await bothVulnerable();
    const both = await scene.dependencies();
    assert.ok(both !== null && both > 1, String(both));

    // web/ is removed: the next commit's CI scans the root (no longer on lodash) and lists its files.
    await scene.uploadSbom(aCommit(), rootSbom(false), { lockfilePaths: ROOT_ONLY });
    assert.deepEqual(await scene.current(), []);
    assert.equal(await scene.dependencies(), both - 1, "web/'s lodash no longer counts");

    // web/ comes back and is scanned.
    await scene.uploadSbom(aCommit(), webSbom(true), { lockfilePaths: BOTH });
    assert.deepEqual(
      (await scene.current()).map((o) => o.lockfile),
      ["web/package-lock.json"],
    );
  });

  test("a run that lists no files, or still lists the lockfile, leaves the target's scan as it was", async () => {
    const scene = await bothVulnerable();
    await scene.uploadSbom(aCommit(), rootSbom(false));
    await scene.uploadSbom(aCommit(), rootSbom(false), { lockfilePaths: BOTH });
    assert.deepEqual(
      (await scene.current()).map((o) => o.lockfile),
      ["web/package-lock.json"],
    );
  });

  test("the newest list decides: a lockfile listed again brings its last scan back", async () => {
    const scene = await bothVulnerable();
    await scene.uploadSbom(aCommit(), rootSbom(false), { lockfilePaths: ROOT_ONLY });
    assert.deepEqual(await scene.current(), []);
    // The removal is reverted, and CI scans only the root this time.
    await scene.uploadSbom(aCommit(), rootSbom(false), { lockfilePaths: BOTH });
    assert.deepEqual(
      (await scene.current()).map((o) => o.lockfile),
      ["web/package-lock.json"],
    );
  });

  test("a target whose scanning run did not list its lockfile is not retired", async () => {
    // Scanned without a list (an older CLI, or DeepSource's), so Assay never saw the file tracked.
    const scene = await bothVulnerable(null);
    await scene.uploadSbom(aCommit(), rootSbom(false), { lockfilePaths: ROOT_ONLY });
    assert.deepEqual(
      (await scene.current()).map((o) => o.lockfile),
      ["web/package-lock.json"],
    );
  });

  test("a CUSTOM target is left alone", async () => {
    const scene = await bothVulnerable();
    await server.db
      .updateTable("repository_targets")
      .set({ source: "CUSTOM" })
      .where("repository_id", "=", scene.repository.id)
      .where("lockfile_path", "=", "web/package-lock.json")
      .execute();
    await scene.uploadSbom(aCommit(), rootSbom(false), { lockfilePaths: ROOT_ONLY });
    assert.deepEqual(
      (await scene.current()).map((o) => o.lockfile),
      ["web/package-lock.json"],
    );
  });

  test("the list is kept on the run, `./` prefixes and duplicates dropped, sorted", async () => {
    const scene = await anSbomScene(server);
    const commit = aCommit();
    await scene.uploadSbom(commit, rootSbom(false), {
      lockfilePaths: ["./web/package.json", "package.json", "web/package.json"],
    });
    assert.deepEqual(await listOf(scene, commit), ["package.json", "web/package.json"]);
  });

  describe("refusals", () => {
    /** Uploads the root SBOM of `commit` with `lockfilePaths`; answers `ok` and `error`. */
    async function upload(scene: SbomScene, commit: string, lockfilePaths: unknown) {
      const res = await gql<{ uploadArtifact: { ok: boolean; error: string } }>(
        server.endpoint,
        scene.token,
        `mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok error } }`,
        {
          input: {
            repositoryId: encodeGlobalId("Repository", scene.repository.key),
            commitOid: commit,
            branch: "main",
            analyzer: "sca",
            data: rootSbom(false),
            lockfilePaths,
          },
        },
      );
      assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
      return res.body.data!.uploadArtifact;
    }

    test("a path that is not relative to the repository root refuses the upload, naming lockfilePaths", async () => {
      const scene = await anSbomScene(server);
      const commit = aCommit();
      for (const [path, problem] of [
        ["/ci/web/package-lock.json", "is absolute"],
        ["web/../package-lock.json", '".." segment'],
        ["", "is empty"],
        ["web\\package-lock.json", '"\\"'],
      ] as const) {
        const answer = await upload(scene, commit, ["package.json", path]);
        assert.equal(answer.ok, false, path);
        assert.match(answer.error, /^lockfilePaths holds /, path);
        assert.ok(answer.error.includes(problem), `${answer.error} names ${problem}`);
      }
      const runs = await server.db
        .selectFrom("analysis_runs")
        .select("id")
        .where("repository_id", "=", scene.repository.id)
        .execute();
      assert.equal(runs.length, 0, "nothing is stored");
    });

    test("a list that differs from the one the run was uploaded with refuses the upload", async () => {
      const scene = await anSbomScene(server);
      const commit = aCommit();
      assert.equal((await upload(scene, commit, BOTH)).ok, true);
      assert.equal(
        (await upload(scene, commit, [...BOTH].reverse())).ok,
        true,
        "the same list in another order",
      );
      const answer = await upload(scene, commit, ROOT_ONLY);
      assert.equal(answer.ok, false);
      assert.match(answer.error, /^lockfilePaths differs from the list the run of commit /);
      await artifactsProcessed(server.db, scene.repository.id);
      assert.deepEqual(await listOf(scene, commit), BOTH);
    });
  });

  test("createArtifact carries the list in its lockfilePaths extension", async () => {
    const scene = await anSbomScene(server);
    const commit = aCommit();
    const answer = await createArtifact(server, {
      accessToken: dsnToken(scene.repository, server.config.tokenPepper),
      commitOid: commit,
      analyzer: "sca",
      data: rootSbom(false),
      lockfilePaths: ROOT_ONLY,
    });
    assert.deepEqual(answer, { ok: true, error: "" });
    await artifactsProcessed(server.db, scene.repository.id);
    assert.deepEqual(await listOf(scene, commit), ROOT_ONLY);
  });
});
