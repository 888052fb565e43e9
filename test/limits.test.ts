import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { getIntrospectionQuery, Lexer, Source, TokenKind } from "graphql";
import type { AccountRow } from "../src/db/types.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import {
  DEFAULT_PAGE_SIZE,
  MAX_ALIASES,
  MAX_DEPTH,
  MAX_DIRECTIVES,
  MAX_NODES,
  MAX_PAGE_SIZE,
  MAX_TOKENS,
} from "../src/graphql/limits.ts";
import { anAccount, aToken, aUser } from "./helpers/builders.ts";
import { type GraphQLResponse, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/** Repositories seeded under the viewer's only account: more than one default page. */
const REPOSITORIES = DEFAULT_PAGE_SIZE + 5;

/** Lexical tokens in `query`, as graphql's parser counts them for `maxLexicalTokens`. */
function countTokens(query: string): number {
  const lexer = new Lexer(new Source(query));
  let count = 0;
  while (lexer.advance().kind !== TokenKind.EOF) count++;
  return count;
}

/** A field to select, and a scalar field of its type that can end the query there. */
type Step = readonly [field: string, leaf: string];

const REPOSITORY_TO_ACCOUNT: readonly Step[] = [
  ["repositories(first: 1)", "totalCount"],
  ["edges", "cursor"],
  ["node", "name"],
  ["account", "login"],
];

/** A path down the real schema, deeper than any limit: viewer → accounts → … → repositories → … */
const DEEP_PATH: readonly Step[] = [
  ["viewer", "id"],
  ["accounts(first: 1)", "totalCount"],
  ["edges", "cursor"],
  ["node", "login"],
  ...REPOSITORY_TO_ACCOUNT,
  ...REPOSITORY_TO_ACCOUNT,
  ...REPOSITORY_TO_ACCOUNT,
];

/** A valid query whose deepest field is `depth` levels down. */
function queryOfDepth(depth: number): string {
  assert.ok(depth - 1 <= DEEP_PATH.length, "DEEP_PATH is too short for this depth");
  const steps = DEEP_PATH.slice(0, depth - 1);
  const leaf = steps.at(-1)?.[1] ?? "__typename";
  return `{ ${steps.map(([field]) => `${field} { `).join("")}${leaf}${" }".repeat(steps.length)} }`;
}

describe("query limits over HTTP", () => {
  let server: TestServer;
  let team: AccountRow;
  let token: string;

  before(async () => {
    server = await startTestServer();
    const user = await aUser(server.db);
    team = await anAccount(server.db, {}, [{ user, role: "ADMIN" }]);
    await server.db
      .insertInto("repositories")
      .values(
        Array.from({ length: REPOSITORIES }, (_, i) => ({
          key: newRowKey(),
          account_id: team.id,
          name: `repo-${String(i).padStart(3, "0")}`,
          default_branch: "main",
        })),
      )
      .execute();
    token = await aToken(server.db, server.config.tokenPepper, user);
  });
  after(() => server.stop());

  const post = (query: string, variables?: Record<string, unknown>) =>
    gql(server.endpoint, token, query, variables);

  /** The request was answered normally: 200, data, no errors. */
  function assertAnswered(res: GraphQLResponse, what: string): void {
    assert.equal(res.status, 200, `${what}: ${JSON.stringify(res.body.errors)}`);
    assert.equal(res.body.errors, undefined, what);
    assert.ok(res.body.data, what);
  }

  /**
   * The request was refused with HTTP 400 for `code` before anything executed: a query that would
   * otherwise have produced data has no `data` key at all.
   */
  function assertRefused(res: GraphQLResponse, code: string, what: string): void {
    assert.equal(res.status, 400, what);
    assert.equal(res.body.errors?.[0]?.extensions?.code, code, `${what}: ${JSON.stringify(res.body.errors)}`);
    assert.ok(!("data" in res.body), `${what}: nothing may execute`);
  }

  test("a query exactly at the depth limit runs and one level deeper is refused", async () => {
    assert.equal(MAX_DEPTH, 15);
    assertAnswered(await post(queryOfDepth(MAX_DEPTH)), "depth 15");
    assertRefused(await post(queryOfDepth(MAX_DEPTH + 1)), "MAX_DEPTH_EXCEEDED", "depth 16");
  });

  test("fifteen aliases run and a sixteenth is refused", async () => {
    const aliased = (count: number) =>
      `{ ${Array.from({ length: count }, (_, i) => `a${i}: viewer { id }`).join(" ")} }`;
    assertAnswered(await post(aliased(MAX_ALIASES)), "15 aliases");
    assertRefused(await post(aliased(MAX_ALIASES + 1)), "MAX_ALIASES_EXCEEDED", "16 aliases");
  });

  test("fifty directives run and a fifty-first is refused", async () => {
    const directed = (count: number) => `{ viewer { ${"... @include(if: true) { id } ".repeat(count)}} }`;
    assertAnswered(await post(directed(MAX_DIRECTIVES)), "50 directives");
    assertRefused(await post(directed(MAX_DIRECTIVES + 1)), "MAX_DIRECTIVES_EXCEEDED", "51 directives");
  });

  test("a document of 2,000 tokens runs and one of 2,001 is refused", async () => {
    // `... on User { id }` is six tokens; a few plain fields make up the rest. (Thousands of one
    // repeated field would trip graphql's own budget for comparing overlapping fields instead.)
    const withTokens = (count: number) => {
      const body = count - 5;
      const spreads = "... on User { id } ".repeat(Math.floor(body / 6));
      const padding = ["email", "firstName", "lastName", "analyticsId", "isBetaTester"].slice(0, body % 6);
      return `{ viewer { ${spreads}${padding.join(" ")} } }`;
    };
    assert.equal(countTokens(withTokens(MAX_TOKENS)), 2000);
    assertAnswered(await post(withTokens(MAX_TOKENS)), "2,000 tokens");
    assertRefused(await post(withTokens(MAX_TOKENS + 1)), "MAX_TOKENS_EXCEEDED", "2,001 tokens");
  });

  test("the standard introspection query passes every limit with a token", async () => {
    const res = await post(getIntrospectionQuery());
    assertAnswered(res, "introspection");
    const schema = (res.body.data as { __schema: { queryType: { name: string }; types: unknown[] } })
      .__schema;
    assert.equal(schema.queryType.name, "Query");
    assert.ok(schema.types.length > 10);
  });

  test("introspection without a token is refused with 401", async () => {
    const res = await gql(server.endpoint, null, getIntrospectionQuery());
    assert.equal(res.status, 401);
    assert.equal(res.body.errors?.[0]?.extensions?.code, "UNAUTHENTICATED");
    assert.ok(!("data" in res.body));
  });

  test("first or last up to 500 runs and 501 is refused, as literals and as variables", async () => {
    assert.equal(MAX_PAGE_SIZE, 500);
    for (const argument of ["first", "last"]) {
      assertAnswered(await post(`{ viewer { accounts(${argument}: 500) { totalCount } } }`), argument);
      assertRefused(
        await post(`{ viewer { accounts(${argument}: 501) { totalCount } } }`),
        "MAX_PAGE_SIZE_EXCEEDED",
        `${argument}: 501`,
      );
      const byVariable = `query($n: Int) { viewer { accounts(${argument}: $n) { totalCount } } }`;
      assertAnswered(await post(byVariable, { n: 500 }), `${argument}: $n = 500`);
      assertRefused(await post(byVariable, { n: 501 }), "MAX_PAGE_SIZE_EXCEEDED", `${argument}: $n = 501`);
    }
    const nested = `query($login: String!) { account(login: $login, vcsProvider: GITHUB) { repositories(first: 501) { totalCount } } }`;
    assertRefused(await post(nested, { login: team.login }), "MAX_PAGE_SIZE_EXCEEDED", "nested first: 501");
  });

  test("a connection without first or last answers a page of 100 with more to come", async () => {
    const res = await post(
      `query($login: String!) { account(login: $login, vcsProvider: GITHUB) {
        repositories { totalCount pageInfo { hasNextPage } edges { node { name } } }
      } }`,
      { login: team.login },
    );
    assertAnswered(res, "default page");
    const repositories = (
      res.body.data as {
        account: {
          repositories: { totalCount: number; pageInfo: { hasNextPage: boolean }; edges: unknown[] };
        };
      }
    ).account.repositories;
    assert.equal(repositories.totalCount, REPOSITORIES);
    assert.equal(repositories.edges.length, DEFAULT_PAGE_SIZE);
    assert.equal(repositories.pageInfo.hasNextPage, true);
  });

  test("first: 500 on a nested connection is accepted and answers every row", async () => {
    const res = await post(
      `{ viewer { accounts(first: 1) { edges { node {
        repositories(first: 500) { pageInfo { hasNextPage } edges { node { name } } }
      } } } } }`,
    );
    assertAnswered(res, "nested first: 500");
    type Data = {
      viewer: {
        accounts: {
          edges: Array<{ node: { repositories: { pageInfo: { hasNextPage: boolean }; edges: unknown[] } } }>;
        };
      };
    };
    const repositories = (res.body.data as Data).viewer.accounts.edges[0]?.node.repositories;
    assert.equal(repositories?.edges.length, REPOSITORIES);
    assert.equal(repositories?.pageInfo.hasNextPage, false);
  });

  test("requesting exactly 100,000 nodes runs and one more is refused", async () => {
    assert.equal(MAX_NODES, 100_000);
    // 500 accounts, each with 199 repositories: 500 × (1 + 199) = 100,000 nodes.
    const atLimit = `accounts(first: 500) { edges { node { repositories(first: 199) { edges { node { name } } } } } }`;
    assertAnswered(await post(`{ viewer { ${atLimit} } }`), "100,000 nodes");
    const res = await post(`{ viewer { ${atLimit} } one: viewer { accounts(first: 1) { totalCount } } }`);
    assertRefused(res, "MAX_NODES_EXCEEDED", "100,001 nodes");
    assert.match(res.body.errors?.[0]?.message ?? "", /\b100001 nodes/);
  });

  test("nested page sizes multiply down each path, with 100 for a connection given none", async () => {
    const explicit = await post(
      `{ viewer { accounts(first: 500) { edges { node { repositories(first: 500) { edges { node { name } } } } } } } }`,
    );
    assertRefused(explicit, "MAX_NODES_EXCEEDED", "500 × 500");
    assert.match(explicit.body.errors?.[0]?.message ?? "", /\b250500 nodes/);
    const defaults = await post(
      `{ viewer { accounts { edges { node { repositories { edges { node { analysisRuns { totalCount } } } } } } } } }`,
    );
    assertRefused(defaults, "MAX_NODES_EXCEEDED", "100 × 100 × 100");
    assert.match(defaults.body.errors?.[0]?.message ?? "", /\b1010100 nodes/);
  });
});
