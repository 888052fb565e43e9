import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { Kysely } from "kysely";
import type {
  AccountRow,
  AnalysisRunRow,
  AnalyzerRow,
  Database,
  IssueRow,
  PackageVersionRow,
  RepositoryRow,
  UserRow,
  VulnerabilityRow,
} from "../src/db/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { nodeTypeNames } from "../src/graphql/node.ts";
import "../src/modules/index.ts";
import { createToken } from "../src/modules/auth/token-service.ts";
import { anAccount, aRepository, aRun, aToken, aUser } from "./helpers/builders.ts";
import { anArtifact } from "./helpers/builders-artifacts.ts";
import { aCodeFormatter, anAnalyzer, anIssue } from "./helpers/builders-catalog.ts";
import { aCheck, anOccurrence } from "./helpers/builders-checks.ts";
import {
  anScaCheck,
  aPackage,
  aPackageVersion,
  aTarget,
  aVulnerability,
  aVulnerabilityOccurrence,
} from "./helpers/builders-dependencies.ts";
import { aMetricItem, aMetricValue, anIgnoreRule, aSuppressedIssue } from "./helpers/builders-metrics.ts";
import { aPullRequest, aPullRequestRun } from "./helpers/builders-pull-requests.ts";
import { aWebhookDelivery, aWebhookEndpoint } from "./helpers/builders-webhooks.ts";
import { dataOf, type GraphQLResponse, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * Cross-account visibility, over every node type: another account's objects answer exactly like
 * ids that were never issued, and no nested field of the viewer's own objects reaches them.
 */

/** Node types everyone may read: the global catalog and the installation. */
const GLOBAL_TYPES = [
  "Analyzer",
  "CodeFormatter",
  "Installation",
  "Issue",
  "Metric",
  "Package",
  "PackageVersion",
  "Transformer",
  "Vulnerability",
] as const;

/** Node types that belong to an account, each seeded in both worlds below. */
const ACCOUNT_TYPES = [
  "Account",
  "AnalysisRun",
  "Artifact",
  "Check",
  "IgnoreRule",
  "Occurrence",
  "PullRequest",
  "Repository",
  "RepositoryIssue",
  "RepositoryMetricItem",
  "MetricValue",
  "RepositoryTarget",
  "RunReport",
  "SCACheck",
  "TeamMember",
  "TeamSuppressedIssue",
  "User",
  "VulnerabilityOccurrence",
  // Readable by the team's ADMINs only; each world's owner is its ADMIN.
  "WebhookDelivery",
  "WebhookEndpoint",
  // A user's, not an account's: seeded for each world's owner, visible to that owner alone.
  "PersonalAccessToken",
] as const;

/** Types another helper may be adding; covered when registered (keyed by the repository). */
const OPTIONAL_ACCOUNT_TYPES = ["CodeCoverageReportRepository"] as const;

/** The catalog rows both worlds share. */
interface Catalog {
  analyzer: AnalyzerRow;
  issue: IssueRow;
  version: PackageVersionRow;
  vulnerability: VulnerabilityRow;
}

/** One account with one object of every account-scoped node type, and their global ids. */
interface World {
  account: AccountRow;
  repository: RepositoryRow;
  run: AnalysisRunRow;
  /** Global id per node type. */
  ids: Map<string, string>;
}

async function seedWorld(
  db: Kysely<Database>,
  catalog: Catalog,
  owner: UserRow,
  others: readonly UserRow[],
): Promise<World> {
  const account = await anAccount(db, {}, [
    { user: owner, role: "ADMIN", isOwner: true },
    ...others.map((user) => ({ user })),
  ]);
  const repository = await aRepository(db, account);
  const run = await aRun(db, repository);
  const check = await aCheck(db, run, catalog.analyzer);
  const occurrence = await anOccurrence(db, check, { issue: catalog.issue });
  const artifact = await anArtifact(db, run, check, {
    analyzer: catalog.analyzer.shortcode,
    result: { read: 1, stored: 1, skipped: {}, warnings: [], counts: {} },
  });
  const pullRequest = await aPullRequest(db, repository);
  const prRun = await aPullRequestRun(db, repository, pullRequest);
  const prCheck = await aCheck(db, prRun, catalog.analyzer);
  await anOccurrence(db, prCheck, { issue: catalog.issue, path: "src/pr.py" });
  const item = await aMetricItem(db, repository, "BCV", { threshold: 60 });
  const value = await aMetricValue(db, item, { value: 72, commitOid: run.commit_oid });
  const rule = await anIgnoreRule(db, repository, catalog.issue, { createdBy: owner });
  const suppressed = await aSuppressedIssue(db, account, catalog.issue, { user: owner });
  const target = await aTarget(db, repository);
  const scaCheck = await anScaCheck(db, run, { target });
  const vulnerabilityOccurrence = await aVulnerabilityOccurrence(db, scaCheck, {
    vulnerability: catalog.vulnerability,
    version: catalog.version,
  });
  const { row: personalAccessToken } = await createToken(db, "visibility-pepper-0123456789", {
    userId: owner.id,
    name: "seeded",
    expiresInDays: 30,
  });
  const webhookEndpoint = await aWebhookEndpoint(db, "visibility-pepper-0123456789", account);
  const webhookDelivery = await aWebhookDelivery(db, webhookEndpoint);
  const membership = await db
    .selectFrom("memberships")
    .select("key")
    .where("account_id", "=", account.id)
    .where("user_id", "=", owner.id)
    .executeTakeFirstOrThrow();
  const keys: Record<string, string> = {
    Account: account.key,
    AnalysisRun: run.key,
    Artifact: artifact.key,
    Check: check.key,
    IgnoreRule: rule.key,
    Occurrence: occurrence.key,
    PullRequest: pullRequest.key,
    Repository: repository.key,
    RepositoryIssue: repository.key + catalog.issue.key,
    RepositoryMetricItem: item.key,
    MetricValue: value.key,
    RepositoryTarget: target.key,
    RunReport: run.key,
    SCACheck: scaCheck.key,
    TeamMember: membership.key,
    TeamSuppressedIssue: suppressed.key,
    User: owner.key,
    VulnerabilityOccurrence: vulnerabilityOccurrence.key,
    WebhookDelivery: webhookDelivery.key,
    WebhookEndpoint: webhookEndpoint.key,
    PersonalAccessToken: personalAccessToken.key,
    CodeCoverageReportRepository: repository.key,
  };
  const ids = new Map(Object.entries(keys).map(([type, key]) => [type, encodeGlobalId(type, key)]));
  // The other run of the world is reachable too; keep its id with the rest.
  ids.set("AnalysisRun:pr", encodeGlobalId("AnalysisRun", prRun.key));
  ids.set("Check:pr", encodeGlobalId("Check", prCheck.key));
  return { account, repository, run, ids };
}

/** A response with `id` written as `<ID>`, for comparing answers about different ids. */
function masked(response: GraphQLResponse, ...ids: string[]): string {
  let text = JSON.stringify({ status: response.status, body: response.body });
  for (const id of ids) text = text.replaceAll(id, "<ID>");
  return text;
}

/** `query` with `first: 5` on every connection it selects without arguments (the node limit). */
function paged(query: string): string {
  return query.replace(/(\w+) \{ edges/g, "$1(first: 5) { edges");
}

/** Every `id` value anywhere in `value`. */
function collectIds(value: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) collectIds(item, into);
  } else if (value !== null && typeof value === "object") {
    for (const [field, inner] of Object.entries(value)) {
      if (field === "id" && typeof inner === "string") into.add(inner);
      else collectIds(inner, into);
    }
  }
  return into;
}

