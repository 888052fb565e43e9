// test-runner: execution-mode independent (uploads processed by the worker; the catalog fields' execution is covered in both modes by test/catalog.test.ts)
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { AccountRow, AnalyzerRow } from "../src/db/types.ts";
import { readToolFixture, toolFixture } from "../src/formats/fixtures.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { upsertMembership } from "../src/modules/accounts/account-store.ts";
import { aToken, aUser } from "./helpers/builders.ts";
import { issuesIn } from "./helpers/builders-catalog.ts";
import { aCommitOid } from "./helpers/builders-metrics.ts";
import { anUploader, runSettled, type Uploader, uploadCommunityReport } from "./helpers/community-uploads.ts";
import { type GraphQLResponse, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * The catalog's reads of an analyzer's issues (`Analyzer.issues`, `issue(shortcode:)`,
 * `numIssues`, `issueDistribution`) show a viewer the shared catalog's issues and those its
 * accounts' uploads filed, and never another account's (docs/decisions.md "The catalog's lists
 * show the viewer's accounts' issues"). Two accounts upload real reports, ESLint's and oxlint's,
 * under one COMMUNITY analyzer, which also has shared issues (filed before issues belonged to
 * accounts). What each viewer must read is taken from the stored rows: the shared ones and those
 * of the accounts it belongs to.
 */

const ESLINT = toolFixture("sarif", "eslint", "eslint.sarif");
const ESLINT_REPORT = readToolFixture("sarif", "eslint", "eslint.sarif");
const OXLINT = toolFixture("sarif", "oxlint", "oxlint.sarif");
const OXLINT_REPORT = readToolFixture("sarif", "oxlint", "oxlint.sarif");

const ANALYZER_ISSUES = `query($analyzer: String!, $shortcode: String!) {
  analyzer(shortcode: $analyzer) {
    numIssues
    issueDistribution { category count }
    issues(first: 100) { totalCount edges { node { id shortcode category } } }
    issue(shortcode: $shortcode) { id shortcode }
  }
}`;

interface IssueView {
  id: string;
  shortcode: string;
  category: string;
}

interface AnalyzerRead {
  analyzer: {
    numIssues: number;
    issueDistribution: Array<{ category: string; count: number }>;
    issues: { totalCount: number; edges: Array<{ node: IssueView }> };
    issue: { id: string; shortcode: string } | null;
  };
}

let server: TestServer;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
});
after(() => server?.stop());

/** A user with a token, a member of each of `accounts`. */
async function aViewer(accounts: readonly AccountRow[]): Promise<string> {
  const user = await aUser(server.db);
  for (const account of accounts) {
    await upsertMembership(server.db, {
      key: newRowKey(),
      accountId: account.id,
      userId: user.id,
      role: "MEMBER",
    });
  }
  return aToken(server.db, server.config.tokenPepper, user);
}

/** Uploads `report` as the COMMUNITY analyzer `analyzer`'s, and waits for its run to settle. */
async function uploaded(who: Uploader, analyzer: string, report: string, workDir: string): Promise<void> {
  const commit = aCommitOid();
  await uploadCommunityReport(server, who, commit, analyzer, report, workDir);
  await runSettled(server, who, commit);
}

/** The analyzer with this shortcode, as stored. */
function analyzerRow(shortcode: string): Promise<AnalyzerRow> {
  return server.db
    .selectFrom("analyzers")
    .selectAll()
    .where("shortcode", "=", shortcode)
    .executeTakeFirstOrThrow();
}

/**
 * The stored issues of `analyzer` that a member of exactly `accounts` may read: the shared ones
 * and those accounts' own, each as `Analyzer.issues` shows it.
 */
async function readableIssues(analyzer: AnalyzerRow, accounts: readonly AccountRow[]): Promise<IssueView[]> {
  const owners = new Set(accounts.map((account) => String(account.id)));
  const rows = await server.db
    .selectFrom("issues")
    .select(["key", "shortcode", "category", "account_id"])
    .where("analyzer_id", "=", analyzer.id)
    .execute();
  return rows
    .filter((row) => row.account_id === null || owners.has(String(row.account_id)))
    .map((row) => ({
      id: encodeGlobalId("Issue", row.key),
      shortcode: row.shortcode,
      category: row.category,
    }));
}

