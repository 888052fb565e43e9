import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type {
  AccountRow,
  MetricValueRow,
  RepositoryMetricItemRow,
  RepositoryRow,
  UserRow,
} from "../src/db/types.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aRun, aToken, aUser } from "./helpers/builders.ts";
import { anAnalyzer } from "./helpers/builders-catalog.ts";
import { aCheck } from "./helpers/builders-checks.ts";
import {
  aCommitOid,
  aMetricItem,
  aMetricSetting,
  aMetricValue,
  metricValuesOf,
} from "./helpers/builders-metrics.ts";
import { assertPageSizeIndependent, settle, startInstance, type TestInstance } from "./helpers/instance.ts";
import { dataOf, gql } from "./helpers/server.ts";

const SHORTCODE_ORDER = ["BCV", "CCV", "DCV", "DDP", "LCV", "CPCV", "NLCV", "NBCV", "NCCV", "NCPCV"];

interface ItemOut {
  id: string;
  key: string;
  threshold: number | null;
  latestValue: number | null;
  latestValueDisplay: string | null;
  thresholdStatus: string | null;
}

interface MetricOut {
  shortcode: string;
  name: string;
  description: string;
  positiveDirection: string;
  unit: string | null;
  minValueAllowed: number | null;
  maxValueAllowed: number | null;
  isReported: boolean;
  isThresholdEnforced: boolean;
  items: ItemOut[];
}

interface ValueOut {
  id: string;
  value: number;
  valueDisplay: string;
  threshold: number | null;
  thresholdStatus: string | null;
  commitOid: string;
  createdAt: string;
}

interface ValuePage {
  totalCount: number;
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
  edges: Array<{ cursor: string; node: ValueOut }>;
}

const ITEM_FIELDS = "id key threshold latestValue latestValueDisplay thresholdStatus";
const METRIC_FIELDS = `shortcode name description positiveDirection unit minValueAllowed maxValueAllowed
  isReported isThresholdEnforced items { ${ITEM_FIELDS} }`;
const VALUE_FIELDS = "id value valueDisplay threshold thresholdStatus commitOid createdAt";

/** A minute after 2025-01-01 times `n`, so tests can order values. */
function minute(n: number): Date {
  return new Date(Date.UTC(2025, 0, 1) + n * 60_000);
}

