import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AnalyzerRow, CodeFormatterRow, IssueCategory, UserRow } from "../src/db/types.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { ISSUE_CATEGORY_TITLES } from "../src/modules/catalog/issue-categories.ts";
import { aToken, aUser } from "./helpers/builders.ts";
import {
  aCodeFormatter,
  anAnalyzer,
  analyzersIn,
  anIssue,
  codeFormattersIn,
  emptyCatalog,
  issuesIn,
} from "./helpers/builders-catalog.ts";
import { assertPageSizeIndependent, settle, startInstance, type TestInstance } from "./helpers/instance.ts";
import type { PageInfo } from "./helpers/paging.ts";
import { dataOf, gql } from "./helpers/server.ts";

interface Connection {
  totalCount: number;
  pageInfo: PageInfo;
  edges: Array<{ cursor: string; node: { shortcode: string } }>;
}

/** Connection arguments as the tests pass them. */
interface PageArgs {
  first?: number;
  last?: number;
  after?: string | null;
  before?: string | null;
  offset?: number;
}

/** One page, reduced to the shortcodes it holds. */
interface Page {
  totalCount: number;
  pageInfo: PageInfo;
  shortcodes: string[];
}

const PAGE_VARIABLES = "$first: Int, $last: Int, $after: String, $before: String, $offset: Int";
const PAGE_ARGUMENTS = "first: $first, last: $last, after: $after, before: $before, offset: $offset";
const PAGE_FIELDS = `totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  edges { cursor node { shortcode } }`;

function toPage(connection: Connection): Page {
  return {
    totalCount: connection.totalCount,
    pageInfo: connection.pageInfo,
    shortcodes: connection.edges.map((edge) => edge.node.shortcode),
  };
}

/** Pages forward with `first` to the end, checking every page's pageInfo; returns all shortcodes. */
async function pageForward(load: (args: PageArgs) => Promise<Page>, size: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let n = 0; ; n++) {
    const page = await load({ first: size, after: cursor });
    assert.ok(page.shortcodes.length > 0 && page.shortcodes.length <= size, `page ${n} size`);
    assert.equal(page.pageInfo.hasPreviousPage, n > 0, `page ${n} hasPreviousPage`);
    seen.push(...page.shortcodes);
    if (!page.pageInfo.hasNextPage) return seen;
    assert.equal(page.shortcodes.length, size, "only the last page may be short");
    cursor = page.pageInfo.endCursor;
  }
}

/** Pages backward with `last` to the start, checking every page's pageInfo; returns all shortcodes. */
async function pageBackward(load: (args: PageArgs) => Promise<Page>, size: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let n = 0; ; n++) {
    const page = await load({ last: size, before: cursor });
    assert.ok(page.shortcodes.length > 0 && page.shortcodes.length <= size, `page ${n} size`);
    assert.equal(page.pageInfo.hasNextPage, n > 0, `page ${n} hasNextPage`);
    seen.unshift(...page.shortcodes);
    if (!page.pageInfo.hasPreviousPage) return seen;
    assert.equal(page.shortcodes.length, size, "only the first page may be short");
    cursor = page.pageInfo.startCursor;
  }
}

/** Drops the arguments a test leaves out, so they are absent rather than null. */
function variablesOf(args: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
}

/** Shortcodes sorted the way a (shortcode-or-name, key) order puts them. */
function sortedBy<R extends { key: string; shortcode: string }>(
  rows: readonly R[],
  field: (row: R) => string,
) {
  return [...rows]
    .sort((a, b) => {
      const x = field(a);
      const y = field(b);
      if (x !== y) return x < y ? -1 : 1;
      return a.key < b.key ? -1 : 1;
    })
    .map((row) => row.shortcode);
}