/** The global id of the issue `account` owns under `analyzer` with `shortcode`. */
async function ownIssueId(analyzer: AnalyzerRow, account: AccountRow, shortcode: string): Promise<string> {
  const row = await server.db
    .selectFrom("issues")
    .select("key")
    .where("analyzer_id", "=", analyzer.id)
    .where("account_id", "=", account.id)
    .where("shortcode", "=", shortcode)
    .executeTakeFirstOrThrow();
  return encodeGlobalId("Issue", row.key);
}

/** What `token` reads of `analyzer`'s issues, with `issue(shortcode: shortcode)`. */
function analyzerRead(token: string, analyzer: AnalyzerRow, shortcode: string) {
  return gql<AnalyzerRead>(server.endpoint, token, ANALYZER_ISSUES, {
    analyzer: analyzer.shortcode,
    shortcode,
  });
}

const byId = (a: IssueView, b: IssueView) => a.id.localeCompare(b.id);

/** Issues per category, as `issueDistribution` counts them (ordered by category here). */
function tally(issues: readonly IssueView[]): Array<{ category: string; count: number }> {
  const counts = new Map<string, number>();
  for (const issue of issues) counts.set(issue.category, (counts.get(issue.category) ?? 0) + 1);
  return [...counts]
    .map(([category, count]) => ({ category, count }))
    .sort((a, b) => a.category.localeCompare(b.category));
}

/** Asserts the lists, counts and distribution `token` reads are exactly `expected`. */
async function assertReads(
  token: string,
  analyzer: AnalyzerRow,
  expected: readonly IssueView[],
): Promise<void> {
  const response = await analyzerRead(token, analyzer, `no-such-rule-${newRowKey()}`);
  const read = response.body.data!.analyzer;
  assert.deepEqual(read.issues.edges.map((edge) => edge.node).sort(byId), [...expected].sort(byId));
  assert.equal(read.issues.totalCount, expected.length);
  assert.equal(read.numIssues, expected.length);
  assert.deepEqual(
    [...read.issueDistribution].sort((a, b) => a.category.localeCompare(b.category)),
    tally(expected),
  );
}

