// test-runner: execution-mode independent (processing on a database, no GraphQL)
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { type Kysely, sql } from "kysely";
import type { Database } from "../src/db/types.ts";
import { type OpenTestDatabase, openTestDatabase } from "./helpers/database.ts";
import { assertIssueCountsMatchFindings } from "./helpers/issue-counts.ts";
import { type Scene, sarifScenes } from "./helpers/sarif-scene.ts";

/**
 * Counts in messages (docs/ingestion.md "Fingerprints", fingerprint version 2): ESLint's
 * `complexity` and `max-lines` write a number that moves with an edit, and the finding stays
 * EXISTING, while a new finding (a new function with too many parameters) is INTRODUCED. The
 * reports are ESLint's of test/fixtures/tools/js-message-numbers before and after an edit
 * (scripts/make-fixtures.sh message-numbers); each summary lists every finding ESLint printed.
 */

const FIXTURES = path.resolve(import.meta.dirname, "fixtures", "message-numbers");
/** Where make-fixtures.sh ran ESLint: the SARIF's absolute paths lie under it. */
const WORK_DIR = "/tmp/assay-fixtures/js-message-numbers";

interface ToolFinding {
  path: string;
  rule: string;
  line: number;
  message: string;
}

let database: OpenTestDatabase;
let db: Kysely<Database>;
let base: ToolFinding[];
let edited: ToolFinding[];

const read = (name: string) => fs.readFile(path.join(FIXTURES, name), "utf8");
const findingsOf = async (version: string): Promise<ToolFinding[]> =>
  JSON.parse(await read(`${version}.summary.json`)).figures.findings;

before(async () => {
  database = await openTestDatabase();
  db = database.handle.db;
  [base, edited] = await Promise.all([findingsOf("base"), findingsOf("edited")]);
});

after(() => database?.close());

const { aScene, aNextScene, ingest, occurrencesOf, summaryOf } = sarifScenes(() => db);

/** `rule path:line state`, sorted, as the check holds its findings. */
async function statesOf(checkId: string): Promise<string[]> {
  return (await summaryOf(checkId)).map((line) => line.replace(/^(\S+ [^:]+:\d+):\d+/, "$1")).sort();
}

const at = (finding: ToolFinding, state: string) =>
  `${finding.rule} ${finding.path}:${finding.line} ${state}`;

/** The edit's new finding: the function it adds has too many parameters. */
const isNew = (finding: ToolFinding) => finding.message.includes("'discount'");

async function setFingerprintVersion(scene: Scene, version: number): Promise<void> {
  await sql`UPDATE checks SET fingerprint_version = ${version} WHERE id = ${scene.check.id}`.execute(db);
}

/** The base report processed in a new check (of `like`'s analyzer, if given) hashed in `version`. */
async function aBase(version: number, like?: Scene): Promise<Scene> {
  const scene = await aScene(like ? { analyzer: like.analyzer } : {});
  await setFingerprintVersion(scene, version);
  await ingest(scene, await read("base.sarif"), { workDir: WORK_DIR });
  return scene;
}

async function theEdit(baseScene: Scene, version?: number) {
  const head = await aNextScene(baseScene);
  if (version !== undefined) await setFingerprintVersion(head, version);
  const { result } = await ingest(head, await read("edited.sarif"), {
    workDir: WORK_DIR,
    baseCheckId: baseScene.check.id,
  });
  return { head, counts: [result.counts?.introduced, result.counts?.existing, result.counts?.resolved] };
}

describe("a count in a message that moves with an edit", () => {
  it("is what the fixture shows: the same findings of complexity and max-lines, with other numbers", () => {
    for (const rule of ["complexity", "max-lines"]) {
      const [before] = base.filter((f) => f.rule === rule);
      const [now] = edited.filter((f) => f.rule === rule);
      assert.ok(before && now, rule);
      assert.notEqual(before.message, now.message, `${rule}: ESLint's count moved`);
    }
    assert.equal(edited.filter(isNew).length, 1);
  });

  it("keeps its finding EXISTING; the edit's new finding is INTRODUCED and nothing is RESOLVED", async () => {
    const { head, counts } = await theEdit(await aBase(2));
    assert.deepEqual(
      await statesOf(head.check.id),
      edited.map((f) => at(f, isNew(f) ? "INTRODUCED" : "EXISTING")).sort(),
    );
    assert.deepEqual(counts, [1, edited.length - 1, 0]);
    await assertIssueCountsMatchFindings(db, "counts in messages");
  });

  /** What version 1 made of the edit: each count that moved is a fix and a new finding. */
  const asVersion1 = () => {
    const moved = (f: ToolFinding) => f.rule === "complexity" || f.rule === "max-lines";
    return [
      ...edited.map((f) => at(f, isNew(f) || moved(f) ? "INTRODUCED" : "EXISTING")),
      ...base.filter(moved).map((f) => at(f, "RESOLVED")),
    ].sort();
  };

  it("was RESOLVED and INTRODUCED again when both checks hashed counts (version 1)", async () => {
    const { head, counts } = await theEdit(await aBase(1), 1);
    assert.deepEqual(await statesOf(head.check.id), asVersion1());
    assert.deepEqual(counts, [3, edited.length - 3, 2]);
  });

  it("against a base hashed before the upgrade (version 1), reads as version 1 did: no finding is new for the upgrade's sake", async () => {
    // The unchanged count (`max-params`' (3) of 'price') matches its base by its version 1
    // fingerprint; the counts that moved in this very edit read as version 1 read them.
    const { head, counts } = await theEdit(await aBase(1));
    assert.deepEqual(await statesOf(head.check.id), asVersion1());
    assert.deepEqual(counts, [3, edited.length - 3, 2]);
    // The run after it compares version 2 with version 2: the edit undone moves the counts back
    // and keeps their findings; the function it removes is fixed.
    const next = await aNextScene(head);
    const { result } = await ingest(next, await read("base.sarif"), {
      workDir: WORK_DIR,
      baseCheckId: head.check.id,
    });
    assert.deepEqual(
      await statesOf(next.check.id),
      [...base.map((f) => at(f, "EXISTING")), ...edited.filter(isNew).map((f) => at(f, "RESOLVED"))].sort(),
    );
    assert.deepEqual([result.counts?.introduced, result.counts?.resolved], [0, 1]);
    await assertIssueCountsMatchFindings(db, "across the upgrade");
  });

  it("a check hashed in version 1 keeps it: a late report into it is hashed as its findings were", async () => {
    const old = await aBase(1);
    const now = await aBase(2, old);
    const fingerprints = async (scene: Scene) =>
      new Map((await occurrencesOf(scene.check.id)).map((o) => [o.rule, o.fingerprint]));
    const [before, after] = [await fingerprints(old), await fingerprints(now)];
    // Only the messages with a count hash differently.
    for (const rule of ["complexity", "max-lines", "max-params"])
      assert.notEqual(before.get(rule), after.get(rule), rule);
    assert.equal(before.get("eqeqeq"), after.get("eqeqeq"));
    const { result } = await ingest(old, await read("base.sarif"), { workDir: WORK_DIR });
    assert.equal(result.stored, 0);
    assert.equal(result.skipped.ALREADY_REPORTED, base.length);
    assert.equal((await statesOf(old.check.id)).length, base.length);
  });
});
