// test-runner: execution-mode independent
import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import {
  type BoundaryException,
  type BoundaryProblem,
  checkBoundaries,
  formatProblems,
  nodeOf,
  readSourceTree,
  type SqlException,
} from "../scripts/boundaries.ts";
import { describeCycles, findCycleGroups, parseImports } from "../scripts/import-graph.ts";

/** A folder-level graph from `"a>b"` edge names. */
function graphOf(...edges: string[]): Map<string, Map<string, unknown>> {
  const graph = new Map<string, Map<string, unknown>>();
  for (const edge of edges) {
    const [from, to] = edge.split(">") as [string, string];
    if (!graph.has(to)) graph.set(to, new Map());
    graph.set(from, (graph.get(from) ?? new Map()).set(to, true));
  }
  return graph;
}

/**
 * A tiny tree that keeps every boundary: two domains (accounts above users) each with a store and
 * a GraphQL type file, the layers under them, the module list and the wiring above them, a test
 * that reaches across layers, and a tool's fixture whose import goes nowhere.
 */
const CLEAN: Record<string, string> = {
  "src/config.ts": "export const port = 4000;\n",
  "src/db/types.ts": 'import type { Config } from "../config.ts";\n',
  "src/graphql/builder.ts": 'import type { Database } from "../db/types.ts";\n',
  "src/http/server.ts": 'import { builder } from "../graphql/builder.ts";\n',
  "src/formats/sarif/reader.ts": 'import { parse } from "./json.ts";\n',
  "src/formats/sarif/json.ts": "export const parse = JSON.parse;\n",
  "src/modules/users/user-store.ts": 'import type { Database } from "../../db/types.ts";\n',
  "src/modules/users/user-type.ts":
    'import { builder } from "../../graphql/builder.ts";\nimport { findUser } from "./user-store.ts";\n',
  "src/modules/accounts/account-store.ts": 'import { findUser } from "../users/user-store.ts";\n',
  "src/modules/accounts/account-type.ts":
    'import { builder } from "../../graphql/builder.ts";\nimport { UserRef } from "../users/user-type.ts";\n',
  "src/modules/index.ts": 'import "./users/user-type.ts";\nimport "./accounts/account-type.ts";\n',
  "src/app.ts": 'import "./modules/index.ts";\nimport { createServer } from "./http/server.ts";\n',
  "src/modules/users/user-store.test.ts": 'import "../../app.ts";\nimport "../../http/server.ts";\n',
  "src/formats/sarif/fixtures/eslint/src/a.ts": 'import { b } from "./nowhere.ts";\n',
};

/** Checks {@link CLEAN} with `changes` applied (a file's new text, or null to delete it). */
function check(
  changes: Record<string, string | null> = {},
  exceptions: readonly BoundaryException[] = [],
  sqlExceptions: readonly SqlException[] = [],
): BoundaryProblem[] {
  const files = new Map(Object.entries({ ...CLEAN, ...changes }));
  for (const [file, text] of files) if (text === null) files.delete(file);
  return checkBoundaries(files as Map<string, string>, exceptions, sqlExceptions);
}

/** The one problem `problems` must hold, of kind `kind`. */
function onlyProblem(problems: BoundaryProblem[], kind: BoundaryProblem["kind"]): BoundaryProblem {
  assert.deepEqual(
    problems.map((p) => p.kind),
    [kind],
    formatProblems(problems),
  );
  return problems[0]!;
}

