import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type {
  AccountRow,
  AnalysisRunRow,
  AnalyzerRow,
  CheckRow,
  IssueRow,
  RepositoryRow,
  UserRow,
} from "../src/db/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { refreshCheckIssueCounts } from "../src/modules/checks/issue-count-store.ts";
import { anAccount, aRepository, aRun, aToken, aUser } from "./helpers/builders.ts";
import { anAnalyzer, anIssue } from "./helpers/builders-catalog.ts";
import { aCheck, aCoverageReport, anOccurrence, occurrencesIn } from "./helpers/builders-checks.ts";
import {
  anScaCheck,
  aPackage,
  aPackageVersion,
  aVulnerability,
  vulnerabilityOccurrences,
} from "./helpers/builders-dependencies.ts";
import { assertPageSizeIndependent, settle, startInstance, type TestInstance } from "./helpers/instance.ts";
import { assertPagesBothWays, type Connection, PAGE_INFO, type PageArgs } from "./helpers/paging.ts";
import { dataOf, gql } from "./helpers/server.ts";

describe("checks, occurrences and summaries", () => {
  let server: TestInstance;
  let alice: UserRow;
  let team: AccountRow;
  let repo: RepositoryRow;
  let hiddenRepo: RepositoryRow;
  let token: string;
  let python: AnalyzerRow;
  let javascript: AnalyzerRow;
  let secrets: AnalyzerRow;
  let coverage: AnalyzerRow;

  before(async () => {
    server = await startInstance();
    const { db } = server;
    alice = await aUser(db);
    const carol = await aUser(db);
    team = await anAccount(db, {}, [{ user: alice, role: "MEMBER" }]);
    const hidden = await anAccount(db, {}, [{ user: carol, role: "ADMIN" }]);
    repo = await aRepository(db, team);
    hiddenRepo = await aRepository(db, hidden);
    token = await aToken(db, server.config.tokenPepper, alice);
    python = await anAnalyzer(db, { shortcode: `py-${newRowKey()}`, name: "Python" });
    javascript = await anAnalyzer(db, { shortcode: `js-${newRowKey()}`, name: "JavaScript" });
    secrets = await anAnalyzer(db, { shortcode: `se-${newRowKey()}`, name: "Secrets" });
    // The server may have seeded the catalog, coverage analyzer included.
    coverage =
      (await db
        .selectFrom("analyzers")
        .selectAll()
        .where("shortcode", "=", "test-coverage")
        .executeTakeFirst()) ?? (await anAnalyzer(db, { shortcode: "test-coverage", name: "Test Coverage" }));
  });
  after(() => server.stop());

  /** The `data` of a query as alice, failing the test on any error. */
  async function query<T>(text: string, variables: Record<string, unknown> = {}): Promise<T> {
    const res = await gql<T>(server.endpoint, token, text, variables);
    assert.deepEqual(res.body.errors, undefined, text);
    assert.ok(res.body.data);
    return res.body.data;
  }

  /** `run(runUid:)` as alice with `selection` inside. */
  async function runField<T>(
    run: AnalysisRunRow,
    selection: string,
    variables: Record<string, unknown> = {},
  ) {
    const declared = Object.keys(variables)
      .map((name) => `, $${name}: ${variableTypes[name] ?? "String"}`)
      .join("");
    const data = await query<{ run: T }>(`query($u: UUID${declared}) { run(runUid: $u) { ${selection} } }`, {
      u: run.run_uid,
      ...variables,
    });
    return data.run;
  }

  const variableTypes: Record<string, string> = {
    first: "Int",
    last: "Int",
    after: "String",
    before: "String",
    analyzerIn: "[String]",
    source: "AnalysisIssueSource",
    category: "IssueCategory",
    severity: "IssueSeverity",
    q: "String",
  };

  /** A check of a new run of the team's repository, with an issue of its analyzer. */
  async function aCheckWithIssue(
    analyzer = python,
    issueFields: Parameters<typeof anIssue>[2] = {},
  ): Promise<{ run: AnalysisRunRow; check: CheckRow; issue: IssueRow }> {
    const run = await aRun(server.db, repo);
    const check = await aCheck(server.db, run, analyzer);
    const issue = await anIssue(server.db, analyzer, issueFields);
    return { run, check, issue };
  }

  test("AnalysisRun.checks lists the run's checks by sequence with every contract field", async () => {
    const run = await aRun(server.db, repo);
    const second = await aCheck(server.db, run, javascript, {
      sequence: 2,
      status: "PENDING",
      finishedAt: null,
    });
    const first = await aCheck(server.db, run, python, { sequence: 1, status: "FAILURE" });
    const third = await aCheck(server.db, run, secrets, { sequence: 3, status: "ARTIFACT_TIMEOUT" });
    type CheckNode = {
      id: string;
      sequence: number;
      status: string;
      analyzer: { shortcode: string };
      createdAt: string;
      updatedAt: string;
      finishedAt: string | null;
    };
    const checks = await runField<{ checks: Connection<CheckNode> }>(
      run,
      `checks { ${PAGE_INFO} edges { cursor node { id sequence status analyzer { shortcode } createdAt updatedAt finishedAt } } }`,
    );
    assert.equal(checks.checks.totalCount, 3);
    assert.deepEqual(
      checks.checks.edges.map((e) => [e.node.id, e.node.sequence, e.node.status, e.node.analyzer.shortcode]),
      [
        [encodeGlobalId("Check", first.key), 1, "FAILURE", python.shortcode],
        [encodeGlobalId("Check", second.key), 2, "PENDING", javascript.shortcode],
        [encodeGlobalId("Check", third.key), 3, "ARTIFACT_TIMEOUT", secrets.shortcode],
      ],
    );
    const pending = checks.checks.edges[1]!.node;
    assert.equal(pending.finishedAt, null);
    assert.equal(new Date(pending.createdAt).getTime(), second.created_at.getTime());
    assert.ok(checks.checks.edges[0]!.node.finishedAt);
  });

  test("AnalysisRun.checks pages both ways and filters by analyzer shortcode, counting with the filter", async () => {
    const run = await aRun(server.db, repo);
    const analyzers = [python, javascript, secrets, coverage];
    const checks: CheckRow[] = [];
    for (const [i, analyzer] of analyzers.entries()) {
      checks.push(await aCheck(server.db, run, analyzer, { sequence: i + 1 }));
    }
    const load = async (args: PageArgs & { analyzerIn?: Array<string | null> }) =>
      (
        await runField<{ checks: Connection<{ id: string }> }>(
          run,
          `checks(first: $first, last: $last, after: $after, before: $before, analyzerIn: $analyzerIn) { ${PAGE_INFO} edges { node { id } } }`,
          { first: null, last: null, after: null, before: null, analyzerIn: null, ...args },
        )
      ).checks;
    const ids = checks.map((c) => encodeGlobalId("Check", c.key));
    await assertPagesBothWays(load, 3, ids);
    const filtered = await load({
      analyzerIn: [secrets.shortcode, null, python.shortcode, "no-such-analyzer"],
    });
    assert.equal(filtered.totalCount, 2);
    assert.deepEqual(
      filtered.edges.map((e) => e.node.id),
      [ids[0], ids[2]],
    );
    const paged = await load({ analyzerIn: [secrets.shortcode, python.shortcode], first: 1 });
    assert.equal(paged.totalCount, 2);
    assert.equal(paged.pageInfo.hasNextPage, true);
    assert.equal((await load({ analyzerIn: ["no-such-analyzer"] })).totalCount, 0);
    assert.equal((await load({ analyzerIn: [] })).totalCount, 4, "an empty list does not filter");
  });

  test("Check.summary counts introduced without suppressed, resolved, and suppressed without resolved", async () => {
    const { run, check } = await aCheckWithIssue();
    const [bug, security, style, antiPattern] = await Promise.all(
      (["BUG_RISK", "SECURITY", "STYLE", "ANTI_PATTERN"] as const).map((category) =>
        anIssue(server.db, python, { category }),
      ),
    );
    await occurrencesIn(server.db, check, [
      { issue: bug!, state: "INTRODUCED" },
      { issue: bug!, state: "INTRODUCED" },
      { issue: bug!, state: "INTRODUCED", isSuppressed: true },
      { issue: bug!, state: "EXISTING" },
      { issue: bug!, state: "EXISTING", isSuppressed: true },
      { issue: bug!, state: "RESOLVED" },
      { issue: bug!, state: "RESOLVED", isSuppressed: true },
      { issue: security!, state: "INTRODUCED" },
      { issue: style!, state: "EXISTING" },
      { issue: style!, state: "RESOLVED" },
      { issue: antiPattern!, state: "INTRODUCED" },
    ]);
    const empty = await aCheck(server.db, run, javascript);
    const data = await runField<{
      checks: Connection<{ id: string; summary: Record<string, unknown> }>;
    }>(
      run,
      `checks { edges { node { id summary { occurrencesIntroduced occurrencesResolved occurrencesSuppressed occurrenceDistributionByCategory { category introduced } } } } }`,
    );
    const byId = new Map(data.checks.edges.map((e) => [e.node.id, e.node.summary]));
    assert.deepEqual(byId.get(encodeGlobalId("Check", check.key)), {
      occurrencesIntroduced: 4,
      occurrencesResolved: 3,
      occurrencesSuppressed: 2,
      occurrenceDistributionByCategory: [
        { category: "ANTI_PATTERN", introduced: 1 },
        { category: "BUG_RISK", introduced: 2 },
        { category: "SECURITY", introduced: 1 },
      ],
    });
    assert.deepEqual(byId.get(encodeGlobalId("Check", empty.key)), {
      occurrencesIntroduced: 0,
      occurrencesResolved: 0,
      occurrencesSuppressed: 0,
      occurrenceDistributionByCategory: [],
    });
  });

  test("AnalysisRun.summary adds up its checks per analyzer and per category, and counts introduced vulnerabilities", async () => {
    const run = await aRun(server.db, repo);
    const other = await aRun(server.db, repo);
    const zed = await anAnalyzer(server.db, { shortcode: `zz-${newRowKey()}` });
    const ace = await anAnalyzer(server.db, { shortcode: `aa-${newRowKey()}` });
    const quiet = await anAnalyzer(server.db, { shortcode: `mm-${newRowKey()}` });
    const zedCheck = await aCheck(server.db, run, zed);
    const aceCheck = await aCheck(server.db, run, ace);
    const quietCheck = await aCheck(server.db, run, quiet);
    const zedBug = await anIssue(server.db, zed, { category: "BUG_RISK" });
    const zedPerf = await anIssue(server.db, zed, { category: "PERFORMANCE" });
    const aceBug = await anIssue(server.db, ace, { category: "BUG_RISK" });
    const quietStyle = await anIssue(server.db, quiet, { category: "STYLE" });
    await occurrencesIn(server.db, zedCheck, [
      { issue: zedBug, state: "INTRODUCED" },
      { issue: zedPerf, state: "INTRODUCED" },
      { issue: zedPerf, state: "INTRODUCED" },
      { issue: zedPerf, state: "RESOLVED" },
    ]);
    await occurrencesIn(server.db, aceCheck, [
      { issue: aceBug, state: "INTRODUCED" },
      { issue: aceBug, state: "EXISTING", isSuppressed: true },
    ]);
    await occurrencesIn(server.db, quietCheck, [
      { issue: quietStyle, state: "EXISTING" },
      { issue: quietStyle, state: "INTRODUCED", isSuppressed: true },
    ]);
    // Another run's findings and vulnerabilities do not count.
    await anOccurrence(server.db, await aCheck(server.db, other, zed), {
      issue: zedBug,
      state: "INTRODUCED",
    });
    const pkg = await aPackage(server.db);
    const version = await aPackageVersion(server.db, pkg);
    const vulnerability = await aVulnerability(server.db);
    const spec = { vulnerability, version };
    await vulnerabilityOccurrences(server.db, await anScaCheck(server.db, run), [
      { ...spec, state: "INTRODUCED" },
      { ...spec, state: "EXISTING" },
      { ...spec, state: "RESOLVED" },
    ]);
    await vulnerabilityOccurrences(server.db, await anScaCheck(server.db, run), [
      { ...spec, state: "INTRODUCED" },
    ]);
    await vulnerabilityOccurrences(server.db, await anScaCheck(server.db, other), [
      { ...spec, state: "INTRODUCED" },
    ]);

    const data = await runField<{ summary: Record<string, unknown> }>(
      run,
      `summary { occurrencesIntroduced occurrencesResolved occurrencesSuppressed
        occurrenceDistributionByAnalyzer { analyzerShortcode introduced }
        occurrenceDistributionByCategory { category introduced } vulnerabilitiesIntroduced }`,
    );
    assert.deepEqual(data.summary, {
      occurrencesIntroduced: 4,
      occurrencesResolved: 1,
      occurrencesSuppressed: 2,
      occurrenceDistributionByAnalyzer: [
        { analyzerShortcode: ace.shortcode, introduced: 1 },
        { analyzerShortcode: zed.shortcode, introduced: 3 },
      ],
      occurrenceDistributionByCategory: [
        { category: "BUG_RISK", introduced: 2 },
        { category: "PERFORMANCE", introduced: 2 },
      ],
      vulnerabilitiesIntroduced: 2,
    });
    const bare = await runField<{ summary: Record<string, unknown> }>(
      await aRun(server.db, repo),
      "summary { occurrencesIntroduced occurrenceDistributionByAnalyzer { introduced } vulnerabilitiesIntroduced }",
    );
    assert.deepEqual(bare.summary, {
      occurrencesIntroduced: 0,
      occurrenceDistributionByAnalyzer: [],
      vulnerabilitiesIntroduced: 0,
    });
  });

  test("Check.occurrences lists non-resolved, unsilenced findings by path, line and key, and pages both ways", async () => {
    const { check, issue } = await aCheckWithIssue();
    const made = await occurrencesIn(server.db, check, [
      { issue, path: "src/b.py", beginLine: 3 },
      { issue, path: "src/a.py", beginLine: 10, beginColumn: 4, endLine: 12, endColumn: 9, title: "Here" },
      { issue, path: "src/a.py", beginLine: 2, key: `zz${newRowKey().slice(2)}` },
      { issue, path: "src/a.py", beginLine: 2, key: `aa${newRowKey().slice(2)}`, state: "INTRODUCED" },
      { issue, path: "src/a.py", beginLine: 1, state: "RESOLVED" },
      { issue, path: "lib/c.py", beginLine: 100, isSuppressed: true },
    ]);
    // The silenced finding (lib/c.py) is left out, as `Check.issues` leaves it by default.
    const expected = [made[3]!, made[2]!, made[1]!, made[0]!].map((o) => encodeGlobalId("Occurrence", o.key));
    const load = async (args: PageArgs) => {
      const data = await query<{ node: { occurrences: Connection<{ id: string }> } }>(
        `query($id: ID!, $first: Int, $last: Int, $after: String, $before: String) {
          node(id: $id) { ... on Check { occurrences(first: $first, last: $last, after: $after, before: $before) {
            ${PAGE_INFO} edges { node { id } } } } } }`,
        { id: encodeGlobalId("Check", check.key), ...args },
      );
      return data.node.occurrences;
    };
    await assertPagesBothWays(load, 2, expected);
    const full = await query<{
      node: { occurrences: Connection<Record<string, unknown>> };
    }>(
      `query($id: ID!) { node(id: $id) { ... on Check { occurrences(first: 500) { edges { node {
        id path beginLine beginColumn endLine endColumn title isSuppressed issue { shortcode } } } } } } }`,
      { id: encodeGlobalId("Check", check.key) },
    );
    assert.deepEqual(full.node.occurrences.edges[2]?.node, {
      id: expected[2],
      path: "src/a.py",
      beginLine: 10,
      beginColumn: 4,
      endLine: 12,
      endColumn: 9,
      title: "Here",
      isSuppressed: false,
      issue: { shortcode: issue.shortcode },
    });
    // The silenced one is still answered by its id, and says so.
    const silenced = await query<{ node: { path: string; isSuppressed: boolean } }>(
      `query($id: ID!) { node(id: $id) { ... on Occurrence { path isSuppressed } } }`,
      { id: encodeGlobalId("Occurrence", made[5]!.key) },
    );
    assert.deepEqual(silenced.node, { path: "lib/c.py", isSuppressed: true });
  });

  test("Check.occurrences filters by analyzer and is deprecated in favour of Check.issues", async () => {
    const { check, issue } = await aCheckWithIssue();
    await occurrencesIn(server.db, check, [{ issue }, { issue }]);
    const count = async (analyzerIn: string[]) =>
      (
        await query<{ node: { occurrences: { totalCount: number; edges: unknown[] } } }>(
          `query($id: ID!, $a: [String]) { node(id: $id) { ... on Check { occurrences(analyzerIn: $a) { totalCount edges { cursor } } } } }`,
          { id: encodeGlobalId("Check", check.key), a: analyzerIn },
        )
      ).node.occurrences;
    const matching = await count([python.shortcode]);
    assert.equal(matching.totalCount, 2);
    assert.equal(matching.edges.length, 2);
    assert.equal((await count([python.shortcode, javascript.shortcode])).totalCount, 2);
    assert.deepEqual(await count([javascript.shortcode]), { totalCount: 0, edges: [] });
    const type = await query<{
      __type: { fields: Array<{ name: string; isDeprecated: boolean; deprecationReason: string | null }> };
    }>(
      `{ __type(name: "Check") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }`,
    );
    const occurrences = type.__type.fields.find((f) => f.name === "occurrences");
    assert.equal(occurrences?.isDeprecated, true);
    assert.match(occurrences?.deprecationReason ?? "", /issues/);
    assert.equal(type.__type.fields.find((f) => f.name === "issues")?.isDeprecated, false);
  });

  test("Check.issues answers the flat finding shape and filters by source, category, severity and q", async () => {
    const analyzer = await anAnalyzer(server.db, { shortcode: `an-${newRowKey()}` });
    const run = await aRun(server.db, repo);
    const check = await aCheck(server.db, run, analyzer);
    const unused = await anIssue(server.db, analyzer, {
      shortcode: "PYL-W0611",
      category: "BUG_RISK",
      severity: "MAJOR",
    });
    const password = await anIssue(server.db, analyzer, {
      shortcode: "BAN-B105",
      category: "SECURITY",
      severity: "CRITICAL",
    });
    const [os, secret, sys] = await occurrencesIn(server.db, check, [
      { issue: unused, path: "src/app.py", beginLine: 1, title: "Unused import os" },
      {
        issue: password,
        path: "src/auth/login.py",
        beginLine: 7,
        endLine: 8,
        title: "Hardcoded password",
        source: "AI",
        explanation: "The string is compared with user input.",
        state: "INTRODUCED",
      },
      { issue: unused, path: "lib/100%_done.py", beginLine: 2, title: "Unused import sys" },
      { issue: unused, path: "src/zz.py", beginLine: 1, title: "Unused import gone", state: "RESOLVED" },
    ]);
    type Finding = { title: string };
    const issues = async (args: Record<string, unknown>) =>
      (
        await query<{ node: { issues: Connection<Finding> } }>(
          `query($id: ID!, $source: AnalysisIssueSource, $category: IssueCategory, $severity: IssueSeverity, $q: String, $first: Int) {
            node(id: $id) { ... on Check { issues(source: $source, category: $category, severity: $severity, q: $q, first: $first) {
              totalCount edges { node { title } } } } } }`,
          { id: encodeGlobalId("Check", check.key), ...args },
        )
      ).node.issues;
    const titles = async (args: Record<string, unknown>) =>
      (await issues(args)).edges.map((e) => e.node.title);
    assert.deepEqual(await titles({}), [sys!.title, os!.title, secret!.title]);
    assert.deepEqual(await titles({ source: "AI" }), [secret!.title]);
    assert.deepEqual(await titles({ source: "STATIC" }), [sys!.title, os!.title]);
    assert.deepEqual(await titles({ category: "BUG_RISK" }), [sys!.title, os!.title]);
    assert.deepEqual(await titles({ severity: "CRITICAL" }), [secret!.title]);
    assert.deepEqual(await titles({ q: "UNUSED" }), [sys!.title, os!.title], "title, any case");
    assert.deepEqual(await titles({ q: "auth/" }), [secret!.title], "path");
    assert.deepEqual(await titles({ q: "ban-b1" }), [secret!.title], "issue shortcode");
    assert.deepEqual(await titles({ q: "100%" }), [sys!.title], "% is literal");
    assert.deepEqual(await titles({ q: "_" }), [sys!.title], "_ is literal");
    assert.deepEqual(await titles({ q: "  " }), [sys!.title, os!.title, secret!.title], "blank q");
    assert.deepEqual(await titles({ category: "BUG_RISK", q: " sys " }), [sys!.title]);
    assert.deepEqual(await titles({ category: "SECURITY", severity: "MINOR" }), []);
    const counted = await issues({ category: "BUG_RISK", first: 1 });
    assert.equal(counted.totalCount, 2);
    assert.equal(counted.edges.length, 1);

    const full = await query<{ node: { issues: Connection<Record<string, unknown>> } }>(
      `query($id: ID!) { node(id: $id) { ... on Check { issues(source: AI) { edges { node {
        source path beginLine beginColumn endLine endColumn title shortcode category severity explanation
        issue { shortcode shortDescription analyzer { shortcode } } } } } } } }`,
      { id: encodeGlobalId("Check", check.key) },
    );
    assert.deepEqual(full.node.issues.edges[0]?.node, {
      source: "AI",
      path: "src/auth/login.py",
      beginLine: 7,
      beginColumn: 1,
      endLine: 8,
      endColumn: 10,
      title: "Hardcoded password",
      shortcode: "BAN-B105",
      category: "SECURITY",
      severity: "CRITICAL",
      explanation: "The string is compared with user input.",
      issue: {
        shortcode: "BAN-B105",
        shortDescription: password.short_description,
        analyzer: { shortcode: analyzer.shortcode },
      },
    });
  });

  test("Check.issues tells new findings from those the base had, and filters and counts by it", async () => {
    const { run, check, issue } = await aCheckWithIssue();
    await occurrencesIn(server.db, check, [
      { issue, path: "a.py", state: "INTRODUCED" },
      { issue, path: "b.py", state: "EXISTING" },
      { issue, path: "c.py", state: "INTRODUCED", isSuppressed: true },
      { issue, path: "d.py", state: "RESOLVED" },
      { issue, path: "e.py", state: "EXISTING", isSuppressed: true },
    ]);
    type Page = {
      totalCount: number;
      edges: Array<{ node: { path: string; isIntroduced: boolean; isSuppressed: boolean } }>;
    };
    type Lists = Record<"all" | "introduced" | "existing" | "suppressed" | "suppressedNew", Page>;
    const fields = "totalCount edges { node { path isIntroduced isSuppressed } }";
    const data = await runField<{
      checks: Connection<
        Lists & { summary: { occurrencesIntroduced: number; occurrencesSuppressed: number } }
      >;
    }>(
      run,
      `checks { edges { node {
        summary { occurrencesIntroduced occurrencesSuppressed }
        all: issues { ${fields} }
        introduced: issues(isIntroduced: true) { ${fields} }
        existing: issues(isIntroduced: false) { ${fields} }
        suppressed: issues(isSuppressed: true) { ${fields} }
        suppressedNew: issues(isSuppressed: true, isIntroduced: true) { ${fields} } } } }`,
    );
    const node = data.checks.edges[0]?.node;
    assert.ok(node);
    const listed = (page: Page) =>
      page.edges.map((e) => [e.node.path, e.node.isIntroduced, e.node.isSuppressed]);
    // Suppressed findings are left out unless asked for (docs/api.md "Checks, findings and summaries").
    assert.deepEqual(listed(node.all), [
      ["a.py", true, false],
      ["b.py", false, false],
    ]);
    assert.deepEqual(listed(node.introduced), [["a.py", true, false]]);
    assert.deepEqual(listed(node.existing), [["b.py", false, false]]);
    assert.deepEqual(listed(node.suppressed), [
      ["c.py", true, true],
      ["e.py", false, true],
    ]);
    assert.deepEqual(listed(node.suppressedNew), [["c.py", true, true]]);
    assert.deepEqual(
      [node.all, node.introduced, node.existing, node.suppressed, node.suppressedNew].map(
        (p) => p.totalCount,
      ),
      [2, 1, 1, 2, 1],
    );
    assert.equal(node.introduced.totalCount, node.summary.occurrencesIntroduced);
    assert.equal(node.suppressed.totalCount, node.summary.occurrencesSuppressed);
  });

  test("Check.issues pages both ways in reading order", async () => {
    const { check, issue } = await aCheckWithIssue();
    const made = await occurrencesIn(
      server.db,
      check,
      Array.from({ length: 7 }, (_, i) => ({ issue, path: `f${7 - i}.py`, title: `t${7 - i}` })),
    );
    const expected = [...made].reverse().map((o) => o.title);
    const load = async (args: PageArgs) => {
      const data = await query<{ node: { issues: Connection<{ title: string }> } }>(
        `query($id: ID!, $first: Int, $last: Int, $after: String, $before: String) {
          node(id: $id) { ... on Check { issues(first: $first, last: $last, after: $after, before: $before) {
            ${PAGE_INFO} edges { node { title } } } } } }`,
        { id: encodeGlobalId("Check", check.key), ...args },
      );
      const connection = data.node.issues;
      return { ...connection, edges: connection.edges.map((e) => ({ ...e, node: { id: e.node.title } })) };
    };
    await assertPagesBothWays(load, 3, expected);
  });

  test("AnalysisRun.changesetStats answers the run's coverage report, and null without one", async () => {
    const run = await aRun(server.db, repo);
    await aCheck(server.db, run, python);
    const check = await aCheck(server.db, run, coverage);
    await aCoverageReport(server.db, check, {
      lines_total: 1000,
      lines_covered: 800,
      lines_new: 40,
      lines_new_covered: 30,
      branches_total: 200,
      branches_covered: 150,
      conditions_total: 0,
      conditions_covered: 0,
    });
    const selection =
      "changesetStats { lines { overall overallCovered new newCovered } branches { overall overallCovered new newCovered } conditions { overall overallCovered new newCovered } }";
    const stats = await runField<{ changesetStats: unknown }>(run, selection);
    assert.deepEqual(stats.changesetStats, {
      lines: { overall: 1000, overallCovered: 800, new: 40, newCovered: 30 },
      branches: { overall: 200, overallCovered: 150, new: null, newCovered: null },
      conditions: { overall: 0, overallCovered: 0, new: null, newCovered: null },
    });
    // A run without a coverage check, and one whose coverage check has no report yet.
    const none = await aRun(server.db, repo);
    await aCheck(server.db, none, python);
    const pending = await aRun(server.db, repo);
    await aCheck(server.db, pending, coverage, { status: "ARTIFACT_TIMEOUT" });
    // Another analyzer's report is not the run's coverage.
    const stray = await aRun(server.db, repo);
    await aCoverageReport(server.db, await aCheck(server.db, stray, python), { lines_total: 5 });
    for (const r of [none, pending, stray]) {
      assert.equal((await runField<{ changesetStats: unknown }>(r, selection)).changesetStats, null);
    }
  });

  test("Check and Occurrence resolve through node for a member and like a missing id for anyone else", async () => {
    const { check, issue } = await aCheckWithIssue();
    const occurrence = await anOccurrence(server.db, check, { issue, path: "x.py" });
    const resolved = await anOccurrence(server.db, check, { issue, path: "y.py", state: "RESOLVED" });
    const mine = await query<{
      a: Record<string, unknown>;
      b: Record<string, unknown>;
      c: Record<string, unknown>;
    }>(
      `query($a: ID!, $b: ID!, $c: ID!) {
        a: node(id: $a) { __typename id ... on Check { sequence analyzer { shortcode } } }
        b: node(id: $b) { __typename id ... on Occurrence { path issue { shortcode } } }
        c: node(id: $c) { __typename ... on Occurrence { path } } }`,
      {
        a: encodeGlobalId("Check", check.key),
        b: encodeGlobalId("Occurrence", occurrence.key),
        c: encodeGlobalId("Occurrence", resolved.key),
      },
    );
    assert.deepEqual(mine.a, {
      __typename: "Check",
      id: encodeGlobalId("Check", check.key),
      sequence: check.sequence,
      analyzer: { shortcode: python.shortcode },
    });
    assert.deepEqual(mine.b, {
      __typename: "Occurrence",
      id: encodeGlobalId("Occurrence", occurrence.key),
      path: "x.py",
      issue: { shortcode: issue.shortcode },
    });
    assert.deepEqual(mine.c, { __typename: "Occurrence", path: "y.py" });

    const theirRun = await aRun(server.db, hiddenRepo);
    const theirCheck = await aCheck(server.db, theirRun, python);
    const theirOccurrence = await anOccurrence(server.db, theirCheck, { issue });
    const nodeAnswer = async (id: string) => {
      const res = await gql(
        server.endpoint,
        token,
        `query($id: ID!) { node(id: $id) { id ... on Check { summary { occurrencesIntroduced } occurrences { edges { node { path } } } } ... on Occurrence { path } } }`,
        { id },
      );
      return { data: res.body.data, errors: res.body.errors?.map((e) => [e.message, e.extensions?.code]) };
    };
    for (const [type, key] of [
      ["Check", theirCheck.key],
      ["Occurrence", theirOccurrence.key],
    ] as const) {
      const hiddenAnswer = await nodeAnswer(encodeGlobalId(type, key));
      const missingId = encodeGlobalId(type, newRowKey());
      const missingAnswer = await nodeAnswer(missingId);
      assert.deepEqual(hiddenAnswer.data, { node: null });
      assert.deepEqual(hiddenAnswer.errors, [
        [`No node with id "${encodeGlobalId(type, key)}" exists.`, "NOT_FOUND"],
      ]);
      assert.deepEqual(missingAnswer.errors, [[`No node with id "${missingId}" exists.`, "NOT_FOUND"]]);
    }
  });

  test("the statements for a page of runs with checks and summaries do not grow with the page size", async () => {
    const { db } = server;
    const reader = await aUser(db);
    const account = await anAccount(db, {}, [{ user: reader, role: "MEMBER" }]);
    const repository = await aRepository(db, account);
    const analyzers = [python, javascript, secrets];
    const issues = await Promise.all(analyzers.map((a) => anIssue(db, a, { category: "BUG_RISK" })));
    const base = Date.UTC(2025, 0, 1);
    const runs = await db
      .insertInto("analysis_runs")
      .values(
        Array.from({ length: 110 }, (_, i) => ({
          key: newRowKey(),
          run_uid: randomUUID(),
          repository_id: repository.id,
          branch_name: "main",
          commit_oid: randomUUID().replaceAll("-", "").padEnd(40, "0"),
          status: "SUCCESS" as const,
          created_at: new Date(base + i * 60_000),
          updated_at: new Date(base + i * 60_000),
        })),
      )
      .returningAll()
      .execute();
    const checks = await db
      .insertInto("checks")
      .values(
        runs.flatMap((run) =>
          analyzers.map((analyzer, i) => ({
            key: newRowKey(),
            run_id: run.id,
            analyzer_id: analyzer.id,
            sequence: i + 1,
            status: "SUCCESS" as const,
          })),
        ),
      )
      .returningAll()
      .execute();
    await db
      .insertInto("occurrences")
      .values(
        checks.flatMap((check, c) =>
          (["INTRODUCED", "EXISTING", "RESOLVED"] as const).map((state, i) => ({
            key: newRowKey(),
            check_id: check.id,
            issue_id: issues[c % analyzers.length]!.id,
            path: `f${i}.py`,
            begin_line: i + 1,
            end_line: i + 1,
            title: "t",
            fingerprint: `${c}-${i}`,
            state,
          })),
        ),
      )
      .execute();
    await refreshCheckIssueCounts(
      db,
      checks.map((check) => check.id),
    );
    const readerToken = await aToken(db, server.config.tokenPepper, reader);
    // A token used within the minute is not touched again, so no UPDATE lands in either request.
    await db
      .updateTable("personal_access_tokens")
      .set({ last_used_at: new Date() })
      .where("user_id", "=", reader.id)
      .execute();
    const text = `query($name: String!, $login: String!, $n: Int) {
      repository(name: $name, login: $login, vcsProvider: GITHUB) { analysisRuns(first: $n) { edges { node {
        summary { occurrencesIntroduced occurrenceDistributionByCategory { category introduced } }
        checks { edges { node { summary { occurrencesIntroduced } analyzer { shortcode } } } }
      } } } } }`;
    type Result = {
      repository: {
        analysisRuns: {
          edges: Array<{
            node: {
              summary: { occurrencesIntroduced: number };
              checks: { edges: Array<{ node: { summary: { occurrencesIntroduced: number } } }> };
            };
          }>;
        };
      };
    };
    const measure = async (n: number) => {
      await settle(server.statements);
      const start = server.statements.length;
      const res = await gql<Result>(server.endpoint, readerToken, text, {
        name: repository.name,
        login: account.login,
        n,
      });
      const statements = server.statements.slice(start);
      assert.deepEqual(res.body.errors, undefined);
      const edges = dataOf(res).repository as Result["repository"];
      const runNodes = edges.analysisRuns.edges.map((e) => e.node);
      assert.ok(runNodes.every((r) => r.summary.occurrencesIntroduced === 3));
      const checkNodes = runNodes.flatMap((r) => r.checks.edges.map((e) => e.node));
      assert.ok(checkNodes.every((c) => c.summary.occurrencesIntroduced === 1));
      return { statements, runs: runNodes.length, checks: checkNodes.length };
    };
    await measure(1);
    const small = await measure(10);
    const large = await measure(100);
    assert.deepEqual([small.runs, small.checks, large.runs, large.checks], [10, 30, 100, 300]);
    assertPageSizeIndependent(small.statements, large.statements);
  });
});
