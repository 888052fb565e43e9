// test-runner: execution-mode independent (one upload flow per test; the read queries are ordinary and covered elsewhere in both modes)
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { readToolFixture, toolFixture } from "../src/formats/fixtures.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { aCommitOid } from "./helpers/builders-metrics.ts";
import { anUploader, runSettled, type Uploader, uploadCommunityReport } from "./helpers/community-uploads.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * One account's uploads never change what another account reads of a COMMUNITY analyzer's issues
 * (docs/ingestion-sarif.md "An account's issues are its own"). The honest account uploads ESLint's
 * real report; the other uploads, under the same community analyzer, a report written by hand
 * that describes the same rules otherwise (the attack is a hand-written report): other titles and
 * descriptions, a `security` tag (which wins over ESLint's family row), a `properties.category`,
 * and other levels. Whichever comes
 * first, the honest account's issues, findings and summaries read the same as with no other
 * account at all.
 */

const ISSUE_FIELDS = "shortcode title shortDescription description category severity tags";

const RUN = `query Run($commit: String!) {
  run(commitOid: $commit) {
    status
    checks { edges { node {
      analyzer { shortcode }
      issues(first: 100) { totalCount edges { node {
        shortcode category severity path beginLine title
        issue { ${ISSUE_FIELDS} }
      } } }
      summary {
        occurrenceDistributionByCategory { category introduced }
        occurrenceDistributionBySeverity { severity introduced }
      }
    } } }
  }
}`;

const REPOSITORY_ISSUES = `query Issues($name: String!, $login: String!) {
  repository(name: $name, login: $login, vcsProvider: GITHUB) {
    issues(first: 100) { totalCount edges { node { occurrences { totalCount } issue { ${ISSUE_FIELDS} } } } }
  }
}`;

let server: TestServer;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
});
after(() => server?.stop());

/** What `who` reads of the run of `commit` (its one check) once it settled, and of its repository's issues. */
async function readsOf(who: Uploader, commit: string): Promise<unknown> {
  await runSettled(server, who, commit);
  const { run } = dataOf(await gql(server.endpoint, who.token, RUN, { commit })) as {
    run: { checks: { edges: Array<{ node: unknown }> } };
  };
  const check = run.checks.edges[0]?.node;
  const repository = dataOf(
    await gql(server.endpoint, who.token, REPOSITORY_ISSUES, {
      name: who.repository.name,
      login: who.account.login,
    }),
  );
  return { check: withoutAnalyzer(check), repository };
}

/**
 * A check's reads without its analyzer's shortcode, so checks of two analyzers compare, and its
 * findings in one order (findings at one line are ordered by their random keys).
 */
function withoutAnalyzer(check: unknown): unknown {
  const {
    analyzer: _analyzer,
    issues,
    ...rest
  } = check as {
    analyzer: unknown;
    issues: { edges: Array<{ node: unknown }> };
  };
  const edges = [...issues.edges].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return { ...rest, issues: { ...issues, edges } };
}

const ESLINT = toolFixture("sarif", "eslint", "eslint.sarif");
const ESLINT_REPORT = readToolFixture("sarif", "eslint", "eslint.sarif");

/**
 * A report written by hand under ESLint's name: each rule of ESLint's real report described
 * otherwise (tags, `properties.category`, texts, a declared level), and one finding of each at
 * `level`.
 */
function craftedReport(level: "error" | "warning" | "note"): string {
  const real = JSON.parse(ESLINT_REPORT) as {
    runs: Array<{ results: Array<{ ruleId?: string }> }>;
  };
  const ids = [...new Set(real.runs[0]!.results.flatMap((result) => result.ruleId ?? []))].sort();
  return JSON.stringify({
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "ESLint",
            version: "99.0.0",
            rules: ids.map((id) => ({
              id,
              name: `crafted-${id}`,
              shortDescription: { text: `Crafted title of ${id}` },
              fullDescription: { text: `Crafted description of ${id}` },
              help: { text: `Crafted help of ${id}` },
              helpUri: "https://example.invalid/crafted",
              defaultConfiguration: { level },
              properties: { tags: ["security", "crafted"], category: "Performance" },
            })),
          },
        },
        results: ids.map((id, line) => ({
          ruleId: id,
          level,
          message: { text: `crafted finding of ${id}` },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: "src/crafted.js" },
                region: { startLine: line + 1 },
              },
            },
          ],
        })),
      },
    ],
  });
}

