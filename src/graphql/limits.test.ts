import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  buildSchema,
  type GraphQLError,
  getIntrospectionQuery,
  Kind,
  Lexer,
  parse,
  Source,
  specifiedRules,
  TokenKind,
  validate,
} from "graphql";
import { isAssayError } from "./errors.ts";
import {
  checkPageSizes,
  limitValidationRules,
  MAX_ALIASES,
  MAX_DEPTH,
  MAX_DIRECTIVES,
  MAX_TOKENS,
  parseWithLimits,
} from "./limits.ts";

const connectionArgs = "first: Int, last: Int, after: String, before: String, offset: Int";

const schema = buildSchema(`
  type Query {
    viewer: User
    repos(${connectionArgs}): RepoConnection
    node(id: ID!): Node
  }
  interface Node { id: ID! }
  type User implements Node {
    id: ID!
    login: String
    friend: User
    repos(${connectionArgs}): RepoConnection
  }
  type RepoConnection { edges: [RepoEdge] nodes: [Repo] totalCount: Int }
  type RepoEdge { cursor: String node: Repo }
  type Repo implements Node {
    id: ID!
    name: String
    owner: User
    issues(${connectionArgs}): IssueConnection
  }
  type IssueConnection { edges: [IssueEdge] }
  type IssueEdge { node: Issue }
  type Issue implements Node { id: ID! title: String }
`);

/** Validates with graphql's rules and ours, as the server does. */
function validateQuery(query: string): readonly GraphQLError[] {
  return validate(schema, parse(query), [...specifiedRules, ...limitValidationRules]);
}

function codes(errors: readonly GraphQLError[]): unknown[] {
  return errors.map((error) => error.extensions.code);
}

/** `viewer { friend { ... { id } } }` with `depth` levels of fields in all. */
function nestedQuery(depth: number): string {
  return `{ viewer { ${"friend { ".repeat(depth - 2)}id${" }".repeat(depth - 2)} } }`;
}

function pageErrors(
  query: string,
  variables?: Record<string, unknown>,
  operationName?: string,
): GraphQLError[] {
  const document = parse(query);
  assert.deepEqual(validate(schema, document), [], "test query must be valid");
  return checkPageSizes(schema, document, operationName, variables);
}

describe("depth limit", () => {
  it("accepts a query exactly at the depth limit", () => {
    assert.deepEqual(validateQuery(nestedQuery(MAX_DEPTH)), []);
  });

  it("rejects a query one level past the depth limit, naming the limit and the depth found", () => {
    const errors = validateQuery(nestedQuery(MAX_DEPTH + 1));
    assert.deepEqual(codes(errors), ["MAX_DEPTH_EXCEEDED"]);
    assert.equal(errors[0]?.message, "Query depth limit of 15 exceeded, found 16.");
    assert.ok(isAssayError(errors[0]));
    assert.deepEqual(errors[0]?.locations, [{ line: 1, column: 1 }]);
  });

  it("counts depth through fragment spreads and inline fragments but not the fragments themselves", () => {
    const query = `{ viewer { ...Deep } }
      fragment Deep on User { ... on User { ${"friend { ".repeat(13)}id${" }".repeat(13)} } }`;
    assert.deepEqual(validateQuery(query), []);
    const deeper = query.replace("id", "friend { id }");
    assert.deepEqual(codes(validateQuery(deeper)), ["MAX_DEPTH_EXCEEDED"]);
  });

  it("lets the standard introspection query through every limit", () => {
    assert.deepEqual(validateQuery(getIntrospectionQuery()), []);
  });

  it("does not count introspection toward depth, however deep its ofType chain", () => {
    // The standard query's TypeRef chain puts it at exactly 15; clients that want deeper wrapping
    // types (e.g. [[[T!]!]!]) nest ofType further.
    const chain = `${"ofType { ".repeat(MAX_DEPTH)}name${" }".repeat(MAX_DEPTH)}`;
    assert.deepEqual(validateQuery(`{ __type(name: "User") { ${chain} } }`), []);
    assert.deepEqual(validateQuery(`{ __schema { types { fields { type { ${chain} } } } } }`), []);
  });

  it("ends on cyclic fragments, leaving the cycle to NoFragmentCycles", () => {
    const query = `{ viewer { ...A } }
      fragment A on User { friend { ...B } }
      fragment B on User { friend { ...A } }`;
    assert.deepEqual(validate(schema, parse(query), limitValidationRules), []);
    assert.ok(validateQuery(query).some((error) => error.message.includes("Cannot spread fragment")));
  });
});

