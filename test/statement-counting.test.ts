import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { createToken } from "../src/modules/auth/token-service.ts";
import { anAccount, aRepository, aUser } from "./helpers/builders.ts";
import {
  assertPageSizeIndependent,
  bearer,
  post,
  startInstance,
  type TestInstance,
  waitFor,
} from "./helpers/instance.ts";

describe("the page-size statement check used by the N+1 tests", () => {
  const batch = (n: number) =>
    `select * from "issues" where "id" in (${Array.from({ length: n }, (_, i) => `$${i + 1}`).join(", ")})`;

  test("batches of different sizes read as one statement", () => {
    assertPageSizeIndependent([batch(2), "select 1"], [batch(40), "select 1"]);
  });

  test("a batch split in two by timing is tolerated once", () => {
    assertPageSizeIndependent([batch(3)], [batch(1), batch(2)]);
  });

  test("a statement per parent fails and names the statement", () => {
    const perParent = (n: number) => Array.from({ length: n }, () => `select * from "users" where "id" = $1`);
    assert.throws(
      () => assertPageSizeIndependent(["select 1", ...perParent(2)], ["select 1", ...perParent(8)]),
      /8× \(2× for N=10\): select \* from "users" where "id" = \$1/,
    );
  });
});

describe("statements per request with a token seen in the last second (the identity cache)", () => {
  let instance: TestInstance;
  let token: string;
  let repositoryId: string;

  before(async () => {
    instance = await startInstance();
    const user = await aUser(instance.db);
    const account = await anAccount(instance.db, {}, [{ user }]);
    const repository = await aRepository(instance.db, account, { name: "counted" });
    repositoryId = encodeGlobalId("Repository", repository.key);
    const created = await createToken(instance.db, instance.config.tokenPepper, {
      userId: user.id,
      name: "counted",
      expiresInDays: 30,
    });
    token = created.token;
    // Last use recorded already, so no request here writes it in the background.
    await instance.db
      .updateTable("personal_access_tokens")
      .set({ last_used_at: new Date() })
      .where("id", "=", created.row.id)
      .execute();
  });
  after(() => instance?.stop());

  /** The statements of one request sent right after another with the same token (within the second). */
  async function statementsOfRepeat(query: string): Promise<string[]> {
    let seen: string[] = [];
    // On a machine too busy to send two requests within the cache's second, try again.
    await waitFor("two requests within one second", async () => {
      assert.equal((await post(instance.endpoint, query, bearer(token))).status, 200);
      const start = instance.statements.length;
      const sent = performance.now();
      const answer = await post(instance.endpoint, query, bearer(token));
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json.errors, undefined, answer.text);
      seen = instance.statements.slice(start);
      return performance.now() - sent < 500;
    });
    return seen;
  }

  test("`viewer` costs one statement for a token not seen yet: the token and its user together", async () => {
    const fresh = await createToken(instance.db, instance.config.tokenPepper, {
      userId: (await aUser(instance.db)).id,
      name: "fresh",
      expiresInDays: 30,
    });
    const start = instance.statements.length;
    assert.equal((await post(instance.endpoint, "{ viewer { email } }", bearer(fresh.token))).status, 200);
    const ran = instance.statements.slice(start);
    assert.equal(ran.filter((sql) => /^select/i.test(sql)).length, 1, ran.join("\n"));
  });

  test("`viewer` costs no statement for a token seen in the last second", async () => {
    assert.deepEqual(await statementsOfRepeat("{ viewer { email } }"), []);
  });

  test("`node(id:)` costs only its own data statement for a token seen in the last second", async () => {
    const query = `{ node(id: "${repositoryId}") { id ... on Repository { name } } }`;
    const ran = await statementsOfRepeat(query);
    assert.equal(ran.length, 1, ran.join("\n"));
    assert.doesNotMatch(ran[0]!, /personal_access_tokens/);
  });
});
