import { createHash, randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type {
  AccountRow,
  AnalysisRunRow,
  AnalyzerRow,
  AnalyzerType,
  CheckRow,
  Database,
  IssueCategory,
  RepositoryRow,
} from "../../src/db/types.ts";
import type { ArtifactRow } from "../../src/db/types-ingestion.ts";
import { newRowKey } from "../../src/graphql/global-id.ts";
import type { RenamedFiles } from "../../src/ingestion/changes.ts";
import { processSarif, stageSarif } from "../../src/ingestion/sarif/process.ts";
import type { ProcessInput, ProcessResult, PublishStep } from "../../src/ingestion/types.ts";
import { anAccount, aRepository, aRun } from "./builders.ts";
import { anAnalyzer } from "./builders-catalog.ts";
import { aCheck } from "./builders-checks.ts";

/**
 * SARIF processing on a real database without the server: a repository, run and check to process
 * artifacts into (`sarifScenes`), and hand-made SARIF logs (`sarifLog`, `aResult`).
 */

/** A repository with a run and a check of one analyzer, ready for artifacts. */
export interface Scene {
  account: AccountRow;
  repository: RepositoryRow;
  analyzer: AnalyzerRow;
  run: AnalysisRunRow;
  check: CheckRow;
}

/** A stored occurrence with its own severity, and its issue's shortcode, category and severity. */
export interface StoredOccurrence {
  rule: string;
  category: IssueCategory;
  severity: string | null;
  issue_severity: string;
  path: string;
  begin_line: number;
  begin_column: number;
  end_line: number;
  end_column: number;
  title: string;
  fingerprint: string;
  state: string;
  is_suppressed: boolean;
  artifact_id: string | null;
  key: string;
}

/**
 * The scene helpers over the database `db()` answers (read at each call, so a test file can open
 * its database in `before`).
 */
export function sarifScenes(db: () => Kysely<Database>) {
  /** A repository (a new one unless given) with a PENDING run and check of an analyzer. */
  async function aScene(
    fields: Partial<{ analyzer: AnalyzerRow; analyzerType: AnalyzerType; repository: RepositoryRow }> = {},
  ): Promise<Scene> {
    const repository = fields.repository ?? (await aRepository(db(), await anAccount(db())));
    const account = await db()
      .selectFrom("accounts")
      .selectAll()
      .where("id", "=", repository.account_id)
      .executeTakeFirstOrThrow();
    const analyzer =
      fields.analyzer ?? (await anAnalyzer(db(), { type: fields.analyzerType ?? "COMMUNITY" }));
    const run = await aRun(db(), repository, { status: "PENDING" });
    const check = await aCheck(db(), run, analyzer, { status: "PENDING", finishedAt: null });
    return { account, repository, analyzer, run, check };
  }

  /** A later run of the same repository and analyzer (its base is `scene`'s check). */
  function aNextScene(scene: Scene): Promise<Scene> {
    return aScene({ analyzer: scene.analyzer, repository: scene.repository });
  }

  /** A SARIF artifact row of the scene's check, as the intake stores it (without its bytes). */
  async function anArtifact(scene: Scene, workDir: string | null = null): Promise<ArtifactRow> {
    return db()
      .insertInto("artifacts")
      .values({
        key: newRowKey(),
        repository_id: scene.repository.id,
        run_id: scene.run.id,
        check_id: scene.check.id,
        kind: "SARIF",
        analyzer: scene.analyzer.shortcode,
        analyzer_type: scene.analyzer.type === "COMMUNITY" ? "community" : null,
        reporter: "test",
        work_dir: workDir,
        compression: "NONE",
        stored_bytes: 0,
        content_sha256: createHash("sha256").update(randomUUID()).digest(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** What processing `text` as `artifact`'s report in `scene` is given, its statements going to `tx`. */
  function inputOf(
    tx: Kysely<Database>,
    scene: Scene,
    artifact: ArtifactRow,
    text: string,
    baseCheckId: string | null | undefined,
    renamedFiles?: RenamedFiles,
  ): ProcessInput {
    const { repository, run, check } = scene;
    return {
      tx,
      artifact,
      repository,
      run,
      check,
      baseCheckId: baseCheckId ?? null,
      text: () => chunks(text),
      ...(renamedFiles === undefined
        ? {}
        : { renamedFiles: async () => ({ files: renamedFiles, deferred: new Map(), warning: null }) }),
    };
  }

  /** Processes `text` as `artifact`'s report in one transaction. */
  async function processText(
    scene: Scene,
    artifact: ArtifactRow,
    text: string,
    fields: Partial<{
      baseCheckId: string | null;
      batchSize: number;
      rememberedMissing: number;
      rememberedBase: number;
      rememberedHeld: number;
      renamedFiles: RenamedFiles;
    }> = {},
  ): Promise<ProcessResult> {
    return db()
      .transaction()
      .execute((tx) =>
        processSarif(inputOf(tx, scene, artifact, text, fields.baseCheckId, fields.renamedFiles), {
          batchSize: fields.batchSize,
          rememberedMissing: fields.rememberedMissing,
          rememberedBase: fields.rememberedBase,
          rememberedHeld: fields.rememberedHeld,
        }),
      );
  }

  /**
   * Stages `text` as `artifact`'s report, each step a transaction of its own as the worker runs
   * them; answers its publication, for a transaction of the caller's.
   */
  function stageText(
    scene: Scene,
    artifact: ArtifactRow,
    text: string,
    fields: Partial<{
      baseCheckId: string | null;
      batchSize: number;
      inFlight: number;
      rememberedBase: number;
      rememberedHeld: number;
      /** Runs after each step has committed (another writer's turn between two steps). */
      betweenSteps: () => Promise<void>;
    }> = {},
  ): Promise<PublishStep> {
    return stageSarif(
      inputOf(db(), scene, artifact, text, fields.baseCheckId),
      async (work) => {
        const done = await db().transaction().execute(work);
        await fields.betweenSteps?.();
        return done;
      },
      {
        batchSize: fields.batchSize,
        inFlight: fields.inFlight,
        rememberedBase: fields.rememberedBase,
        rememberedHeld: fields.rememberedHeld,
      },
    );
  }

  /** Processes `text` as a new artifact of `scene`. */
  async function ingest(
    scene: Scene,
    text: string,
    fields: Partial<{
      baseCheckId: string | null;
      batchSize: number;
      rememberedMissing: number;
      rememberedBase: number;
      rememberedHeld: number;
      workDir: string;
      renamedFiles: RenamedFiles;
    }> = {},
  ): Promise<{ artifact: ArtifactRow; result: ProcessResult }> {
    const artifact = await anArtifact(scene, fields.workDir ?? null);
    return { artifact, result: await processText(scene, artifact, text, fields) };
  }

  async function occurrencesOf(checkId: string): Promise<StoredOccurrence[]> {
    return db()
      .selectFrom("occurrences as o")
      .innerJoin("issues as i", "i.id", "o.issue_id")
      .select([
        "i.shortcode as rule",
        "i.category",
        "o.severity",
        "i.severity as issue_severity",
        "o.path",
        "o.begin_line",
        "o.begin_column",
        "o.end_line",
        "o.end_column",
        "o.title",
        "o.fingerprint",
        "o.state",
        "o.is_suppressed",
        "o.artifact_id",
        "o.key",
      ])
      .where("o.check_id", "=", checkId)
      .orderBy("o.path")
      .orderBy("o.begin_line")
      .orderBy("o.begin_column")
      .orderBy("o.fingerprint")
      .orderBy("o.state")
      .execute();
  }

  /** `rule path:line:column state` lines, sorted. */
  async function summaryOf(checkId: string): Promise<string[]> {
    return (await occurrencesOf(checkId))
      .map((o) => `${o.rule} ${o.path}:${o.begin_line}:${o.begin_column} ${o.state}`)
      .sort();
  }

  return { aScene, aNextScene, anArtifact, processText, stageText, ingest, occurrencesOf, summaryOf };
}

/** The text in 100-byte chunks, as stored bytes stream back. */
export async function* chunks(text: string): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let start = 0; start < bytes.length; start += 100) yield bytes.subarray(start, start + 100);
}

/** A SARIF 2.1.0 log of the given runs. */
export function sarifLog(
  runs: Array<{ tool?: string; rules?: unknown[]; results: unknown[]; originalUriBaseIds?: unknown }>,
): string {
  return JSON.stringify({
    version: "2.1.0",
    runs: runs.map((run) => ({
      tool: { driver: { name: run.tool ?? "hand-made", rules: run.rules ?? [] } },
      ...(run.originalUriBaseIds === undefined ? {} : { originalUriBaseIds: run.originalUriBaseIds }),
      results: run.results,
    })),
  });
}

/** A result of `ruleId` at `uri` (line `line`, or no region when null). */
export function aResult(
  ruleId: string,
  uri: string,
  line: number | null,
  fields: Record<string, unknown> & { message?: string; snippet?: string } = {},
): Record<string, unknown> {
  const { message, snippet, ...rest } = fields;
  const region =
    line === null
      ? undefined
      : {
          startLine: line,
          startColumn: 3,
          endLine: line,
          endColumn: 9,
          ...(snippet ? { snippet: { text: snippet } } : {}),
        };
  return {
    ruleId,
    level: "warning",
    message: { text: message ?? `Problem of ${ruleId}.` },
    locations: [{ physicalLocation: { artifactLocation: { uri }, ...(region ? { region } : {}) } }],
    ...rest,
  };
}