describe("the analyzer and code-formatter catalog over HTTP", () => {
  let server: TestInstance;
  let viewer: UserRow;
  let token: string;

  before(async () => {
    server = await startInstance();
    // Catalog objects are global: a user who belongs to no account reads all of them.
    viewer = await aUser(server.db);
    token = await aToken(server.db, server.config.tokenPepper, viewer);
  });
  after(() => server.stop());

  async function query<T = Record<string, unknown>>(text: string, variables: Record<string, unknown> = {}) {
    return gql<T>(server.endpoint, token, text, variables);
  }

  async function analyzersPage(args: PageArgs): Promise<Page> {
    const res = await query<{ analyzers: Connection }>(
      `query(${PAGE_VARIABLES}) { analyzers(${PAGE_ARGUMENTS}) { ${PAGE_FIELDS} } }`,
      variablesOf(args),
    );
    assert.deepEqual(res.body.errors, undefined, JSON.stringify(args));
    return toPage(res.body.data!.analyzers);
  }

  async function issuesPage(analyzer: AnalyzerRow, args: PageArgs): Promise<Page> {
    const res = await query<{ analyzer: { issues: Connection } }>(
      `query($shortcode: String!, ${PAGE_VARIABLES}) {
        analyzer(shortcode: $shortcode) { issues(${PAGE_ARGUMENTS}) { ${PAGE_FIELDS} } }
      }`,
      { shortcode: analyzer.shortcode, ...variablesOf(args) },
    );
    assert.deepEqual(res.body.errors, undefined, JSON.stringify(args));
    return toPage(res.body.data!.analyzer.issues);
  }

  async function formattersPage(
    field: "codeFormatters" | "transformers",
    args: PageArgs & { name?: string },
  ): Promise<Page> {
    const res = await query<Record<string, Connection>>(
      `query(${PAGE_VARIABLES}, $name: String) {
        list: ${field}(${PAGE_ARGUMENTS}, name_Icontains: $name) { ${PAGE_FIELDS} }
      }`,
      variablesOf(args),
    );
    assert.deepEqual(res.body.errors, undefined, JSON.stringify(args));
    return toPage(res.body.data!.list!);
  }

  describe("analyzers", () => {
    test("analyzer(shortcode:) answers the analyzer's fields", async () => {
      const analyzer = await anAnalyzer(server.db, {
        name: "Python",
        description: "Finds bugs in Python.",
        version: "2.3.1",
        metaSchema: { type: "object", properties: { runtime_version: { type: "string" } } },
        exampleConfig: '[[analyzers]]\nname = "python"',
        logo: "https://assay.example/logos/python.svg",
        type: "COMMUNITY",
      });
      const res = await query(
        `query($shortcode: String!) { analyzer(shortcode: $shortcode) {
          id shortcode name description version metaSchema exampleConfig logo type
        } }`,
        { shortcode: analyzer.shortcode },
      );
      assert.deepEqual(dataOf(res).analyzer, {
        id: encodeGlobalId("Analyzer", analyzer.key),
        shortcode: analyzer.shortcode,
        name: "Python",
        description: "Finds bugs in Python.",
        version: "2.3.1",
        metaSchema: JSON.stringify({ type: "object", properties: { runtime_version: { type: "string" } } }),
        exampleConfig: '[[analyzers]]\nname = "python"',
        logo: "https://assay.example/logos/python.svg",
        type: "COMMUNITY",
      });
    });

    test("analyzer(shortcode:) with an unknown shortcode answers null and NOT_FOUND", async () => {
      const res = await query(`{ analyzer(shortcode: "no-such-analyzer") { id } }`);
      assert.deepEqual(res.body.data, { analyzer: null });
      assert.equal(res.body.errors?.length, 1);
      assert.equal(res.body.errors?.[0]?.message, "Analyzer matching query does not exist");
      assert.equal(res.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
      assert.deepEqual(res.body.errors?.[0]?.path, ["analyzer"]);
    });

    test("analyzers pages forward and backward in shortcode order, counting every analyzer", async () => {
      await emptyCatalog(server.db);
      // Inserted out of order, so the answer's order comes from the shortcodes.
      const shortcodes = ["m07", "b02", "z11", "a01", "q09", "c03", "k06", "d04", "x10", "e05", "p08"];
      await analyzersIn(
        server.db,
        shortcodes.map((shortcode) => ({ shortcode })),
      );
      const expected = [...shortcodes].sort();
      for (const size of [1, 3, 4, 11, 50]) {
        assert.deepEqual(await pageForward(analyzersPage, size), expected, `forward by ${size}`);
        assert.deepEqual(await pageBackward(analyzersPage, size), expected, `backward by ${size}`);
      }
      const first = await analyzersPage({ first: 2 });
      assert.equal(first.totalCount, 11);
      assert.deepEqual(first.shortcodes, ["a01", "b02"]);
      const skipped = await analyzersPage({ first: 2, offset: 3 });
      assert.deepEqual(skipped.shortcodes, ["d04", "e05"]);
      assert.equal(skipped.pageInfo.hasPreviousPage, true);
      const all = await analyzersPage({});
      assert.deepEqual(all.shortcodes, expected, "without first or last, one default page");
    });
  });

  describe("an analyzer's issues", () => {
    test("Analyzer.issues pages forward and backward in shortcode order, counting only that analyzer's issues", async () => {
      const [python, go] = await analyzersIn(server.db, [{}, {}]);
      const shortcodes = [
        "PYL-W0611",
        "BAN-B101",
        "PTC-W0019",
        "FLK-E501",
        "PYL-C0103",
        "BAN-B602",
        "PYL-E1101",
      ];
      await issuesIn(server.db, [
        ...shortcodes.map((shortcode) => ({ analyzer: python!, shortcode })),
        { analyzer: go!, shortcode: "GO-W1000" },
        { analyzer: go!, shortcode: "AAA-0001" },
      ]);
      const expected = [...shortcodes].sort();
      const load = (args: PageArgs) => issuesPage(python!, args);
      for (const size of [1, 2, 3, 7, 100]) {
        assert.deepEqual(await pageForward(load, size), expected, `forward by ${size}`);
        assert.deepEqual(await pageBackward(load, size), expected, `backward by ${size}`);
      }
      const page = await load({ first: 2 });
      assert.equal(page.totalCount, 7);
      assert.deepEqual(page.shortcodes, ["BAN-B101", "BAN-B602"]);
      const tail = await load({ last: 2 });
      assert.deepEqual(tail.shortcodes, ["PYL-E1101", "PYL-W0611"]);
      assert.equal(tail.pageInfo.hasPreviousPage, true);
      assert.equal(tail.pageInfo.hasNextPage, false);
      assert.deepEqual((await issuesPage(go!, {})).shortcodes, ["AAA-0001", "GO-W1000"]);
    });

    test("an analyzer without issues answers an empty connection, zero issues and an empty distribution", async () => {
      const analyzer = await anAnalyzer(server.db);
      const res = await query(
        `query($s: String!) { analyzer(shortcode: $s) {
          numIssues issueDistribution { category title count }
          issues { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor } }
        } }`,
        { s: analyzer.shortcode },
      );
      assert.deepEqual(dataOf(res).analyzer, {
        numIssues: 0,
        issueDistribution: [],
        issues: {
          totalCount: 0,
          pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
          edges: [],
        },
      });
    });

    test("numIssues counts the analyzer's issues and issueDistribution splits them by category, titled", async () => {
      const [analyzer, other] = await analyzersIn(server.db, [{}, {}]);
      const categories: IssueCategory[] = [
        "STYLE",
        "BUG_RISK",
        "STYLE",
        "SECURITY",
        "BUG_RISK",
        "STYLE",
        "ANTI_PATTERN",
        "SECRETS",
      ];
      await issuesIn(server.db, [
        ...categories.map((category) => ({ analyzer: analyzer!, category })),
        { analyzer: other!, category: "PERFORMANCE" },
      ]);
      const res = await query<{
        a: { numIssues: number; issueDistribution: unknown };
        b: { numIssues: number; issueDistribution: unknown };
      }>(
        `query($a: String!, $b: String!) {
          a: analyzer(shortcode: $a) { numIssues issueDistribution { category title count } }
          b: analyzer(shortcode: $b) { numIssues issueDistribution { category title count } }
        }`,
        { a: analyzer!.shortcode, b: other!.shortcode },
      );
      assert.deepEqual(res.body.errors, undefined);
      assert.equal(res.body.data?.a.numIssues, 8);
      // Categories in the IssueCategory enum's order; categories without issues are left out.
      assert.deepEqual(res.body.data?.a.issueDistribution, [
        { category: "ANTI_PATTERN", title: "Anti-pattern", count: 1 },
        { category: "BUG_RISK", title: "Bug Risk", count: 2 },
        { category: "SECURITY", title: "Security", count: 1 },
        { category: "STYLE", title: "Style", count: 3 },
        { category: "SECRETS", title: "Secrets", count: 1 },
      ]);
      assert.deepEqual(res.body.data?.b, {
        numIssues: 1,
        issueDistribution: [{ category: "PERFORMANCE", title: ISSUE_CATEGORY_TITLES.PERFORMANCE, count: 1 }],
      });
    });

    test("Analyzer.issue(shortcode:) finds the analyzer's own issue, even when another analyzer uses the shortcode", async () => {
      const [first, second] = await analyzersIn(server.db, [{}, {}]);
      const mine = await anIssue(server.db, first!, { shortcode: "SHARED-001", title: "First's rule" });
      const theirs = await anIssue(server.db, second!, { shortcode: "SHARED-001", title: "Second's rule" });
      const res = await query(
        `query($a: String!, $b: String!) {
          a: analyzer(shortcode: $a) { issue(shortcode: "SHARED-001") { id title analyzer { shortcode } } }
          b: analyzer(shortcode: $b) { issue(shortcode: "SHARED-001") { id title analyzer { shortcode } } }
        }`,
        { a: first!.shortcode, b: second!.shortcode },
      );
      assert.deepEqual(dataOf(res), {
        a: {
          issue: {
            id: encodeGlobalId("Issue", mine.key),
            title: "First's rule",
            analyzer: { shortcode: first!.shortcode },
          },
        },
        b: {
          issue: {
            id: encodeGlobalId("Issue", theirs.key),
            title: "Second's rule",
            analyzer: { shortcode: second!.shortcode },
          },
        },
      });
    });

    test("Analyzer.issue(shortcode:) with a shortcode of another analyzer answers null and NOT_FOUND", async () => {
      const [first, second] = await analyzersIn(server.db, [{}, {}]);
      const foreign = await anIssue(server.db, second!);
      const res = await query(
        `query($a: String!, $i: String!) { analyzer(shortcode: $a) { shortcode issue(shortcode: $i) { id } } }`,
        { a: first!.shortcode, i: foreign.shortcode },
      );
      assert.deepEqual(res.body.data, { analyzer: { shortcode: first!.shortcode, issue: null } });
      assert.equal(res.body.errors?.[0]?.message, "Issue matching query does not exist");
      assert.equal(res.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
      assert.deepEqual(res.body.errors?.[0]?.path, ["analyzer", "issue"]);
    });
  });

  describe("code formatters and their old name, transformers", () => {
    test("codeFormatter(shortcode:) and transformer(shortcode:) answer the same row, each with its own id", async () => {
      const analyzer = await anAnalyzer(server.db);
      const formatter = await aCodeFormatter(server.db, {
        name: "Black",
        description: "The uncompromising Python formatter.",
        exampleConfig: '[[transformers]]\nname = "black"',
        logo: "https://assay.example/logos/black.svg",
        analyzer,
      });
      const fields = "__typename id shortcode name description exampleConfig logo analyzer { shortcode }";
      const res = await query(
        `query($s: String!) { codeFormatter(shortcode: $s) { ${fields} } transformer(shortcode: $s) { ${fields} } }`,
        { s: formatter.shortcode },
      );
      const common = {
        shortcode: formatter.shortcode,
        name: "Black",
        description: "The uncompromising Python formatter.",
        exampleConfig: '[[transformers]]\nname = "black"',
        logo: "https://assay.example/logos/black.svg",
        analyzer: { shortcode: analyzer.shortcode },
      };
      assert.deepEqual(dataOf(res), {
        codeFormatter: {
          __typename: "CodeFormatter",
          id: encodeGlobalId("CodeFormatter", formatter.key),
          ...common,
        },
        transformer: {
          __typename: "Transformer",
          id: encodeGlobalId("Transformer", formatter.key),
          ...common,
        },
      });
    });

    test("a formatter of no analyzer answers analyzer null without an error", async () => {
      const formatter = await aCodeFormatter(server.db, { analyzer: null });
      const res = await query(`query($s: String!) { codeFormatter(shortcode: $s) { analyzer { id } } }`, {
        s: formatter.shortcode,
      });
      assert.deepEqual(res.body, { data: { codeFormatter: { analyzer: null } } });
    });

    test("codeFormatter and transformer with an unknown shortcode answer null and the same NOT_FOUND", async () => {
      for (const field of ["codeFormatter", "transformer"]) {
        const res = await query(`{ ${field}(shortcode: "no-such-formatter") { id } }`);
        assert.deepEqual(res.body.data, { [field]: null });
        assert.equal(res.body.errors?.[0]?.message, "Code formatter matching query does not exist", field);
        assert.equal(res.body.errors?.[0]?.extensions?.code, "NOT_FOUND", field);
      }
    });

    test("codeFormatters and transformers list the same rows in name order, ties by key, both directions", async () => {
      await emptyCatalog(server.db);
      // Two formatters share a name; their keys order them.
      const names = ["Prettier", "Black", "gofmt", "Ruff", "Black", "isort", "Autopep8", "Rustfmt", "Yapf"];
      const rows = await codeFormattersIn(
        server.db,
        names.map((name) => ({ name })),
      );
      const expected = sortedBy(rows, (row) => row.name);
      assert.notDeepEqual(
        expected,
        rows.map((row) => row.shortcode).sort(),
        "name order is not shortcode order",
      );
      for (const field of ["codeFormatters", "transformers"] as const) {
        const load = (args: PageArgs) => formattersPage(field, args);
        for (const size of [1, 2, 4, 9, 100]) {
          assert.deepEqual(await pageForward(load, size), expected, `${field} forward by ${size}`);
          assert.deepEqual(await pageBackward(load, size), expected, `${field} backward by ${size}`);
        }
        const page = await load({ first: 3, offset: 1 });
        assert.equal(page.totalCount, 9);
        assert.deepEqual(page.shortcodes, expected.slice(1, 4));
      }
      // A cursor of one name pages the other: the aliases are one connection.
      const cursor = (await formattersPage("codeFormatters", { first: 4 })).pageInfo.endCursor;
      const rest = await formattersPage("transformers", { first: 100, after: cursor });
      assert.deepEqual(rest.shortcodes, expected.slice(4));
    });

    test("name_Icontains keeps names containing the text, ignoring case, and totalCount counts only those", async () => {
      await emptyCatalog(server.db);
      const rows = await codeFormattersIn(
        server.db,
        ["Prettier", "prettier-plugin-java", "PRETTY PRINT", "Black", "Clang Format", "ClangTidyFormat"].map(
          (name) => ({ name }),
        ),
      );
      const byName = new Map(rows.map((row) => [row.name, row]));
      const shortcodesOf = (...names: string[]) =>
        sortedBy(
          names.map((name) => byName.get(name)!),
          (row) => row.name,
        );
      for (const field of ["codeFormatters", "transformers"] as const) {
        const pretti = await formattersPage(field, { name: "PRETTI" });
        assert.deepEqual(pretti.shortcodes, shortcodesOf("Prettier", "prettier-plugin-java"), field);
        assert.equal(pretti.totalCount, 2);
        const format = await formattersPage(field, { name: "format" });
        assert.equal(format.totalCount, 2);
        assert.deepEqual(format.shortcodes, shortcodesOf("Clang Format", "ClangTidyFormat"));
        const pret = (args: PageArgs) => formattersPage(field, { ...args, name: "pret" });
        const expected = shortcodesOf("Prettier", "prettier-plugin-java", "PRETTY PRINT");
        assert.deepEqual(await pageForward(pret, 1), expected, `${field} filtered forward`);
        assert.deepEqual(await pageBackward(pret, 2), expected, `${field} filtered backward`);
        assert.equal((await pret({ first: 1 })).totalCount, 3, "totalCount ignores the page, not the filter");
        const none = await formattersPage(field, { name: "nothing like it" });
        assert.deepEqual([none.totalCount, none.shortcodes], [0, []]);
        const empty = await formattersPage(field, { name: "" });
        assert.equal(empty.totalCount, 6, "an empty text filters nothing");
      }
    });

    test("name_Icontains takes %, _ and backslash literally", async () => {
      await emptyCatalog(server.db);
      const rows = await codeFormattersIn(
        server.db,
        ["100% Format", "1000 Format", "snake_case", "snakeXcase", "back\\slash", "backslash", "plain"].map(
          (name) => ({ name }),
        ),
      );
      const shortcodeOf = new Map(rows.map((row) => [row.name, row.shortcode]));
      const cases: Array<[string, string[]]> = [
        ["%", ["100% Format"]],
        ["0%", ["100% Format"]],
        ["_", ["snake_case"]],
        ["E_C", ["snake_case"]],
        ["\\", ["back\\slash"]],
        ["k\\s", ["back\\slash"]],
        ["%_\\", []],
      ];
      for (const [text, names] of cases) {
        for (const field of ["codeFormatters", "transformers"] as const) {
          const page = await formattersPage(field, { name: text });
          assert.deepEqual(
            page.shortcodes.sort(),
            names.map((name) => shortcodeOf.get(name)!).sort(),
            `${field} name_Icontains ${JSON.stringify(text)}`,
          );
          assert.equal(page.totalCount, names.length, `${field} totalCount for ${JSON.stringify(text)}`);
        }
      }
    });
  });

  describe("node(id:)", () => {
    test("resolves analyzers, issues, code formatters and transformers for a user of no account", async () => {
      const analyzer = await anAnalyzer(server.db);
      const issue = await anIssue(server.db, analyzer);
      const formatter = await aCodeFormatter(server.db, { analyzer });
      const res = await query(
        `query($a: ID!, $i: ID!, $c: ID!, $t: ID!) {
          a: node(id: $a) { __typename id ... on Analyzer { shortcode } }
          i: node(id: $i) { __typename id ... on Issue { shortcode analyzer { shortcode } } }
          c: node(id: $c) { __typename id ... on CodeFormatter { shortcode } }
          t: node(id: $t) { __typename id ... on Transformer { shortcode } }
        }`,
        {
          a: encodeGlobalId("Analyzer", analyzer.key),
          i: encodeGlobalId("Issue", issue.key),
          c: encodeGlobalId("CodeFormatter", formatter.key),
          t: encodeGlobalId("Transformer", formatter.key),
        },
      );
      assert.deepEqual(dataOf(res), {
        a: {
          __typename: "Analyzer",
          id: encodeGlobalId("Analyzer", analyzer.key),
          shortcode: analyzer.shortcode,
        },
        i: {
          __typename: "Issue",
          id: encodeGlobalId("Issue", issue.key),
          shortcode: issue.shortcode,
          analyzer: { shortcode: analyzer.shortcode },
        },
        c: {
          __typename: "CodeFormatter",
          id: encodeGlobalId("CodeFormatter", formatter.key),
          shortcode: formatter.shortcode,
        },
        t: {
          __typename: "Transformer",
          id: encodeGlobalId("Transformer", formatter.key),
          shortcode: formatter.shortcode,
        },
      });
    });

    test("one formatter asked for under both names in one request answers each under the name asked", async () => {
      const formatter = await aCodeFormatter(server.db);
      const c = encodeGlobalId("CodeFormatter", formatter.key);
      const t = encodeGlobalId("Transformer", formatter.key);
      const res = await query(
        `query($c: ID!, $t: ID!) {
          a: node(id: $t) { __typename id } b: node(id: $c) { __typename id }
          c: node(id: $t) { __typename id } d: node(id: $c) { __typename id }
        }`,
        { c, t },
      );
      assert.deepEqual(dataOf(res), {
        a: { __typename: "Transformer", id: t },
        b: { __typename: "CodeFormatter", id: c },
        c: { __typename: "Transformer", id: t },
        d: { __typename: "CodeFormatter", id: c },
      });
    });

    test("an id naming a catalog row under the wrong type answers like a missing id", async () => {
      const analyzer = await anAnalyzer(server.db);
      const formatter: CodeFormatterRow = await aCodeFormatter(server.db);
      for (const id of [
        encodeGlobalId("Analyzer", formatter.key),
        encodeGlobalId("CodeFormatter", analyzer.key),
        encodeGlobalId("Issue", analyzer.key),
        encodeGlobalId("Transformer", "zzzzzzzzzz"),
      ]) {
        const res = await query(`query($id: ID!) { node(id: $id) { id } }`, { id });
        assert.deepEqual(res.body.data, { node: null }, id);
        assert.equal(res.body.errors?.[0]?.message, `No node with id "${id}" exists.`);
        assert.equal(res.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
      }
    });
  });

  test("the statements for analyzers with their counts, distributions and issues do not grow with the page size", async () => {
    await emptyCatalog(server.db);
    const analyzers = await analyzersIn(
      server.db,
      Array.from({ length: 120 }, (_, i) => ({ shortcode: `lang${String(i).padStart(3, "0")}` })),
    );
    const categories: IssueCategory[] = [
      "BUG_RISK",
      "STYLE",
      "SECURITY",
      "BUG_RISK",
      "PERFORMANCE",
      "STYLE",
      "STYLE",
    ];
    await issuesIn(
      server.db,
      analyzers.flatMap((analyzer) => categories.map((category) => ({ analyzer, category }))),
    );
    // A token used within the minute is not touched again, so no UPDATE lands in either request.
    await server.db
      .updateTable("personal_access_tokens")
      .set({ last_used_at: new Date() })
      .where("user_id", "=", viewer.id)
      .execute();
    const text = `query($n: Int) { analyzers(first: $n) { edges { node {
      numIssues issueDistribution { category count }
      issues(first: 5) { totalCount edges { node { shortcode } } }
    } } } }`;
    type Result = {
      analyzers: {
        edges: Array<{
          node: {
            numIssues: number;
            issueDistribution: Array<{ category: string; count: number }>;
            issues: { totalCount: number; edges: unknown[] };
          };
        }>;
      };
    };
    const measure = async (n: number) => {
      await settle(server.statements);
      const start = server.statements.length;
      const res = await query<Result>(text, { n });
      const statements = server.statements.slice(start);
      assert.deepEqual(res.body.errors, undefined);
      const nodes = res.body.data!.analyzers.edges.map((edge) => edge.node);
      assert.equal(nodes.length, n);
      for (const node of nodes) {
        assert.equal(node.numIssues, 7);
        assert.deepEqual(node.issueDistribution, [
          { category: "BUG_RISK", count: 2 },
          { category: "PERFORMANCE", count: 1 },
          { category: "SECURITY", count: 1 },
          { category: "STYLE", count: 3 },
        ]);
        assert.deepEqual([node.issues.totalCount, node.issues.edges.length], [7, 5]);
      }
      return statements;
    };
    await measure(1); // Warm-up: nothing a first request does once may count.
    const small = await measure(10);
    const large = await measure(100);
    assertPageSizeIndependent(small, large);
  });
});
