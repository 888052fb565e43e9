import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Kysely } from "kysely";
import type { Database, RepositoryRow, UserRow } from "../src/db/types.ts";
import { type GraphQLContext, RequestLoaders } from "../src/graphql/context.ts";
import { MAX_SHARED_BATCH } from "../src/graphql/shared-lookup.ts";
import { visibleRepositoryByKey } from "../src/modules/repositories/repository-loaders.ts";
import { anAccount, aRepository, aUser } from "./helpers/builders.ts";
import { startInstance, type TestInstance } from "./helpers/instance.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { recordingStatements } from "./helpers/plans.ts";
import { databaseTarget, TcpProxy } from "./helpers/tcp-proxy.ts";

/**
 * The `node(id:)` lookup of a repository shared by concurrent requests (src/graphql/shared-lookup.ts):
 * requests that ask in the same turn of the event loop share one statement, each receiving exactly
 * its own rows. Each request is a context of its own, as the endpoint builds one per request.
 */

const { logger } = testLogger("shared lookups");

function requestOf(instance: TestInstance, db: Kysely<Database>, user: UserRow): GraphQLContext {
  return {
    requestId: `request-of-${user.id}`,
    viewer: { userId: user.id, tokenId: null },
    db,
    config: instance.config,
    logger,
    loaders: new RequestLoaders(db),
  };
}

/** The visibility lookups among `statements`: the repository joined with the viewer's memberships. */
function lookupsIn(statements: readonly { sql: string }[]): string[] {
  return statements.map((s) => s.sql).filter((sql) => /repositories/.test(sql) && /memberships/.test(sql));
}

describe("repositories looked up by concurrent requests", () => {
  let instance: TestInstance;
  let member: UserRow;
  let outsider: UserRow;
  let repository: RepositoryRow;

  before(async () => {
    instance = await startInstance({ env: { ASSAY_WORKER: "false" } });
    member = await aUser(instance.db);
    outsider = await aUser(instance.db);
    const account = await anAccount(instance.db, {}, [{ user: member }]);
    repository = await aRepository(instance.db, account, { name: "shared" });
    // The outsider belongs to an account of its own, with a repository the member cannot see.
    await aRepository(instance.db, await anAccount(instance.db, {}, [{ user: outsider }]));
  });
  after(() => instance?.stop());

  test("a member and a non-member asking at once share one statement, and only the member gets the repository", async () => {
    const { db, statements } = recordingStatements(instance.db);
    const [seenByMember, seenByOutsider] = await Promise.all([
      visibleRepositoryByKey(requestOf(instance, db, member)).load(repository.key),
      visibleRepositoryByKey(requestOf(instance, db, outsider)).load(repository.key),
    ]);
    assert.equal(lookupsIn(statements).length, 1, lookupsIn(statements).join("\n"));
    assert.equal(seenByOutsider, null);
    // The row a request alone reads, nothing of the lookup's in it (which viewer it was found for).
    const alone = await instance.db
      .selectFrom("repositories")
      .selectAll()
      .where("id", "=", repository.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(seenByMember, alone);
  });

  test("requests asking one after another each run a statement that reads what was committed before", async () => {
    const { db, statements } = recordingStatements(instance.db);
    const first = await visibleRepositoryByKey(requestOf(instance, db, member)).load(repository.key);
    await instance.db
      .updateTable("repositories")
      .set({ default_branch: "trunk" })
      .where("id", "=", repository.id)
      .execute();
    const second = await visibleRepositoryByKey(requestOf(instance, db, member)).load(repository.key);
    assert.equal(lookupsIn(statements).length, 2);
    assert.equal(first?.default_branch, "main");
    assert.equal(second?.default_branch, "trunk");
  });

  test(`more than ${MAX_SHARED_BATCH} lookups at once are split into statements of at most ${MAX_SHARED_BATCH}, each request answered`, async () => {
    const { db, statements } = recordingStatements(instance.db);
    // The member's and the outsider's lookup of the repository, then made-up keys nobody has.
    const lookups = [
      { user: member, key: repository.key },
      { user: outsider, key: repository.key },
      ...Array.from({ length: MAX_SHARED_BATCH * 2 }, (_, i) => ({
        user: i % 2 === 0 ? member : outsider,
        key: `none${String(i).padStart(4, "0")}`,
      })),
    ];
    const answers = await Promise.all(
      lookups.map(({ user, key }) => visibleRepositoryByKey(requestOf(instance, db, user)).load(key)),
    );
    const ran = statements.filter((s) => lookupsIn([s]).length === 1);
    assert.equal(ran.length, 3);
    for (const statement of ran) {
      const viewers = statement.parameters[0];
      assert.ok(Array.isArray(viewers) && viewers.length <= MAX_SHARED_BATCH, String(viewers));
    }
    assert.equal(answers[0]?.id, repository.id);
    assert.deepEqual(
      answers.slice(1),
      lookups.slice(1).map(() => null),
    );
  });
});

describe("a shared lookup whose statement fails", () => {
  let owner: TestInstance;
  let proxied: TestInstance;
  let proxy: TcpProxy;

  before(async () => {
    owner = await startInstance({ env: { ASSAY_WORKER: "false" } });
    const { target, proxiedUrl } = databaseTarget(owner);
    proxy = new TcpProxy(target);
    await proxy.up();
    proxied = await startInstance({
      sameDatabaseAs: owner,
      env: { ASSAY_WORKER: "false", DATABASE_URL: proxiedUrl(proxy.port) },
    });
  });
  after(async () => {
    await proxy?.down();
    // The proxied one first: the other owns the database.
    await proxied?.stop();
    await owner?.stop();
  });

  test("fails every request of its batch with its error, and the next batch runs afresh", async () => {
    const member = await aUser(owner.db);
    const outsider = await aUser(owner.db);
    const repository = await aRepository(owner.db, await anAccount(owner.db, {}, [{ user: member }]));

    await proxy.down();
    const failed = await Promise.allSettled([
      visibleRepositoryByKey(requestOf(proxied, proxied.db, member)).load(repository.key),
      visibleRepositoryByKey(requestOf(proxied, proxied.db, outsider)).load(repository.key),
    ]);
    assert.equal(failed[0]?.status, "rejected");
    assert.equal(failed[1]?.status, "rejected");
    const reasons = failed.map((result) => (result.status === "rejected" ? result.reason : undefined));
    assert.ok(reasons[0] instanceof Error, String(reasons[0]));
    assert.equal(reasons[1], reasons[0], "both requests get the statement's own error");

    await proxy.up();
    const [seenByMember, seenByOutsider] = await Promise.all([
      visibleRepositoryByKey(requestOf(proxied, proxied.db, member)).load(repository.key),
      visibleRepositoryByKey(requestOf(proxied, proxied.db, outsider)).load(repository.key),
    ]);
    assert.equal(seenByMember?.id, repository.id);
    assert.equal(seenByOutsider, null);
  });
});