const NODE_QUERY = `query Node($id: ID!) { node(id: $id) { id __typename } }`;

/** Wide selections of a repository, split to stay under the depth limit. */
const REPOSITORY_WIDE = `
  id
  account { id members { edges { node { id user { id accounts { edges { node { id } } } } } } } }
  analysisRuns { edges { node { id reportCard { id } repository { id }
    artifacts { edges { node { id run { id } check { id } } } }
    checks { edges { node { id analyzer { id } artifacts { edges { node { id } } }
      occurrences { edges { node { id issue { id } } } } } } }
    scaChecks { edges { node { id vulnerabilityOccurrences { edges { node { id
      package { id } packageVersion { id } vulnerability { id } } } } } } } } } }
  issues { edges { node { id issue { id } repository { id } occurrences { edges { node { id } } } } } }
  issueOccurrences { edges { node { id issue { id } } } }
  pullRequests { edges { node { id latestAnalysisRun { id checks { edges { node { id } } } }
    issueOccurrences { edges { node { id } } }
    vulnerabilityOccurrences { edges { node { id } } } } } }
  metrics { items { id values { edges { node { id } } } } }
  ignoreRules { edges { node { id issue { id } } } }
  targets { edges { node { id } } }
  dependencyVulnerabilityOccurrences { edges { node { id } } }
`;

