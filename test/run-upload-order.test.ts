// test-runner: execution-mode independent (a client of the API; the queries it sends are covered elsewhere in both modes)
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { RepositoryRow } from "../src/db/types.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { aRepository } from "./helpers/builders.ts";
import { waitFor } from "./helpers/instance.ts";
import { dataOf, gql } from "./helpers/server.ts";
import { startUploaderScene, type UploaderScene, uploadProcessed } from "./helpers/uploads.ts";

/**
 * Default-branch runs whose uploads send no ancestry follow the upload order (docs/ingestion.md
 * "Where a run stands in the history"): a run is compared with the newest analysed run made
 * before it. A client of DeepSource's API (its CLI among them) sends no ancestry, and a CI whose
 * jobs upload separately leaves a run waiting for its last report while the next commit's run is
 * made. The three versions of test/fixtures/tools/js-pull-request, linted by ESLint and measured
 * by c8 (scripts/make-fixtures.sh pull-request), under a configuration that expects both reports,
 * are uploaded to one repository in turn, and to another with push 1's coverage sent only after
 * push 2's run finished: push 2's run must end compared with push 1's, with the counts the
 * in-order upload gives.
 */

const REPORTS = path.join(import.meta.dirname, "fixtures", "pull-request");
/** Where make-fixtures.sh ran ESLint and c8: the reports' absolute paths lie under it. */
const WORK_DIR = "/tmp/assay-fixtures/js-pull-request";
const CONFIG = 'version = 1\n\n[[analyzers]]\nname = "javascript"\n\n[[analyzers]]\nname = "test-coverage"\n';
const VERSIONS = ["base", "push-1", "push-2"] as const;
type Version = (typeof VERSIONS)[number];
/** A commit id per version, the same in both repositories. */
const COMMITS: Record<Version, string> = {
  base: "a".repeat(40),
  "push-1": "b".repeat(40),
  "push-2": "c".repeat(40),
};

const RUN = `query($runUid: UUID!) {
  run(runUid: $runUid) {
    status commitOid baseOid
    summary { occurrencesIntroduced occurrencesResolved }
    checks { edges { node { analyzer { shortcode } summary { occurrencesIntroduced occurrencesResolved } } } }
  }
}`;

interface RunView {
  status: string;
  commitOid: string;
  baseOid: string | null;
  summary: { occurrencesIntroduced: number; occurrencesResolved: number };
  checks: { edges: Array<{ node: { analyzer: { shortcode: string }; summary: unknown } }> };
}

let scene: UploaderScene;
let inOrder: RepositoryRow;
let late: RepositoryRow;
const runs = { inOrder: new Map<Version, string>(), late: new Map<Version, string>() };

before(async () => {
  scene = await startUploaderScene();
  inOrder = await aRepository(scene.server.db, scene.account, { defaultBranch: "main" });
  late = await aRepository(scene.server.db, scene.account, { defaultBranch: "main" });
});
after(() => scene?.server.stop());

/** `uploadArtifact` of `version`'s ESLint report or c8 coverage to `repository`'s main, with no ancestry; the run's uid. */
async function upload(
  repository: RepositoryRow,
  version: Version,
  report: "eslint" | "coverage",
): Promise<string> {
  const { runUid } = await uploadProcessed(scene.server, scene.token, {
    repositoryId: encodeGlobalId("Repository", repository.key),
    commitOid: COMMITS[version],
    branch: "main",
    configToml: CONFIG,
    workDir: WORK_DIR,
    ...(report === "eslint"
      ? { analyzer: "javascript", data: fs.readFileSync(path.join(REPORTS, `${version}.sarif`), "utf8") }
      : {
          analyzer: "test-coverage",
          key: "javascript",
          data: fs.readFileSync(path.join(REPORTS, `${version}.lcov`), "utf8"),
        }),
  });
  return runUid;
}

async function runView(runUid: string): Promise<RunView> {
  return dataOf(await gql(scene.server.endpoint, scene.token, RUN, { runUid })).run as RunView;
}

/** The run's counts, and each check's by analyzer. */
function countsOf(run: RunView): unknown {
  return {
    summary: run.summary,
    checks: Object.fromEntries(run.checks.edges.map(({ node }) => [node.analyzer.shortcode, node.summary])),
  };
}

describe("a default-branch run made while the run before it waits for a report", () => {
  before(async () => {
    for (const version of VERSIONS) {
      runs.inOrder.set(version, await upload(inOrder, version, "eslint"));
      await upload(inOrder, version, "coverage");
    }
    runs.late.set("base", await upload(late, "base", "eslint"));
    await upload(late, "base", "coverage");
    runs.late.set("push-1", await upload(late, "push-1", "eslint"));
    runs.late.set("push-2", await upload(late, "push-2", "eslint"));
    await upload(late, "push-2", "coverage");
  });

  test("is compared with the newest analysed run before it meanwhile", async () => {
    assert.equal((await runView(runs.late.get("push-1") as string)).status, "PENDING");
    const push2 = await runView(runs.late.get("push-2") as string);
    assert.equal(push2.baseOid, COMMITS.base);
    // Push 1's unused variable is not resolved, its `==` is new: against the base version.
    assert.deepEqual(push2.summary, { occurrencesIntroduced: 1, occurrencesResolved: 0 });
  });

  test("and with that run once it is analysed, with the counts of the upload in order", async () => {
    await upload(late, "push-1", "coverage");
    const push2 = runs.late.get("push-2") as string;
    await waitFor(
      "push 2's run to be compared with push 1's",
      async () => (await runView(push2)).baseOid === COMMITS["push-1"],
      20_000,
    );
    await waitFor("push 2's run to settle", async () => (await runView(push2)).status !== "PENDING", 20_000);
    const expected = await runView(runs.inOrder.get("push-2") as string);
    assert.equal(expected.baseOid, COMMITS["push-1"]);
    // ESLint's own reports: push 2 removes push 1's unused variable and keeps its `==`.
    assert.deepEqual(expected.summary, { occurrencesIntroduced: 0, occurrencesResolved: 1 });
    assert.deepEqual(countsOf(await runView(push2)), countsOf(expected));
    assert.deepEqual(
      countsOf(await runView(runs.late.get("push-1") as string)),
      countsOf(await runView(runs.inOrder.get("push-1") as string)),
    );
  });
});
