import assert from "node:assert/strict";
import { createHash, randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { Kysely } from "kysely";
import type { AccountRow, Database, RepositoryRow, UserRow } from "../src/db/types.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { assertPageSizeIndependent, startInstance, type TestInstance } from "./helpers/instance.ts";
import type { PageInfo } from "./helpers/paging.ts";
import { gql } from "./helpers/server.ts";

/** One page of a connection, with each node reduced to the field that names it. */
interface Page {
  totalCount: number;
  pageInfo: PageInfo;
  cursors: string[];
  names: string[];
}

/** Connection arguments as the tests pass them (sent as variables). */
interface PageArgs {
  first?: number;
  last?: number;
  after?: string | null;
  before?: string | null;
  offset?: number;
  branch?: string;
}

/** Microseconds since the epoch as a PostgreSQL timestamp literal keeping all six digits. */
function timestamp(micros: bigint): string {
  const iso = new Date(Number(micros / 1000n)).toISOString();
  return iso.replace(/Z$/, `${String(micros % 1000n).padStart(3, "0")}Z`);
}

const BASE_MICROS = BigInt(Date.UTC(2025, 0, 1)) * 1000n;

interface SeededRun {
  runUid: string;
  key: string;
  micros: bigint;
  branch: string;
}

/** Inserts runs of `repository` in one statement, at the given instants (microseconds). */
async function seedRuns(
  db: Kysely<Database>,
  repository: RepositoryRow,
  runs: Array<{ micros: bigint; branch?: string }>,
): Promise<SeededRun[]> {
  const seeded = runs.map((run) => ({
    runUid: randomUUID(),
    key: newRowKey(),
    micros: run.micros,
    branch: run.branch ?? "main",
  }));
  if (seeded.length === 0) return seeded;
  await db
    .insertInto("analysis_runs")
    .values(
      seeded.map((run) => ({
        key: run.key,
        run_uid: run.runUid,
        repository_id: repository.id,
        branch_name: run.branch,
        commit_oid: createHash("sha1").update(run.runUid).digest("hex"),
        status: "SUCCESS" as const,
        created_at: timestamp(run.micros),
        updated_at: timestamp(run.micros),
      })),
    )
    .execute();
  return seeded;
}

/** The order `analysisRuns` promises: newest first, ties broken by the row key (also descending). */
function newestFirst(runs: readonly SeededRun[]): string[] {
  return [...runs]
    .sort((a, b) => (a.micros !== b.micros ? (a.micros > b.micros ? -1 : 1) : a.key > b.key ? -1 : 1))
    .map((run) => run.runUid);
}

const PAGE_FIELDS = "totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }";
const PAGE_VARIABLES = "$first: Int, $last: Int, $after: String, $before: String, $offset: Int";
const PAGE_ARGUMENTS = "first: $first, last: $last, after: $after, before: $before, offset: $offset";

interface RawConnection {
  totalCount: number;
  pageInfo: PageInfo;
  edges: Array<{ cursor: string; node: Record<string, string> }>;
}

function toPage(connection: RawConnection, nameField: string): Page {
  return {
    totalCount: connection.totalCount,
    pageInfo: connection.pageInfo,
    cursors: connection.edges.map((edge) => edge.cursor),
    names: connection.edges.map((edge) => String(edge.node[nameField])),
  };
}

/** Drops the variables a test leaves out, so the arguments are absent rather than null. */
function variablesOf(args: PageArgs): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
}