describe("reading imports", () => {
  test("every import, re-export, side-effect and dynamic import is read with its line and type-only flag", () => {
    const source = [
      'import fs from "node:fs";',
      "import {",
      "  a,",
      "  type B,",
      '} from "./a.ts";',
      'import type { C } from "../c.ts";',
      'export { d } from "./d.ts";',
      'export * from "./e.ts";',
      'export type { F } from "./f.ts";',
      'import "./side-effect.ts";',
      'const lazy = await import("./lazy.ts");',
    ].join("\n");
    const found = parseImports(source);
    assert.deepEqual(
      found.map((i) => [i.specifier, i.line, i.typeOnly]),
      [
        ["node:fs", 1, false],
        ["./a.ts", 2, false],
        ["../c.ts", 6, true],
        ["./d.ts", 7, false],
        ["./e.ts", 8, false],
        ["./f.ts", 9, true],
        ["./side-effect.ts", 10, false],
        ["./lazy.ts", 11, false],
      ],
    );
    assert.equal(found[1]!.text, 'import { a, type B, } from "./a.ts"');
  });

  test("declarations, comments and strings that mention `from` are not imports", () => {
    const source = [
      "/**",
      ' * import { x } from "./in-a-comment.ts";',
      " */",
      '// import { y } from "./in-a-line-comment.ts";',
      'export const note = "read from the file";',
      "export function from() {}",
      'const text = `import z from "./indented-in-a-template.ts"`;',
    ].join("\n");
    assert.deepEqual(parseImports(source), []);
  });
});

describe("finding cycles", () => {
  test("strongly connected folders are grouped; a folder outside every cycle is not", () => {
    assert.deepEqual(findCycleGroups(graphOf("a>b", "b>c", "c>a", "c>d")), [["a", "b", "c"]]);
    assert.deepEqual(findCycleGroups(graphOf("a>b", "b>c", "a>c")), []);
  });

  test("every edge inside a group is shown on the shortest cycle through it", () => {
    assert.deepEqual(describeCycles(graphOf("a>b", "b>a", "b>c", "c>a", "c>d")), [
      ["a", "b"],
      ["a", "b", "c"],
    ]);
  });
});