describe("an analyzer's issues as each viewer reads them", () => {
  let analyzer: AnalyzerRow;
  let eslint: Uploader;
  let oxlint: Uploader;
  /** Who reads, by name: each uploader, a member of both accounts, and a user of neither. */
  const viewers = new Map<string, { token: string; accounts: AccountRow[] }>();
  let sharedUnusedVars: string;

  before(async () => {
    const shortcode = `lint-${aCommitOid().slice(0, 8)}`;
    eslint = await anUploader(server);
    oxlint = await anUploader(server);
    await uploaded(eslint, shortcode, ESLINT_REPORT, ESLINT.workDir);
    await uploaded(oxlint, shortcode, OXLINT_REPORT, OXLINT.workDir);
    analyzer = await analyzerRow(shortcode);
    // Shared issues of the analyzer, as the upgrade left those that several accounts used: one of
    // a rule the ESLint account also has its own issue of, one of a rule nobody uploaded since.
    const [unusedVars] = await issuesIn(server.db, [
      { analyzer, shortcode: "no-unused-vars", category: "STYLE" },
      { analyzer, category: "DOCUMENTATION" },
    ]);
    sharedUnusedVars = encodeGlobalId("Issue", unusedVars!.key);
    const both = [eslint.account, oxlint.account];
    viewers.set("eslint", { token: eslint.token, accounts: [eslint.account] });
    viewers.set("oxlint", { token: oxlint.token, accounts: [oxlint.account] });
    viewers.set("both", { token: await aViewer(both), accounts: both });
    viewers.set("outsider", { token: await aViewer([]), accounts: [] });
  });

  it("shows each viewer the shared issues and its accounts' own in issues, numIssues and issueDistribution, and no other account's", async () => {
    const shared = new Set((await readableIssues(analyzer, [])).map((issue) => issue.id));
    const ownOf = async (who: Uploader) =>
      (await readableIssues(analyzer, [who.account])).filter((issue) => !shared.has(issue.id));
    const eslintOwn = await ownOf(eslint);
    const oxlintOwn = await ownOf(oxlint);
    // Each report filed an issue of each of its rules, under shortcodes the other does not use.
    assert.equal(shared.size, 2);
    assert.equal(new Set(eslintOwn.map((issue) => issue.shortcode)).size, 12);
    assert.ok(oxlintOwn.length >= 10, `${oxlintOwn.length} own issues`);
    assert.ok(oxlintOwn.every((issue) => !eslintOwn.some((other) => other.shortcode === issue.shortcode)));
    for (const [name, viewer] of viewers) {
      await assertReads(viewer.token, analyzer, await readableIssues(analyzer, viewer.accounts)).catch(
        (error) => {
          throw new Error(`${name}: ${error.message}`);
        },
      );
    }
  });

  it("answers issue(shortcode:) with the shared issue before an account's own of the same rule", async () => {
    for (const viewer of viewers.values()) {
      const response = await analyzerRead(viewer.token, analyzer, "no-unused-vars");
      assert.deepEqual(response.body.data?.analyzer.issue, {
        id: sharedUnusedVars,
        shortcode: "no-unused-vars",
      });
    }
  });

  it("answers issue(shortcode:) with a member's own issue, and another account's as a shortcode nobody has", async () => {
    const cases = [
      { shortcode: "eqeqeq", owner: eslint, readers: ["eslint", "both"] },
      { shortcode: "eslint(eqeqeq)", owner: oxlint, readers: ["oxlint", "both"] },
    ] as const;
    for (const { shortcode, owner, readers } of cases) {
      const id = await ownIssueId(analyzer, owner.account, shortcode);
      for (const [name, viewer] of viewers) {
        const response = await analyzerRead(viewer.token, analyzer, shortcode);
        if ((readers as readonly string[]).includes(name)) {
          assert.deepEqual(response.body.data?.analyzer.issue, { id, shortcode }, name);
          continue;
        }
        const nobody = `no-such-rule-${newRowKey()}`;
        const unknown = await analyzerRead(viewer.token, analyzer, nobody);
        assert.equal(response.body.data?.analyzer.issue, null, name);
        assert.equal(response.body.errors?.[0]?.extensions?.code, "NOT_FOUND", name);
        // The whole answer is the one a shortcode nobody has gets: the same error, the same lists.
        assert.deepEqual(response.body, unknown.body, name);
      }
    }
  });
});

describe("a rule two accounts of a viewer both uploaded", () => {
  it("is listed once for each account, and issue(shortcode:) answers the issue filed first", async () => {
    const shortcode = `eslint-both-${aCommitOid().slice(0, 8)}`;
    const first = await anUploader(server);
    const second = await anUploader(server);
    await uploaded(first, shortcode, ESLINT_REPORT, ESLINT.workDir);
    await uploaded(second, shortcode, ESLINT_REPORT, ESLINT.workDir);
    const analyzer = await analyzerRow(shortcode);
    const both = [first.account, second.account];
    const token = await aViewer(both);
    const expected = await readableIssues(analyzer, both);
    assert.equal(expected.filter((issue) => issue.shortcode === "eqeqeq").length, 2);
    await assertReads(token, analyzer, expected);
    const firstFiled = await ownIssueId(analyzer, first.account, "eqeqeq");
    const response = await analyzerRead(token, analyzer, "eqeqeq");
    assert.deepEqual(response.body.data?.analyzer.issue, { id: firstFiled, shortcode: "eqeqeq" });
    // Each account alone reads its own.
    const secondOwn = await ownIssueId(analyzer, second.account, "eqeqeq");
    const alone = await analyzerRead(second.token, analyzer, "eqeqeq");
    assert.deepEqual(alone.body.data?.analyzer.issue, { id: secondOwn, shortcode: "eqeqeq" });
  });
});

