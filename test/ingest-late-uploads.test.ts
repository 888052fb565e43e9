// test-runner: execution-mode independent (the reads are ordinary queries; what matters is what the database holds when)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { RepositoryRow } from "../src/db/types.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { artifactProcessingHandler } from "../src/ingestion/process-job.ts";
import { JobWorker } from "../src/jobs/worker.ts";
import { webhookDeliveryHandler } from "../src/modules/webhooks/delivery-job.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { claimArtifactJob, runArtifactJob, settleJob } from "./helpers/builders-artifacts.ts";
import { anIssueCategorySetting } from "./helpers/builders-metrics.ts";
import { aWebhookEndpoint } from "./helpers/builders-webhooks.ts";
import { waitFor } from "./helpers/instance.ts";
import { assertIssueCountsMatchFindings } from "./helpers/issue-counts.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { aResult, sarifLog } from "./helpers/sarif-scene.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";
import { type Receiver, startReceiver } from "./helpers/webhook-receiver.ts";

/**
 * A late upload to a finished run (docs/ingestion.md "A late upload to a finished run"): the
 * run is PENDING again while the artifact is processed, but the repository's current state stays
 * that run's (it does not fall back to the run before), and when the run finishes again a webhook
 * receiver hears only what changed: the repository-issue events of its first finish are not sent
 * again.
 *
 * The same holds for an analyzer that has no answer in a newer run (its report placed nothing,
 * was not sent, or failed to process): its issues stay the repository's, and no event says they
 * were resolved (docs/read-model.md "The repository's current findings").
 *
 * Uploads go through `uploadArtifact` over HTTP and reads through GraphQL. The server's worker is
 * off so each test decides when an artifact is processed (with the handler the worker runs); a
 * worker of webhook deliveries alone sends the events to a real receiver meanwhile.
 */

const SECRET = "late-uploads-secret-0123456789";

const UPLOAD = `mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok error } }`;
const CURRENT_STATE = `query($id: ID!) { node(id: $id) { ... on Repository {
  issues(first: 20) { totalCount edges { node { issue { shortcode } } } }
  issueOccurrences(first: 1) { totalCount }
  reports { issueDistribution { currentValue } } } } }`;

let server: TestServer;
let receiver: Receiver;
let deliveries: JobWorker;
let commitCounter = 0;

before(async () => {
  receiver = await startReceiver();
  receiver.secret = SECRET;
  server = await startTestServer({
    ASSAY_WORKER: "false",
    ASSAY_WEBHOOK_ALLOW_HTTP: "true",
    ASSAY_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  });
  deliveries = new JobWorker({
    db: server.db,
    logger: testLogger("delivery worker").logger,
    handlers: [webhookDeliveryHandler(server.db, server.config)],
    pollMs: 20,
    leaseSeconds: 60,
  }).start();
});
after(async () => {
  await deliveries?.stop(1000);
  await server?.stop();
  await receiver?.close();
});

/** A repository of a team of its own, whose one endpoint is the receiver, and its member's token. */
interface Scene {
  repository: RepositoryRow;
  token: string;
  endpointId: string;
}

async function aScene(): Promise<Scene> {
  const user = await aUser(server.db);
  const account = await anAccount(server.db, {}, [{ user, role: "ADMIN" }]);
  const repository = await aRepository(server.db, account);
  const endpoint = await aWebhookEndpoint(server.db, server.config.tokenPepper, account, {
    url: receiver.url,
    secret: SECRET,
  });
  return {
    repository,
    token: await aToken(server.db, server.config.tokenPepper, user),
    endpointId: endpoint.id,
  };
}

function aCommit(): string {
  commitCounter += 1;
  return `${commitCounter.toString(16).padStart(8, "0")}${"ab12".repeat(8)}`;
}

/** A SARIF 2.1.0 log with one result per finding: `rule@path:line`, or `rule` for one that names no file. */
function sarif(findings: readonly string[]): string {
  const results = findings.map((finding) => {
    const [rule, place] = finding.split("@") as [string, string | undefined];
    if (place === undefined) return aResult(rule, "", null, { locations: [] });
    const [path, line] = place.split(":") as [string, string];
    return aResult(rule, path, Number(line));
  });
  const ruleIds = new Set(findings.map((finding) => finding.split("@")[0]!));
  const rules = [...ruleIds].map((id) => ({ id, properties: { tags: ["style"] } }));
  return sarifLog([{ tool: "fixture-lint", rules, results }]);
}