describe("module boundaries", () => {
  test("nodes: each domain, each other folder, each file directly under src/; tests and fixtures are left out", () => {
    assert.equal(nodeOf("src/modules/accounts/account-type.ts"), "modules/accounts");
    assert.equal(nodeOf("src/modules/catalog/data/rule.ts"), "modules/catalog");
    assert.equal(nodeOf("src/modules/index.ts"), "modules/index.ts");
    assert.equal(nodeOf("src/db/migrations/0001-initial.ts"), "db");
    assert.equal(nodeOf("src/app.ts"), "app.ts");
    assert.equal(nodeOf("src/modules/users/user-store.test.ts"), undefined);
    assert.equal(nodeOf("src/formats/sarif/fixtures/eslint/src/a.ts"), undefined);
    assert.equal(nodeOf("test/helpers/server.ts"), undefined);
  });

  test("a tree that keeps every boundary passes", () => {
    assert.deepEqual(check(), []);
  });

  test("a cycle between two domains names both folders and the import lines of each step", () => {
    const problem = onlyProblem(
      check({
        "src/modules/users/user-store.ts":
          'import type { Database } from "../../db/types.ts";\nimport { findAccount } from "../accounts/account-store.ts";\n',
      }),
      "cycle",
    );
    assert.equal(
      problem.message,
      "import cycle between folders: modules/accounts → modules/users → modules/accounts",
    );
    const printed = formatProblems([problem]);
    assert.match(
      printed,
      /src\/modules\/accounts\/account-store\.ts:1 {2}import \{ findUser \} from "\.\.\/users\/user-store\.ts"/,
    );
    assert.match(
      printed,
      /src\/modules\/users\/user-store\.ts:2 {2}import \{ findAccount \} from "\.\.\/accounts\/account-store\.ts"/,
    );
  });

  test("a cycle through files directly under src/ is found, type-only imports included", () => {
    const problems = check({ "src/config.ts": 'import type { Database } from "./db/types.ts";\n' });
    assert.deepEqual(
      problems.map((p) => p.kind),
      ["cycle", "layer"],
      formatProblems(problems),
    );
    assert.equal(problems[0]!.message, "import cycle between folders: config.ts → db → config.ts");
  });

  test("a lower layer importing a domain is refused, with the import that does it", () => {
    const problem = onlyProblem(
      check({
        "src/http/server.ts":
          'import { builder } from "../graphql/builder.ts";\nimport { findUser } from "../modules/users/user-store.ts";\n',
      }),
      "layer",
    );
    assert.match(problem.message, /^http \(infrastructure\) imports modules\/users \(domains\)/);
    assert.deepEqual(problem.imports, [
      'src/http/server.ts:2  import { findUser } from "../modules/users/user-store.ts"',
    ]);
  });

  test("the report readers import nothing outside src/formats/, not even the database's types", () => {
    const problem = onlyProblem(
      check({ "src/formats/sarif/reader.ts": 'import type { IssueRow } from "../../db/types.ts";\n' }),
      "purity",
    );
    assert.match(problem.message, /^formats must stay pure/);
  });

  test("a domain's store may not import another domain's GraphQL type file; its type file may", () => {
    const problem = onlyProblem(
      check({
        "src/modules/accounts/account-store.ts":
          'import { findUser } from "../users/user-store.ts";\nimport { UserRef } from "../users/user-type.ts";\n',
      }),
      "domain",
    );
    assert.match(problem.message, /modules\/accounts imports a GraphQL type file of modules\/users/);
    assert.deepEqual(problem.imports, [
      'src/modules/accounts/account-store.ts:2  import { UserRef } from "../users/user-type.ts"',
    ]);
  });

  test("no file imports another domain's resolvers, not even a resolver file", () => {
    const problem = onlyProblem(
      check({
        "src/modules/users/user-mutations.ts": 'import { builder } from "../../graphql/builder.ts";\n',
        "src/modules/accounts/account-type.ts":
          'import { builder } from "../../graphql/builder.ts";\nimport { changeUser } from "../users/user-mutations.ts";\n',
      }),
      "domain",
    );
    assert.match(problem.message, /modules\/accounts imports the resolvers of modules\/users/);
  });

  test("a domain file that adds to the schema must be named as API surface", () => {
    const problem = onlyProblem(
      check({ "src/modules/users/user-fields.ts": 'import { builder } from "../../graphql/builder.ts";\n' }),
      "naming",
    );
    assert.match(problem.message, /^src\/modules\/users\/user-fields\.ts adds to the schema/);
  });

  test("a folder or top-level file in no layer must be placed before it passes", () => {
    const problem = onlyProblem(check({ "src/reports/report.ts": "export const report = 1;\n" }), "unplaced");
    assert.match(problem.message, /^reports \(src\/reports\/report\.ts\) is in no layer/);
  });

  test("an import of no file of src/ is reported, so no edge is silently lost", () => {
    const problem = onlyProblem(
      check({ "src/app.ts": 'import "./modules/index.ts";\nimport { start } from "./servre.ts";\n' }),
      "unresolved",
    );
    assert.deepEqual(problem.imports, ['src/app.ts:2  import { start } from "./servre.ts"']);
  });

  test("a pipeline file that builds SQL is refused, naming each place; types, transactions and prose are not SQL", () => {
    const clean = [
      'import type { Kysely } from "kysely";',
      'import { type Database, findRun } from "../db/types.ts";',
      '/** Reads the run (tx.selectFrom("runs") lives in the store) with sql`…` nowhere. */',
      "export async function settle(db: Kysely<Database>, id: string) {",
      "  const note = 'tx.deleteFrom(\"runs\").execute()';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the file checked is source text
      "  const text = `sql${id}`;",
      "  const pattern = /\\.selectFrom\\(/;",
      "  return db.transaction().execute((tx) => findRun(tx, id, note, text, pattern));",
      "}",
    ].join("\n");
    assert.deepEqual(check({ "src/ingestion/settle.ts": clean }), []);
    const dirty = [
      'import { type Kysely, sql } from "kysely";',
      "export async function settle(tx: Kysely<Database>, id: string) {",
      "  const run = await tx",
      '    .selectFrom("runs")',
      "    .selectAll()",
      '    .where("id", "=", id)',
      "    .executeTakeFirst();",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the file checked is source text
      "  await sql<{ n: number }>`DELETE FROM runs WHERE id = ${id}`.execute(tx);",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the file checked is source text
      "  const { rows } = await tx.executeQuery(sql.raw(`SELECT ${run.id}`).compile(tx));",
      "  return rows;",
      "}",
    ].join("\n");
    const problem = onlyProblem(check({ "src/ingestion/settle.ts": dirty }), "sql");
    assert.match(problem.message, /^src\/ingestion\/settle\.ts builds SQL/);
    assert.deepEqual(problem.imports, [
      'src/ingestion/settle.ts:1  a value import from kysely: import { type Kysely, sql } from "kysely"',
      "src/ingestion/settle.ts:4  a query builder: .selectFrom(",
      "src/ingestion/settle.ts:7  a query builder: .executeTakeFirst(",
      "src/ingestion/settle.ts:8  the sql tag",
      "src/ingestion/settle.ts:8  a query run: .execute(",
      "src/ingestion/settle.ts:9  a query builder: .executeQuery(",
      "src/ingestion/settle.ts:9  the sql tag",
    ]);
    // Stores and the pipeline's own tests may build SQL.
    assert.deepEqual(
      check({ "src/modules/users/user-store.ts": dirty, "src/ingestion/settle.test.ts": dirty }),
      [],
    );
  });

  test("SQL outside a store is refused in every domain file and folder; stores, src/db/ and tests may build it", () => {
    const statement = [
      'import type { Kysely } from "kysely";',
      "export function revoke(tx: Kysely<Database>, id: string) {",
      '  return tx.updateTable("users").set({ revoked: true }).where("id", "=", id).execute();',
      "}",
    ].join("\n");
    for (const file of [
      "src/modules/users/user-service.ts",
      "src/modules/users/user-mutations.ts",
      "src/modules/users/store.ts",
      "src/modules/users/user-store-filters.ts",
      "src/http/server.ts",
    ]) {
      const problem = onlyProblem(check({ [file]: statement }), "sql");
      assert.equal(
        problem.message,
        `${file} builds SQL, but SQL lives only in stores (files named *-store.ts): move the statement into one as a named function`,
      );
      assert.deepEqual(problem.imports, [
        `${file}:3  a query builder: .updateTable(`,
        `${file}:3  a query run: .execute(`,
      ]);
    }
    assert.deepEqual(
      check({
        "src/modules/users/user-store.ts": statement,
        "src/db/migrations/0001-initial.ts": statement,
        "src/modules/users/user-service.test.ts": statement,
      }),
      [],
    );
    // A pipeline keeps none, even in a file named like a store.
    assert.match(
      onlyProblem(check({ "src/ingestion/run-store.ts": statement }), "sql").message,
      /^src\/ingestion\/run-store\.ts builds SQL, but ingestion keeps its statements in the stores of the domains/,
    );
  });

  test("a class's own execute method and a string named sql are not SQL", () => {
    const source = [
      "export class Worker {",
      "  execute(job: string) { return job; }",
      "  run(job: string) { return this.execute(job); }",
      "}",
      "export const shorten = (sql: string) => sql.slice(0, 10);",
    ].join("\n");
    assert.deepEqual(check({ "src/modules/users/user-worker.ts": source }), []);
  });

  test("an SQL exception accepts the file it names, and fails once that file builds no SQL", () => {
    const exception = { file: "src/modules/users/user-service.ts", reason: "for the test" };
    const dirty = {
      "src/modules/users/user-service.ts": 'export const q = (db) => db.selectFrom("users");\n',
    };
    assert.deepEqual(check(dirty, [], [exception]), []);
    const problem = onlyProblem(
      check({ "src/modules/users/user-service.ts": "export const q = 1;\n" }, [], [exception]),
      "stale",
    );
    assert.match(problem.message, /SQL exception for src\/modules\/users\/user-service\.ts matches no file/);
  });

  test("an exception accepts exactly the import it names, and fails once that import is gone", () => {
    const exception = { from: "src/formats/sarif/reader.ts", to: "src/db/types.ts", reason: "for the test" };
    const impure = { "src/formats/sarif/reader.ts": 'import type { IssueRow } from "../../db/types.ts";\n' };
    assert.deepEqual(check(impure, [exception]), []);
    const problem = onlyProblem(check({}, [exception]), "stale");
    assert.match(problem.message, /src\/formats\/sarif\/reader\.ts → src\/db\/types\.ts matches no import/);
  });

  test("the source tree keeps its boundaries", () => {
    const problems = checkBoundaries(readSourceTree(path.resolve(import.meta.dirname, "..")));
    assert.deepEqual(problems, [], formatProblems(problems));
  });
});

