import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AccountRow, RepositoryTargetRow } from "../src/db/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { aRepository, aTeamOfEveryRole, type RoleToken } from "./helpers/builders.ts";
import { aTarget } from "./helpers/builders-dependencies.ts";
import {
  aCommit,
  anSbomScene,
  importLodashAdvisory,
  rootSbom,
  type SbomScene,
  webSbom,
} from "./helpers/sbom-scene.ts";
import { dataOf, type GraphQLResponse, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * Switching a dependency target's scan off and on (`deactivateRepositoryTarget`,
 * `activateRepositoryTarget`; docs/read-model.md "Current dependency scans"): who may, and what a
 * deactivated target counts for in the repository's vulnerabilities, in DDP and in a later upload.
 */

const MUTATIONS = ["activateRepositoryTarget", "deactivateRepositoryTarget"] as const;
type MutationName = (typeof MUTATIONS)[number];

const inputTypeOf = (name: MutationName) => `${name[0]!.toUpperCase()}${name.slice(1)}Input`;
const targetId = (target: Pick<RepositoryTargetRow, "key">) => encodeGlobalId("RepositoryTarget", target.key);

/** The global id of `scene`'s target of `lockfile`, from `Repository.targets`. */
async function targetOf(server: TestServer, scene: SbomScene, lockfile: string): Promise<string> {
  const res = await gql<{
    repository: { targets: { edges: Array<{ node: { id: string; lockfilePath: string } }> } };
  }>(
    server.endpoint,
    scene.token,
    `query($name: String!, $login: String!) { repository(name: $name, login: $login, vcsProvider: GITHUB) {
      targets { edges { node { id lockfilePath } } } } }`,
    { name: scene.repository.name, login: scene.account.login },
  );
  const found = res.body.data!.repository.targets.edges.find((e) => e.node.lockfilePath === lockfile);
  assert.ok(found, `no target ${lockfile}`);
  return found.node.id;
}

/** Switches `scene`'s target `id` on or off as its MEMBER. */
async function switchTarget(server: TestServer, scene: SbomScene, id: string, on: boolean) {
  const name = on ? "activateRepositoryTarget" : "deactivateRepositoryTarget";
  const res = await gql(
    server.endpoint,
    scene.token,
    `mutation($input: ${inputTypeOf(name)}!) { ${name}(input: $input) { ok } }`,
    { input: { targetId: id } },
  );
  assert.deepEqual(res.body, { data: { [name]: { ok: true } } });
}