describe("naming a COMMUNITY rule the account has not uploaded", () => {
  const SUPPRESS = `mutation($input: SuppressIssueForTeamInput!) { suppressIssueForTeam(input: $input) { ok } }`;
  const IGNORE = `mutation($input: CreateIgnoreRuleInput!) { createIgnoreRule(input: $input) { ignoreRule { id } } }`;

  function suppress(who: Uploader, issueShortcode: string) {
    return gql(server.endpoint, who.token, SUPPRESS, {
      input: { issueShortcode, login: who.account.login, vcsProvider: "GITHUB" },
    });
  }

  function ignore(who: Uploader, issueShortcode: string) {
    return gql(server.endpoint, who.token, IGNORE, {
      input: {
        repositoryId: encodeGlobalId("Repository", who.repository.key),
        issueShortcode,
        level: "REPOSITORY",
        type: "FOREVER",
      },
    });
  }

  /** The one error of `response`: BAD_USER_INPUT naming issueShortcode; answers its message. */
  function refusal(response: GraphQLResponse): string {
    assert.equal(response.body.errors?.length, 1, JSON.stringify(response.body.errors));
    const [error] = response.body.errors!;
    assert.equal(error!.extensions?.code, "BAD_USER_INPUT", error!.message);
    assert.equal(error!.extensions?.field, "issueShortcode", error!.message);
    return error!.message;
  }

  it("refuses it as BAD_USER_INPUT naming the shortcode and the account, as if no account had it, until the account uploads it", async () => {
    const shortcode = `eslint-named-${aCommitOid().slice(0, 8)}`;
    const uploader = await anUploader(server);
    await uploaded(uploader, shortcode, ESLINT_REPORT, ESLINT.workDir);
    const admin = await anUploader(server, "ADMIN");
    const nobody = `no-such-rule-${newRowKey()}`;

    const suppressed = refusal(await suppress(admin, "eqeqeq"));
    assert.match(suppressed, /"eqeqeq"/);
    assert.ok(
      suppressed.includes(`the account "${admin.account.login}"`) && suppressed.includes("yet"),
      suppressed,
    );
    assert.equal(
      suppressed.replace('"eqeqeq"', '"<shortcode>"'),
      refusal(await suppress(admin, nobody)).replace(`"${nobody}"`, '"<shortcode>"'),
    );
    const ignored = refusal(await ignore(admin, "eqeqeq"));
    assert.match(ignored, /"eqeqeq".*this repository's account.*yet/);
    assert.equal(
      ignored.replace('"eqeqeq"', '"<shortcode>"'),
      refusal(await ignore(admin, nobody)).replace(`"${nobody}"`, '"<shortcode>"'),
    );
    const written = async () => ({
      suppressions: await server.db
        .selectFrom("team_suppressed_issues")
        .select("issue_id")
        .where("account_id", "=", admin.account.id)
        .execute(),
      rules: await server.db
        .selectFrom("ignore_rules")
        .select("issue_id")
        .where("repository_id", "=", admin.repository.id)
        .execute(),
    });
    assert.deepEqual(await written(), { suppressions: [], rules: [] });

    // Once an upload of the account reports the rule, both name the account's own issue.
    await uploaded(admin, shortcode, ESLINT_REPORT, ESLINT.workDir);
    assert.deepEqual((await suppress(admin, "eqeqeq")).body, {
      data: { suppressIssueForTeam: { ok: true } },
    });
    assert.equal((await ignore(admin, "eqeqeq")).body.errors, undefined);
    const analyzer = await analyzerRow(shortcode);
    const own = await server.db
      .selectFrom("issues")
      .select("id")
      .where("analyzer_id", "=", analyzer.id)
      .where("account_id", "=", admin.account.id)
      .where("shortcode", "=", "eqeqeq")
      .executeTakeFirstOrThrow();
    assert.deepEqual(await written(), {
      suppressions: [{ issue_id: own.id }],
      rules: [{ issue_id: own.id }],
    });
  });
});