/**
 * The tree's files and the packages a file loads before it runs: its static, non-type imports,
 * followed through the tree's own files. Deferred imports (`import()`) are left out: they load
 * only when reached.
 */
function staticallyLoaded(
  files: Map<string, string>,
  entry: string,
): { files: Set<string>; packages: Set<string> } {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const statement of parseImports(files.get(file) ?? "")) {
      if (statement.typeOnly || /\bimport\(/.test(statement.text)) continue;
      if (statement.specifier.startsWith(".")) {
        visit(path.posix.normalize(path.posix.join(path.posix.dirname(file), statement.specifier)));
      } else if (!statement.specifier.startsWith("node:")) {
        const [scope = "", name = ""] = statement.specifier.split("/");
        packages.add(scope.startsWith("@") ? `${scope}/${name}` : scope);
      }
    }
  };
  visit(entry);
  return { files: seen, packages };
}

function packagesLoadedBy(files: Map<string, string>, entry: string): Set<string> {
  return staticallyLoaded(files, entry).packages;
}

describe("what the server loads at start", () => {
  const files = readSourceTree(path.resolve(import.meta.dirname, ".."));

  test("the server loads the MCP SDK and zod only when an MCP request comes", () => {
    const loaded = packagesLoadedBy(files, "src/app.ts");
    assert.ok(
      loaded.has("graphql") && loaded.has("pg"),
      `the walk finds the server's packages: ${[...loaded]}`,
    );
    assert.ok(!loaded.has("@modelcontextprotocol/sdk"), "src/app.ts loads the MCP SDK at start");
    assert.ok(!loaded.has("zod"), "src/app.ts loads zod at start");
    // The MCP endpoint itself still reaches both, on its first request.
    assert.ok(packagesLoadedBy(files, "src/mcp/mcp-server.ts").has("@modelcontextprotocol/sdk"));
  });

  test("the server loads ioredis only when given a Redis URL, and graphql-jit only when executing with it", () => {
    const loaded = packagesLoadedBy(files, "src/app.ts");
    assert.ok(!loaded.has("ioredis"), "src/app.ts loads ioredis at start");
    assert.ok(!loaded.has("graphql-jit"), "src/app.ts loads graphql-jit at start");
  });
});

describe("what the admin CLI loads at start", () => {
  const files = readSourceTree(path.resolve(import.meta.dirname, ".."));

  test("a command's heavy modules load only when that command runs", () => {
    const loaded = staticallyLoaded(files, "src/cli/assay.ts").files;
    assert.ok(loaded.has("src/cli/token-commands.ts"), `the walk finds the commands: ${loaded.size} files`);
    for (const [file, command] of [
      ["src/job-handlers.ts", "worker"],
      ["src/modules/demo/demo-seed.ts", "demo seed"],
      ["src/mcp/stdio-bridge.ts", "mcp"],
      ["src/advisory-sync/sync.ts", "advisories sync"],
    ]) {
      assert.ok(
        !loaded.has(file!),
        `src/cli/assay.ts loads ${file} at start, which only \`${command}\` needs`,
      );
    }
  });
});
