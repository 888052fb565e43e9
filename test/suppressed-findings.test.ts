// test-runner: execution-mode independent (one upload, then ordinary reads)
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { aRepository } from "./helpers/builders.ts";
import { aCommitOid } from "./helpers/builders-metrics.ts";
import { dataOf, gql } from "./helpers/server.ts";
import { startUploaderScene, type UploaderScene, uploadProcessed } from "./helpers/uploads.ts";

/**
 * Findings silenced in the source: ESLint's real SARIF over test/fixtures/tools/js-suppressed/
 * (scripts/make-fixtures.sh suppressions), whose two `eslint-disable-next-line` comments each
 * silence one problem, uploaded through `uploadArtifact`. `Check.issues` lists what ESLint itself
 * reports as problems (its stylish totals) unless `isSuppressed: true` asks for the silenced ones,
 * its `totalCount` counts the same, each finding says whether it is silenced, and the check's
 * summary agrees (docs/api.md "Suppressed findings").
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
