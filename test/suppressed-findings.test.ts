// test-runner: execution-mode independent (one upload, then ordinary reads)
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { DIMENSION_CATEGORIES } from "../src/modules/reports/report-card.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { aCommitOid } from "./helpers/builders-metrics.ts";
import { dataOf, gql } from "./helpers/server.ts";
import { startUploaderScene, type UploaderScene, uploadProcessed, uploadSettled } from "./helpers/uploads.ts";

/**
 * Findings silenced in the source: ESLint's real SARIF over test/fixtures/tools/js-suppressed/
 * (scripts/make-fixtures.sh suppressions), whose two `eslint-disable-next-line` comments each
 * silence one problem, uploaded through `uploadArtifact`. `Check.issues` lists what ESLint itself
 * reports as problems (its stylish totals) unless `isSuppressed: true` asks for the silenced ones,
 * its `totalCount` counts the same, each finding says whether it is silenced, and the check's
 * summary agrees (docs/api.md "Checks, findings and summaries"). Then the same report in a
 * repository where an ignore rule and a team suppression silence two more of its findings: the
 * repository's lists, their counts, the deprecated lists, the reports and the repository-issue
 * events leave all four silenced findings out, and `isSuppressed: true` lists exactly them.
 */

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "suppressions");

interface Finding {
  path: string;
  rule: string;
  line: number;
}
interface Summary {
  workDir: string;
  figures: { problems: number; findings: Finding[]; suppressed: Finding[] };
}

const summary = JSON.parse(fs.readFileSync(path.join(DIR, "eslint.summary.json"), "utf8")) as Summary;

let scene: UploaderScene;
let runUid: string;

before(async () => {
  scene = await startUploaderScene();
  const repository = await aRepository(scene.server.db, scene.account);
  ({ runUid } = await uploadProcessed(scene.server, scene.token, {
    repositoryId: encodeGlobalId("Repository", repository.key),
    commitOid: aCommitOid(),
    branch: repository.default_branch,
    analyzer: "eslint",
    analyzerType: "community",
    workDir: summary.workDir,
    data: fs.readFileSync(path.join(DIR, "eslint.sarif"), "utf8"),
  }));
});
after(() => scene?.server.stop());

interface IssueNode {
  path: string;
  beginLine: number;
  shortcode: string;
  isSuppressed: boolean;
}
interface CheckOut {
  summary: { occurrencesIntroduced: number; occurrencesSuppressed: number };
  issues: { totalCount: number; edges: Array<{ node: IssueNode }> };
}

/** The run's one check with `issues` read with these arguments (a GraphQL argument list). */
async function checkWith(issueArgs: string): Promise<CheckOut> {
  const data = dataOf(
    await gql(
      scene.server.endpoint,
      scene.token,
      `query($runUid: UUID!) { run(runUid: $runUid) { checks { edges { node {
        summary { occurrencesIntroduced occurrencesSuppressed }
        issues(first: 50${issueArgs}) { totalCount edges { node { path beginLine shortcode isSuppressed } } }
      } } } } }`,
      { runUid },
    ),
  ) as { run: { checks: { edges: Array<{ node: CheckOut }> } } };
  assert.equal(data.run.checks.edges.length, 1);
  return data.run.checks.edges[0]!.node;
}

const places = (findings: ReadonlyArray<{ path: string; line: number }>) =>
  findings.map((f) => `${f.path}:${f.line}`).sort();
const listed = (check: CheckOut) =>
  places(check.issues.edges.map(({ node }) => ({ path: node.path, line: node.beginLine })));

describe("Check.issues and suppressed findings (ESLint's real SARIF)", () => {
  it("the fixture has problems and two silenced ones", () => {
    assert.equal(summary.figures.problems, summary.figures.findings.length);
    assert.equal(summary.figures.suppressed.length, 2);
  });

  it("lists and counts only what ESLint reports as problems by default, none of them silenced", async () => {
    for (const args of ["", ", isSuppressed: null", ", isSuppressed: false"]) {
      const check = await checkWith(args);
      assert.equal(check.issues.totalCount, summary.figures.problems, `totalCount with "${args}"`);
      assert.deepEqual(listed(check), places(summary.figures.findings), `the list with "${args}"`);
      assert.ok(check.issues.edges.every(({ node }) => !node.isSuppressed));
    }
  });

  it("lists exactly the silenced ones for isSuppressed: true, each marked", async () => {
    const check = await checkWith(", isSuppressed: true");
    assert.equal(check.issues.totalCount, summary.figures.suppressed.length);
    assert.deepEqual(listed(check), places(summary.figures.suppressed));
    assert.deepEqual(
      check.issues.edges.map(({ node }) => `${node.shortcode} ${node.isSuppressed}`).sort(),
      summary.figures.suppressed.map((f) => `${f.rule} true`).sort(),
    );
  });

  it("the check's summary agrees with both lists", async () => {
    const check = await checkWith("");
    assert.equal(check.summary.occurrencesSuppressed, summary.figures.suppressed.length);
    // Every finding of a first run on the default branch is new, so the introduced ones are the list.
    assert.equal(check.summary.occurrencesIntroduced, check.issues.totalCount);
  });

  it("other filters combine with isSuppressed", async () => {
    const check = await checkWith(', isSuppressed: true, q: "eqeqeq"');
    assert.deepEqual(listed(check), places(summary.figures.suppressed.filter((f) => f.rule === "eqeqeq")));
    assert.equal(check.issues.totalCount, 1);
  });
});