/** Uploads a report for `commit` on the default branch; answers the artifact's internal id. */
async function upload(
  scene: Scene,
  commit: string,
  analyzer: string,
  findings: readonly string[],
): Promise<string> {
  const response = await gql<{ uploadArtifact: { ok: boolean; error: string | null } }>(
    server.endpoint,
    scene.token,
    UPLOAD,
    {
      input: {
        repositoryId: encodeGlobalId("Repository", scene.repository.key),
        commitOid: commit,
        branch: "main",
        analyzer,
        analyzerType: "community",
        data: sarif(findings),
      },
    },
  );
  const answer = dataOf(response).uploadArtifact as { ok: boolean; error: string | null };
  assert.equal(answer.ok, true, answer.error ?? "");
  const artifact = await server.db
    .selectFrom("artifacts")
    .select("id")
    .where("repository_id", "=", scene.repository.id)
    .orderBy("id", "desc")
    .executeTakeFirstOrThrow();
  return artifact.id;
}

const handler = () => artifactProcessingHandler(server.db, server.config, testLogger("processing").logger);

/** Processes the artifact as the worker would, start to finish. */
async function processed(artifactId: string): Promise<void> {
  assert.deepEqual(await runArtifactJob(server.db, handler(), artifactId), { status: "done" });
}

async function runStatus(commit: string): Promise<string> {
  const run = await server.db
    .selectFrom("analysis_runs")
    .select("status")
    .where("commit_oid", "=", commit)
    .executeTakeFirstOrThrow();
  return run.status;
}

interface CurrentState {
  issues: string[];
  occurrences: number;
  distribution: number;
}

/** What the API shows as the repository's current state: its issues, their findings, and a report. */
async function currentState(scene: Scene): Promise<CurrentState> {
  const response = await gql(server.endpoint, scene.token, CURRENT_STATE, {
    id: encodeGlobalId("Repository", scene.repository.key),
  });
  const node = dataOf(response).node as {
    issues: { edges: Array<{ node: { issue: { shortcode: string } } }> };
    issueOccurrences: { totalCount: number };
    reports: { issueDistribution: { currentValue: number } };
  };
  return {
    issues: node.issues.edges.map((e) => e.node.issue.shortcode).sort(),
    occurrences: node.issueOccurrences.totalCount,
    distribution: node.reports.issueDistribution.currentValue,
  };
}

const REPORT_CARD = `query($id: ID!) { node(id: $id) { ... on Repository {
  analysisRuns(first: 5) { edges { node { commitOid reportCard { status reliability { grade issuesCount } } } } } } } }`;

/** The report card of the run of `commit`, as the API answers it. */
async function reportCardOf(scene: Scene, commit: string): Promise<Record<string, unknown>> {
  const response = await gql(server.endpoint, scene.token, REPORT_CARD, {
    id: encodeGlobalId("Repository", scene.repository.key),
  });
  const node = dataOf(response).node as {
    analysisRuns: { edges: Array<{ node: { commitOid: string; reportCard: Record<string, unknown> } }> };
  };
  const run = node.analysisRuns.edges.find((edge) => edge.node.commitOid === commit);
  assert.ok(run, `a run of ${commit}`);
  return run.node.reportCard;
}

/**
 * Two finished runs of the default branch: the first with three findings of `legacy`, the second
 * (`commit`) with `legacy` fixed and one finding of `kept`.
 */
async function twoFinishedRuns(scene: Scene): Promise<{ commit: string }> {
  const first = aCommit();
  await processed(
    await upload(scene, first, "first-lint", ["legacy@src/a.js:1", "legacy@src/a.js:2", "legacy@src/b.js:3"]),
  );
  const commit = aCommit();
  await processed(await upload(scene, commit, "first-lint", ["kept@src/c.js:4"]));
  // Its introduced finding fails the check (every category and priority can, by default).
  assert.equal(await runStatus(commit), "FAILURE");
  return { commit };
}

const AFTER_SECOND_RUN: CurrentState = { issues: ["kept"], occurrences: 1, distribution: 1 };
/** The same run once a late report's finding of `added` is published in it. */
const WITH_LATE_REPORT: CurrentState = { issues: ["added", "kept"], occurrences: 2, distribution: 2 };

