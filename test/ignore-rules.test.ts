import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AccountRow, AnalyzerRow, IssueRow, RepositoryRow, UserRow } from "../src/db/types.ts";
import { decodeGlobalId, encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { loadSuppressionRules, suppressionOf } from "../src/modules/settings/suppression-rules.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { anAnalyzer, anIssue } from "./helpers/builders-catalog.ts";
import { dataOf, type GraphQLResponse, gql, startTestServer, type TestServer } from "./helpers/server.ts";

const RULE_FIELDS = "id level type filePath globPattern issue { shortcode analyzer { shortcode } }";

interface RuleView {
  id: string;
  level: string;
  type: string;
  filePath: string | null;
  globPattern: string | null;
  issue: { shortcode: string; analyzer: { shortcode: string } };
}

const repositoryId = (repository: RepositoryRow) => encodeGlobalId("Repository", repository.key);

describe("ignore rules", () => {
  let server: TestServer;
  let team: AccountRow;
  let elsewhere: AccountRow;
  let users: Record<"admin" | "member" | "contributor", UserRow>;
  let tokens: Record<"admin" | "member" | "contributor" | "outsider", string>;
  let python: AnalyzerRow;
  let issue: IssueRow;
  let other: IssueRow;
  let shared: IssueRow[];

  before(async () => {
    server = await startTestServer();
    const { db } = server;
    users = { admin: await aUser(db), member: await aUser(db), contributor: await aUser(db) };
    const outsider = await aUser(db);
    team = await anAccount(db, {}, [
      { user: users.admin, role: "ADMIN" },
      { user: users.member, role: "MEMBER" },
      { user: users.contributor, role: "CONTRIBUTOR" },
    ]);
    elsewhere = await anAccount(db, {}, [{ user: outsider, role: "ADMIN" }]);
    const pepper = server.config.tokenPepper;
    tokens = {
      admin: await aToken(db, pepper, users.admin),
      member: await aToken(db, pepper, users.member),
      contributor: await aToken(db, pepper, users.contributor),
      outsider: await aToken(db, pepper, outsider),
    };
    python = await anAnalyzer(db);
    const javascript = await anAnalyzer(db);
    issue = await anIssue(db, python);
    other = await anIssue(db, python);
    const shortcode = `SHARED-${newRowKey()}`;
    shared = [await anIssue(db, python, { shortcode }), await anIssue(db, javascript, { shortcode })];
  });
  after(() => server.stop());

  function create(
    token: string,
    input: Record<string, unknown>,
    selection = `clientMutationId ignoreRule { ${RULE_FIELDS} }`,
  ) {
    return gql(
      server.endpoint,
      token,
      `mutation($input: CreateIgnoreRuleInput!) { createIgnoreRule(input: $input) { ${selection} } }`,
      { input },
    );
  }

  function remove(token: string, input: Record<string, unknown>) {
    return gql(
      server.endpoint,
      token,
      "mutation($input: DeleteIgnoreRuleInput!) { deleteIgnoreRule(input: $input) { ok clientMutationId } }",
      { input },
    );
  }

  /** The payload of a successful mutation, failing the test on any error. */
  function payloadOf<T>(res: GraphQLResponse, name: string): T {
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return dataOf(res)[name] as T;
  }

  /** Creates a rule as the MEMBER and answers it. */
  async function aRule(input: Record<string, unknown>): Promise<RuleView> {
    return payloadOf<{ ignoreRule: RuleView }>(await create(tokens.member, input), "createIgnoreRule")
      .ignoreRule;
  }

  /** Asserts `res` is exactly one error with `code` (and `field`), and a null mutation field. */
  function assertRefused(res: GraphQLResponse, name: string, code: string, field?: string): string {
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { [name]: null });
    assert.equal(res.body.errors?.length, 1, JSON.stringify(res.body.errors));
    const [error] = res.body.errors!;
    assert.equal(error!.extensions?.code, code, error!.message);
    assert.equal(error!.extensions?.field, field, error!.message);
    return error!.message;
  }

  /** The rules of `repository` as stored. */
  function rulesOf(repository: RepositoryRow) {
    return server.db
      .selectFrom("ignore_rules")
      .selectAll()
      .where("repository_id", "=", repository.id)
      .orderBy("key")
      .execute();
  }

  /** `Repository.ignoreRules` as `token` sees them, newest first. */
  async function listedRules(repository: RepositoryRow, filePath?: string): Promise<RuleView[]> {
    const res = await gql<{ node: { ignoreRules: { edges: Array<{ node: RuleView }> } } }>(
      server.endpoint,
      tokens.contributor,
      `query($id: ID!, $filePath: String) { node(id: $id) { ... on Repository {
        ignoreRules(filePath: $filePath) { edges { node { ${RULE_FIELDS} } } } } } }`,
      { id: repositoryId(repository), filePath },
    );
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data!.node.ignoreRules.edges.map((e) => e.node);
  }

  const keyOf = (id: string) => decodeGlobalId(id)!.key;

  describe("createIgnoreRule", () => {
    test("a MEMBER makes each kind of rule; each reads back through Repository.ignoreRules", async () => {
      const repository = await aRepository(server.db, team);
      const base = { repositoryId: repositoryId(repository), issueShortcode: issue.shortcode };
      const made = [
        await aRule({ ...base, level: "REPOSITORY", type: "FOREVER" }),
        await aRule({ ...base, level: "FILE", type: "FOREVER", filePath: "src/legacy/app.py" }),
        await aRule({ ...base, level: "REPOSITORY", type: "PATTERN", globPattern: "vendor/**" }),
        await aRule({ ...base, level: "REPOSITORY", type: "TEST_PATTERN", globPattern: "tests/**" }),
        // The contract's TEST_PATTERN: the configuration's test_patterns name the files.
        await aRule({ ...base, level: "REPOSITORY", type: "TEST_PATTERN" }),
      ];
      const expectedIssue = { shortcode: issue.shortcode, analyzer: { shortcode: python.shortcode } };
      assert.deepEqual(
        made.map(({ id: _id, ...rest }) => rest),
        [
          { level: "REPOSITORY", type: "FOREVER", filePath: null, globPattern: null, issue: expectedIssue },
          {
            level: "FILE",
            type: "FOREVER",
            filePath: "src/legacy/app.py",
            globPattern: null,
            issue: expectedIssue,
          },
          {
            level: "REPOSITORY",
            type: "PATTERN",
            filePath: null,
            globPattern: "vendor/**",
            issue: expectedIssue,
          },
          {
            level: "REPOSITORY",
            type: "TEST_PATTERN",
            filePath: null,
            globPattern: "tests/**",
            issue: expectedIssue,
          },
          {
            level: "REPOSITORY",
            type: "TEST_PATTERN",
            filePath: null,
            globPattern: null,
            issue: expectedIssue,
          },
        ],
      );
      assert.deepEqual((await listedRules(repository)).map((r) => r.id).sort(), made.map((r) => r.id).sort());
      assert.deepEqual(await listedRules(repository, "src/legacy/app.py"), [made[1]]);
      const stored = await rulesOf(repository);
      assert.ok(stored.every((r) => r.created_by === users.member.id));
    });

    test("the payload echoes clientMutationId; an ADMIN may create rules too", async () => {
      const repository = await aRepository(server.db, team);
      const input = {
        repositoryId: repositoryId(repository),
        issueShortcode: issue.shortcode,
        level: "REPOSITORY",
        type: "FOREVER",
      };
      const payload = payloadOf<{ clientMutationId: string }>(
        await create(tokens.admin, { ...input, clientMutationId: "c-1" }, "clientMutationId"),
        "createIgnoreRule",
      );
      assert.deepEqual(payload, { clientMutationId: "c-1" });
      const without = payloadOf<{ clientMutationId: null }>(
        await create(tokens.admin, input, "clientMutationId"),
        "createIgnoreRule",
      );
      assert.deepEqual(without, { clientMutationId: null });
    });

    test("making a rule identical to an existing one answers that rule and stores no second", async () => {
      const repository = await aRepository(server.db, team);
      const input = {
        repositoryId: repositoryId(repository),
        issueShortcode: issue.shortcode,
        level: "REPOSITORY",
        type: "PATTERN",
        globPattern: "gen/**",
      };
      const first = await aRule(input);
      const second = await aRule(input);
      assert.equal(second.id, first.id);
      const different = await aRule({ ...input, globPattern: "generated/**" });
      assert.notEqual(different.id, first.id);
      assert.equal((await rulesOf(repository)).length, 2);
    });

    test("a shortcode several analyzers have needs analyzerShortcode, which picks the issue", async () => {
      const repository = await aRepository(server.db, team);
      const input = {
        repositoryId: repositoryId(repository),
        issueShortcode: shared[0]!.shortcode,
        level: "REPOSITORY",
        type: "FOREVER",
      };
      assertRefused(
        await create(tokens.member, input),
        "createIgnoreRule",
        "BAD_USER_INPUT",
        "analyzerShortcode",
      );
      const rule = await aRule({ ...input, analyzerShortcode: python.shortcode });
      assert.equal(rule.issue.analyzer.shortcode, python.shortcode);
      assert.deepEqual(
        (await rulesOf(repository)).map((r) => r.issue_id),
        [shared[0]!.id],
      );
    });

    test("invalid input is BAD_USER_INPUT naming the field, and nothing is stored", async () => {
      const repository = await aRepository(server.db, team);
      const base = { repositoryId: repositoryId(repository), issueShortcode: issue.shortcode };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ level: "FILE", type: "FOREVER" }, "filePath"],
        [{ level: "FILE", type: "FOREVER", filePath: "" }, "filePath"],
        [{ level: "FILE", type: "FOREVER", filePath: "/etc/passwd" }, "filePath"],
        [{ level: "FILE", type: "FOREVER", filePath: "src/../../secret.py" }, "filePath"],
        [{ level: "REPOSITORY", type: "FOREVER", filePath: "src/app.py" }, "filePath"],
        [{ level: "FILE", type: "PATTERN", filePath: "src/app.py", globPattern: "*.py" }, "type"],
        [{ level: "REPOSITORY", type: "PATTERN" }, "globPattern"],
        [{ level: "REPOSITORY", type: "PATTERN", globPattern: "src/**.py" }, "globPattern"],
        [{ level: "REPOSITORY", type: "PATTERN", globPattern: "tests/[a-" }, "globPattern"],
        [{ level: "REPOSITORY", type: "PATTERN", globPattern: "../**" }, "globPattern"],
        [{ level: "REPOSITORY", type: "FOREVER", globPattern: "*.py" }, "globPattern"],
        [{ level: "REPOSITORY", type: "FOREVER", issueShortcode: `NOPE-${newRowKey()}` }, "issueShortcode"],
        [
          { level: "REPOSITORY", type: "FOREVER", analyzerShortcode: "no-such-analyzer" },
          "analyzerShortcode",
        ],
      ];
      for (const [input, field] of cases) {
        const res = await create(tokens.member, { ...base, ...input });
        assertRefused(res, "createIgnoreRule", "BAD_USER_INPUT", field);
      }
      assert.deepEqual(await rulesOf(repository), []);
    });

    test("a CONTRIBUTOR is FORBIDDEN and nothing is stored", async () => {
      const repository = await aRepository(server.db, team);
      const input = {
        repositoryId: repositoryId(repository),
        issueShortcode: issue.shortcode,
        level: "REPOSITORY",
        type: "FOREVER",
      };
      assertRefused(await create(tokens.contributor, input), "createIgnoreRule", "FORBIDDEN");
      assert.deepEqual(await rulesOf(repository), []);
    });

    test("another account's repository answers exactly like a Repository id never issued", async () => {
      const hidden = await aRepository(server.db, elsewhere);
      const hiddenId = repositoryId(hidden);
      const neverIssued = encodeGlobalId("Repository", newRowKey());
      const input = { issueShortcode: issue.shortcode, level: "REPOSITORY", type: "FOREVER" };
      const seen = await create(tokens.admin, { ...input, repositoryId: hiddenId });
      const unknown = await create(tokens.admin, { ...input, repositoryId: neverIssued });
      assert.equal(
        assertRefused(seen, "createIgnoreRule", "NOT_FOUND"),
        `No node with id "${hiddenId}" exists.`,
      );
      assert.deepEqual(
        JSON.parse(JSON.stringify(seen.body).replaceAll(hiddenId, "<id>")),
        JSON.parse(JSON.stringify(unknown.body).replaceAll(neverIssued, "<id>")),
      );
      assert.deepEqual(await rulesOf(hidden), []);
    });

    test("an Account id or a malformed id is BAD_USER_INPUT naming repositoryId", async () => {
      const input = { issueShortcode: issue.shortcode, level: "REPOSITORY", type: "FOREVER" };
      for (const id of [encodeGlobalId("Account", team.key), "not-an-id"]) {
        assertRefused(
          await create(tokens.admin, { ...input, repositoryId: id }),
          "createIgnoreRule",
          "BAD_USER_INPUT",
          "repositoryId",
        );
      }
    });
  });

  describe("deleteIgnoreRule", () => {
    test("a MEMBER deletes a rule; it is gone, and its id then answers like one never issued", async () => {
      const repository = await aRepository(server.db, team);
      const rule = await aRule({
        repositoryId: repositoryId(repository),
        issueShortcode: issue.shortcode,
        level: "REPOSITORY",
        type: "FOREVER",
      });
      const kept = await aRule({
        repositoryId: repositoryId(repository),
        issueShortcode: other.shortcode,
        level: "REPOSITORY",
        type: "FOREVER",
      });
      const res = await remove(tokens.member, { ignoreRuleId: rule.id, clientMutationId: "d-1" });
      assert.deepEqual(payloadOf(res, "deleteIgnoreRule"), { ok: true, clientMutationId: "d-1" });
      assert.deepEqual(
        (await listedRules(repository)).map((r) => r.id),
        [kept.id],
      );
      const again = await remove(tokens.member, { ignoreRuleId: rule.id });
      assert.equal(
        assertRefused(again, "deleteIgnoreRule", "NOT_FOUND"),
        `No node with id "${rule.id}" exists.`,
      );
    });

    test("a CONTRIBUTOR is FORBIDDEN and the rule stays", async () => {
      const repository = await aRepository(server.db, team);
      const rule = await aRule({
        repositoryId: repositoryId(repository),
        issueShortcode: issue.shortcode,
        level: "REPOSITORY",
        type: "FOREVER",
      });
      assertRefused(
        await remove(tokens.contributor, { ignoreRuleId: rule.id }),
        "deleteIgnoreRule",
        "FORBIDDEN",
      );
      assert.deepEqual(
        (await rulesOf(repository)).map((r) => r.key),
        [keyOf(rule.id)],
      );
    });

    test("another account's rule answers exactly like an IgnoreRule id never issued, and stays", async () => {
      const hidden = await aRepository(server.db, elsewhere);
      const rule = payloadOf<{ ignoreRule: RuleView }>(
        await create(tokens.outsider, {
          repositoryId: repositoryId(hidden),
          issueShortcode: issue.shortcode,
          level: "REPOSITORY",
          type: "FOREVER",
        }),
        "createIgnoreRule",
      ).ignoreRule;
      const neverIssued = encodeGlobalId("IgnoreRule", newRowKey());
      const seen = await remove(tokens.admin, { ignoreRuleId: rule.id });
      const unknown = await remove(tokens.admin, { ignoreRuleId: neverIssued });
      assert.equal(
        assertRefused(seen, "deleteIgnoreRule", "NOT_FOUND"),
        `No node with id "${rule.id}" exists.`,
      );
      assert.deepEqual(
        JSON.parse(JSON.stringify(seen.body).replaceAll(rule.id, "<id>")),
        JSON.parse(JSON.stringify(unknown.body).replaceAll(neverIssued, "<id>")),
      );
      assert.equal((await rulesOf(hidden)).length, 1);
    });

    test("a Repository id or a malformed id is BAD_USER_INPUT naming ignoreRuleId", async () => {
      const repository = await aRepository(server.db, team);
      for (const id of [repositoryId(repository), "not-an-id"]) {
        assertRefused(
          await remove(tokens.admin, { ignoreRuleId: id }),
          "deleteIgnoreRule",
          "BAD_USER_INPUT",
          "ignoreRuleId",
        );
      }
    });
  });

  describe("what ingestion applies", () => {
    test("rules made through the API suppress the findings they match in runs created after them", async () => {
      const repository = await aRepository(server.db, team);
      const neighbour = await aRepository(server.db, team);
      const beforeRules = new Date(Date.now() - 60_000);
      const base = { repositoryId: repositoryId(repository) };
      const file = await aRule({
        ...base,
        issueShortcode: issue.shortcode,
        level: "FILE",
        type: "FOREVER",
        filePath: "src/legacy.py",
      });
      const tests = await aRule({
        ...base,
        issueShortcode: other.shortcode,
        level: "REPOSITORY",
        type: "TEST_PATTERN",
        globPattern: "**/test_*.py",
      });
      const rules = await loadSuppressionRules(server.db, repository.id, new Date());
      const of = (issueId: string, path: string) => suppressionOf(rules, { issueId, path });
      assert.deepEqual(of(issue.id, "src/legacy.py"), { by: "IGNORE_RULE", ruleKey: keyOf(file.id) });
      assert.equal(of(issue.id, "src/modern.py"), null);
      assert.deepEqual(of(other.id, "pkg/tests/test_app.py"), {
        by: "IGNORE_RULE",
        ruleKey: keyOf(tests.id),
      });
      assert.equal(of(other.id, "pkg/app.py"), null);
      assert.equal(of(other.id, "src/legacy.py"), null);

      const earlier = await loadSuppressionRules(server.db, repository.id, beforeRules);
      assert.equal(suppressionOf(earlier, { issueId: issue.id, path: "src/legacy.py" }), null);
      const elsewhereRules = await loadSuppressionRules(server.db, neighbour.id, new Date());
      assert.equal(suppressionOf(elsewhereRules, { issueId: issue.id, path: "src/legacy.py" }), null);

      payloadOf(await remove(tokens.member, { ignoreRuleId: file.id }), "deleteIgnoreRule");
      const afterDelete = await loadSuppressionRules(server.db, repository.id, new Date());
      assert.equal(suppressionOf(afterDelete, { issueId: issue.id, path: "src/legacy.py" }), null);
    });
  });
});