describe("visibility across accounts", () => {
  let server: TestServer;
  let token: string;
  let viewer: UserRow;
  let shared: UserRow;
  let mine: World;
  let theirs: World;
  let globalIds: Map<string, string>;

  before(async () => {
    server = await startTestServer();
    const { db } = server;
    const analyzer = await anAnalyzer(db);
    const issue = await anIssue(db, analyzer);
    const pkg = await aPackage(db);
    const version = await aPackageVersion(db, pkg);
    const vulnerability = await aVulnerability(db);
    const formatter = await aCodeFormatter(db, { analyzer });
    const catalog: Catalog = { analyzer, issue, version, vulnerability };
    viewer = await aUser(db, { firstName: "Vera" });
    shared = await aUser(db, { firstName: "Sam" });
    const stranger = await aUser(db, { firstName: "Stan" });
    mine = await seedWorld(db, catalog, viewer, [shared]);
    theirs = await seedWorld(db, catalog, stranger, [shared]);
    token = await aToken(db, server.config.tokenPepper, viewer);
    const metric = await db.selectFrom("metrics").select("key").limit(1).executeTakeFirstOrThrow();
    const installation = await gql(server.endpoint, token, `{ installation { id } }`);
    const installationId = (dataOf(installation).installation as { id: string } | null)?.id;
    assert.ok(installationId, "the installation has an id");
    globalIds = new Map([
      ["Analyzer", encodeGlobalId("Analyzer", analyzer.key)],
      ["CodeFormatter", encodeGlobalId("CodeFormatter", formatter.key)],
      ["Installation", installationId],
      ["Issue", encodeGlobalId("Issue", issue.key)],
      ["Metric", encodeGlobalId("Metric", metric.key)],
      ["Package", encodeGlobalId("Package", pkg.key)],
      ["PackageVersion", encodeGlobalId("PackageVersion", version.key)],
      ["Transformer", encodeGlobalId("Transformer", formatter.key)],
      ["Vulnerability", encodeGlobalId("Vulnerability", vulnerability.key)],
    ]);
  });
  after(() => server.stop());

  /** The account-scoped types registered right now. */
  const accountTypes = (): string[] => [
    ...ACCOUNT_TYPES,
    ...OPTIONAL_ACCOUNT_TYPES.filter((type) => nodeTypeNames().includes(type)),
  ];

  /** The viewer's own ids and the stranger's, without the world-internal extras. */
  const strangerIds = (): Set<string> => new Set(theirs.ids.values());

  test("every registered node type is classified as global or account-scoped", () => {
    const registered = nodeTypeNames();
    for (const type of [...GLOBAL_TYPES, ...ACCOUNT_TYPES]) {
      assert.ok(registered.includes(type), `${type} is registered with node(id:)`);
    }
    const classified = new Set<string>([...GLOBAL_TYPES, ...ACCOUNT_TYPES, ...OPTIONAL_ACCOUNT_TYPES]);
    assert.deepEqual(
      registered.filter((type) => !classified.has(type)),
      [],
      "a new node type must be added to this test",
    );
  });

  test("node resolves each of the viewer's own objects, so the ids below are well formed", async () => {
    for (const type of accountTypes()) {
      const id = mine.ids.get(type)!;
      const res = await gql(server.endpoint, token, NODE_QUERY, { id });
      assert.deepEqual(res.body.errors, undefined, `${type}: ${JSON.stringify(res.body.errors)}`);
      assert.deepEqual(dataOf(res).node, { id, __typename: type }, type);
    }
  });

  test("node answers another account's object of every type exactly like an id never issued", async () => {
    for (const type of accountTypes()) {
      const theirId = theirs.ids.get(type)!;
      const neverIssued = encodeGlobalId(
        type,
        type === "RepositoryIssue" ? newRowKey() + newRowKey() : newRowKey(),
      );
      const hidden = await gql(server.endpoint, token, NODE_QUERY, { id: theirId });
      const missing = await gql(server.endpoint, token, NODE_QUERY, { id: neverIssued });
      assert.equal(hidden.status, 200, type);
      assert.deepEqual(hidden.body.data, { node: null }, type);
      assert.equal(hidden.body.errors?.[0]?.extensions?.code, "NOT_FOUND", type);
      assert.equal(hidden.body.errors?.[0]?.message, `No node with id "${theirId}" exists.`, type);
      assert.equal(masked(hidden, theirId), masked(missing, neverIssued), type);
    }
  });

  test("node resolves global catalog objects for the viewer", async () => {
    for (const type of GLOBAL_TYPES) {
      const id = globalIds.get(type)!;
      const res = await gql(server.endpoint, token, NODE_QUERY, { id });
      assert.deepEqual(res.body.errors, undefined, `${type}: ${JSON.stringify(res.body.errors)}`);
      assert.deepEqual(dataOf(res).node, { id, __typename: type }, type);
    }
  });

  test("no id reachable from the viewer's accounts, repositories, runs and pull requests is the stranger's", async () => {
    const responses: GraphQLResponse[] = [];
    responses.push(
      await gql(
        server.endpoint,
        token,
        paged(`{ viewer { id personalAccessTokens { edges { node { id } } } accounts { edges { node { id
            members { edges { node { id user { id accounts { edges { node { id } } } } } } }
            suppressedIssues { edges { node { id issue { id } user { id } } } }
            repositories { edges { node { id } } } } } } } }`),
      ),
    );
    responses.push(
      await gql(
        server.endpoint,
        token,
        paged(`query($login: String!, $name: String!) {
          repository(login: $login, name: $name, vcsProvider: GITHUB) { ${REPOSITORY_WIDE} } }`),
        { login: mine.account.login, name: mine.repository.name },
      ),
    );
    responses.push(
      await gql(
        server.endpoint,
        token,
        paged(`query($runUid: UUID!) { run(runUid: $runUid) { id repository { id }
          checks { edges { node { id occurrences { edges { node { id } } } } } }
          scaChecks { edges { node { id vulnerabilityOccurrences { edges { node { id } } } } } } } }`),
        { runUid: mine.run.run_uid },
      ),
    );
    for (const id of [...mine.ids.values()]) {
      responses.push(
        await gql(
          server.endpoint,
          token,
          paged(`query($id: ID!) { node(id: $id) { id
            ... on User { accounts { edges { node { id members { edges { node { id user { id } } } } } } } }
            ... on TeamMember { member: user { id accounts { edges { node { id } } } } }
            ... on TeamSuppressedIssue { suppressedBy: user { id } }
            ... on PullRequest { latestAnalysisRun { id } }
            ... on RepositoryIssue { repository { id } occurrences { edges { node { id } } } }
            ... on SCACheck { vulnerabilityOccurrences { edges { node { id } } } }
            ... on RepositoryMetricItem { values { edges { node { id } } } }
            ... on Artifact { run { id } check { id } } } }`),
          { id },
        ),
      );
    }
    const reached = new Set<string>();
    for (const res of responses) {
      assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
      collectIds(res.body.data, reached);
    }
    // The walk must reach the viewer's objects, or finding none of the stranger's proves nothing.
    for (const [type, id] of mine.ids) {
      if (type === "CodeCoverageReportRepository" || type === "RunReport") continue;
      assert.ok(reached.has(id), `the walk reaches the viewer's ${type}`);
    }
    const leaked = [...strangerIds()].filter((id) => reached.has(id));
    assert.deepEqual(leaked, []);
  });

  test("a user in both teams shows, to the viewer, only the account they share", async () => {
    const res = await gql(
      server.endpoint,
      token,
      `query($id: ID!) { node(id: $id) { ... on User { accounts { totalCount edges { node { id login } } } } } }`,
      { id: encodeGlobalId("User", shared.key) },
    );
    const accounts = (
      dataOf(res).node as { accounts: { totalCount: number; edges: Array<{ node: { login: string } }> } }
    ).accounts;
    assert.equal(accounts.totalCount, 1);
    assert.deepEqual(
      accounts.edges.map((edge) => edge.node.login),
      [mine.account.login],
    );
    const own = await gql(server.endpoint, token, `{ viewer { accounts { edges { node { login } } } } }`);
    const viewerAccounts = (dataOf(own).viewer as { accounts: { edges: Array<{ node: { login: string } }> } })
      .accounts;
    assert.deepEqual(
      viewerAccounts.edges.map((edge) => edge.node.login),
      [mine.account.login],
    );
  });

  test("repository by name answers the stranger's repository exactly like one that does not exist", async () => {
    const query = `query($login: String!, $name: String!) {
      repository(login: $login, name: $name, vcsProvider: GITHUB) { id name } }`;
    const hidden = await gql(server.endpoint, token, query, {
      login: theirs.account.login,
      name: theirs.repository.name,
    });
    const missing = await gql(server.endpoint, token, query, {
      login: theirs.account.login,
      name: `${theirs.repository.name}-nope`,
    });
    const noAccount = await gql(server.endpoint, token, query, { login: "no-such-team", name: "nope" });
    assert.deepEqual(hidden.body.data, { repository: null });
    assert.equal(hidden.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
    assert.equal(masked(hidden), masked(missing));
    assert.equal(masked(hidden), masked(noAccount));
  });

  test("account by login answers the stranger's account exactly like one that does not exist", async () => {
    const query = `query($login: String!) { account(login: $login, vcsProvider: GITHUB) { id login } }`;
    const hidden = await gql(server.endpoint, token, query, { login: theirs.account.login });
    const missing = await gql(server.endpoint, token, query, { login: "no-such-team-at-all" });
    assert.deepEqual(hidden.body.data, { account: null });
    assert.equal(masked(hidden), masked(missing));
  });

  test("run by runUid or commit answers the stranger's run exactly like one that does not exist", async () => {
    const byUid = `query($runUid: UUID!) { run(runUid: $runUid) { id } }`;
    const unknownUid = randomUUID();
    const hidden = await gql(server.endpoint, token, byUid, { runUid: theirs.run.run_uid });
    const missing = await gql(server.endpoint, token, byUid, { runUid: unknownUid });
    assert.equal(hidden.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
    assert.equal(masked(hidden, theirs.run.run_uid), masked(missing, unknownUid));
    const byCommit = `query($commitOid: String!) { run(commitOid: $commitOid) { id } }`;
    const unknownOid = "0".repeat(40);
    const hiddenCommit = await gql(server.endpoint, token, byCommit, { commitOid: theirs.run.commit_oid });
    const missingCommit = await gql(server.endpoint, token, byCommit, { commitOid: unknownOid });
    assert.equal(hiddenCommit.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
    assert.equal(masked(hiddenCommit, theirs.run.commit_oid), masked(missingCommit, unknownOid));
  });

  test("the viewer's repository answers NOT_FOUND for the stranger's vulnerability occurrence and target ids", async () => {
    for (const [field, type] of [
      ["dependencyVulnerabilityOccurrence", "VulnerabilityOccurrence"],
      ["target", "RepositoryTarget"],
    ] as const) {
      const query = `query($login: String!, $name: String!, $id: ID!) {
        repository(login: $login, name: $name, vcsProvider: GITHUB) { id ${field}(id: $id) { id } } }`;
      const vars = { login: mine.account.login, name: mine.repository.name };
      const theirId = theirs.ids.get(type)!;
      const neverIssued = encodeGlobalId(type, newRowKey());
      const own = await gql(server.endpoint, token, query, { ...vars, id: mine.ids.get(type)! });
      assert.deepEqual(own.body.errors, undefined, `${field} answers the viewer's own ${type}`);
      const hidden = await gql(server.endpoint, token, query, { ...vars, id: theirId });
      const missing = await gql(server.endpoint, token, query, { ...vars, id: neverIssued });
      assert.equal(hidden.body.errors?.[0]?.extensions?.code, "NOT_FOUND", field);
      assert.equal(JSON.stringify(hidden.body).includes(theirs.repository.key), false, field);
      assert.equal(masked(hidden, theirId), masked(missing, neverIssued), field);
    }
  });
});
