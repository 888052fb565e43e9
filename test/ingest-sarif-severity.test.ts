// test-runner: execution-mode independent (SARIF processing is SQL inside a transaction, no GraphQL)
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Kysely, sql } from "kysely";
import type { Database } from "../src/db/types.ts";
import { aRepository } from "./helpers/builders.ts";
import { anIssue } from "./helpers/builders-catalog.ts";
import { anIssueCategorySetting } from "./helpers/builders-metrics.ts";
import { type OpenTestDatabase, openTestDatabase } from "./helpers/database.ts";
import { aResult, type Scene, sarifLog, sarifScenes } from "./helpers/sarif-scene.ts";

/**
 * Each finding's own severity and the grading of its rule's issue (docs/ingestion-sarif.md
 * "Classification", docs/ingestion.md "Severity of a finding"), on a real database.
 */

let database: OpenTestDatabase;
let db: Kysely<Database>;

before(async () => {
  database = await openTestDatabase();
  db = database.handle.db;
});

after(() => database?.close());

const { aScene, aNextScene, ingest, occurrencesOf } = sarifScenes(() => db);

/**
 * The issue the scene's account files findings of `shortcode` under: the shared catalog's, else its
 * own (docs/ingestion-sarif.md "An account's issues are its own").
 */
function issueOf(scene: Scene, shortcode: string) {
  return db
    .selectFrom("issues")
    .select(["severity", "category"])
    .where("analyzer_id", "=", scene.analyzer.id)
    .where("shortcode", "=", shortcode)
    .where((eb) => eb.or([eb("account_id", "is", null), eb("account_id", "=", scene.account.id)]))
    .orderBy(sql`account_id IS NOT NULL`)
    .executeTakeFirstOrThrow();
}

async function issueSeverity(scene: Scene, shortcode: string): Promise<string> {
  return (await issueOf(scene, shortcode)).severity;
}

async function issueCategory(scene: Scene, shortcode: string): Promise<string> {
  return (await issueOf(scene, shortcode)).category;
}

