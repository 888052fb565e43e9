// test-runner: execution-mode independent (a client of the API; the queries it sends are covered elsewhere in both modes)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ingestionJobsDone } from "./helpers/builders-artifacts.ts";
import {
  aCommit,
  anSbomScene,
  importLodashAdvisory,
  rootSbom,
  type SbomScene,
  webSbom,
} from "./helpers/sbom-scene.ts";
import { gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * Dependency scans follow the commit history, not the upload order (docs/read-model.md "Current
 * dependency scans", docs/ingestion.md "Where a run stands in the history"). Each history below
 * is three commits of the default branch whose real tools' SBOMs (npm's own for the root
 * lockfile, cdxgen's for the project under `web/`: test/helpers/sbom-scene.ts) are uploaded with
 * each commit's first-parent ancestors (`ancestorOids`) and the lockfiles git tracks at it
 * (`lockfilePaths`), to one repository in order (1, 2, 3) and to another as 1, 3, then 2, as
 * when the second commit's CI finishes last. The lodash advisory is imported after the uploads,
 * so what the repositories show of it is what the import matched again. Every target's current
 * scan, the vulnerabilities, each run's scans and DDP, and the latest DDP must be the in-order
 * ones. A pull request's run off a commit whose run did not scan a target compares its scan of
 * that target as the default branch's next commit would (docs/ingestion.md "Base").
 */

/** The files of a commit without web/, and of one with it, as `git ls-files` lists them. */
const ROOT_ONLY = ["package-lock.json", "package.json"];
const BOTH = ["package-lock.json", "package.json", "web/package-lock.json", "web/package.json"];

/** One commit's uploads: its SBOMs and the lockfiles its tree holds. */
interface CommitScans {
  sboms: string[];
  lockfilePaths: string[];
}

/** A history of commits, oldest first. */
type History = readonly CommitScans[];

/**
 * The second commit upgrades the root's lodash; the third adds web/, on the vulnerable lodash. The
 * second, uploaded last, lists only the root's files.
 */
const WEB_ADDED: History = [
  { sboms: [rootSbom(true)], lockfilePaths: ROOT_ONLY },
  { sboms: [rootSbom(false)], lockfilePaths: ROOT_ONLY },
  { sboms: [rootSbom(false), webSbom(true)], lockfilePaths: BOTH },
];

/**
 * Both projects throughout; the second commit's CI scans only the root, so its DDP counts web/ by
 * the first commit's scan (with lodash), not by the third's (without).
 */
const WEB_NOT_RESCANNED: History = [
  { sboms: [rootSbom(false), webSbom(true)], lockfilePaths: BOTH },
  { sboms: [rootSbom(false)], lockfilePaths: BOTH },
  { sboms: [rootSbom(false), webSbom(false)], lockfilePaths: BOTH },
];

/**
 * Both projects in the first two commits, web/ without lodash from the second on; the third
 * commit's CI scans only the root, so its DDP counts web/ by the second commit's scan (without
 * lodash), not by the first's (with). Uploaded with the advisory standing.
 */
const WEB_FIXED_BEFORE: History = [
  { sboms: [rootSbom(false), webSbom(true)], lockfilePaths: BOTH },
  { sboms: [rootSbom(false), webSbom(false)], lockfilePaths: BOTH },
  { sboms: [rootSbom(false)], lockfilePaths: BOTH },
];

/**
 * The root's lodash is vulnerable, then upgraded, then vulnerable again: against the second
 * commit, the third introduces the vulnerability; against the first, it has it already. Uploaded
 * with the advisory standing.
 */
const VULNERABLE_AGAIN: History = [
  { sboms: [rootSbom(true)], lockfilePaths: ROOT_ONLY },
  { sboms: [rootSbom(false)], lockfilePaths: ROOT_ONLY },
  { sboms: [rootSbom(true)], lockfilePaths: ROOT_ONLY },
];

/** Only the second commit's root depends on the vulnerable lodash. */
const SECOND_VULNERABLE: History = [
  { sboms: [rootSbom(false)], lockfilePaths: ROOT_ONLY },
  { sboms: [rootSbom(true)], lockfilePaths: ROOT_ONLY },
  { sboms: [rootSbom(false)], lockfilePaths: ROOT_ONLY },
];

/**
 * The root's lodash is vulnerable in the first commit and the third; the second commit's CI scans
 * only web/, so the third's root scan is compared with the first's (it had the vulnerability
 * already), not with nothing. Uploaded with the advisory standing.
 */
const ROOT_NOT_RESCANNED: History = [
  { sboms: [rootSbom(true), webSbom(false)], lockfilePaths: BOTH },
  { sboms: [webSbom(false)], lockfilePaths: BOTH },
  { sboms: [rootSbom(true), webSbom(false)], lockfilePaths: BOTH },
];

/**
 * Four commits: the root's lodash vulnerable, fixed, not scanned (the CI sends web/'s SBOM only),
 * vulnerable again. The fourth's root scan is compared with the second's (it introduces the
 * vulnerability again), through the third, which did not scan the root; uploaded as 1, 3, 4, then
 * 2, it was first compared with the first's and must take up the late second's. Uploaded with the
 * advisory standing.
 */
const ROOT_FIXED_LATE: History = [
  { sboms: [rootSbom(true), webSbom(false)], lockfilePaths: BOTH },
  { sboms: [rootSbom(false), webSbom(false)], lockfilePaths: BOTH },
  { sboms: [webSbom(false)], lockfilePaths: BOTH },
  { sboms: [rootSbom(true), webSbom(false)], lockfilePaths: BOTH },
];

const RUNS = `query($name: String!, $login: String!) {
  repository(name: $name, login: $login, vcsProvider: GITHUB) {
    analysisRuns(first: 10) { edges { node { commitOid summary { vulnerabilitiesIntroduced }
      checks(first: 10) { edges { node { analyzer { shortcode } metrics { shortcode items { key latestValue } } } } }
      scaChecks(first: 10) { edges { node { target { lockfilePath } dependencyCount
        vulnerabilityOccurrences(first: 1) { totalCount } } } } } } } } }`;

interface RunsAnswer {
  repository: {
    analysisRuns: {
      edges: Array<{
        node: {
          commitOid: string;
          summary: { vulnerabilitiesIntroduced: number };
          checks: {
            edges: Array<{
              node: {
                analyzer: { shortcode: string };
                metrics: Array<{
                  shortcode: string;
                  items: Array<{ key: string; latestValue: number | null }>;
                }>;
              };
            }>;
          };
          scaChecks: {
            edges: Array<{
              node: {
                target: { lockfilePath: string } | null;
                dependencyCount: number | null;
                vulnerabilityOccurrences: { totalCount: number };
              };
            }>;
          };
        };
      }>;
    };
  };
}

/** What a repository shows of its dependencies: now, and per commit of the history. */
interface DependencyState {
  /** The lockfiles of the targets whose current scan has the lodash advisory. */
  current: string[];
  /** The latest DDP value. */
  latestDdp: number | null;
  /**
   * Per commit, oldest first: its run's DDP, its scans (lockfile, dependencies, vulnerabilities)
   * and how many vulnerabilities they introduced.
   */
  commits: Array<{
    ddp: number | null;
    scans: Array<[string | null, number | null, number]>;
    introduced: number;
  }>;
}

/** Uploads the commits of `history` to `scene`'s repository in the order `order` (indexes). */
async function uploadHistory(
  scene: SbomScene,
  oids: readonly string[],
  history: History,
  order: readonly number[],
) {
  for (const index of order) {
    const { sboms, lockfilePaths } = history[index]!;
    // First-parent ancestors, nearest first, without the commit itself.
    const ancestorOids = oids.slice(0, index).reverse();
    for (const sbom of sboms) await scene.uploadSbom(oids[index]!, sbom, { ancestorOids, lockfilePaths });
  }
}

/** What `scene`'s repository shows, its commits read in the order of `oids`. */
async function stateOf(
  server: TestServer,
  scene: SbomScene,
  oids: readonly string[],
): Promise<DependencyState> {
  const res = await gql<RunsAnswer>(server.endpoint, scene.token, RUNS, {
    name: scene.repository.name,
    login: scene.account.login,
  });
  assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
  const runs = res.body.data!.repository.analysisRuns.edges.map((e) => e.node);
  const commits = oids.map((oid) => {
    const run = runs.find((r) => r.commitOid === oid);
    assert.ok(run, `a run of ${oid}`);
    const sca = run.checks.edges.find((e) => e.node.analyzer.shortcode === "sca")?.node;
    const ddp = sca?.metrics.find((m) => m.shortcode === "DDP")?.items.find((i) => i.key === "AGGREGATE");
    const scans = run.scaChecks.edges
      .map(({ node }): [string | null, number | null, number] => [
        node.target?.lockfilePath ?? null,
        node.dependencyCount,
        node.vulnerabilityOccurrences.totalCount,
      ])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    return { ddp: ddp?.latestValue ?? null, scans, introduced: run.summary.vulnerabilitiesIntroduced };
  });
  return {
    current: (await scene.current()).map((o) => o.lockfile),
    latestDdp: await scene.dependencies(),
    commits,
  };
}

describe("dependency scans of default-branch runs uploaded out of order", () => {
  let server: TestServer;
  const states = new Map<History, { inOrder: DependencyState; late: DependencyState }>();
  let pullRequestState: DependencyState;

  before(async () => {
    server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
    const scenes = new Map<History, { oids: string[]; inOrder: SbomScene; late: SbomScene }>();
    const uploadBoth = async (history: History) => {
      const oids = history.map(() => aCommit());
      const inOrder = await anSbomScene(server);
      const late = await anSbomScene(server);
      await uploadHistory(inOrder, oids, history, [...history.keys()]);
      // The second commit last.
      await uploadHistory(late, oids, history, [0, ...[...history.keys()].slice(2), 1]);
      scenes.set(history, { oids, inOrder, late });
    };
    for (const history of [WEB_ADDED, WEB_NOT_RESCANNED, SECOND_VULNERABLE]) await uploadBoth(history);
    await ingestionJobsDone(server.db);
    await importLodashAdvisory(server);
    for (const history of [WEB_FIXED_BEFORE, VULNERABLE_AGAIN, ROOT_NOT_RESCANNED, ROOT_FIXED_LATE]) {
      await uploadBoth(history);
    }
    await ingestionJobsDone(server.db);
    // A pull request's branch off the second commit of ROOT_NOT_RESCANNED, whose run scanned only
    // web/; its commit keeps the root's vulnerable lodash.
    const pullRequest = await anSbomScene(server);
    const [first, second, head] = [aCommit(), aCommit(), aCommit()];
    await uploadHistory(pullRequest, [first, second], ROOT_NOT_RESCANNED.slice(0, 2), [0, 1]);
    for (const sbom of ROOT_NOT_RESCANNED[2]!.sboms) {
      await pullRequest.uploadSbom(head, sbom, {
        branch: "lodash-kept",
        baseBranch: "main",
        mergeBaseOid: second,
        lockfilePaths: BOTH,
      });
    }
    await ingestionJobsDone(server.db);
    pullRequestState = await stateOf(server, pullRequest, [first, second, head]);
    for (const [history, { oids, inOrder, late }] of scenes) {
      states.set(history, {
        inOrder: await stateOf(server, inOrder, oids),
        late: await stateOf(server, late, oids),
      });
    }
  });
  after(() => server?.stop());

  test("a target the newest commit added keeps its current scan though an older commit's late list leaves its lockfile out", () => {
    const { inOrder, late } = states.get(WEB_ADDED)!;
    // In order: the third commit's scans are current, web/'s with lodash, the root's without.
    assert.deepEqual(inOrder.current, ["web/package-lock.json"]);
    assert.deepEqual(late.current, inOrder.current);
    assert.deepEqual(late.commits, inOrder.commits);
  });

  test("the latest DDP is the newest commit's, not the late run's", () => {
    const { inOrder, late } = states.get(WEB_ADDED)!;
    const [, second, third] = inOrder.commits;
    // web/ brings lodash back, which the second commit's root no longer has.
    assert.equal(third!.ddp, second!.ddp! + 1);
    assert.equal(inOrder.latestDdp, third!.ddp);
    assert.equal(late.latestDdp, inOrder.latestDdp);
  });

  test("an advisory import matches again the newest commit's scans, not the late run's", () => {
    const { inOrder, late } = states.get(SECOND_VULNERABLE)!;
    // Only the newest run's scans and the current ones were matched: the second commit's root
    // scan, on the vulnerable lodash, has no occurrence in order.
    assert.deepEqual(
      inOrder.commits.map((c) => c.scans.map(([lockfile, , found]) => [lockfile, found])),
      [[["package-lock.json", 0]], [["package-lock.json", 0]], [["package-lock.json", 0]]],
    );
    assert.deepEqual(late.commits, inOrder.commits);
    assert.deepEqual(late.current, []);
  });

  test("the late run's DDP counts a target it did not scan by its ancestor's scan, not its descendant's", () => {
    const { inOrder, late } = states.get(WEB_NOT_RESCANNED)!;
    const [first, second, third] = inOrder.commits;
    // In order: the second run counts web/ as the first scanned it (lodash included), the third
    // counts one package fewer.
    assert.equal(second!.ddp, first!.ddp);
    assert.equal(third!.ddp, first!.ddp! - 1);
    assert.deepEqual(late.commits, inOrder.commits);
    assert.deepEqual(late.current, inOrder.current);
    assert.equal(late.latestDdp, inOrder.latestDdp);
  });

  test("a newer run uploaded before its parent's counts its DDP by the parent's scan of a target it did not scan", () => {
    const { inOrder, late } = states.get(WEB_FIXED_BEFORE)!;
    const [first, second, third] = inOrder.commits;
    // In order: the third run counts web/ as the second scanned it, without lodash, which the
    // first's had.
    assert.equal(second!.ddp, first!.ddp! - 1);
    assert.equal(third!.ddp, second!.ddp);
    assert.deepEqual(late.commits, inOrder.commits);
    assert.equal(late.latestDdp, third!.ddp);
    assert.deepEqual(late.current, inOrder.current);
  });

  test("a newer run uploaded before its parent's has its scans' vulnerabilities compared with the parent's scans", () => {
    const { inOrder, late } = states.get(VULNERABLE_AGAIN)!;
    // In order: the first run introduces lodash's advisory, the second fixes it, the third
    // introduces it again (against the first, it would have had it already).
    assert.deepEqual(
      inOrder.commits.map((c) => [c.introduced, c.scans.map(([, , found]) => found)]),
      [
        [1, [1]],
        [0, [0]],
        [1, [1]],
      ],
    );
    assert.deepEqual(late.commits, inOrder.commits);
    assert.deepEqual(late.current, ["package-lock.json"]);
  });

  test("a scan is compared with its target's newest scan at or before the base run, past a run that did not scan the target", () => {
    const { inOrder, late } = states.get(ROOT_NOT_RESCANNED)!;
    // In order: the third run's root scan has lodash's advisory, which the first's had too.
    assert.deepEqual(
      inOrder.commits.map((c) => [c.introduced, c.scans.map(([lockfile, , found]) => [lockfile, found])]),
      [
        [
          1,
          [
            ["package-lock.json", 1],
            ["web/package-lock.json", 0],
          ],
        ],
        [0, [["web/package-lock.json", 0]]],
        [
          0,
          [
            ["package-lock.json", 1],
            ["web/package-lock.json", 0],
          ],
        ],
      ],
    );
    assert.deepEqual(late.commits, inOrder.commits);
    assert.deepEqual(late.current, ["package-lock.json"]);
  });

  test("a late run's scan becomes the base scan of a later run compared through a run that did not scan the target", () => {
    const { inOrder, late } = states.get(ROOT_FIXED_LATE)!;
    // In order: the fourth run's root scan introduces the advisory again, against the second's.
    assert.deepEqual(
      inOrder.commits.map((c) => [c.introduced, c.scans.map(([, , found]) => found)]),
      [
        [1, [1, 0]],
        [0, [0, 0]],
        [0, [0]],
        [1, [1, 0]],
      ],
    );
    assert.deepEqual(late.commits, inOrder.commits);
    assert.deepEqual(late.current, inOrder.current);
  });

  test("a pull request's scan is compared past a merge-base run that did not scan its target", () => {
    const { inOrder } = states.get(ROOT_NOT_RESCANNED)!;
    // As the third commit on the default branch: its root scan had the advisory since the first.
    assert.deepEqual(pullRequestState.commits, inOrder.commits);
    assert.equal(pullRequestState.commits[2]!.introduced, 0);
  });
});