describe("alias limit", () => {
  const aliased = (count: number) =>
    `{ ${Array.from({ length: count }, (_, i) => `a${i}: viewer { id }`).join(" ")} }`;

  it("accepts exactly the alias limit", () => {
    assert.deepEqual(validateQuery(aliased(MAX_ALIASES)), []);
  });

  it("rejects one alias past the limit, naming the limit and the count found", () => {
    const errors = validateQuery(aliased(MAX_ALIASES + 1));
    assert.deepEqual(codes(errors), ["MAX_ALIASES_EXCEEDED"]);
    assert.equal(errors[0]?.message, "Aliases limit of 15 exceeded, found 16.");
  });

  it("counts a fragment's aliases at every spread, without expanding it exponentially", () => {
    // F40 spreads F39 twice, and so on: 2^40 aliases, counted without walking them.
    const fragments = Array.from(
      { length: 40 },
      (_, i) => `fragment F${i + 1} on User { ...F${i} ...F${i} }`,
    ).join("\n");
    const query = `{ viewer { ...F40 } } fragment F0 on User { a: id } ${fragments}`;
    const errors = validate(schema, parse(query), limitValidationRules);
    assert.equal(errors[0]?.message, `Aliases limit of 15 exceeded, found ${2 ** 40}.`);
  });
});

describe("directive limit", () => {
  const directed = (count: number) => `{ viewer { ${"id @include(if: true) ".repeat(count)}} }`;

  it("accepts exactly the directive limit", () => {
    assert.deepEqual(validateQuery(directed(MAX_DIRECTIVES)), []);
  });

  it("rejects one directive past the limit, counting directives inside fragments", () => {
    const query = `query Q @skip(if: false) { viewer { ...D } } fragment D on User { ${"id @include(if: true) ".repeat(MAX_DIRECTIVES)}}`;
    const errors = validate(schema, parse(query), limitValidationRules);
    assert.deepEqual(codes(errors), ["MAX_DIRECTIVES_EXCEEDED"]);
    assert.equal(errors[0]?.message, "Directives limit of 50 exceeded, found 51.");
  });
});

describe("token limit", () => {
  // `{`, the fields, `}`.
  const withTokens = (count: number) => `{${" id".repeat(count - 2)} }`;

  it("parses a document of exactly the token limit", () => {
    assert.equal(parseWithLimits(withTokens(MAX_TOKENS)).kind, Kind.DOCUMENT);
  });

  it("rejects a document one token past the limit with MAX_TOKENS_EXCEEDED", () => {
    assert.throws(
      () => parseWithLimits(withTokens(MAX_TOKENS + 1)),
      (error: unknown) =>
        isAssayError(error) &&
        error.extensions.code === "MAX_TOKENS_EXCEEDED" &&
        error.message.includes(String(MAX_TOKENS)),
    );
  });

  it("leaves the standard introspection query well under the token limit", () => {
    const lexer = new Lexer(new Source(getIntrospectionQuery()));
    let tokens = 0;
    while (lexer.advance().kind !== TokenKind.EOF) tokens += 1;
    assert.ok(tokens > 100 && tokens < MAX_TOKENS, `introspection query has ${tokens} tokens`);
    assert.doesNotThrow(() => parseWithLimits(getIntrospectionQuery()));
  });

  it("reports other syntax errors as GRAPHQL_PARSE_FAILED with their location", () => {
    assert.throws(
      () => parseWithLimits("{ viewer {"),
      (error: unknown) =>
        isAssayError(error) &&
        error.extensions.code === "GRAPHQL_PARSE_FAILED" &&
        error.message === "Syntax Error: Expected Name, found <EOF>." &&
        error.locations?.[0]?.line === 1 &&
        error.locations[0].column === 11,
    );
  });
});

