import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { sql } from "kysely";
import { aCommit, anSbomScene, importLodashAdvisory, rootSbom, webSbom } from "./helpers/sbom-scene.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * The repository's current dependency vulnerabilities through real uploads (docs/read-model.md
 * "Current dependency scans"): two targets scanned by real tools' SBOMs (npm's own for the root
 * lockfile, cdxgen's for a project under `web/`), each read from the newest run that scanned it.
 * The advisory is the published lodash one, imported from its OSV record.
 */

// Each test has a server of its own: whether an advisory is imported before or after the uploads
// is part of what each one tests.
describe("current dependency vulnerabilities through uploads", () => {
  const servers: TestServer[] = [];
  after(async () => {
    for (const server of servers) await server.stop();
  });

  /** A server, a member's token and a repository of their account. */
  async function setUp() {
    const server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
    servers.push(server);
    return { server, ...(await anSbomScene(server)) };
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