/** The repository-issue events the receiver processed for the scene's repository, as "type shortcode count". */
function issueEventsReceived(scene: Scene): string[] {
  const repositoryId = encodeGlobalId("Repository", scene.repository.key);
  return receiver.processed
    .filter((event) => event.type.startsWith("repository_issue."))
    .map((event) => event.data as Record<string, unknown>)
    .filter((data) => (data.object as { repository: { id: string } }).repository.id === repositoryId)
    .map((data) => {
      const { shortcode } = (data.object as { issue: { shortcode: string } }).issue;
      return data.issueOccurrencesIntroduced === undefined
        ? `resolved ${shortcode} ${data.issueOccurrencesResolved}`
        : `introduced ${shortcode} ${data.issueOccurrencesIntroduced}`;
    })
    .sort();
}

/** Waits until every delivery to the scene's endpoint is answered 2xx. */
async function everyDeliveryAnswered(scene: Scene): Promise<void> {
  await waitFor(
    "every delivery to be answered",
    async () => {
      const open = await server.db
        .selectFrom("webhook_deliveries")
        .select("id")
        .where("endpoint_id", "=", scene.endpointId)
        .where("status", "<>", "SUCCEEDED")
        .execute();
      return open.length === 0;
    },
    20_000,
  );
}

describe("a late upload to a finished run", () => {
  test("while its artifact is queued and processed, the repository's current state stays the finished run's, not the run before", async () => {
    const scene = await aScene();
    const { commit } = await twoFinishedRuns(scene);
    assert.deepEqual(await currentState(scene), AFTER_SECOND_RUN);

    const graded = await reportCardOf(scene, commit);
    const late = await upload(scene, commit, "late-lint", ["added@src/d.js:5"]);
    assert.equal(await runStatus(commit), "PENDING", "the run waits for its new artifact");
    assert.deepEqual(await currentState(scene), AFTER_SECOND_RUN, "while the artifact is QUEUED");
    assert.deepEqual(
      await reportCardOf(scene, commit),
      graded,
      "the run keeps the card of what it published",
    );
    assert.equal(graded.status, "READY");

    const job = await claimArtifactJob(server.db, late);
    const settlement = await handler().run(job, new AbortController().signal);
    assert.deepEqual(await currentState(scene), AFTER_SECOND_RUN, "while its rows are staged, unpublished");

    assert.deepEqual(await settleJob(server.db, job, settlement), { status: "done" });
    assert.equal(await runStatus(commit), "FAILURE");
    assert.deepEqual(await currentState(scene), WITH_LATE_REPORT);
  });

  test("a late report of an analyzer the run already has leaves the check's published findings in view until it is published", async () => {
    const scene = await aScene();
    const { commit } = await twoFinishedRuns(scene);

    const late = await upload(scene, commit, "first-lint", ["added@src/d.js:5"]);
    assert.deepEqual(await currentState(scene), AFTER_SECOND_RUN, "while the artifact is QUEUED");
    await processed(late);
    assert.equal(await runStatus(commit), "FAILURE");
    assert.deepEqual(await currentState(scene), WITH_LATE_REPORT);
  });

  test("when the run finishes again, each repository-issue event is delivered once, and the late report's new issues once more", async () => {
    const scene = await aScene();
    const { commit } = await twoFinishedRuns(scene);
    await everyDeliveryAnswered(scene);
    const firstFinishes = ["introduced kept 1", "introduced legacy 3", "resolved legacy 3"];
    assert.deepEqual(issueEventsReceived(scene), firstFinishes);

    await processed(await upload(scene, commit, "late-lint", ["added@src/d.js:5", "added@src/e.js:6"]));
    assert.equal(await runStatus(commit), "FAILURE");
    await everyDeliveryAnswered(scene);
    assert.deepEqual(issueEventsReceived(scene), [...firstFinishes, "introduced added 2"].sort());
  });

  test("a late report that leaves the run judging nothing makes the run before the current state again, and says so once", async () => {
    const scene = await aScene();
    const first = aCommit();
    await processed(await upload(scene, first, "first-lint", ["legacy@src/a.js:1", "legacy@src/a.js:2"]));
    // The next run's findings are of a category the repository no longer reports: it stores
    // nothing, deliberately, and passes.
    await anIssueCategorySetting(server.db, scene.repository, "STYLE", {
      isReported: false,
      canFailCheck: false,
    });
    const commit = aCommit();
    await processed(await upload(scene, commit, "first-lint", ["kept@src/c.js:4"]));
    assert.equal(await runStatus(commit), "SUCCESS");
    assert.deepEqual(await currentState(scene), { issues: [], occurrences: 0, distribution: 0 });

    // A late report of the same analyzer whose one result names no file: the check stored nothing
    // while something was lost, so it is NEUTRAL and the run SKIPPED, no state of the repository.
    await processed(await upload(scene, commit, "first-lint", ["ghost"]));
    assert.equal(await runStatus(commit), "SKIPPED");
    assert.deepEqual(await currentState(scene), { issues: ["legacy"], occurrences: 2, distribution: 2 });
    await everyDeliveryAnswered(scene);
    // legacy: introduced by the first run, resolved by the second, and back with the first.
    assert.deepEqual(issueEventsReceived(scene), [
      "introduced legacy 2",
      "introduced legacy 2",
      "resolved legacy 2",
    ]);
  });
});