describe("page sizes", () => {
  it("accepts a literal page size at the maximum", () => {
    assert.deepEqual(pageErrors("{ repos(first: 500) { totalCount } }"), []);
  });

  it("rejects a literal page size past the maximum, naming the field path and the limit", () => {
    const errors = pageErrors("{ viewer { repos(last: 501) { totalCount } } }");
    assert.deepEqual(codes(errors), ["MAX_PAGE_SIZE_EXCEEDED"]);
    assert.match(errors[0]?.message ?? "", /"last" on "viewer\.repos" asks for 501 .* page size of 500/);
    assert.deepEqual(errors[0]?.locations, [{ line: 1, column: 12 }]);
  });

  it("reads page sizes from variables, and from the variable's default when it is not sent", () => {
    const query = "query Q($n: Int = 600) { repos(first: $n) { totalCount } }";
    assert.deepEqual(pageErrors(query, { n: 20 }), []);
    assert.deepEqual(codes(pageErrors(query, { n: 501 })), ["MAX_PAGE_SIZE_EXCEEDED"]);
    assert.deepEqual(codes(pageErrors(query, {})), ["MAX_PAGE_SIZE_EXCEEDED"]);
  });

  it("rejects a negative page size as BAD_USER_INPUT naming the argument", () => {
    const errors = pageErrors("query Q($n: Int) { repos(first: $n) { totalCount } }", { n: -1 });
    assert.deepEqual(codes(errors), ["BAD_USER_INPUT"]);
    assert.equal(errors[0]?.extensions.field, "first");
    assert.match(errors[0]?.message ?? "", /"first" on "repos" must not be negative/);
    assert.deepEqual(errors[0]?.locations, [{ line: 1, column: 20 }]);
  });

  it("leaves variables that do not coerce to execution", () => {
    const errors = pageErrors("query Q($n: Int) { repos(first: $n) { totalCount } }", { n: "many" });
    assert.deepEqual(errors, []);
  });
});

describe("node count", () => {
  it("multiplies nested page sizes: 500 repos with 500 issues each is too many", () => {
    const errors = pageErrors(
      "{ repos(first: 500) { edges { node { issues(first: 500) { edges { node { id } } } } } } }",
    );
    assert.deepEqual(codes(errors), ["MAX_NODES_EXCEEDED"]);
    assert.match(errors[0]?.message ?? "", /250500 nodes, more than the limit of 100000/);
  });

  it("accepts 100 repos with 100 issues each", () => {
    assert.deepEqual(
      pageErrors("{ repos(first: 100) { nodes { issues(first: 100) { edges { node { id } } } } } }"),
      [],
    );
  });

  it("applies the default page size to connections given neither first nor last", () => {
    // 100 repos, 100 owners' 100 repos each, and their 100 issues each: 100 + 10^4 + 10^6.
    const errors = pageErrors(
      "{ repos { nodes { owner { repos { nodes { issues { edges { node { id } } } } } } } } }",
    );
    assert.match(errors[0]?.message ?? "", /requests up to 1010100 nodes/);
  });

  it("uses the smaller of first and last", () => {
    assert.deepEqual(
      pageErrors(
        "{ repos(first: 500, last: 10) { nodes { issues(first: 500) { edges { node { id } } } } } }",
      ),
      [],
    );
  });

  it("multiplies a fragment by the page sizes above each place it is spread", () => {
    const query = `{
      viewer { repos(first: 10) { nodes { ...Issues } } }
      repos(first: 400) { nodes { ...Issues } }
    }
    fragment Issues on Repo { issues(first: 250) { edges { node { id } } } }`;
    // 10 + 10 * 250 + 400 + 400 * 250
    assert.match(pageErrors(query)[0]?.message ?? "", /requests up to 102910 nodes/);
  });

  it("follows inline fragments, including ones on interfaces", () => {
    const query = `{ node(id: "1") { ... on User { repos(first: 300) { nodes { ... on Repo { issues(first: 400) { edges { node { id } } } } } } } } }`;
    assert.match(pageErrors(query)[0]?.message ?? "", /requests up to 120300 nodes/);
  });

  it("checks only the operation that was asked for", () => {
    const query =
      "query Big { repos(first: 900) { totalCount } } query Small { repos(first: 9) { totalCount } }";
    assert.deepEqual(pageErrors(query, {}, "Small"), []);
    assert.deepEqual(codes(pageErrors(query, {}, "Big")), ["MAX_PAGE_SIZE_EXCEEDED"]);
    assert.deepEqual(pageErrors(query, {}, undefined), [], "ambiguous: execution reports it");
  });

  it("ends on cyclic fragments", () => {
    const document = parse(`{ viewer { ...A } }
      fragment A on User { repos(first: 5) { nodes { owner { ...B } } } }
      fragment B on User { friend { ...A } }`);
    assert.deepEqual(checkPageSizes(schema, document, undefined, {}), []);
  });
});