/** The findings of the fixture that an ignore rule (one file) and the team's suppression silence. */
const RULED = { rule: "no-unused-vars", path: "src/receipt.js" };
const TEAM = { rule: "prefer-const" };
const isRuled = (f: Finding) => f.rule === RULED.rule && f.path === RULED.path;
const isTeams = (f: Finding) => f.rule === TEAM.rule;
/** What the three kinds of suppression silence in the second run, and what they leave. */
const silenced = [
  ...summary.figures.suppressed,
  ...summary.figures.findings.filter((f) => isRuled(f) || isTeams(f)),
];
const open = summary.figures.findings.filter((f) => !isRuled(f) && !isTeams(f));

describe("the repository's lists and counts leave silenced findings of all three kinds out", () => {
  let admin: string;
  let account: AccountRow;
  let repository: RepositoryRow;
  /** The default branch's run after the rules. */
  let silencedRun: string;
  const PULL_REQUEST = 7;

  const ask = async (text: string, variables: Record<string, unknown> = {}) =>
    dataOf(await gql(scene.server.endpoint, admin, text, variables));
  const mutate = async (name: string, input: Record<string, unknown>) => {
    const type = `${name[0]!.toUpperCase()}${name.slice(1)}Input`;
    await ask(`mutation($input: ${type}!) { ${name}(input: $input) { clientMutationId } }`, { input });
  };
  const upload = (commitOid: string, fields: Record<string, unknown> = {}) =>
    uploadSettled<{ status: string }>(
      scene.server,
      admin,
      {
        repositoryId: encodeGlobalId("Repository", repository.key),
        commitOid,
        branch: repository.default_branch,
        analyzer: "eslint",
        analyzerType: "community",
        workDir: summary.workDir,
        data: fs.readFileSync(path.join(DIR, "eslint.sarif"), "utf8"),
        ...fields,
      },
      "query($runUid: UUID!) { run(runUid: $runUid) { status } }",
    );

  before(async () => {
    const user = await aUser(scene.server.db);
    account = await anAccount(scene.server.db, {}, [{ user, role: "ADMIN" }]);
    admin = await aToken(scene.server.db, scene.server.config.tokenPepper, user);
    repository = await aRepository(scene.server.db, account);
    // The account's ESLint issues exist once it has uploaded them: the rules name them after.
    await upload(aCommitOid());
    await mutate("createIgnoreRule", {
      repositoryId: encodeGlobalId("Repository", repository.key),
      issueShortcode: RULED.rule,
      analyzerShortcode: "eslint",
      level: "FILE",
      type: "FOREVER",
      filePath: RULED.path,
    });
    await mutate("suppressIssueForTeam", {
      issueShortcode: TEAM.rule,
      login: account.login,
      vcsProvider: "GITHUB",
    });
    ({ runUid: silencedRun } = await upload(aCommitOid()));
    await upload(aCommitOid(), {
      branch: "feature",
      pullRequestNumber: PULL_REQUEST,
      baseBranch: repository.default_branch,
    });
  });

  interface Place {
    path: string;
    beginLine: number;
  }
  interface RepositoryIssueNode {
    id: string;
    issue: { shortcode: string };
    occurrences: { totalCount: number; edges: Array<{ node: Place }> };
  }
  interface RepositoryOut {
    issueOccurrences: { totalCount: number; edges: Array<{ node: Place & { isSuppressed: boolean } }> };
    issues: { totalCount: number; edges: Array<{ node: RepositoryIssueNode }> };
  }

  /**
   * The repository's findings and issues, each read with `args` (a GraphQL argument list, or
   * none); `marked` selects each finding's `isSuppressed`, which a DeepSource client does not.
   */
  async function repositoryWith(args: string, issueArgs = args, marked = true): Promise<RepositoryOut> {
    const data = (await ask(
      `query($login: String!, $name: String!) { repository(login: $login, name: $name, vcsProvider: GITHUB) {
        issueOccurrences(first: 50${args}) { totalCount edges { node { path beginLine ${marked ? "isSuppressed" : ""} } } }
        issues(first: 50${issueArgs}) { totalCount edges { node { id issue { shortcode }
          occurrences(first: 50${args}) { totalCount edges { node { path beginLine } } } } } } } }`,
      { login: account.login, name: repository.name },
    )) as { repository: RepositoryOut };
    return data.repository;
  }

  const placesOf = (nodes: ReadonlyArray<Place>) =>
    places(nodes.map((node) => ({ path: node.path, line: node.beginLine })));
  const issuesOf = (out: RepositoryOut) => out.issues.edges.map(({ node }) => node.issue.shortcode).sort();
  const rulesOf = (findings: readonly Finding[]) => [...new Set(findings.map((f) => f.rule))].sort();
  const issueOccurrencePlaces = (out: RepositoryOut) =>
    placesOf(out.issues.edges.flatMap(({ node }) => node.occurrences.edges.map((edge) => edge.node)));
  const issueOccurrenceTotal = (out: RepositoryOut) =>
    out.issues.edges.reduce((total, { node }) => total + node.occurrences.totalCount, 0);

  it("the fixture has findings of each kind: silenced in the source, by the rule, by the team, and open", () => {
    assert.equal(summary.figures.findings.filter(isRuled).length, 1);
    assert.equal(summary.figures.findings.filter(isTeams).length, 1);
    assert.ok(open.length > 0);
    // One issue has findings of both kinds, so an issue can be in both lists.
    assert.ok(rulesOf(open).some((rule) => rulesOf(silenced).includes(rule)));
  });

  it("by default the repository's findings, issues and their occurrences are only those that need attention", async () => {
    // Read with the contract's fields alone, as a client written for DeepSource reads them.
    const out = await repositoryWith("", "", false);
    assert.deepEqual(placesOf(out.issueOccurrences.edges.map((edge) => edge.node)), places(open));
    assert.equal(out.issueOccurrences.totalCount, open.length);
    assert.deepEqual(issuesOf(out), rulesOf(open));
    assert.equal(out.issues.totalCount, rulesOf(open).length);
    assert.deepEqual(issueOccurrencePlaces(out), places(open));
    assert.equal(issueOccurrenceTotal(out), open.length);
  });

  it("isSuppressed: true lists exactly the silenced ones, and isSuppressed: false is the default", async () => {
    const out = await repositoryWith(", isSuppressed: true");
    assert.deepEqual(placesOf(out.issueOccurrences.edges.map((edge) => edge.node)), places(silenced));
    assert.equal(out.issueOccurrences.totalCount, silenced.length);
    assert.ok(out.issueOccurrences.edges.every(({ node }) => node.isSuppressed));
    assert.deepEqual(issuesOf(out), rulesOf(silenced));
    assert.equal(out.issues.totalCount, rulesOf(silenced).length);
    assert.deepEqual(issueOccurrencePlaces(out), places(silenced));
    assert.equal(issueOccurrenceTotal(out), silenced.length);
    assert.deepEqual(await repositoryWith(", isSuppressed: false"), await repositoryWith(""));
    assert.deepEqual(await repositoryWith(", isSuppressed: null"), await repositoryWith(""));
  });

  it("an issue's occurrences take their own argument, not the list's it was read from", async () => {
    const out = await repositoryWith("", ", isSuppressed: true");
    assert.deepEqual(issuesOf(out), rulesOf(silenced));
    assert.deepEqual(
      issueOccurrencePlaces(out),
      places(open.filter((f) => rulesOf(silenced).includes(f.rule))),
    );
  });

  it("the path filter looks at the findings of the kind asked for", async () => {
    for (const [args, findings] of [
      [`, path: "${RULED.path}"`, open],
      [`, path: "${RULED.path}", isSuppressed: true`, silenced],
    ] as const) {
      const out = await repositoryWith("", args);
      assert.deepEqual(issuesOf(out), rulesOf(findings.filter((f) => f.path === RULED.path)), args);
    }
  });

  it("an issue listed only for its silenced findings is answered by node(id:)", async () => {
    const out = await repositoryWith(", isSuppressed: true");
    const teams = out.issues.edges.find(({ node }) => node.issue.shortcode === TEAM.rule)!.node;
    const data = (await ask(
      "query($id: ID!) { node(id: $id) { ... on RepositoryIssue { issue { shortcode } occurrences(isSuppressed: true) { totalCount } } } }",
      { id: teams.id },
    )) as { node: { issue: { shortcode: string }; occurrences: { totalCount: number } } };
    assert.deepEqual(data.node, { issue: { shortcode: TEAM.rule }, occurrences: { totalCount: 1 } });
  });

  it("the deprecated lists leave silenced findings out as the issue lists do", async () => {
    const data = (await ask(
      `query($runUid: UUID!, $login: String!, $name: String!) {
        run(runUid: $runUid) { checks { edges { node {
          occurrences(first: 50) { totalCount edges { node { path beginLine } } }
          issues(first: 1) { totalCount } } } } }
        repository(login: $login, name: $name, vcsProvider: GITHUB) { pullRequest(number: ${PULL_REQUEST}) {
          issueOccurrences(first: 50) { totalCount edges { node { path beginLine } } }
          issues(first: 1) { totalCount } } } }`,
      { runUid: silencedRun, login: account.login, name: repository.name },
    )) as {
      run: {
        checks: {
          edges: Array<{
            node: { occurrences: RepositoryIssueNode["occurrences"]; issues: { totalCount: number } };
          }>;
        };
      };
      repository: {
        pullRequest: { issueOccurrences: RepositoryIssueNode["occurrences"]; issues: { totalCount: number } };
      };
    };
    const [check] = data.run.checks.edges;
    for (const [label, owner] of [
      ["Check.occurrences", { list: check!.node.occurrences, issues: check!.node.issues }],
      [
        "PullRequest.issueOccurrences",
        { list: data.repository.pullRequest.issueOccurrences, issues: data.repository.pullRequest.issues },
      ],
    ] as const) {
      assert.deepEqual(placesOf(owner.list.edges.map((edge) => edge.node)), places(open), label);
      assert.equal(owner.list.totalCount, open.length, label);
      assert.equal(owner.list.totalCount, owner.issues.totalCount, label);
    }
  });

  it("the reports and the run's report card count only what needs attention", async () => {
    const data = (await ask(
      `query($runUid: UUID!, $login: String!, $name: String!) {
        run(runUid: $runUid) {
          reportCard { security { issuesCount } reliability { issuesCount } complexity { issuesCount } hygiene { issuesCount } }
          checks { edges { node { issues(first: 50) { edges { node { category } } } } } } }
        repository(login: $login, name: $name, vcsProvider: GITHUB) { reports {
          issueDistribution { currentValue issueDistributionByAnalyzer { key value } }
          codeHealthTrend { currentValue } } } }`,
      { runUid: silencedRun, login: account.login, name: repository.name },
    )) as {
      run: {
        reportCard: Record<"security" | "reliability" | "complexity" | "hygiene", { issuesCount: number }>;
        checks: { edges: Array<{ node: { issues: { edges: Array<{ node: { category: string } }> } } }> };
      };
      repository: {
        reports: {
          issueDistribution: {
            currentValue: number;
            issueDistributionByAnalyzer: Array<{ key: string; value: number }>;
          };
          codeHealthTrend: { currentValue: number };
        };
      };
    };
    const { issueDistribution, codeHealthTrend } = data.repository.reports;
    assert.equal(issueDistribution.currentValue, open.length);
    assert.deepEqual(issueDistribution.issueDistributionByAnalyzer, [{ key: "eslint", value: open.length }]);
    assert.equal(codeHealthTrend.currentValue, open.length);
    const categories = data.run.checks.edges.flatMap(({ node }) =>
      node.issues.edges.map((edge) => edge.node.category),
    );
    assert.equal(categories.length, open.length);
    for (const [dimension, inIt] of Object.entries(DIMENSION_CATEGORIES)) {
      const key = dimension.toLowerCase() as keyof typeof data.run.reportCard;
      assert.equal(
        data.run.reportCard[key].issuesCount,
        categories.filter((category) => (inIt as readonly string[]).includes(category)).length,
        dimension,
      );
    }
  });

  it("the repository-issue events hold only the issues with findings that need attention", async () => {
    const announced = await scene.server.db
      .selectFrom("announced_repository_issues as a")
      .innerJoin("issues as i", "i.id", "a.issue_id")
      .select(["i.shortcode", "a.occurrences"])
      .where("a.repository_id", "=", repository.id)
      .orderBy("i.shortcode")
      .execute();
    assert.deepEqual(
      announced,
      rulesOf(open).map((rule) => ({
        shortcode: rule,
        occurrences: open.filter((f) => f.rule === rule).length,
      })),
    );
  });
});