describe("metrics over HTTP", () => {
  let server: TestInstance;
  let alice: UserRow;
  let team: AccountRow;
  let repo: RepositoryRow;
  let hiddenRepo: RepositoryRow;
  let aliceToken: string;
  let items: Record<string, RepositoryMetricItemRow>;
  let hiddenItem: RepositoryMetricItemRow;
  let hiddenValue: MetricValueRow;

  before(async () => {
    server = await startInstance();
    const { db } = server;
    alice = await aUser(db);
    const carol = await aUser(db);
    team = await anAccount(db, {}, [{ user: alice, role: "MEMBER" }]);
    const hidden = await anAccount(db, {}, [{ user: carol, role: "ADMIN" }]);
    repo = await aRepository(db, team, { name: "measured" });
    hiddenRepo = await aRepository(db, hidden, { name: "secret" });
    aliceToken = await aToken(db, server.config.tokenPepper, alice);

    // Inserted out of order on purpose: the API sorts items, AGGREGATE first.
    items = {
      lcvPython: await aMetricItem(db, repo, "LCV", { key: "PYTHON", threshold: 90 }),
      lcvGo: await aMetricItem(db, repo, "LCV", { key: "GO" }),
      lcvAggregate: await aMetricItem(db, repo, "LCV", { threshold: 80 }),
      lcvJavascript: await aMetricItem(db, repo, "LCV", { key: "JAVASCRIPT", threshold: 50 }),
      bcvAggregate: await aMetricItem(db, repo, "BCV", { threshold: 70 }),
      ddpPython: await aMetricItem(db, repo, "DDP", { key: "PYTHON", threshold: 50 }),
      ddpAggregate: await aMetricItem(db, repo, "DDP", { threshold: 50 }),
      ddpJava: await aMetricItem(db, repo, "DDP", { key: "JAVA", threshold: 40 }),
    };
    await metricValuesOf(db, items.lcvAggregate!, [
      { value: 70, threshold: 60, createdAt: minute(1) },
      { value: 83.44, threshold: 80, createdAt: minute(2) },
    ]);
    await aMetricValue(db, items.lcvPython!, { value: 85, createdAt: minute(2) });
    await aMetricValue(db, items.lcvGo!, { value: 40, createdAt: minute(2) });
    await aMetricValue(db, items.bcvAggregate!, { value: 70, createdAt: minute(2) });
    await aMetricValue(db, items.ddpAggregate!, { value: 32, createdAt: minute(2) });
    await aMetricValue(db, items.ddpPython!, { value: 75, createdAt: minute(2) });
    await aMetricValue(db, items.ddpJava!, { value: 40, createdAt: minute(2) });

    hiddenItem = await aMetricItem(db, hiddenRepo, "LCV", { threshold: 10 });
    hiddenValue = await aMetricValue(db, hiddenItem, { value: 99 });
  });
  after(() => server.stop());

  async function metricsOf(repository: RepositoryRow, args = "", login = team.login): Promise<MetricOut[]> {
    const res = await gql<{ repository: { metrics: MetricOut[] } }>(
      server.endpoint,
      aliceToken,
      `query($name: String!, $login: String!) {
        repository(name: $name, login: $login, vcsProvider: GITHUB) { metrics${args} { ${METRIC_FIELDS} } }
      }`,
      { name: repository.name, login },
    );
    assert.deepEqual(res.body.errors, undefined);
    return res.body.data!.repository.metrics;
  }

  function metric(metrics: MetricOut[], shortcode: string): MetricOut {
    const found = metrics.find((m) => m.shortcode === shortcode);
    assert.ok(found, `metric ${shortcode}`);
    return found;
  }

  test("Repository.metrics lists every definition in shortcode order, with or without values", async () => {
    const bare = await aRepository(server.db, team);
    const metrics = await metricsOf(bare);
    assert.deepEqual(
      metrics.map((m) => m.shortcode),
      SHORTCODE_ORDER,
    );
    for (const m of metrics) assert.deepEqual(m.items, [], m.shortcode);
    assert.deepEqual(
      { ...metric(metrics, "LCV"), items: undefined },
      {
        shortcode: "LCV",
        name: "Line Coverage",
        description: "Percentage of executable lines run by the tests.",
        positiveDirection: "UPWARD",
        unit: "%",
        minValueAllowed: 0,
        maxValueAllowed: 100,
        isReported: true,
        isThresholdEnforced: false,
        items: undefined,
      },
    );
    assert.equal(metric(metrics, "DDP").positiveDirection, "DOWNWARD");
  });

  test("shortcodeIn keeps the listed metrics in shortcode order; null and an empty list keep all", async () => {
    const some = await metricsOf(repo, "(shortcodeIn: [LCV, DDP, BCV])");
    assert.deepEqual(
      some.map((m) => m.shortcode),
      ["BCV", "DDP", "LCV"],
    );
    const withNull = await metricsOf(repo, "(shortcodeIn: [null, NCPCV])");
    assert.deepEqual(
      withNull.map((m) => m.shortcode),
      ["NCPCV"],
    );
    for (const args of ["(shortcodeIn: [])", "(shortcodeIn: null)", "(shortcodeIn: [null])"]) {
      assert.deepEqual(
        (await metricsOf(repo, args)).map((m) => m.shortcode),
        SHORTCODE_ORDER,
        args,
      );
    }
  });

  test("a metric's items are that metric's only, AGGREGATE first, then languages by key", async () => {
    const metrics = await metricsOf(repo);
    assert.deepEqual(
      metric(metrics, "LCV").items.map((i) => i.key),
      ["AGGREGATE", "GO", "JAVASCRIPT", "PYTHON"],
    );
    assert.deepEqual(
      metric(metrics, "DDP").items.map((i) => i.key),
      ["AGGREGATE", "JAVA", "PYTHON"],
    );
    assert.deepEqual(
      metric(metrics, "LCV").items.map((i) => i.id),
      [items.lcvAggregate!, items.lcvGo!, items.lcvJavascript!, items.lcvPython!].map((i) =>
        encodeGlobalId("RepositoryMetricItem", i.key),
      ),
    );
  });

  test("an item reads its newest value against its current threshold, with the unit", async () => {
    const lcv = metric(await metricsOf(repo), "LCV");
    const byKey = Object.fromEntries(lcv.items.map((i) => [i.key, i]));
    assert.deepEqual(
      { ...byKey.AGGREGATE, id: undefined },
      {
        id: undefined,
        key: "AGGREGATE",
        threshold: 80,
        latestValue: 83.44,
        latestValueDisplay: "83.44%",
        thresholdStatus: "PASSING",
      },
    );
    assert.equal(byKey.PYTHON?.thresholdStatus, "FAILING", "85 is below 90 on an upward metric");
    assert.equal(byKey.PYTHON?.latestValueDisplay, "85.0%");
    assert.deepEqual(
      [byKey.GO?.threshold, byKey.GO?.latestValue, byKey.GO?.thresholdStatus],
      [null, 40, null],
      "no threshold, no status",
    );
    assert.deepEqual(
      [byKey.JAVASCRIPT?.threshold, byKey.JAVASCRIPT?.latestValue, byKey.JAVASCRIPT?.latestValueDisplay],
      [50, null, null],
    );
    assert.equal(byKey.JAVASCRIPT?.thresholdStatus, null, "no value, no status");
  });

  test("thresholdStatus follows the metric's direction, a value equal to the threshold passing", async () => {
    const metrics = await metricsOf(repo);
    assert.equal(metric(metrics, "BCV").items[0]?.thresholdStatus, "PASSING", "upward, 70 at 70");
    const ddp = Object.fromEntries(metric(metrics, "DDP").items.map((i) => [i.key, i]));
    assert.equal(ddp.AGGREGATE?.thresholdStatus, "PASSING", "downward, 32 under 50");
    assert.equal(ddp.AGGREGATE?.latestValueDisplay, "32", "a count of packages has no unit");
    assert.equal(ddp.PYTHON?.thresholdStatus, "FAILING", "downward, 75 over 50");
    assert.equal(ddp.JAVA?.thresholdStatus, "PASSING", "downward, 40 at 40");
  });

  test("isReported and isThresholdEnforced come from stored settings, defaults elsewhere", async () => {
    const configured = await aRepository(server.db, team);
    await aMetricSetting(server.db, configured, "LCV", { isReported: true, isThresholdEnforced: true });
    await aMetricSetting(server.db, configured, "DCV", { isReported: false, isThresholdEnforced: false });
    const metrics = await metricsOf(configured);
    const flags = (shortcode: string) => {
      const m = metric(metrics, shortcode);
      return [m.isReported, m.isThresholdEnforced];
    };
    assert.deepEqual(flags("LCV"), [true, true]);
    assert.deepEqual(flags("DCV"), [false, false]);
    assert.deepEqual(flags("BCV"), [true, false]);
    // Another repository's settings never leak into this one.
    assert.deepEqual(metric(await metricsOf(repo), "LCV").isThresholdEnforced, false);
  });

  test("Repository.metricSettings lists every metric in shortcode order, stored values over defaults", async () => {
    const configured = await aRepository(server.db, team);
    await aMetricSetting(server.db, configured, "DDP", { isReported: false, isThresholdEnforced: false });
    await aMetricSetting(server.db, configured, "NLCV", { isReported: true, isThresholdEnforced: true });
    const res = await gql<{
      repository: {
        metricSettings: Array<{ metricShortcode: string; isReported: boolean; isThresholdEnforced: boolean }>;
      };
    }>(
      server.endpoint,
      aliceToken,
      `query($name: String!, $login: String!) {
        repository(name: $name, login: $login, vcsProvider: GITHUB) {
          metricSettings { metricShortcode isReported isThresholdEnforced }
        }
      }`,
      { name: configured.name, login: team.login },
    );
    const settings = res.body.data!.repository.metricSettings;
    assert.deepEqual(
      settings.map((s) => s.metricShortcode),
      SHORTCODE_ORDER,
    );
    for (const s of settings) {
      const expected =
        s.metricShortcode === "DDP"
          ? [false, false]
          : s.metricShortcode === "NLCV"
            ? [true, true]
            : [true, false];
      assert.deepEqual([s.isReported, s.isThresholdEnforced], expected, s.metricShortcode);
    }
  });

  describe("RepositoryMetricItem.values", () => {
    let item: RepositoryMetricItemRow;
    let seeded: MetricValueRow[];
    /** Keys of `seeded`, newest first (ties on time broken by key, descending). */
    let order: string[];

    before(async () => {
      item = await aMetricItem(server.db, repo, "CPCV", { key: "RUST", threshold: 75 });
      seeded = await metricValuesOf(server.db, item, [
        { value: 60, threshold: null, createdAt: minute(10) },
        { value: 74.96, threshold: 75, createdAt: minute(11) },
        { value: 75, threshold: 75, createdAt: minute(12) },
        { value: 80, threshold: 90, createdAt: minute(12) },
        { value: 81, threshold: 75, createdAt: minute(13) },
        { value: 82, threshold: 75, createdAt: minute(14) },
        { value: 90.05, threshold: 75, createdAt: minute(15) },
      ]);
      order = [...seeded]
        .sort((a, b) => {
          const at = a.created_at.getTime();
          const bt = b.created_at.getTime();
          return at !== bt ? bt - at : a.key > b.key ? -1 : 1;
        })
        .map((v) => v.key);
    });

    async function valuesPage(args: Record<string, unknown>, itemId = item.key): Promise<ValuePage> {
      const res = await gql<{ node: { values: ValuePage } }>(
        server.endpoint,
        aliceToken,
        `query($id: ID!, $first: Int, $last: Int, $after: String, $before: String, $commits: [String]) {
          node(id: $id) { ... on RepositoryMetricItem {
            values(first: $first, last: $last, after: $after, before: $before, commitOidIn: $commits) {
              totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
              edges { cursor node { ${VALUE_FIELDS} } }
            }
          } }
        }`,
        { id: encodeGlobalId("RepositoryMetricItem", itemId), ...args },
      );
      assert.deepEqual(res.body.errors, undefined, JSON.stringify(args));
      return res.body.data!.node.values;
    }

    const keysOf = (page: ValuePage) =>
      page.edges.map((e) => Buffer.from(e.node.id, "base64").toString().split(":")[1] ?? "");

    test("values list newest first with each value's own threshold and status", async () => {
      const page = await valuesPage({});
      assert.equal(page.totalCount, 7);
      assert.deepEqual(keysOf(page), order);
      const byValue = Object.fromEntries(page.edges.map((e) => [e.node.value, e.node]));
      const v60 = seeded[0]!;
      assert.deepEqual(byValue[60], {
        id: encodeGlobalId("MetricValue", v60.key),
        value: 60,
        valueDisplay: "60.0%",
        threshold: null,
        thresholdStatus: null,
        commitOid: v60.commit_oid,
        createdAt: minute(10).toISOString(),
      });
      assert.equal(byValue[74.96]?.thresholdStatus, "FAILING");
      assert.equal(byValue[74.96]?.valueDisplay, "74.96%");
      assert.equal(byValue[75]?.thresholdStatus, "PASSING");
      assert.deepEqual([byValue[80]?.threshold, byValue[80]?.thresholdStatus], [90, "FAILING"]);
      assert.equal(byValue[90.05]?.valueDisplay, "90.05%");
    });

    test("paging forward and backward visits every value once, in the same order", async () => {
      const forward: string[] = [];
      let cursor: string | null = null;
      for (;;) {
        const page: ValuePage = await valuesPage({ first: 3, after: cursor });
        forward.push(...keysOf(page));
        assert.equal(page.pageInfo.hasPreviousPage, cursor !== null);
        if (!page.pageInfo.hasNextPage) break;
        cursor = page.pageInfo.endCursor;
      }
      assert.deepEqual(forward, order);
      const backward: string[] = [];
      cursor = null;
      for (;;) {
        const page: ValuePage = await valuesPage({ last: 2, before: cursor });
        backward.unshift(...keysOf(page));
        assert.equal(page.pageInfo.hasNextPage, cursor !== null);
        if (!page.pageInfo.hasPreviousPage) break;
        cursor = page.pageInfo.startCursor;
      }
      assert.deepEqual(backward, order);
    });

    test("commitOidIn keeps the values of those commits, and totalCount counts them", async () => {
      const wanted = [seeded[1]!, seeded[4]!];
      const page = await valuesPage({ commits: [...wanted.map((v) => v.commit_oid), aCommitOid(), null] });
      assert.equal(page.totalCount, 2);
      assert.deepEqual(
        keysOf(page),
        order.filter((key) => wanted.some((v) => v.key === key)),
      );
      const firstOnly = await valuesPage({ commits: wanted.map((v) => v.commit_oid), first: 1 });
      assert.equal(firstOnly.totalCount, 2);
      assert.equal(firstOnly.pageInfo.hasNextPage, true);
      const none = await valuesPage({ commits: [aCommitOid()] });
      assert.deepEqual([none.totalCount, none.edges], [0, []]);
      assert.equal((await valuesPage({ commits: [] })).totalCount, 7, "an empty list filters nothing");
    });

    test("the item's latest value is its newest row, ties on time broken by key", async () => {
      const res = await gql<{ node: ItemOut }>(
        server.endpoint,
        aliceToken,
        `query($id: ID!) { node(id: $id) { ... on RepositoryMetricItem { ${ITEM_FIELDS} } } }`,
        { id: encodeGlobalId("RepositoryMetricItem", item.key) },
      );
      assert.deepEqual(res.body.data?.node, {
        id: encodeGlobalId("RepositoryMetricItem", item.key),
        key: "RUST",
        threshold: 75,
        latestValue: 90.05,
        latestValueDisplay: "90.05%",
        thresholdStatus: "PASSING",
      });
      // Two values at the newest instant: the one with the greater key wins.
      const tieItem = await aMetricItem(server.db, repo, "NCCV", { threshold: 50 });
      const tied = await metricValuesOf(server.db, tieItem, [
        { value: 10, createdAt: minute(20) },
        { value: 90, createdAt: minute(20) },
        { value: 99, createdAt: minute(19) },
      ]);
      const winner = tied[0]!.key > tied[1]!.key ? tied[0]! : tied[1]!;
      const tieRes = await gql<{ node: ItemOut }>(
        server.endpoint,
        aliceToken,
        `query($id: ID!) { node(id: $id) { ... on RepositoryMetricItem { latestValue thresholdStatus } } }`,
        { id: encodeGlobalId("RepositoryMetricItem", tieItem.key) },
      );
      assert.equal(tieRes.body.data?.node.latestValue, winner.value);
    });
  });

  describe("Check.metrics", () => {
    test("a check lists the metrics it recorded, each item reading the value it recorded then", async () => {
      const { db } = server;
      const repository = await aRepository(db, team);
      await aMetricSetting(db, repository, "DDP", { isReported: false, isThresholdEnforced: true });
      const lcv = await aMetricItem(db, repository, "LCV", { threshold: 80 });
      const lcvGo = await aMetricItem(db, repository, "LCV", { key: "GO", threshold: 80 });
      const ddp = await aMetricItem(db, repository, "DDP", { key: "PYTHON", threshold: 5 });
      const untouched = await aMetricItem(db, repository, "DCV", { threshold: 10 });
      const coverage = await anAnalyzer(db);
      const run = await aRun(db, repository);
      const check = await aCheck(db, run, coverage);
      const later = await aCheck(db, await aRun(db, repository), coverage);
      const silent = await aCheck(db, run, await anAnalyzer(db));
      await aMetricValue(db, lcv, { value: 77.77, threshold: 75, checkId: check.id, createdAt: minute(30) });
      await aMetricValue(db, ddp, { value: 6, threshold: 5, checkId: check.id, createdAt: minute(30) });
      // Newer values of other checks, and a threshold changed since, do not change what the check saw.
      await aMetricValue(db, lcv, { value: 50, threshold: 80, checkId: later.id, createdAt: minute(40) });
      // Recorded before the GO threshold was set: no threshold then, so no status.
      await aMetricValue(db, lcvGo, { value: 90, threshold: null, checkId: later.id, createdAt: minute(40) });
      await aMetricValue(db, untouched, { value: 1, createdAt: minute(40) });

      const metricsOfCheck = async (key: string) => {
        const res = await gql<{ node: { metrics: MetricOut[] } }>(
          server.endpoint,
          aliceToken,
          `query($id: ID!) { node(id: $id) { ... on Check { metrics { ${METRIC_FIELDS} } } } }`,
          { id: encodeGlobalId("Check", key) },
        );
        assert.deepEqual(res.body.errors, undefined);
        return res.body.data!.node.metrics;
      };
      const metrics = await metricsOfCheck(check.key);
      assert.deepEqual(
        metrics.map((m) => [m.shortcode, m.isReported, m.isThresholdEnforced, m.items.map((i) => i.key)]),
        [
          ["DDP", false, true, ["PYTHON"]],
          ["LCV", true, false, ["AGGREGATE"]],
        ],
      );
      assert.deepEqual(metric(metrics, "LCV").items[0], {
        id: encodeGlobalId("RepositoryMetricItem", lcv.key),
        key: "AGGREGATE",
        threshold: 75,
        latestValue: 77.77,
        latestValueDisplay: "77.77%",
        thresholdStatus: "PASSING",
      });
      assert.deepEqual(
        [metric(metrics, "DDP").items[0]?.latestValue, metric(metrics, "DDP").items[0]?.thresholdStatus],
        [6, "FAILING"],
      );
      const laterMetrics = await metricsOfCheck(later.key);
      assert.deepEqual(
        metric(laterMetrics, "LCV").items.map((i) => [i.key, i.latestValue, i.thresholdStatus]),
        [
          ["AGGREGATE", 50, "FAILING"],
          ["GO", 90, null],
        ],
      );
      assert.deepEqual(await metricsOfCheck(silent.key), []);
      // The repository itself reads the newest values against today's thresholds.
      const repositoryLcv = metric(await metricsOf(repository), "LCV").items[0];
      assert.deepEqual([repositoryLcv?.latestValue, repositoryLcv?.threshold], [50, 80]);
    });
  });

  describe("node resolution", () => {
    async function node(id: string, selection: string) {
      return gql<{ node: Record<string, unknown> | null }>(
        server.endpoint,
        aliceToken,
        `query($id: ID!) { node(id: $id) { __typename ${selection} } }`,
        { id },
      );
    }

    function assertNotFound(res: Awaited<ReturnType<typeof node>>, id: string) {
      assert.equal(res.body.data?.node, null, id);
      assert.equal(res.body.errors?.length, 1, id);
      assert.equal(res.body.errors?.[0]?.extensions?.code, "NOT_FOUND", id);
      assert.equal(res.body.errors?.[0]?.message, `No node with id "${id}" exists.`, id);
    }

    test("Metric resolves for any user, as the catalog is global; an unknown key is NOT_FOUND", async () => {
      const stranger = await aUser(server.db);
      const strangerToken = await aToken(server.db, server.config.tokenPepper, stranger);
      const id = encodeGlobalId("Metric", "mtrdepdups");
      const res = await gql<{ node: Record<string, unknown> }>(
        server.endpoint,
        strangerToken,
        `query($id: ID!) { node(id: $id) { __typename id ... on Metric { shortcode name positiveDirection unit minValueAllowed maxValueAllowed } } }`,
        { id },
      );
      assert.deepEqual(res.body.data?.node, {
        __typename: "Metric",
        id,
        shortcode: "DDP",
        name: "External Dependencies",
        positiveDirection: "DOWNWARD",
        unit: null,
        minValueAllowed: 0,
        maxValueAllowed: null,
      });
      assertNotFound(
        await node(encodeGlobalId("Metric", "mtrnothing"), "id"),
        encodeGlobalId("Metric", "mtrnothing"),
      );
    });

    test("RepositoryMetricItem and MetricValue resolve for a member", async () => {
      const itemId = encodeGlobalId("RepositoryMetricItem", items.lcvAggregate!.key);
      const itemRes = await node(itemId, `... on RepositoryMetricItem { id key latestValue }`);
      assert.deepEqual(itemRes.body.data?.node, {
        __typename: "RepositoryMetricItem",
        id: itemId,
        key: "AGGREGATE",
        latestValue: 83.44,
      });
      const [value] = await server.db
        .selectFrom("metric_values")
        .selectAll()
        .where("item_id", "=", items.ddpPython!.id)
        .execute();
      const valueId = encodeGlobalId("MetricValue", value!.key);
      const valueRes = await node(
        valueId,
        `... on MetricValue { id value valueDisplay threshold thresholdStatus }`,
      );
      assert.deepEqual(valueRes.body.data?.node, {
        __typename: "MetricValue",
        id: valueId,
        value: 75,
        valueDisplay: "75",
        threshold: 50,
        thresholdStatus: "FAILING",
      });
    });

    test("another account's item and value answer exactly like missing ids", async () => {
      for (const id of [
        encodeGlobalId("RepositoryMetricItem", hiddenItem.key),
        encodeGlobalId("MetricValue", hiddenValue.key),
        encodeGlobalId("RepositoryMetricItem", "missing000"),
        encodeGlobalId("MetricValue", "missing000"),
        encodeGlobalId("MetricValue", hiddenItem.key),
      ]) {
        assertNotFound(await node(id, "id"), id);
      }
    });

    test("another account's repository metrics are reachable through no field", async () => {
      const res = await gql(
        server.endpoint,
        aliceToken,
        `query($name: String!, $login: String!) {
          repository(name: $name, login: $login, vcsProvider: GITHUB) { metrics { items { latestValue } } }
        }`,
        {
          name: hiddenRepo.name,
          login: (
            await server.db
              .selectFrom("accounts")
              .select("login")
              .where("id", "=", hiddenRepo.account_id)
              .executeTakeFirstOrThrow()
          ).login,
        },
      );
      assert.equal(res.body.data?.repository, null);
      assert.equal(res.body.errors?.[0]?.message, "Repository matching query does not exist");
      const viewerRes = await gql(
        server.endpoint,
        aliceToken,
        `{ viewer { accounts { edges { node { repositories { edges { node { metrics { items { id latestValue } } } } } } } } } }`,
      );
      const text = JSON.stringify(dataOf(viewerRes));
      assert.ok(!text.includes(encodeGlobalId("RepositoryMetricItem", hiddenItem.key)));
    });
  });

  test("the number of SQL statements for metrics of many repositories does not grow with the page size", async () => {
    const { db } = server;
    const reader = await aUser(db);
    for (let a = 0; a < 2; a++) {
      const account = await anAccount(db, {}, [{ user: reader, role: "MEMBER" }]);
      for (let r = 0; r < 12; r++) {
        const repository = await aRepository(db, account);
        for (const [shortcode, key] of [
          ["LCV", "AGGREGATE"],
          ["LCV", "PYTHON"],
          ["DDP", "AGGREGATE"],
        ] as const) {
          const item = await aMetricItem(db, repository, shortcode, { key, threshold: 50 });
          await metricValuesOf(
            db,
            item,
            Array.from({ length: 4 }, (_, i) => ({ value: 40 + i * 5, createdAt: minute(i) })),
          );
        }
      }
    }
    const readerToken = await aToken(db, server.config.tokenPepper, reader);
    await db
      .updateTable("personal_access_tokens")
      .set({ last_used_at: new Date() })
      .where("user_id", "=", reader.id)
      .execute();
    const query = `query($n: Int) { viewer { accounts { edges { node { repositories(first: $n) { edges { node {
      metrics { items { latestValue thresholdStatus values(first: 3) { edges { node { value } } } } }
    } } } } } } } }`;
    type Result = {
      viewer: {
        accounts: {
          edges: Array<{
            node: {
              repositories: {
                edges: Array<{
                  node: { metrics: Array<{ items: Array<{ values: { edges: unknown[] } }> }> };
                }>;
              };
            };
          }>;
        };
      };
    };
    const measure = async (n: number) => {
      await settle(server.statements);
      const start = server.statements.length;
      const res = await gql<Result>(server.endpoint, readerToken, query, { n });
      const statements = server.statements.slice(start);
      assert.deepEqual(res.body.errors, undefined);
      const repositories =
        res.body.data?.viewer.accounts.edges.flatMap((a) => a.node.repositories.edges) ?? [];
      const items = repositories.flatMap((r) => r.node.metrics.flatMap((m) => m.items));
      const values = items.reduce((sum, i) => sum + i.values.edges.length, 0);
      return { statements, repositories: repositories.length, items: items.length, values };
    };
    await measure(1);
    const small = await measure(10);
    const large = await measure(100);
    assert.deepEqual([small.repositories, small.items, small.values], [20, 60, 180]);
    assert.deepEqual([large.repositories, large.items, large.values], [24, 72, 216]);
    assert.ok(
      // findLatestValuesOfItems: every item's newest value in one statement.
      small.statements.some((statement) => /unnest\([\s\S]*\bmetric_values\b/i.test(statement)),
      "latest values were read",
    );
    assertPageSizeIndependent(small.statements, large.statements);
  });
});
