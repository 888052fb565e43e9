import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { buildSchema, execute, getIntrospectionQuery } from "graphql";
import { DocumentCache, loadGraphqlJit } from "./document-cache.ts";
import { MAX_DEPTH } from "./limits.ts";

const schema = buildSchema(`
  type Query {
    viewer: User
    repos(first: Int, last: Int, after: String, before: String, offset: Int): RepoConnection
  }
  type User { id: ID! email: String friend: User }
  type RepoConnection { nodes: [Repo] totalCount: Int }
  type Repo { id: ID! name: String }
`);

const repos = [
  { id: "r1", name: "alpha" },
  { id: "r2", name: "beta" },
  { id: "r3", name: "gamma" },
];

// graphql-jit's default resolver reads properties but, unlike graphql-js's, does not call
// functions, so the field that takes arguments gets a real resolver.
const repoConnection = schema.getQueryType()?.getFields().repos;
assert.ok(repoConnection);
repoConnection.resolve = (_source, args: { first?: number | null }) => ({
  nodes: repos.slice(0, args.first ?? 100),
  totalCount: repos.length,
});

const rootValue = {
  viewer: { id: "u1", email: "ada@example.com", friend: { id: "u2", email: null, friend: null } },
};

/** Drops null prototypes so results from graphql-js and graphql-jit compare by value. */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

describe("DocumentCache.prepare", () => {
  it("returns the same DocumentNode object when the same text is prepared again", () => {
    const cache = new DocumentCache(schema);
    const first = cache.prepare("{ viewer { id } }");
    const second = cache.prepare("{ viewer { id } }");
    assert.ok(first.document);
    assert.deepEqual(first.errors, []);
    assert.equal(second.document, first.document);
    assert.equal(cache.size, 1);
  });

  it("caches a parse failure as a GRAPHQL_PARSE_FAILED error without a document", () => {
    const cache = new DocumentCache(schema);
    const prepared = cache.prepare("{ viewer {");
    assert.equal(prepared.document, undefined);
    assert.deepEqual(
      prepared.errors.map((error) => error.extensions.code),
      ["GRAPHQL_PARSE_FAILED"],
    );
    assert.equal(cache.prepare("{ viewer {"), prepared);
  });

  it("marks validation errors GRAPHQL_VALIDATION_FAILED and keeps their locations", () => {
    const prepared = new DocumentCache(schema).prepare("{ viewer { id nope } }");
    assert.ok(prepared.document);
    assert.equal(prepared.errors.length, 1);
    assert.equal(prepared.errors[0]?.extensions.code, "GRAPHQL_VALIDATION_FAILED");
    assert.deepEqual(prepared.errors[0]?.locations, [{ line: 1, column: 15 }]);
  });

  it("keeps the code of a limit error raised during validation", () => {
    const deep = `{ viewer { ${"friend { ".repeat(MAX_DEPTH - 1)}id${" }".repeat(MAX_DEPTH - 1)} } }`;
    const prepared = new DocumentCache(schema).prepare(deep);
    assert.deepEqual(
      prepared.errors.map((error) => error.extensions.code),
      ["MAX_DEPTH_EXCEEDED"],
    );
  });

  it("accepts the standard introspection query", () => {
    assert.deepEqual(new DocumentCache(schema).prepare(getIntrospectionQuery()).errors, []);
  });

  it("hides did-you-mean suggestions when asked to", () => {
    const query = "{ viewer { emial } }";
    const hidden = new DocumentCache(schema, { hideSuggestions: true }).prepare(query);
    assert.equal(hidden.errors[0]?.message, 'Cannot query field "emial" on type "User".');
    const shown = new DocumentCache(schema).prepare(query);
    assert.equal(
      shown.errors[0]?.message,
      'Cannot query field "emial" on type "User". Did you mean "email"?',
    );
  });

  it("drops the least recently used text once past maxEntries", () => {
    const cache = new DocumentCache(schema, { maxEntries: 2 });
    const a = cache.prepare("{ viewer { id } }").document;
    const b = cache.prepare("{ viewer { email } }").document;
    cache.prepare("{ viewer { id } }");
    cache.prepare("{ repos { totalCount } }");
    assert.equal(cache.size, 2);
    assert.equal(cache.prepare("{ viewer { id } }").document, a, "recently used text is kept");
    assert.notEqual(cache.prepare("{ viewer { email } }").document, b, "oldest text was dropped");
  });
});