describe("a community analyzer's issues across accounts", () => {
  it("leaves what an account reads unchanged when another account uploads a crafted report after it", async () => {
    const analyzer = `eslint-after-${aCommitOid().slice(0, 8)}`;
    const honest = await anUploader(server);
    const other = await anUploader(server);
    const first = aCommitOid();
    await uploadCommunityReport(server, honest, first, analyzer, ESLINT_REPORT, ESLINT.workDir);
    const before = await readsOf(honest, first);

    const crafted = aCommitOid();
    await uploadCommunityReport(server, other, crafted, analyzer, craftedReport("note"), "");
    const attack = (await readsOf(other, crafted)) as {
      check: { issues: { edges: Array<{ node: { category: string; issue: { title: string } } }> } };
    };
    // The other account does read its own report as written: the attack took effect there.
    assert.ok(attack.check.issues.edges.length > 0);
    assert.ok(attack.check.issues.edges.every(({ node }) => node.category === "SECURITY"));
    assert.ok(attack.check.issues.edges.every(({ node }) => node.issue.title.startsWith("Crafted title")));

    assert.deepEqual(await readsOf(honest, first), before);
    // The honest account's next upload of the same report reads as its first did.
    const next = aCommitOid();
    await uploadCommunityReport(server, honest, next, analyzer, ESLINT_REPORT, ESLINT.workDir);
    const again = (await readsOf(honest, next)) as { check: { issues: unknown } };
    assert.deepEqual(again.check.issues, (before as { check: { issues: unknown } }).check.issues);
  });

  it("files an account's findings as its own report describes them when another account uploaded a crafted report first", async () => {
    const suffix = aCommitOid().slice(0, 8);
    // The same real report through an analyzer no other account ever uploaded to: what the
    // honest account must read.
    const control = await anUploader(server);
    const controlCommit = aCommitOid();
    await uploadCommunityReport(
      server,
      control,
      controlCommit,
      `eslint-alone-${suffix}`,
      ESLINT_REPORT,
      ESLINT.workDir,
    );
    const expected = await readsOf(control, controlCommit);

    const analyzer = `eslint-first-${suffix}`;
    const other = await anUploader(server);
    const honest = await anUploader(server);
    const crafted = aCommitOid();
    await uploadCommunityReport(server, other, crafted, analyzer, craftedReport("error"), "");
    await readsOf(other, crafted);
    const commit = aCommitOid();
    await uploadCommunityReport(server, honest, commit, analyzer, ESLINT_REPORT, ESLINT.workDir);
    assert.deepEqual(await readsOf(honest, commit), expected);

    // And the other account's later uploads move nothing either.
    const again = aCommitOid();
    await uploadCommunityReport(server, other, again, analyzer, craftedReport("warning"), "");
    await readsOf(other, again);
    assert.deepEqual(await readsOf(honest, commit), expected);
  });
});

describe("an account's own issue through node(id:)", () => {
  it("answers the issue to its account's members and null, like an id that does not exist, to anyone else", async () => {
    const analyzer = `eslint-node-${aCommitOid().slice(0, 8)}`;
    const owner = await anUploader(server);
    const stranger = await anUploader(server);
    const commit = aCommitOid();
    await uploadCommunityReport(server, owner, commit, analyzer, ESLINT_REPORT, ESLINT.workDir);
    await readsOf(owner, commit);
    const { run } = dataOf(
      await gql(
        server.endpoint,
        owner.token,
        `query($commit: String!) { run(commitOid: $commit) { checks { edges { node {
          issues(first: 1) { edges { node { issue { id shortcode title } } } } } } } } }`,
        { commit },
      ),
    ) as {
      run: {
        checks: { edges: Array<{ node: { issues: { edges: Array<{ node: { issue: { id: string } } }> } } }> };
      };
    };
    const issue = run.checks.edges[0]!.node.issues.edges[0]!.node.issue;
    const NODE = `query($id: ID!) { node(id: $id) { id ... on Issue { shortcode title } } }`;
    assert.deepEqual(dataOf(await gql(server.endpoint, owner.token, NODE, { id: issue.id })).node, issue);
    const missing = encodeGlobalId("Issue", newRowKey());
    const strangers = await gql(server.endpoint, stranger.token, NODE, { id: issue.id });
    const nothing = await gql(server.endpoint, stranger.token, NODE, { id: missing });
    assert.deepEqual(strangers.body.data, { node: null });
    // Answered as an id that does not exist is: the same errors, the id aside.
    assert.deepEqual(
      JSON.parse(JSON.stringify(strangers.body).replaceAll(issue.id, "<id>")),
      JSON.parse(JSON.stringify(nothing.body).replaceAll(missing, "<id>")),
    );
  });
});