describe("a check reopened by a late artifact, as the base of a newer run", () => {
  test("is compared with as it was published: a finding it had fixed that comes back is INTRODUCED", async () => {
    const scene = await aScene();
    await processed(await upload(scene, aCommit(), "first-lint", ["back@src/a.js:1", "kept@src/b.js:2"]));
    const fixedIn = aCommit();
    await processed(await upload(scene, fixedIn, "first-lint", ["kept@src/b.js:2"]));
    // A late report of the same analyzer reopens that run's check; it is not processed yet.
    await upload(scene, fixedIn, "first-lint", ["other@src/c.js:3"]);
    const reopened = await server.db
      .selectFrom("checks as c")
      .innerJoin("analysis_runs as r", "r.id", "c.run_id")
      .select(["c.status", "c.reopened_from"])
      .where("r.commit_oid", "=", fixedIn)
      .executeTakeFirstOrThrow();
    assert.deepEqual(reopened, { status: "PENDING", reopened_from: "SUCCESS" });

    const comeBack = aCommit();
    await processed(await upload(scene, comeBack, "first-lint", ["back@src/a.js:1", "kept@src/b.js:2"]));
    const states = await server.db
      .selectFrom("occurrences as o")
      .innerJoin("checks as c", "c.id", "o.check_id")
      .innerJoin("analysis_runs as r", "r.id", "c.run_id")
      .innerJoin("issues as i", "i.id", "o.issue_id")
      .select(["i.shortcode", "o.state"])
      .where("r.commit_oid", "=", comeBack)
      .orderBy("i.shortcode")
      .execute();
    assert.deepEqual(states, [
      { shortcode: "back", state: "INTRODUCED" },
      { shortcode: "kept", state: "EXISTING" },
    ]);
  });
});

describe("an analyzer without an answer in a newer run", () => {
  test("keeps its issues in the repository's current state whether its report placed nothing, was not sent or failed to process, and no resolved event is sent", async () => {
    const scene = await aScene();
    const first = aCommit();
    await processed(await upload(scene, first, "first-lint", ["legacy@src/a.js:1", "legacy@src/a.js:2"]));
    await processed(await upload(scene, first, "second-lint", ["kept@src/c.js:4"]));
    const current: CurrentState = { issues: ["kept", "legacy"], occurrences: 3, distribution: 3 };
    assert.deepEqual(await currentState(scene), current);

    // Its one result names no file: the check placed nothing and is NEUTRAL; the run succeeds.
    const placedNothing = aCommit();
    await processed(await upload(scene, placedNothing, "second-lint", ["kept@src/c.js:4"]));
    await processed(await upload(scene, placedNothing, "first-lint", ["ghost"]));
    assert.equal(await runStatus(placedNothing), "SUCCESS");
    assert.deepEqual(await currentState(scene), current, "first-lint NEUTRAL");

    const notSent = aCommit();
    await processed(await upload(scene, notSent, "second-lint", ["kept@src/c.js:4"]));
    assert.equal(await runStatus(notSent), "SUCCESS");
    assert.deepEqual(await currentState(scene), current, "first-lint not sent");

    const failed = aCommit();
    await processed(await upload(scene, failed, "second-lint", ["kept@src/c.js:4"]));
    const spoiled = await upload(scene, failed, "first-lint", ["legacy@src/a.js:1"]);
    // The intake refuses bad reports, so spoil the stored bytes behind its back.
    await server.db
      .updateTable("artifact_chunks")
      .set({ data: Buffer.from('{"version": "2.1.0", "runs": [') })
      .where("artifact_id", "=", spoiled)
      .execute();
    await processed(spoiled);
    assert.equal(await runStatus(failed), "FAILURE");
    assert.deepEqual(await currentState(scene), current, "first-lint's report failed to process");

    await everyDeliveryAnswered(scene);
    assert.deepEqual(issueEventsReceived(scene), ["introduced kept 1", "introduced legacy 2"]);
  });
});

test("every check's issue counts equal its published findings after the tests above", () =>
  assertIssueCountsMatchFindings(server.db, "the tests above"));