describe("DocumentCache.compiled", () => {
  const query = `
    query Repos($n: Int) { repos(first: $n) { totalCount nodes { id name } } }
    query Viewer { viewer { id email friend { id } } }
  `;

  it("returns nothing when jit is off", () => {
    const cache = new DocumentCache(schema);
    const { document } = cache.prepare(query);
    assert.ok(document);
    assert.equal(cache.compiled(document, "Repos"), undefined);
  });

  it("compiles each operation once and runs it to the same data as execute", async () => {
    const cache = new DocumentCache(schema, { jit: { module: await loadGraphqlJit() } });
    const { document } = cache.prepare(query);
    assert.ok(document);
    const compiled = cache.compiled(document, "Repos");
    assert.ok(compiled);
    assert.equal(cache.compiled(document, "Repos"), compiled);
    assert.notEqual(cache.compiled(document, "Viewer"), compiled);

    const variables = { n: 2 };
    const jitResult = await compiled.query(rootValue, {}, variables);
    const result = await execute({
      schema,
      document,
      rootValue,
      operationName: "Repos",
      variableValues: variables,
    });
    assert.deepEqual(plain(jitResult), plain(result));
    assert.deepEqual(plain(jitResult), {
      data: { repos: { totalCount: 3, nodes: repos.slice(0, 2) } },
    });
  });

  it("compiles an operation only after its first afterRuns runs, counting each operation alone", async () => {
    const cache = new DocumentCache(schema, { jit: { module: await loadGraphqlJit(), afterRuns: 2 } });
    const { document } = cache.prepare(query);
    assert.ok(document);
    assert.equal(cache.compiled(document, "Repos"), undefined, "first run: graphql-js");
    assert.equal(cache.compiled(document, "Repos"), undefined, "second run: graphql-js");
    assert.equal(cache.compiled(document, "Viewer"), undefined, "another operation counts its own runs");
    const compiled = cache.compiled(document, "Repos");
    assert.ok(compiled, "third run: compiled");
    assert.equal(cache.compiled(document, "Repos"), compiled, "and kept");
    assert.equal(cache.compiled(document, "Viewer"), undefined, "its second run");
    assert.ok(cache.compiled(document, "Viewer"));
  });

  it("loads graphql-jit when the first operation is due to compile, once, running graphql-js until then", async () => {
    const jit = await loadGraphqlJit();
    let loads = 0;
    let finishLoad: () => void = () => {};
    const loaded = new Promise<void>((resolve) => {
      finishLoad = resolve;
    });
    const module = async () => {
      loads += 1;
      await loaded;
      return jit;
    };
    const cache = new DocumentCache(schema, { jit: { module, afterRuns: 1 } });
    const { document } = cache.prepare(query);
    assert.ok(document);
    assert.equal(cache.compiled(document, "Repos"), undefined);
    assert.equal(loads, 0, "nothing was due to compile yet");
    assert.equal(cache.compiled(document, "Repos"), undefined, "due, but the module is loading");
    assert.equal(cache.compiled(document, "Repos"), undefined);
    assert.equal(loads, 1, "loaded once");
    finishLoad();
    await loaded;
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(cache.compiled(document, "Repos"), "compiled once the module is there");
    assert.equal(loads, 1);
  });

  it("keeps running graphql-js, and says so once, when graphql-jit cannot be loaded", async () => {
    const failures: unknown[] = [];
    let loads = 0;
    const cache = new DocumentCache(schema, {
      jit: {
        module: async () => {
          loads += 1;
          throw new Error("no such module");
        },
        onLoadError: (error) => failures.push(error),
      },
    });
    const { document } = cache.prepare(query);
    assert.ok(document);
    assert.equal(cache.compiled(document, "Repos"), undefined);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(cache.compiled(document, "Repos"), undefined);
    assert.equal(cache.compiled(document, "Viewer"), undefined);
    assert.equal(loads, 1, "not tried again");
    assert.equal(failures.length, 1);
    assert.match(String(failures[0]), /no such module/);
  });

  it("tries an operation that does not compile once, not at every run", async () => {
    const jit = await loadGraphqlJit();
    let compilations = 0;
    const compileQuery: typeof jit.compileQuery = (...args) => {
      compilations += 1;
      return jit.compileQuery(...args);
    };
    const counting = { ...jit, compileQuery };
    const cache = new DocumentCache(schema, { jit: { module: counting, afterRuns: 1 } });
    const { document } = cache.prepare(query);
    assert.ok(document);
    for (let run = 0; run < 5; run++) assert.equal(cache.compiled(document, "Missing"), undefined);
    assert.equal(compilations, 1);
  });

  it("returns nothing for an operation that does not compile, so the caller falls back to execute", async () => {
    const cache = new DocumentCache(schema, { jit: { module: await loadGraphqlJit() } });
    const { document } = cache.prepare(query);
    assert.ok(document);
    assert.equal(cache.compiled(document, "Missing"), undefined);
    assert.equal(cache.compiled(document, undefined), undefined, "two operations and no name");
  });
});
