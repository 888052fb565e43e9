import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { dsnToken } from "../src/modules/repositories/dsn.ts";
import { repositoryObject } from "../src/modules/repositories/repository-events.ts";
import { aRepository, aRun, aTeamOfEveryRole, type RoleToken } from "./helpers/builders.ts";
import { anAnalyzer, anIssue } from "./helpers/builders-catalog.ts";
import { aCheck, occurrencesIn } from "./helpers/builders-checks.ts";
import {
  aMetricItem,
  aMetricSetting,
  aMetricValue,
  anIssueCategorySetting,
  anIssuePrioritySetting,
} from "./helpers/builders-metrics.ts";
import { dataOf, type GraphQLResponse, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/** One mutation as the tests call it: its field, its input for a repository id, and a selection. */
interface MutationCase {
  name: string;
  inputType: string;
  /** The input field that carries the repository id. */
  idField: "repositoryId" | "id";
  /** Valid input besides the id and `clientMutationId`. */
  rest: Record<string, unknown>;
  selection: string;
}

const CASES: MutationCase[] = [
  {
    name: "activateRepository",
    inputType: "ActivateRepositoryInput",
    idField: "repositoryId",
    rest: {},
    selection: "ok clientMutationId",
  },
  {
    name: "deactivateRepository",
    inputType: "DeactivateRepositoryInput",
    idField: "repositoryId",
    rest: {},
    selection: "ok clientMutationId",
  },
  {
    name: "updateRepositoryDefaultBranch",
    inputType: "UpdateRepositoryDefaultBranchInput",
    idField: "id",
    rest: { defaultBranchName: "develop" },
    selection: "ok clientMutationId repository { defaultBranch }",
  },
  {
    name: "regenerateRepositoryDSN",
    inputType: "RegenerateRepositoryDSNInput",
    idField: "repositoryId",
    rest: {},
    selection: "dsn clientMutationId",
  },
  {
    name: "updateRepositoryIssueCategorySetting",
    inputType: "UpdateRepositoryIssueCategorySettingInput",
    idField: "repositoryId",
    rest: { issueCategory: "STYLE", isReported: false, canFailCheck: false },
    selection: "ok clientMutationId",
  },
  {
    name: "updateRepositoryIssuePrioritySetting",
    inputType: "UpdateRepositoryIssuePrioritySettingInput",
    idField: "repositoryId",
    rest: { issuePriorityType: "LOW", isReported: false, canFailCheck: false },
    selection: "ok clientMutationId",
  },
  {
    name: "updateRepositoryMetricSetting",
    inputType: "UpdateRepositoryMetricSettingInput",
    idField: "repositoryId",
    rest: { metricShortcode: "LCV", isReported: false, isThresholdEnforced: false },
    selection: "ok clientMutationId",
  },
  {
    name: "setRepositoryMetricThreshold",
    inputType: "SetRepositoryMetricThresholdInput",
    idField: "repositoryId",
    rest: { metricShortcode: "LCV", metricKey: "AGGREGATE", thresholdValue: 80 },
    selection: "ok clientMutationId",
  },
];

const repositoryId = (repository: RepositoryRow) => encodeGlobalId("Repository", repository.key);

describe("repository mutations", () => {
  let server: TestServer;
  let team: AccountRow;
  let elsewhere: AccountRow;
  let tokens: Record<RoleToken, string>;

  before(async () => {
    server = await startTestServer();
    ({ team, elsewhere, tokens } = await aTeamOfEveryRole(server.db, server.config.tokenPepper));
  });
  after(() => server.stop());

  /** Calls `c` as `token` on the repository id `id`, with `overrides` over its valid input. */
  function call(
    c: MutationCase,
    token: string,
    id: string,
    overrides: Record<string, unknown> = {},
  ): Promise<GraphQLResponse> {
    return gql(
      server.endpoint,
      token,
      `mutation($input: ${c.inputType}!) { ${c.name}(input: $input) { ${c.selection} } }`,
      { input: { [c.idField]: id, ...c.rest, ...overrides } },
    );
  }

  /** The one field of a successful mutation's data, failing the test on any error. */
  function payloadOf<T = Record<string, unknown>>(res: GraphQLResponse, name: string): T {
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return dataOf(res)[name] as T;
  }

  /** Asserts `res` is exactly one error with `code` (and `field`), and a null mutation field. */
  function assertRefused(res: GraphQLResponse, name: string, code: string, field?: string) {
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { [name]: null });
    assert.equal(res.body.errors?.length, 1, JSON.stringify(res.body.errors));
    const [error] = res.body.errors!;
    assert.equal(error!.extensions?.code, code, error!.message);
    if (field !== undefined) assert.equal(error!.extensions?.field, field, error!.message);
  }

  /** Everything a repository mutation could change for `repository`, to prove nothing did. */
  async function stateOf(repository: RepositoryRow) {
    const { db } = server;
    const id = repository.id;
    return {
      repository: await db.selectFrom("repositories").selectAll().where("id", "=", id).executeTakeFirst(),
      categories: await db
        .selectFrom("repository_issue_category_settings")
        .selectAll()
        .where("repository_id", "=", id)
        .orderBy("category")
        .execute(),
      priorities: await db
        .selectFrom("repository_issue_priority_settings")
        .selectAll()
        .where("repository_id", "=", id)
        .orderBy("priority_type")
        .execute(),
      metricSettings: await db
        .selectFrom("repository_metric_settings")
        .selectAll()
        .where("repository_id", "=", id)
        .orderBy("metric_shortcode")
        .execute(),
      items: await db
        .selectFrom("repository_metric_items")
        .selectAll()
        .where("repository_id", "=", id)
        .orderBy("key")
        .execute(),
      events: await eventsOf(repository),
    };
  }

  /** The webhook events recorded about `repository`, oldest first. */
  async function eventsOf(repository: RepositoryRow) {
    const rows = await server.db
      .selectFrom("webhook_events")
      .select(["account_id", "type", "data"])
      .where("account_id", "=", repository.account_id)
      .orderBy("id")
      .execute();
    return rows.filter(
      (row) =>
        (row.data as { object?: { id?: string } }).object?.id ===
        encodeGlobalId("Repository", repository.key),
    );
  }

  /** `node(id:)` on the repository as `token`, with `selection`. */
  async function readRepository<T>(repository: RepositoryRow, selection: string, token = tokens.admin) {
    const res = await gql(
      server.endpoint,
      token,
      `query($id: ID!) { node(id: $id) { ... on Repository { ${selection} } } }`,
      {
        id: repositoryId(repository),
      },
    );
    return dataOf(res).node as T;
  }

  describe("refusals are the same for all eight mutations", () => {
    for (const c of CASES) {
      test(`${c.name}: a CONTRIBUTOR is FORBIDDEN and nothing changes`, async () => {
        const repository = await aRepository(server.db, team);
        const before = await stateOf(repository);
        assertRefused(await call(c, tokens.contributor, repositoryId(repository)), c.name, "FORBIDDEN");
        assert.deepEqual(await stateOf(repository), before);
      });

      test(`${c.name}: another account's repository answers exactly like a Repository id never issued`, async () => {
        const hidden = await aRepository(server.db, elsewhere);
        const before = await stateOf(hidden);
        const hiddenId = repositoryId(hidden);
        const neverIssued = encodeGlobalId("Repository", newRowKey());
        const seen = await call(c, tokens.admin, hiddenId);
        const unknown = await call(c, tokens.admin, neverIssued);
        assertRefused(seen, c.name, "NOT_FOUND");
        assert.equal(seen.body.errors![0]!.message, `No node with id "${hiddenId}" exists.`);
        assert.deepEqual(
          JSON.parse(JSON.stringify(seen.body).replaceAll(hiddenId, "<id>")),
          JSON.parse(JSON.stringify(unknown.body).replaceAll(neverIssued, "<id>")),
        );
        assert.deepEqual(await stateOf(hidden), before);
      });

      test(`${c.name}: an Account id or a malformed id is BAD_USER_INPUT naming ${c.idField}`, async () => {
        const repository = await aRepository(server.db, team);
        const before = await stateOf(repository);
        const accountId = encodeGlobalId("Account", team.key);
        assertRefused(await call(c, tokens.admin, accountId), c.name, "BAD_USER_INPUT", c.idField);
        assertRefused(await call(c, tokens.admin, "not-an-id"), c.name, "BAD_USER_INPUT", c.idField);
        assert.deepEqual(await stateOf(repository), before);
      });

      test(`${c.name}: a MEMBER may call it and the payload echoes clientMutationId`, async () => {
        const repository = await aRepository(server.db, team);
        const echo = `echo-${newRowKey()}`;
        const payload = payloadOf(
          await call(c, tokens.member, repositoryId(repository), { clientMutationId: echo }),
          c.name,
        );
        assert.equal(payload.clientMutationId, echo);
        const without = payloadOf(await call(c, tokens.member, repositoryId(repository)), c.name);
        assert.equal(without.clientMutationId, null);
      });
    }
  });

  describe("activation", () => {
    const activate = CASES[0]!;
    const deactivate = CASES[1]!;

    test("deactivating switches analysis off and records one event with the repository as it now is", async () => {
      const repository = await aRepository(server.db, team);
      assert.deepEqual(
        payloadOf(await call(deactivate, tokens.admin, repositoryId(repository)), deactivate.name),
        {
          ok: true,
          clientMutationId: null,
        },
      );
      assert.deepEqual(await readRepository(repository, "isActivated"), { isActivated: false });
      const after = (await stateOf(repository)).repository!;
      assert.equal(after.is_activated, false);
      const events = await eventsOf(repository);
      assert.deepEqual(events, [
        {
          account_id: team.id,
          type: "repository.analysis.deactivated",
          data: { object: repositoryObject(after, team, null) },
        },
      ]);
    });

    test("repeating a deactivation or an activation answers ok without a second event", async () => {
      const repository = await aRepository(server.db, team);
      const id = repositoryId(repository);
      for (const c of [deactivate, deactivate, activate, activate, deactivate]) {
        assert.equal(payloadOf<{ ok: boolean }>(await call(c, tokens.admin, id), c.name).ok, true);
      }
      assert.deepEqual(
        (await eventsOf(repository)).map((e) => [
          e.type,
          (e.data as { object: { isActivated: boolean } }).object.isActivated,
        ]),
        [
          ["repository.analysis.deactivated", false],
          ["repository.analysis.activated", true],
          ["repository.analysis.deactivated", false],
        ],
      );
    });

    test("activating an inactive repository switches analysis on and records the activation", async () => {
      const repository = await aRepository(server.db, team);
      await server.db
        .updateTable("repositories")
        .set({ is_activated: false })
        .where("id", "=", repository.id)
        .execute();
      payloadOf(await call(activate, tokens.member, repositoryId(repository)), activate.name);
      assert.deepEqual(await readRepository(repository, "isActivated"), { isActivated: true });
      const events = await eventsOf(repository);
      assert.equal(events.length, 1);
      assert.equal(events[0]!.type, "repository.analysis.activated");
      assert.deepEqual(events[0]!.data, {
        object: repositoryObject((await stateOf(repository)).repository!, team, null),
      });
    });

    test("the event's latestCommitOid is the API's: the default branch's newest analysed run, not the stored column", async () => {
      const repository = await aRepository(server.db, team);
      await server.db
        .updateTable("repositories")
        .set({ latest_commit_oid: "0".repeat(40) })
        .where("id", "=", repository.id)
        .execute();
      const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 12, minutes));
      await aRun(server.db, repository, { commitOid: "a".repeat(40), createdAt: at(0) });
      await aRun(server.db, repository, { commitOid: "b".repeat(40), status: "FAILURE", createdAt: at(1) });
      await aRun(server.db, repository, { commitOid: "c".repeat(40), status: "PENDING", createdAt: at(2) });
      await aRun(server.db, repository, { commitOid: "d".repeat(40), branch: "feature", createdAt: at(3) });
      assert.deepEqual(await readRepository(repository, "latestCommitOid"), {
        latestCommitOid: "b".repeat(40),
      });

      payloadOf(await call(deactivate, tokens.admin, repositoryId(repository)), deactivate.name);
      payloadOf(await call(activate, tokens.admin, repositoryId(repository)), activate.name);
      assert.deepEqual(
        (await eventsOf(repository)).map(
          (e) => (e.data as { object: { latestCommitOid: string } }).object.latestCommitOid,
        ),
        ["b".repeat(40), "b".repeat(40)],
      );
    });

    test("a refused activation change records no event", async () => {
      const repository = await aRepository(server.db, team);
      assertRefused(
        await call(deactivate, tokens.contributor, repositoryId(repository)),
        deactivate.name,
        "FORBIDDEN",
      );
      assert.deepEqual(await eventsOf(repository), []);
    });
  });

  describe("default branch", () => {
    const update = CASES[2]!;

    /** A repository whose last finished `main` run found one issue and whose `dev` run found another. */
    async function repositoryWithTwoBranches() {
      const { db } = server;
      const repository = await aRepository(db, team, { defaultBranch: "main" });
      const analyzer = await anAnalyzer(db, { shortcode: `py-${newRowKey()}` });
      const onMain = await anIssue(db, analyzer, { shortcode: `MAIN-${newRowKey()}` });
      const onDev = await anIssue(db, analyzer, { shortcode: `DEV-${newRowKey()}` });
      const mainRun = await aRun(db, repository, { branch: "main" });
      await occurrencesIn(db, await aCheck(db, mainRun, analyzer), [{ issue: onMain }]);
      const devRun = await aRun(db, repository, { branch: "dev" });
      await occurrencesIn(db, await aCheck(db, devRun, analyzer), [{ issue: onDev }]);
      return { repository, onMain, onDev };
    }

    const ISSUES = "defaultBranch issues { totalCount edges { node { issue { shortcode } } } }";
    type Issues = {
      defaultBranch: string;
      issues: { totalCount: number; edges: Array<{ node: { issue: { shortcode: string } } }> };
    };
    const shortcodes = (r: Issues) => r.issues.edges.map((e) => e.node.issue.shortcode);

    test("the new default branch is stored and the repository's issues follow it at once", async () => {
      const { repository, onMain, onDev } = await repositoryWithTwoBranches();
      assert.deepEqual(shortcodes(await readRepository<Issues>(repository, ISSUES)), [onMain.shortcode]);
      const res = await gql(
        server.endpoint,
        tokens.admin,
        `mutation($input: UpdateRepositoryDefaultBranchInput!) {
          updateRepositoryDefaultBranch(input: $input) { ok clientMutationId repository { id ${ISSUES} } } }`,
        { input: { id: repositoryId(repository), defaultBranchName: "dev", clientMutationId: "b1" } },
      );
      const payload = payloadOf<{
        ok: boolean;
        clientMutationId: string;
        repository: Issues & { id: string };
      }>(res, update.name);
      assert.equal(payload.ok, true);
      assert.equal(payload.clientMutationId, "b1");
      assert.equal(payload.repository.id, repositoryId(repository));
      assert.equal(payload.repository.defaultBranch, "dev");
      assert.deepEqual(shortcodes(payload.repository), [onDev.shortcode]);
      const read = await readRepository<Issues>(repository, ISSUES);
      assert.equal(read.defaultBranch, "dev");
      assert.deepEqual(shortcodes(read), [onDev.shortcode]);
    });

    test("the repository's metrics follow the new default branch, and back", async () => {
      const { db } = server;
      const repository = await aRepository(db, team, { defaultBranch: "main" });
      const analyzer = await anAnalyzer(db, { shortcode: `cov-${newRowKey()}` });
      const item = await aMetricItem(db, repository, "LCV");
      const measured = async (branch: string, value: number, hour: number) => {
        const check = await aCheck(db, await aRun(db, repository, { branch }), analyzer);
        await aMetricValue(db, item, {
          value,
          checkId: check.id,
          onDefaultBranch: branch === "main",
          createdAt: new Date(Date.UTC(2026, 0, 1, hour)),
        });
      };
      await measured("main", 50, 1);
      await measured("dev", 80, 2);
      await measured("main", 55, 3);
      const latest = async () =>
        (
          await readRepository<{
            metrics: Array<{ shortcode: string; items: Array<{ latestValue: number | null }> }>;
          }>(repository, "metrics { shortcode items { latestValue } }")
        ).metrics.find((m) => m.shortcode === "LCV")?.items[0]?.latestValue;
      assert.equal(await latest(), 55);
      const switchTo = (branch: string) =>
        call(update, tokens.admin, repositoryId(repository), { defaultBranchName: branch });
      payloadOf(await switchTo("dev"), update.name);
      assert.equal(await latest(), 80, "dev's value, though it was measured when main was the default");
      payloadOf(await switchTo("main"), update.name);
      assert.equal(await latest(), 55);
    });

    test("setting the branch that already is the default answers ok and changes nothing", async () => {
      const repository = await aRepository(server.db, team, { defaultBranch: "main" });
      const before = await stateOf(repository);
      const payload = payloadOf<{ ok: boolean; repository: { defaultBranch: string } }>(
        await call(update, tokens.admin, repositoryId(repository), { defaultBranchName: "main" }),
        update.name,
      );
      assert.deepEqual(payload, { ok: true, clientMutationId: null, repository: { defaultBranch: "main" } });
      assert.deepEqual(await stateOf(repository), before);
    });

    test("a name git would refuse is BAD_USER_INPUT naming defaultBranchName and nothing changes", async () => {
      const repository = await aRepository(server.db, team, { defaultBranch: "main" });
      const before = await stateOf(repository);
      for (const name of [
        "",
        "my branch",
        "a..b",
        "-x",
        "feature/",
        "main.lock",
        "tab\there",
        "b".repeat(256),
      ]) {
        const res = await call(update, tokens.admin, repositoryId(repository), { defaultBranchName: name });
        assertRefused(res, update.name, "BAD_USER_INPUT", "defaultBranchName");
        assert.match(res.body.errors![0]!.message, /^defaultBranchName is not a valid branch name: /);
      }
      assert.deepEqual(await stateOf(repository), before);
      const longest = "b".repeat(255);
      const payload = payloadOf<{ repository: { defaultBranch: string } }>(
        await call(update, tokens.admin, repositoryId(repository), { defaultBranchName: longest }),
        update.name,
      );
      assert.equal(payload.repository.defaultBranch, longest);
    });
  });

  describe("DSN", () => {
    const regenerate = CASES[3]!;

    test("a new DSN is answered, Repository.dsn shows it, and the old token no longer matches", async () => {
      const repository = await aRepository(server.db, team);
      const pepper = server.config.tokenPepper;
      const { dsn: oldDsn } = await readRepository<{ dsn: string }>(repository, "dsn");
      const oldToken = dsnToken(repository, pepper);
      assert.ok(oldDsn.includes(oldToken));

      const { dsn } = payloadOf<{ dsn: string }>(
        await call(regenerate, tokens.admin, repositoryId(repository)),
        regenerate.name,
      );
      assert.notEqual(dsn, oldDsn);
      const stored = (await stateOf(repository)).repository!;
      assert.equal(stored.dsn_generation, repository.dsn_generation + 1);
      const newToken = dsnToken(stored, pepper);
      assert.notEqual(newToken, oldToken);
      assert.ok(dsn.includes(`//${newToken}@`));
      assert.ok(!dsn.includes(oldToken));
      assert.deepEqual(await readRepository(repository, "dsn"), { dsn });

      const { dsn: third } = payloadOf<{ dsn: string }>(
        await call(regenerate, tokens.admin, repositoryId(repository)),
        regenerate.name,
      );
      assert.ok(third !== dsn && third !== oldDsn);
    });
  });

  describe("issue category and priority settings", () => {
    const category = CASES[4]!;
    const priority = CASES[5]!;
    type Setting = { isReported: boolean; canFailCheck: boolean };

    test("a category setting is stored, read back, and changed again by a second call", async () => {
      const repository = await aRepository(server.db, team);
      const read = async () =>
        (
          await readRepository<{ issueCategorySettings: Array<Setting & { category: string }> }>(
            repository,
            "issueCategorySettings { category isReported canFailCheck }",
          )
        ).issueCategorySettings;
      const ok = payloadOf(
        await call(category, tokens.admin, repositoryId(repository), {
          issueCategory: "SECURITY",
          isReported: true,
          canFailCheck: false,
          clientMutationId: "c1",
        }),
        category.name,
      );
      assert.deepEqual(ok, { ok: true, clientMutationId: "c1" });
      let settings = await read();
      assert.deepEqual(
        settings.find((s) => s.category === "SECURITY"),
        {
          category: "SECURITY",
          isReported: true,
          canFailCheck: false,
        },
      );
      assert.ok(
        settings.filter((s) => s.category !== "SECURITY").every((s) => s.isReported && s.canFailCheck),
      );

      payloadOf(
        await call(category, tokens.admin, repositoryId(repository), {
          issueCategory: "SECURITY",
          isReported: false,
          canFailCheck: false,
        }),
        category.name,
      );
      settings = await read();
      assert.deepEqual(
        settings.find((s) => s.category === "SECURITY"),
        {
          category: "SECURITY",
          isReported: false,
          canFailCheck: false,
        },
      );
      assert.equal((await stateOf(repository)).categories.length, 1);
    });

    test("a priority setting replaces the stored one and is read back", async () => {
      const repository = await aRepository(server.db, team);
      await anIssuePrioritySetting(server.db, repository, "HIGH", { isReported: false, canFailCheck: false });
      payloadOf(
        await call(priority, tokens.member, repositoryId(repository), {
          issuePriorityType: "HIGH",
          isReported: true,
          canFailCheck: true,
        }),
        priority.name,
      );
      payloadOf(
        await call(priority, tokens.member, repositoryId(repository), {
          issuePriorityType: "LOW",
          isReported: true,
          canFailCheck: false,
        }),
        priority.name,
      );
      const { issuePrioritySettings } = await readRepository<{
        issuePrioritySettings: Array<Setting & { priorityType: string }>;
      }>(repository, "issuePrioritySettings { priorityType isReported canFailCheck }");
      assert.deepEqual(issuePrioritySettings, [
        { priorityType: "LOW", isReported: true, canFailCheck: false },
        { priorityType: "MEDIUM", isReported: true, canFailCheck: true },
        { priorityType: "HIGH", isReported: true, canFailCheck: true },
      ]);
    });

    for (const c of [category, priority]) {
      test(`${c.name}: canFailCheck without isReported is BAD_USER_INPUT naming canFailCheck and nothing changes`, async () => {
        const repository = await aRepository(server.db, team);
        await anIssueCategorySetting(server.db, repository, "STYLE", {
          isReported: true,
          canFailCheck: false,
        });
        const before = await stateOf(repository);
        const res = await call(c, tokens.admin, repositoryId(repository), {
          isReported: false,
          canFailCheck: true,
        });
        assertRefused(res, c.name, "BAD_USER_INPUT", "canFailCheck");
        assert.deepEqual(await stateOf(repository), before);
      });
    }
  });

  describe("metric settings and thresholds", () => {
    const metricSetting = CASES[6]!;
    const threshold = CASES[7]!;
    type Item = { key: string; threshold: number | null; id: string };
    type Metric = { shortcode: string; isReported: boolean; isThresholdEnforced: boolean; items: Item[] };

    const metricsOf = async (repository: RepositoryRow, shortcodes: string[]) =>
      (
        await readRepository<{ metrics: Metric[] }>(
          repository,
          `metrics(shortcodeIn: [${shortcodes.join(", ")}]) { shortcode isReported isThresholdEnforced items { id key threshold } }`,
        )
      ).metrics;

    test("a metric setting is stored and read back through metricSettings and metrics", async () => {
      const repository = await aRepository(server.db, team);
      await aMetricSetting(server.db, repository, "DDP", { isReported: false, isThresholdEnforced: false });
      payloadOf(
        await call(metricSetting, tokens.admin, repositoryId(repository), {
          metricShortcode: "DDP",
          isReported: true,
          isThresholdEnforced: true,
        }),
        metricSetting.name,
      );
      payloadOf(
        await call(metricSetting, tokens.admin, repositoryId(repository), {
          metricShortcode: "BCV",
          isReported: false,
          isThresholdEnforced: false,
        }),
        metricSetting.name,
      );
      const { metricSettings } = await readRepository<{
        metricSettings: Array<{ metricShortcode: string; isReported: boolean; isThresholdEnforced: boolean }>;
      }>(repository, "metricSettings { metricShortcode isReported isThresholdEnforced }");
      assert.deepEqual(
        metricSettings.filter((s) => ["DDP", "BCV", "LCV"].includes(s.metricShortcode)),
        [
          { metricShortcode: "BCV", isReported: false, isThresholdEnforced: false },
          { metricShortcode: "DDP", isReported: true, isThresholdEnforced: true },
          { metricShortcode: "LCV", isReported: true, isThresholdEnforced: false },
        ],
      );
      assert.deepEqual(
        (await metricsOf(repository, ["BCV", "DDP"])).map(
          ({ shortcode, isReported, isThresholdEnforced }) => ({
            shortcode,
            isReported,
            isThresholdEnforced,
          }),
        ),
        [
          { shortcode: "BCV", isReported: false, isThresholdEnforced: false },
          { shortcode: "DDP", isReported: true, isThresholdEnforced: true },
        ],
      );
    });

    test("a threshold creates the missing item and updates an existing one in place", async () => {
      const repository = await aRepository(server.db, team);
      const existing = await aMetricItem(server.db, repository, "LCV", { key: "PYTHON", threshold: 50 });
      const id = repositoryId(repository);
      payloadOf(
        await call(threshold, tokens.admin, id, { metricKey: "AGGREGATE", thresholdValue: 80 }),
        threshold.name,
      );
      payloadOf(
        await call(threshold, tokens.admin, id, { metricKey: "PYTHON", thresholdValue: 70 }),
        threshold.name,
      );
      const [lcv] = await metricsOf(repository, ["LCV"]);
      assert.deepEqual(
        lcv!.items.map(({ key, threshold }) => ({ key, threshold })),
        [
          { key: "AGGREGATE", threshold: 80 },
          { key: "PYTHON", threshold: 70 },
        ],
      );
      assert.equal(lcv!.items[1]!.id, encodeGlobalId("RepositoryMetricItem", existing.key));
    });

    test("a null threshold clears it and creates no item where there was none", async () => {
      const repository = await aRepository(server.db, team);
      await aMetricItem(server.db, repository, "DDP", { threshold: 5 });
      const id = repositoryId(repository);
      const cleared = payloadOf(
        await call(threshold, tokens.admin, id, {
          metricShortcode: "DDP",
          thresholdValue: null,
          clientMutationId: "t",
        }),
        threshold.name,
      );
      assert.deepEqual(cleared, { ok: true, clientMutationId: "t" });
      payloadOf(
        await call(threshold, tokens.admin, id, { metricShortcode: "BCV", thresholdValue: null }),
        threshold.name,
      );
      const rest = { ...threshold.rest } as Record<string, unknown>;
      delete rest.thresholdValue;
      const omitted = await gql(
        server.endpoint,
        tokens.admin,
        `mutation($input: SetRepositoryMetricThresholdInput!) { setRepositoryMetricThreshold(input: $input) { ok } }`,
        { input: { repositoryId: id, ...rest, metricShortcode: "CCV" } },
      );
      payloadOf(omitted, threshold.name);
      const metrics = await metricsOf(repository, ["BCV", "CCV", "DDP"]);
      assert.deepEqual(
        metrics.map((m) => [m.shortcode, m.items.map((i) => i.threshold)]),
        [
          ["BCV", []],
          ["CCV", []],
          ["DDP", [null]],
        ],
      );
    });

    test("a threshold outside the metric's range (0..100 percent, a count of at least 0) is BAD_USER_INPUT naming thresholdValue", async () => {
      const repository = await aRepository(server.db, team);
      await aMetricItem(server.db, repository, "LCV", { threshold: 40 });
      const before = await stateOf(repository);
      const id = repositoryId(repository);
      for (const [shortcode, value, message] of [
        ["LCV", 101, /between 0 and 100 \(%\) for LCV/],
        ["LCV", -1, /between 0 and 100/],
        ["NCPCV", -50, /between 0 and 100/],
        ["DDP", -1, /at least 0 for DDP/],
      ] as const) {
        const res = await call(threshold, tokens.admin, id, {
          metricShortcode: shortcode,
          thresholdValue: value,
        });
        assertRefused(res, threshold.name, "BAD_USER_INPUT", "thresholdValue");
        assert.match(res.body.errors![0]!.message, message);
      }
      assert.deepEqual(await stateOf(repository), before);
      payloadOf(await call(threshold, tokens.admin, id, { thresholdValue: 0 }), threshold.name);
      // DDP counts packages: it has no upper bound.
      payloadOf(
        await call(threshold, tokens.admin, id, { metricShortcode: "DDP", thresholdValue: 1000 }),
        threshold.name,
      );
      const metrics = await metricsOf(repository, ["DDP", "LCV"]);
      assert.deepEqual(
        metrics.map((m) => [m.shortcode, m.items.map((i) => i.threshold)]),
        [
          ["DDP", [1000]],
          ["LCV", [0]],
        ],
      );
    });
  });

  test("later mutations in one document read what earlier ones changed, not rows cached before", async () => {
    const repository = await aRepository(server.db, team, { defaultBranch: "main" });
    const read = `repository { defaultBranch isActivated issueCategorySettings { category canFailCheck }
      metrics(shortcodeIn: [LCV]) { isReported items { threshold } } }`;
    const res = await gql(
      server.endpoint,
      tokens.admin,
      `mutation($id: ID!) {
        first: updateRepositoryDefaultBranch(input: { id: $id, defaultBranchName: "dev" }) { ${read} }
        off: deactivateRepository(input: { repositoryId: $id }) { ok }
        gate: updateRepositoryIssueCategorySetting(input: {
          repositoryId: $id, issueCategory: BUG_RISK, isReported: true, canFailCheck: false }) { ok }
        metric: updateRepositoryMetricSetting(input: {
          repositoryId: $id, metricShortcode: LCV, isReported: false, isThresholdEnforced: false }) { ok }
        threshold: setRepositoryMetricThreshold(input: {
          repositoryId: $id, metricShortcode: LCV, metricKey: AGGREGATE, thresholdValue: 65 }) { ok }
        second: updateRepositoryDefaultBranch(input: { id: $id, defaultBranchName: "trunk" }) { ${read} }
      }`,
      { id: repositoryId(repository) },
    );
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    type Read = {
      repository: {
        defaultBranch: string;
        isActivated: boolean;
        issueCategorySettings: Array<{ category: string; canFailCheck: boolean }>;
        metrics: Array<{ isReported: boolean; items: Array<{ threshold: number | null }> }>;
      };
    };
    const data = dataOf(res) as { first: Read; second: Read };
    const bugRisk = (r: Read) => r.repository.issueCategorySettings.find((s) => s.category === "BUG_RISK");
    assert.equal(data.first.repository.defaultBranch, "dev");
    assert.equal(data.first.repository.isActivated, true);
    assert.equal(bugRisk(data.first)?.canFailCheck, true);
    assert.deepEqual(data.first.repository.metrics, [{ isReported: true, items: [] }]);
    assert.equal(data.second.repository.defaultBranch, "trunk");
    assert.equal(data.second.repository.isActivated, false);
    assert.equal(bugRisk(data.second)?.canFailCheck, false);
    assert.deepEqual(data.second.repository.metrics, [{ isReported: false, items: [{ threshold: 65 }] }]);
  });
});