describe("repository targets switched off and on", () => {
  let server: TestServer;
  let team: AccountRow;
  let elsewhere: AccountRow;
  let tokens: Record<RoleToken, string>;

  before(async () => {
    server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
    ({ team, elsewhere, tokens } = await aTeamOfEveryRole(server.db, server.config.tokenPepper));
    await importLodashAdvisory(server);
  });
  after(() => server.stop());

  /** Calls mutation `name` as `token` with `input`. */
  function call(name: MutationName, token: string, input: Record<string, unknown>): Promise<GraphQLResponse> {
    return gql(
      server.endpoint,
      token,
      `mutation($input: ${inputTypeOf(name)}!) {
        ${name}(input: $input) { ok clientMutationId target { id lockfilePath isActivated } } }`,
      { input },
    );
  }

  /** The payload of a successful call, failing the test on any error. */
  async function payloadOf(name: MutationName, token: string, input: Record<string, unknown>) {
    const res = await call(name, token, input);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return dataOf(res)[name] as {
      ok: boolean;
      clientMutationId: string | null;
      target: { id: string; lockfilePath: string; isActivated: boolean };
    };
  }

  /** Asserts `res` is exactly one error with `code` (and `field`), and a null mutation field. */
  function assertRefused(res: GraphQLResponse, name: string, code: string, field?: string) {
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { [name]: null });
    assert.equal(res.body.errors?.length, 1, JSON.stringify(res.body.errors));
    const [error] = res.body.errors!;
    assert.equal(error!.extensions?.code, code, error!.message);
    if (field !== undefined) assert.equal(error!.extensions?.field, field, error!.message);
  }

  /** The stored `is_activated` of `target`. */
  async function isActivated(target: RepositoryTargetRow): Promise<boolean> {
    const row = await server.db
      .selectFrom("repository_targets")
      .select("is_activated")
      .where("id", "=", target.id)
      .executeTakeFirstOrThrow();
    return row.is_activated;
  }

  /** A target of a new repository of `account`, activated or not. */
  async function aTargetOf(account: AccountRow, activated: boolean) {
    return aTarget(server.db, await aRepository(server.db, account), { isActivated: activated });
  }

  describe("refusals are the same for both mutations", () => {
    for (const name of MUTATIONS) {
      // The state the mutation would change the target from.
      const from = name !== "activateRepositoryTarget";

      test(`${name}: a CONTRIBUTOR is FORBIDDEN and the target stays as it was`, async () => {
        const target = await aTargetOf(team, from);
        assertRefused(
          await call(name, tokens.contributor, { targetId: targetId(target) }),
          name,
          "FORBIDDEN",
        );
        assert.equal(await isActivated(target), from);
      });

      test(`${name}: another account's target answers exactly like a RepositoryTarget id never issued`, async () => {
        const hidden = await aTargetOf(elsewhere, from);
        const hiddenId = targetId(hidden);
        const neverIssued = targetId({ key: newRowKey() });
        const seen = await call(name, tokens.admin, { targetId: hiddenId });
        const unknown = await call(name, tokens.admin, { targetId: neverIssued });
        assertRefused(seen, name, "NOT_FOUND");
        assert.equal(seen.body.errors![0]!.message, `No node with id "${hiddenId}" exists.`);
        assert.deepEqual(
          JSON.parse(JSON.stringify(seen.body).replaceAll(hiddenId, "<id>")),
          JSON.parse(JSON.stringify(unknown.body).replaceAll(neverIssued, "<id>")),
        );
        assert.equal(await isActivated(hidden), from);
      });

      test(`${name}: a Repository id or a malformed id is BAD_USER_INPUT naming targetId`, async () => {
        const target = await aTargetOf(team, from);
        const repository = await aRepository(server.db, team);
        const repositoryId = encodeGlobalId("Repository", repository.key);
        assertRefused(
          await call(name, tokens.admin, { targetId: repositoryId }),
          name,
          "BAD_USER_INPUT",
          "targetId",
        );
        assertRefused(
          await call(name, tokens.admin, { targetId: "not-an-id" }),
          name,
          "BAD_USER_INPUT",
          "targetId",
        );
        assert.equal(await isActivated(target), from);
      });
    }
  });

  test("a MEMBER switches a target off and on again; the payload shows the target as it now is and echoes clientMutationId", async () => {
    const target = await aTargetOf(team, true);
    const id = targetId(target);
    const off = await payloadOf("deactivateRepositoryTarget", tokens.member, {
      targetId: id,
      clientMutationId: "x1",
    });
    assert.deepEqual(off, {
      ok: true,
      clientMutationId: "x1",
      target: { id, lockfilePath: target.lockfile_path, isActivated: false },
    });
    assert.equal(await isActivated(target), false);

    // Asking for the state the target is in already succeeds and leaves it so.
    const again = await payloadOf("deactivateRepositoryTarget", tokens.member, { targetId: id });
    assert.deepEqual([again.ok, again.clientMutationId, again.target.isActivated], [true, null, false]);

    const on = await payloadOf("activateRepositoryTarget", tokens.admin, { targetId: id });
    assert.deepEqual([on.ok, on.target.isActivated], [true, true]);
    assert.equal(await isActivated(target), true);
  });

  describe("what a deactivated target counts for", () => {
    test("a deactivated target's vulnerabilities leave the repository's at once, and come back when it is activated again", async () => {
      const scene = await anSbomScene(server);
      const commit = aCommit();
      await scene.uploadSbom(commit, rootSbom(true));
      await scene.uploadSbom(commit, webSbom(true));
      const both = await scene.current();
      assert.deepEqual(
        both.map((o) => o.lockfile),
        ["package-lock.json", "web/package-lock.json"],
      );

      const web = await targetOf(server, scene, "web/package-lock.json");
      await switchTarget(server, scene, web, false);
      assert.deepEqual(await scene.current(), [both[0]]);

      await switchTarget(server, scene, web, true);
      assert.deepEqual(await scene.current(), both);
    });

    test("the DDP of a run processed after the deactivation leaves the target's packages out; values recorded before stay", async () => {
      const scene = await anSbomScene(server);
      const first = aCommit();
      await scene.uploadSbom(first, rootSbom(false));
      await scene.uploadSbom(first, webSbom(true));
      const both = await scene.dependencies();
      assert.ok(both !== null && both > 1, String(both));

      await switchTarget(server, scene, await targetOf(server, scene, "web/package-lock.json"), false);
      assert.equal(await scene.dependencies(), both, "the value recorded before the change stays");

      // The next run scans only the root: web/'s newest scan (with lodash) no longer counts.
      await scene.uploadSbom(aCommit(), rootSbom(false));
      assert.equal(await scene.dependencies(), both - 1);
    });

    test("an SBOM of a deactivated target is stored with a warning and counts for nothing until the target is activated again", async () => {
      const scene = await anSbomScene(server);
      const first = aCommit();
      await scene.uploadSbom(first, rootSbom(false));
      await scene.uploadSbom(first, webSbom(false));
      const web = await targetOf(server, scene, "web/package-lock.json");
      await switchTarget(server, scene, web, false);

      const second = aCommit();
      await scene.uploadSbom(second, rootSbom(false));
      const artifactId = await scene.uploadSbom(second, webSbom(true));
      const artifact = await scene.artifact(artifactId);
      assert.equal(artifact.status, "PROCESSED");
      assert.deepEqual(artifact.warnings, [
        `The target "web/package-lock.json" is deactivated: this scan is stored, but counts in neither the repository's vulnerabilities nor DDP while it stays deactivated (activateRepositoryTarget counts it again).`,
      ]);
      assert.deepEqual(await scene.current(), []);
      const rootOnly = await scene.dependencies();

      await switchTarget(server, scene, web, true);
      assert.deepEqual(
        (await scene.current()).map((o) => o.lockfile),
        ["web/package-lock.json"],
        "the stored scan is the target's current one",
      );
      // DDP recorded while the target was off stays; the next run counts the target again.
      assert.equal(await scene.dependencies(), rootOnly);
      await scene.uploadSbom(aCommit(), rootSbom(false));
      assert.equal(await scene.dependencies(), (rootOnly ?? 0) + 1);
    });
  });
});

// A server of its own: the advisory is imported after the uploads.
describe("an advisory imported while a target is deactivated", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  });
  after(() => server.stop());

  test("is matched against the target's current scan too, so activating it shows the vulnerability", async () => {
    const scene = await anSbomScene(server);
    await scene.uploadSbom(aCommit(), webSbom(true));
    // A newer run scans only the root: web/'s current scan is of an older run than the latest.
    await scene.uploadSbom(aCommit(), rootSbom(false));
    const web = await targetOf(server, scene, "web/package-lock.json");
    await switchTarget(server, scene, web, false);

    await importLodashAdvisory(server);
    assert.deepEqual(await scene.current(), []);
    await switchTarget(server, scene, web, true);
    assert.deepEqual(
      (await scene.current()).map((o) => o.lockfile),
      ["web/package-lock.json"],
    );
  });
});