describe("keyset pagination over HTTP", () => {
  let server: TestInstance;
  let viewer: UserRow;
  let team: AccountRow;
  let token: string;
  let counter = 0;

  before(async () => {
    server = await startInstance();
    viewer = await aUser(server.db);
    team = await anAccount(server.db, {}, [{ user: viewer, role: "ADMIN" }]);
    token = await aToken(server.db, server.config.tokenPepper, viewer);
  });
  after(() => server.stop());

  /** A repository of the viewer's team with runs at the given instants. */
  async function repositoryWithRuns(
    runs: Array<{ micros: bigint; branch?: string }>,
  ): Promise<{ repository: RepositoryRow; order: string[]; seeded: SeededRun[] }> {
    const repository = await aRepository(server.db, team, { name: `runs-${++counter}` });
    const seeded = await seedRuns(server.db, repository, runs);
    return { repository, order: newestFirst(seeded), seeded };
  }

  /** A page of `repository.analysisRuns`, failing the test on any error. */
  async function runsPage(repository: RepositoryRow, args: PageArgs): Promise<Page> {
    const res = await gql<{ repository: { analysisRuns: RawConnection } }>(
      server.endpoint,
      token,
      `query($name: String!, $login: String!, $branch: String, ${PAGE_VARIABLES}) {
        repository(name: $name, login: $login, vcsProvider: GITHUB) {
          analysisRuns(${PAGE_ARGUMENTS}, branch: $branch) { ${PAGE_FIELDS} edges { cursor node { runUid } } }
        }
      }`,
      { name: repository.name, login: team.login, ...variablesOf(args) },
    );
    assert.deepEqual(res.body.errors, undefined, JSON.stringify(args));
    const connection = res.body.data?.repository.analysisRuns;
    assert.ok(connection);
    return toPage(connection, "runUid");
  }

  /** A page of `account.repositories`, failing the test on any error. */
  async function repositoriesPage(account: AccountRow, args: PageArgs): Promise<Page> {
    const res = await gql<{ account: { repositories: RawConnection } }>(
      server.endpoint,
      token,
      `query($login: String!, ${PAGE_VARIABLES}) {
        account(login: $login, vcsProvider: GITHUB) {
          repositories(${PAGE_ARGUMENTS}) { ${PAGE_FIELDS} edges { cursor node { name } } }
        }
      }`,
      { login: account.login, ...variablesOf(args) },
    );
    assert.deepEqual(res.body.errors, undefined, JSON.stringify(args));
    const connection = res.body.data?.account.repositories;
    assert.ok(connection);
    return toPage(connection, "name");
  }

  /** Pages forward with `first` until the end, checking each page's pageInfo; returns all names. */
  async function pageForward(load: (args: PageArgs) => Promise<Page>, size: number): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | null = null;
    for (let pageNumber = 0; ; pageNumber++) {
      const page = await load({ first: size, after: cursor });
      assert.ok(page.names.length > 0 && page.names.length <= size, `page ${pageNumber} size`);
      assert.equal(page.pageInfo.startCursor, page.cursors[0]);
      assert.equal(page.pageInfo.endCursor, page.cursors.at(-1));
      assert.equal(page.pageInfo.hasPreviousPage, pageNumber > 0, `page ${pageNumber} hasPreviousPage`);
      names.push(...page.names);
      if (!page.pageInfo.hasNextPage) break;
      assert.equal(page.names.length, size, "only the last page may be short");
      cursor = page.pageInfo.endCursor;
    }
    return names;
  }

  /** Pages backward with `last` until the start, checking each page's pageInfo; returns all names. */
  async function pageBackward(load: (args: PageArgs) => Promise<Page>, size: number): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | null = null;
    for (let pageNumber = 0; ; pageNumber++) {
      const page = await load({ last: size, before: cursor });
      assert.ok(page.names.length > 0 && page.names.length <= size, `page ${pageNumber} size`);
      assert.equal(page.pageInfo.startCursor, page.cursors[0]);
      assert.equal(page.pageInfo.endCursor, page.cursors.at(-1));
      assert.equal(page.pageInfo.hasNextPage, pageNumber > 0, `page ${pageNumber} hasNextPage`);
      names.unshift(...page.names);
      if (!page.pageInfo.hasPreviousPage) break;
      assert.equal(page.names.length, size, "only the first page may be short");
      cursor = page.pageInfo.startCursor;
    }
    return names;
  }

  /** 23 runs a minute apart, every third on `dev`. */
  function minuteApart(count = 23): Array<{ micros: bigint; branch: string }> {
    return Array.from({ length: count }, (_, i) => ({
      micros: BASE_MICROS + BigInt(i) * 60_000_000n,
      branch: i % 3 === 0 ? "dev" : "main",
    }));
  }

  test("paging analysisRuns forward with first and after visits every run once, newest first", async () => {
    const { repository, order } = await repositoryWithRuns(minuteApart());
    assert.deepEqual(await pageForward((args) => runsPage(repository, args), 4), order);
  });

  test("paging analysisRuns backward with last and before visits every run once, in the same order", async () => {
    const { repository, order } = await repositoryWithRuns(minuteApart());
    assert.deepEqual(await pageBackward((args) => runsPage(repository, args), 4), order);
  });

  test("paging Account.repositories in either direction lists them by name", async () => {
    const shelf = await anAccount(server.db, {}, [{ user: viewer, role: "MEMBER" }]);
    const names = Array.from({ length: 11 }, (_, i) => `r${String(i).padStart(2, "0")}`);
    for (const name of [...names].sort(() => Math.random() - 0.5)) {
      await aRepository(server.db, shelf, { name });
    }
    assert.deepEqual(await pageForward((args) => repositoriesPage(shelf, args), 3), names);
    assert.deepEqual(await pageBackward((args) => repositoriesPage(shelf, args), 3), names);
    const all = await repositoriesPage(shelf, {});
    assert.equal(all.totalCount, 11);
    assert.deepEqual(all.names, names);
  });

  test("runs created within the same millisecond page in key order without gaps or repeats", async () => {
    const instant = BASE_MICROS + 5_000_000n;
    const { repository, order } = await repositoryWithRuns([
      // Four runs at exactly the same instant: only the key orders them.
      ...Array.from({ length: 4 }, () => ({ micros: instant })),
      // Four more inside the same millisecond, a few microseconds apart.
      ...[1n, 2n, 3n, 999n].map((us) => ({ micros: instant + us })),
      { micros: instant - 1_000n },
      { micros: instant + 1_000n },
    ]);
    assert.deepEqual(await pageForward((args) => runsPage(repository, args), 1), order);
    assert.deepEqual(await pageBackward((args) => runsPage(repository, args), 1), order);
    assert.deepEqual(await pageForward((args) => runsPage(repository, args), 3), order);
  });

  test("pageInfo is right on empty pages at either end and on an empty connection", async () => {
    const { repository, order } = await repositoryWithRuns(minuteApart(5));
    const whole = await runsPage(repository, {});
    assert.deepEqual(whole.names, order);
    const lastCursor = whole.cursors.at(-1);
    const firstCursor = whole.cursors[0];

    const pastTheEnd = await runsPage(repository, { first: 2, after: lastCursor });
    assert.deepEqual(pastTheEnd.names, []);
    assert.deepEqual(pastTheEnd.pageInfo, {
      hasNextPage: false,
      hasPreviousPage: true,
      startCursor: null,
      endCursor: null,
    });
    assert.equal(pastTheEnd.totalCount, 5);

    const beforeTheStart = await runsPage(repository, { last: 2, before: firstCursor });
    assert.deepEqual(beforeTheStart.names, []);
    assert.deepEqual(beforeTheStart.pageInfo, {
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: null,
      endCursor: null,
    });

    const none = await runsPage(repository, { first: 0 });
    assert.deepEqual(none.names, []);
    assert.equal(none.pageInfo.hasNextPage, true);
    assert.equal(none.pageInfo.hasPreviousPage, false);

    const { repository: bare } = await repositoryWithRuns([]);
    assert.deepEqual(await runsPage(bare, { first: 10 }), {
      totalCount: 0,
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
      cursors: [],
      names: [],
    });
    assert.deepEqual((await runsPage(bare, { last: 10 })).pageInfo, {
      hasNextPage: false,
      hasPreviousPage: false,
      startCursor: null,
      endCursor: null,
    });
  });

  test("offset alone skips that many runs from the start", async () => {
    const { repository, order } = await repositoryWithRuns(minuteApart());
    const page = await runsPage(repository, { first: 3, offset: 5 });
    assert.deepEqual(page.names, order.slice(5, 8));
    assert.equal(page.pageInfo.hasPreviousPage, true);
    assert.equal(page.pageInfo.hasNextPage, true);
    const tail = await runsPage(repository, { offset: 20 });
    assert.deepEqual(tail.names, order.slice(20));
    assert.equal(tail.pageInfo.hasNextPage, false);
    assert.equal(tail.totalCount, 23, "offset does not change totalCount");
  });

  test("offset with after skips that many runs after the cursor", async () => {
    const { repository, order } = await repositoryWithRuns(minuteApart());
    const head = await runsPage(repository, { first: 3 });
    const page = await runsPage(repository, { first: 3, after: head.pageInfo.endCursor, offset: 4 });
    assert.deepEqual(page.names, order.slice(7, 10));
  });

  test("offset with last skips from the front of the window, then takes the last runs", async () => {
    const { repository, order } = await repositoryWithRuns(minuteApart());
    const end = await runsPage(repository, { last: 5, offset: 20 });
    assert.deepEqual(end.names, order.slice(20));
    assert.equal(end.pageInfo.hasNextPage, false);
    const middle = await runsPage(repository, { last: 5, offset: 3 });
    assert.deepEqual(middle.names, order.slice(18));
    const head = await runsPage(repository, { first: 10 });
    const window = await runsPage(repository, { last: 5, offset: 8, before: head.pageInfo.endCursor });
    assert.deepEqual(
      window.names,
      order.slice(8, 9),
      "only the ninth of the nine runs before the cursor is left",
    );
    assert.equal(window.pageInfo.hasNextPage, true);
  });

  test("first and last together take the first rows, then the last of those (Relay)", async () => {
    const { repository, order } = await repositoryWithRuns(minuteApart());
    const trimmed = await runsPage(repository, { first: 10, last: 3 });
    assert.deepEqual(trimmed.names, order.slice(7, 10));
    assert.equal(trimmed.pageInfo.hasPreviousPage, true);
    assert.equal(trimmed.pageInfo.hasNextPage, true);
    const untrimmed = await runsPage(repository, { first: 3, last: 10 });
    assert.deepEqual(untrimmed.names, order.slice(0, 3));
    assert.equal(untrimmed.pageInfo.hasPreviousPage, false);
    const head = await runsPage(repository, { first: 5 });
    const afterCursor = await runsPage(repository, { after: head.pageInfo.endCursor, first: 6, last: 2 });
    assert.deepEqual(afterCursor.names, order.slice(9, 11));
  });

  test("totalCount counts every run the branch filter keeps, whatever the page", async () => {
    const { repository, seeded } = await repositoryWithRuns(minuteApart());
    const dev = newestFirst(seeded.filter((run) => run.branch === "dev"));
    assert.equal(dev.length, 8);
    assert.equal((await runsPage(repository, { first: 2 })).totalCount, 23);
    const firstDev = await runsPage(repository, { first: 2, branch: "dev" });
    assert.equal(firstDev.totalCount, 8);
    assert.deepEqual(firstDev.names, dev.slice(0, 2));
    assert.deepEqual(await pageForward((args) => runsPage(repository, { ...args, branch: "dev" }), 3), dev);
    assert.deepEqual(await pageBackward((args) => runsPage(repository, { ...args, branch: "dev" }), 3), dev);
    assert.equal((await runsPage(repository, { branch: "nowhere" })).totalCount, 0);
  });

  test("a cursor keeps its place when newer runs are inserted before it", async () => {
    const { repository, order } = await repositoryWithRuns(minuteApart(12));
    const first = await runsPage(repository, { first: 5 });
    assert.deepEqual(first.names, order.slice(0, 5));
    const [newer] = await seedRuns(server.db, repository, [{ micros: BASE_MICROS + 3_600_000_000_000n }]);
    const second = await runsPage(repository, { first: 5, after: first.pageInfo.endCursor });
    assert.deepEqual(second.names, order.slice(5, 10));
    // Going back from the second page now also reaches the newer run, in front.
    const back = await runsPage(repository, { last: 10, before: second.pageInfo.startCursor });
    assert.deepEqual(back.names, [newer?.runUid, ...order.slice(0, 5)]);
    assert.equal(back.totalCount, 13);
  });

  test("a repositories cursor keeps its place when a repository sorting first is added", async () => {
    const shelf = await anAccount(server.db, {}, [{ user: viewer, role: "MEMBER" }]);
    for (const name of ["m1", "m2", "m3", "m4", "m5", "m6"]) await aRepository(server.db, shelf, { name });
    const first = await repositoriesPage(shelf, { first: 3 });
    await aRepository(server.db, shelf, { name: "a0" });
    const second = await repositoriesPage(shelf, { first: 3, after: first.pageInfo.endCursor });
    assert.deepEqual([...first.names, ...second.names], ["m1", "m2", "m3", "m4", "m5", "m6"]);
    assert.equal(second.pageInfo.hasNextPage, false);
  });

  test("an invalid cursor is a BAD_USER_INPUT error naming the argument", async () => {
    const { repository } = await repositoryWithRuns(minuteApart(3));
    const shelf = await anAccount(server.db, {}, [{ user: viewer, role: "MEMBER" }]);
    await aRepository(server.db, shelf, { name: "only" });
    const repositoryCursor = (await repositoriesPage(shelf, {})).cursors[0];
    const cases: Array<[string, "after" | "before"]> = [
      ["not-a-cursor", "after"],
      ["not-a-cursor", "before"],
      [Buffer.from("cursor:[1]").toString("base64url"), "after"],
      // A cursor of another connection: its values do not fit the runs' order columns.
      [repositoryCursor ?? "", "after"],
      [repositoryCursor ?? "", "before"],
      // Shaped like a timestamp but not a real instant.
      [Buffer.from('cursor:["2026-02-30T10:00:00.123456+00:00","abc"]').toString("base64url"), "after"],
      [Buffer.from('cursor:["2026-11-21 25:00:00+00","abc"]').toString("base64url"), "before"],
    ];
    for (const [cursor, argument] of cases) {
      const res = await gql(
        server.endpoint,
        token,
        `query($name: String!, $login: String!, $cursor: String) {
          repository(name: $name, login: $login, vcsProvider: GITHUB) { analysisRuns(${argument}: $cursor) { totalCount } }
        }`,
        { name: repository.name, login: team.login, cursor },
      );
      const error = res.body.errors?.[0];
      assert.equal(error?.extensions?.code, "BAD_USER_INPUT", `${argument}: ${cursor}`);
      assert.equal(error?.extensions?.field, argument);
      assert.match(error?.message ?? "", new RegExp(`"${argument}"`));
      assert.deepEqual(error?.path, ["repository", "analysisRuns"]);
    }
  });

  test("cursors over long text values page on; an oversized cursor is refused", async () => {
    const shelf = await anAccount(server.db, {}, [{ user: viewer, role: "MEMBER" }]);
    // Names as long as the file paths tools report deep in a monorepo: the cursor carries them.
    const names = ["a", "b", "c"].map((letter) => `${letter}${"/nested-directory".repeat(60)}`);
    for (const name of names) await aRepository(server.db, shelf, { name });
    const first = await repositoriesPage(shelf, { first: 1 });
    assert.ok((first.pageInfo.endCursor ?? "").length > 1024, "the cursor is longer than a short-text bound");
    const second = await repositoriesPage(shelf, { first: 2, after: first.pageInfo.endCursor });
    assert.deepEqual([...first.names, ...second.names], names);

    const oversized = Buffer.from(`cursor:${JSON.stringify(["x".repeat(70_000), "k"])}`).toString(
      "base64url",
    );
    const res = await gql(
      server.endpoint,
      token,
      `query($login: String!, $cursor: String) { account(login: $login, vcsProvider: GITHUB) { repositories(after: $cursor) { totalCount } } }`,
      { login: shelf.login, cursor: oversized },
    );
    assert.equal(res.body.errors?.[0]?.extensions?.code, "BAD_USER_INPUT");
    assert.equal(res.body.errors?.[0]?.extensions?.field, "after");
  });

  test("a negative first or last is a BAD_USER_INPUT error naming the argument, before execution", async () => {
    const { repository } = await repositoryWithRuns(minuteApart(3));
    for (const argument of ["first", "last"]) {
      for (const [query, variables] of [
        [`{ viewer { accounts(${argument}: -1) { totalCount } } }`, {}],
        [`query($n: Int) { viewer { accounts(${argument}: $n) { totalCount } } }`, { n: -1 }],
        [
          `query($name: String!, $login: String!) { repository(name: $name, login: $login, vcsProvider: GITHUB) { analysisRuns(${argument}: -2) { totalCount } } }`,
          { name: repository.name, login: team.login },
        ],
      ] as const) {
        const res = await gql(server.endpoint, token, query, variables);
        assert.equal(res.body.errors?.length, 1, query);
        assert.equal(res.body.errors?.[0]?.extensions?.code, "BAD_USER_INPUT", query);
        assert.equal(res.body.errors?.[0]?.extensions?.field, argument, query);
        assert.ok(!("data" in res.body), `${query}: nothing executed`);
      }
    }
  });

  test("the number of SQL statements for nested connections does not grow with the page size", async () => {
    const reader = await aUser(server.db);
    for (let a = 0; a < 3; a++) {
      const account = await anAccount(server.db, {}, [{ user: reader, role: "MEMBER" }]);
      for (let r = 0; r < 12; r++) {
        const repository = await aRepository(server.db, account);
        await seedRuns(
          server.db,
          repository,
          Array.from({ length: 12 }, (_, i) => ({ micros: BASE_MICROS + BigInt(i) * 1_000_000n })),
        );
      }
    }
    const readerToken = await aToken(server.db, server.config.tokenPepper, reader);
    // A token used within the minute is not touched again, so no UPDATE lands in either request.
    await server.db
      .updateTable("personal_access_tokens")
      .set({ last_used_at: new Date() })
      .where("user_id", "=", reader.id)
      .execute();
    const query = `query($n: Int) { viewer { accounts(first: 5) { edges { node {
      repositories(first: $n) { totalCount edges { node {
        analysisRuns(first: $n) { totalCount edges { node { id } } }
      } } }
    } } } } }`;
    type Result = {
      viewer: {
        accounts: {
          edges: Array<{
            node: {
              repositories: { edges: Array<{ node: { analysisRuns: { edges: unknown[] } } }> };
            };
          }>;
        };
      };
    };
    const measure = async (n: number) => {
      const start = server.statements.length;
      const res = await gql<Result>(server.endpoint, readerToken, query, { n });
      const statements = server.statements.slice(start);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.errors, undefined);
      const repositories =
        res.body.data?.viewer.accounts.edges.flatMap((a) => a.node.repositories.edges) ?? [];
      const runs = repositories.reduce((sum, r) => sum + r.node.analysisRuns.edges.length, 0);
      return { statements, repositories: repositories.length, runs };
    };
    await measure(1); // Warm-up: nothing a first request does once may count.
    const small = await measure(10);
    const large = await measure(100);
    assert.deepEqual([small.repositories, small.runs], [30, 300]);
    assert.deepEqual([large.repositories, large.runs], [36, 432]);
    assertPageSizeIndependent(small.statements, large.statements);
  });
});