describe("severity of findings", () => {
  it("grades each finding by its own level, and its rule's issue by the highest level observed", async () => {
    const scene = await aScene();
    const { result } = await ingest(
      scene,
      sarifLog([
        {
          rules: [{ id: "R" }],
          results: [
            aResult("R", "a.js", 1, { level: "error" }),
            aResult("R", "a.js", 2, { level: "warning" }),
          ],
        },
      ]),
    );
    assert.equal(result.stored, 2);
    assert.deepEqual(
      (await occurrencesOf(scene.check.id)).map((o) => `${o.begin_line} ${o.severity}`),
      ["1 MAJOR", "2 MINOR"],
    );
    assert.equal(await issueSeverity(scene, "R"), "MAJOR");

    // Another account's upload with the rule at warning only: its own issue follows its upload,
    // the first account's stays as its own upload graded it.
    const stranger = await aScene({ analyzer: scene.analyzer });
    await ingest(stranger, sarifLog([{ rules: [{ id: "R" }], results: [aResult("R", "c.js", 1)] }]));
    assert.equal(await issueSeverity(stranger, "R"), "MINOR");
    assert.equal(await issueSeverity(scene, "R"), "MAJOR", "another account's upload changes nothing here");

    // Another repository of the same account: the account's issue follows the upload, the first
    // repository's findings keep their own severity.
    const other = await aScene({
      analyzer: scene.analyzer,
      repository: await aRepository(db, scene.account),
    });
    await ingest(other, sarifLog([{ rules: [{ id: "R" }], results: [aResult("R", "b.js", 1)] }]));
    assert.equal(await issueSeverity(scene, "R"), "MINOR");
    assert.deepEqual(
      (await occurrencesOf(scene.check.id)).map((o) => o.severity),
      ["MAJOR", "MINOR"],
    );
  });

  it("keeps a rule's declared level for its issue, while each finding follows its own level", async () => {
    const scene = await aScene();
    await ingest(
      scene,
      sarifLog([
        {
          rules: [{ id: "D", defaultConfiguration: { level: "note" } }],
          results: [
            aResult("D", "a.js", 1, { level: "error" }),
            aResult("D", "a.js", 2, { level: undefined }),
          ],
        },
      ]),
    );
    assert.equal(await issueSeverity(scene, "D"), "MINOR");
    assert.deepEqual(
      (await occurrencesOf(scene.check.id)).map((o) => o.severity),
      ["MAJOR", "MINOR"],
    );
  });

  it("grades a rule met undescribed by what a later run of the file declares for it", async () => {
    const scene = await aScene();
    await ingest(
      scene,
      sarifLog([
        { results: [aResult("LATE", "a.js", 1, { level: "error" })] },
        {
          rules: [{ id: "LATE", defaultConfiguration: { level: "note" } }, { id: "OPEN" }],
          results: [
            aResult("LATE", "b.js", 1, { level: undefined }),
            aResult("OPEN", "b.js", 2, { level: "error" }),
          ],
        },
      ]),
    );
    assert.equal(await issueSeverity(scene, "LATE"), "MINOR", "its declared level");
    assert.equal(await issueSeverity(scene, "OPEN"), "MAJOR", "the level its result had");
    assert.deepEqual(
      (await occurrencesOf(scene.check.id)).map((o) => `${o.rule} ${o.severity}`),
      ["LATE MAJOR", "LATE MINOR", "OPEN MAJOR"],
    );
  });

  it("grades a core analyzer's issue only when the upload filed it", async () => {
    const scene = await aScene({ analyzerType: "CORE" });
    await anIssue(db, scene.analyzer, { shortcode: "KNOWN", severity: "CRITICAL" });
    await ingest(
      scene,
      sarifLog([
        {
          rules: [{ id: "KNOWN" }, { id: "NEW" }],
          results: [
            aResult("KNOWN", "a.js", 1, { level: "error" }),
            aResult("NEW", "a.js", 2, { level: "error" }),
          ],
        },
      ]),
    );
    assert.equal(await issueSeverity(scene, "KNOWN"), "CRITICAL");
    assert.equal(await issueSeverity(scene, "NEW"), "MAJOR");
    assert.deepEqual(
      (await occurrencesOf(scene.check.id)).map((o) => `${o.rule} ${o.severity} ${o.issue_severity}`),
      ["KNOWN MAJOR CRITICAL", "NEW MAJOR MAJOR"],
    );
  });

  it("skips pass and notApplicable results as no failure, and stores a review result", async () => {
    const scene = await aScene();
    const { result } = await ingest(
      scene,
      sarifLog([
        {
          rules: [{ id: "C", defaultConfiguration: { level: "error" } }],
          results: [
            aResult("C", "a.js", 1, { kind: "pass", level: undefined }),
            aResult("C", "a.js", 2, { kind: "notApplicable", level: undefined }),
            aResult("C", "a.js", 3, { kind: "review", level: undefined }),
            aResult("C", "a.js", 4, { level: undefined }),
          ],
        },
      ]),
    );
    assert.deepEqual([result.read, result.stored, result.skipped], [4, 2, { NOT_A_FAILURE: 2 }]);
    assert.deepEqual(
      (await occurrencesOf(scene.check.id)).map((o) => `${o.begin_line} ${o.severity}`),
      ["3 MINOR", "4 MAJOR"],
    );
  });

  it("decides per finding whether the repository reports it", async () => {
    const scene = await aScene();
    await db
      .insertInto("repository_issue_priority_settings")
      .values({
        repository_id: scene.repository.id,
        priority_type: "MEDIUM",
        is_reported: false,
        can_fail_check: false,
      })
      .execute();
    const { result } = await ingest(
      scene,
      sarifLog([
        {
          rules: [{ id: "R" }],
          results: [aResult("R", "a.js", 1, { level: "error" }), aResult("R", "a.js", 2, { level: "note" })],
        },
      ]),
    );
    assert.deepEqual(result.skipped, { NOT_REPORTED: 1 });
    assert.deepEqual(
      (await occurrencesOf(scene.check.id)).map((o) => `${o.begin_line} ${o.severity}`),
      ["2 MINOR"],
    );
  });

  it("gives a rule graded by its findings the category their highest level gives, and reports them by it", async () => {
    // A rule without a level, tags or a family: an error makes it a bug risk, a warning an anti-pattern.
    const report = sarifLog([
      {
        rules: [{ id: "PLAIN" }],
        results: [
          aResult("PLAIN", "a.js", 1, { level: "warning" }),
          aResult("PLAIN", "a.js", 2, { level: "error" }),
        ],
      },
    ]);

    const bugsHidden = await aScene();
    await anIssueCategorySetting(db, bugsHidden.repository, "BUG_RISK", {
      isReported: false,
      canFailCheck: false,
    });
    const hidden = await ingest(bugsHidden, report);
    assert.equal(await issueCategory(bugsHidden, "PLAIN"), "BUG_RISK");
    assert.deepEqual(hidden.result.skipped, { NOT_REPORTED: 2 }, "both findings are bug risks, not reported");
    assert.equal(hidden.result.stored, 0);
    assert.deepEqual(await occurrencesOf(bugsHidden.check.id), []);

    const antiPatternsHidden = await aScene({ analyzer: bugsHidden.analyzer });
    await anIssueCategorySetting(db, antiPatternsHidden.repository, "ANTI_PATTERN", {
      isReported: false,
      canFailCheck: false,
    });
    const shown = await ingest(antiPatternsHidden, report);
    assert.deepEqual(shown.result.skipped, {}, "kept, though the first finding read as an anti-pattern");
    assert.equal(shown.result.stored, 2);
    assert.equal((await occurrencesOf(antiPatternsHidden.check.id)).length, 2);
  });

  it("keeps the category a rule's issue was filed under when a later upload of the account has it at another level", async () => {
    // Rules without a level, tags or a family: only their findings' levels guess a category.
    const report = (level: "error" | "warning", path: string) =>
      sarifLog([
        {
          rules: [{ id: "PLAIN" }, { id: "QUIET" }],
          results: [aResult("PLAIN", path, 1, { level }), aResult("QUIET", path, 2, { level: "warning" })],
        },
      ]);
    const first = await aScene();
    await ingest(first, report("error", "a.js"));
    assert.equal(await issueCategory(first, "PLAIN"), "BUG_RISK");
    assert.equal(await issueCategory(first, "QUIET"), "ANTI_PATTERN");

    // Another repository of the account hides bug risks; its upload has PLAIN at warning and QUIET at error.
    const other = await aScene({
      analyzer: first.analyzer,
      repository: await aRepository(db, first.account),
    });
    await anIssueCategorySetting(db, other.repository, "BUG_RISK", {
      isReported: false,
      canFailCheck: false,
    });
    const { result } = await ingest(
      other,
      sarifLog([
        {
          rules: [{ id: "PLAIN" }, { id: "QUIET" }],
          results: [
            aResult("PLAIN", "b.js", 1, { level: "warning" }),
            aResult("QUIET", "b.js", 2, { level: "error" }),
          ],
        },
      ]),
    );
    assert.equal(await issueCategory(first, "PLAIN"), "BUG_RISK", "not guessed again");
    assert.equal(await issueCategory(first, "QUIET"), "ANTI_PATTERN", "not guessed again");
    assert.deepEqual(result.skipped, { NOT_REPORTED: 1 }, "PLAIN is a bug risk there too");
    assert.deepEqual(
      (await occurrencesOf(other.check.id)).map((o) => `${o.rule} ${o.severity}`),
      ["QUIET MAJOR"],
      "each finding keeps its own severity",
    );
  });

  it("files a rule's issue again under the category its rule states, replacing a guess from a level", async () => {
    const first = await aScene();
    await ingest(
      first,
      sarifLog([{ rules: [{ id: "NAMED" }], results: [aResult("NAMED", "a.js", 1, { level: "error" })] }]),
    );
    assert.equal(await issueCategory(first, "NAMED"), "BUG_RISK");
    const next = await aScene({ analyzer: first.analyzer, repository: await aRepository(db, first.account) });
    await ingest(
      next,
      sarifLog([
        {
          rules: [{ id: "NAMED", properties: { tags: ["performance"] } }],
          results: [aResult("NAMED", "b.js", 1, { level: "error" })],
        },
      ]),
    );
    assert.equal(await issueCategory(first, "NAMED"), "PERFORMANCE", "the rule says what it finds");
  });

  it("keeps a finding's severity in the RESOLVED copy of a later run", async () => {
    const base = await aScene();
    await ingest(
      base,
      sarifLog([{ rules: [{ id: "R" }], results: [aResult("R", "a.js", 1, { level: "error" })] }]),
    );
    const head = await aNextScene(base);
    await ingest(head, sarifLog([{ rules: [{ id: "R" }], results: [] }]), { baseCheckId: base.check.id });
    assert.deepEqual(
      (await occurrencesOf(head.check.id)).map((o) => `${o.state} ${o.severity}`),
      ["RESOLVED MAJOR"],
    );
  });
});
