import { type Kysely, sql } from "kysely";
import type { AnalyzerType, Database, IssueCategory, IssueSeverity } from "../db/types.ts";
import { classifySarifRule } from "../formats/sarif/mapping.ts";
import { readSarif } from "../formats/sarif/reader.ts";
import type { SarifLevel, SarifLocation, SarifResult, SarifRule } from "../formats/sarif/types.ts";
import { newRowKey } from "../graphql/global-id.ts";
import { catalogKey } from "../modules/catalog/catalog-data.ts";
import { PRIORITY_OF_SEVERITY } from "../modules/settings/settings-service.ts";
import {
  loadSuppressionRules,
  type SuppressionRules,
  suppressionOf,
} from "../modules/settings/suppression-rules.ts";
import { FingerprintSequence, fingerprintContext } from "./fingerprint.ts";
import { outsidePathOf, placementOf } from "./sarif-validate.ts";
import { type ProcessInput, type ProcessResult, ProcessTally } from "./types.ts";

/**
 * Turns a stored SARIF artifact into catalog issues and occurrences of its check, inside the
 * processing transaction (docs/ingestion.md). The report is read as a stream; memory holds the
 * issue of each rule, one fingerprint per distinct finding (for the ordinals) and two batches of
 * rows: one being filled while the previous one is written.
 */

/**
 * Occurrences per INSERT statement. Of 1,000, 5,000 and 10,000 measured on PostgreSQL
 * (docs/benchmarks.md "Ingestion"), 5,000 was the fastest; 10,000 also holds twice the rows.
 */
export const OCCURRENCE_BATCH_SIZE = 5000;

/** Longer messages are cut here (and end with "…"), so one row stays small. */
export const MAX_TITLE_LENGTH = 4000;

/** PostgreSQL's `integer`, the type of the line and column columns. */
const MAX_INTEGER = 2_147_483_647;

/** Tuning for benchmarks and tests; production uses the defaults. */
export interface ProcessSarifOptions {
  batchSize?: number;
}

/** A check's findings by state, after {@link recomputeFindingStates}. */
export interface FindingStateCounts {
  introduced: number;
  existing: number;
  resolved: number;
}

/** The analyzer an artifact's findings are filed under. */
interface AnalyzerRef {
  id: string;
  shortcode: string;
  type: AnalyzerType;
}

/** A rule's catalog issue, and whether the repository stores its findings. */
interface IssueRef {
  id: string;
  reported: boolean;
}

/** The issue columns a SARIF rule decides. */
interface IssueFields {
  shortcode: string;
  title: string;
  description: string;
  short_description: string;
  category: IssueCategory;
  severity: IssueSeverity;
  tags: string[];
}

/** Which issue categories and priorities the repository does not report (`isReported: false`). */
class ReportingSettings {
  constructor(
    private readonly hiddenCategories: ReadonlySet<string>,
    private readonly hiddenPriorities: ReadonlySet<string>,
  ) {}

  /** True when findings of an issue with this category and severity are stored. */
  reports(category: IssueCategory, severity: IssueSeverity): boolean {
    return !this.hiddenCategories.has(category) && !this.hiddenPriorities.has(PRIORITY_OF_SEVERITY[severity]);
  }
}

async function loadReportingSettings(tx: Kysely<Database>, repositoryId: string): Promise<ReportingSettings> {
  const [categories, priorities] = await Promise.all([
    tx
      .selectFrom("repository_issue_category_settings")
      .select("category")
      .where("repository_id", "=", repositoryId)
      .where("is_reported", "=", false)
      .execute(),
    tx
      .selectFrom("repository_issue_priority_settings")
      .select("priority_type")
      .where("repository_id", "=", repositoryId)
      .where("is_reported", "=", false)
      .execute(),
  ]);
  return new ReportingSettings(
    new Set(categories.map((row) => row.category)),
    new Set(priorities.map((row) => row.priority_type)),
  );
}

async function findAnalyzer(tx: Kysely<Database>, shortcode: string): Promise<AnalyzerRef> {
  const analyzer = await tx
    .selectFrom("analyzers")
    .select(["id", "shortcode", "type"])
    .where("shortcode", "=", shortcode)
    .executeTakeFirst();
  if (!analyzer) throw new Error(`The analyzer "${shortcode}" of the artifact is not in the catalog.`);
  return analyzer;
}

/** The issue description: the rule's help or description, and its documentation link. */
function descriptionOf(rule: SarifRule): string {
  const text = rule.help || rule.fullDescription || rule.shortDescription || "";
  if (!rule.helpUri) return text;
  return text === "" ? rule.helpUri : `${text}\n\n${rule.helpUri}`;
}

/** The issue a described rule becomes; `shortcode` is the id results use (usually the rule's). */
function describedIssue(rule: SarifRule, shortcode: string): IssueFields {
  return {
    shortcode,
    title: rule.shortDescription || rule.name || shortcode,
    description: descriptionOf(rule),
    short_description: rule.shortDescription ?? "",
    ...classifySarifRule(rule),
  };
}

/** The issue of a rule the driver does not describe: its id as title, classified by the result's level. */
function undescribedIssue(ruleId: string, level: SarifLevel): IssueFields {
  const rule: SarifRule = {
    id: ruleId,
    index: -1,
    name: null,
    shortDescription: null,
    fullDescription: null,
    help: null,
    helpUri: null,
    defaultLevel: null,
    tags: [],
    securitySeverity: null,
    precision: null,
    problemSeverity: null,
    messageStrings: {},
  };
  return {
    shortcode: ruleId,
    title: ruleId,
    description: "",
    short_description: "",
    ...classifySarifRule(rule, level),
  };
}

/** The columns a COMMUNITY analyzer's upload may rewrite. */
const UPDATABLE_ISSUE_COLUMNS = [
  "title",
  "description",
  "short_description",
  "category",
  "severity",
  "tags",
] as const;

/** Only issues whose fields differ are rewritten, so an unchanged rule leaves its row alone. */
function issueChanged() {
  const stored = UPDATABLE_ISSUE_COLUMNS.map((column) => sql.ref(`issues.${column}`));
  const incoming = UPDATABLE_ISSUE_COLUMNS.map((column) => sql.ref(`excluded.${column}`));
  return sql<boolean>`(${sql.join(stored)}) IS DISTINCT FROM (${sql.join(incoming)})`;
}

/**
 * The analyzer's issues by rule id, created or updated as the report's rules arrive. A COMMUNITY
 * analyzer's issues follow its uploads (a changed rule rewrites its issue); a CORE analyzer's
 * catalog is only added to, for rules it does not know yet.
 */
class IssueCatalog {
  private readonly byRule = new Map<string, IssueRef>();
  /** Rules met in a result before any run described them (filed with their id as title). */
  private readonly undescribed = new Set<string>();

  constructor(
    private readonly tx: Kysely<Database>,
    private readonly analyzer: AnalyzerRef,
    private readonly reporting: ReportingSettings,
  ) {}

  /** Distinct rules met so far. */
  get size(): number {
    return this.byRule.size;
  }

  /** Files the rules a run's driver describes (within one artifact, the first description of an id wins). */
  async describe(rules: readonly SarifRule[]): Promise<void> {
    const fresh = new Map<string, IssueFields>();
    for (const rule of rules) {
      const known = this.byRule.has(rule.id) && !this.undescribed.has(rule.id);
      if (!known && !fresh.has(rule.id)) fresh.set(rule.id, describedIssue(rule, rule.id));
    }
    const all = [...fresh.values()];
    for (let start = 0; start < all.length; start += 500) {
      await this.upsert(all.slice(start, start + 500), this.analyzer.type === "COMMUNITY");
    }
    for (const id of fresh.keys()) this.undescribed.delete(id);
  }

  /** The issue of a rule met before, if any (no query). */
  known(ruleId: string): IssueRef | undefined {
    return this.byRule.get(ruleId);
  }

  /** The issue of `result`'s rule, filed now when no run described it. */
  async issueFor(result: SarifResult): Promise<IssueRef> {
    const known = this.byRule.get(result.ruleId);
    if (known) return known;
    if (result.rule) {
      // A rule found by index under another id (`CA2000/1`): described, so filed like the others.
      await this.upsert([describedIssue(result.rule, result.ruleId)], this.analyzer.type === "COMMUNITY");
    } else {
      // Never overwrites an issue described before (by an earlier upload).
      await this.upsert([undescribedIssue(result.ruleId, result.level)], false);
      this.undescribed.add(result.ruleId);
    }
    return this.byRule.get(result.ruleId)!;
  }

  /** Inserts `rows` (updating changed ones when `update`), then notes each one's id. */
  private async upsert(rows: IssueFields[], update: boolean): Promise<void> {
    if (rows.length === 0) return;
    const values = rows.map((row) => ({
      ...row,
      key: catalogKey(`issue:${this.analyzer.shortcode}:${row.shortcode}`),
      analyzer_id: this.analyzer.id,
    }));
    await this.tx
      .insertInto("issues")
      .values(values)
      .onConflict((oc) => {
        const target = oc.columns(["analyzer_id", "shortcode"]);
        if (!update) return target.doNothing();
        return target
          .doUpdateSet((eb) => ({
            title: eb.ref("excluded.title"),
            description: eb.ref("excluded.description"),
            short_description: eb.ref("excluded.short_description"),
            category: eb.ref("excluded.category"),
            severity: eb.ref("excluded.severity"),
            tags: eb.ref("excluded.tags"),
          }))
          .where(issueChanged());
      })
      .execute();
    const stored = await this.tx
      .selectFrom("issues")
      .select(["id", "shortcode", "category", "severity"])
      .where("analyzer_id", "=", this.analyzer.id)
      .where(
        "shortcode",
        "in",
        rows.map((row) => row.shortcode),
      )
      .execute();
    for (const issue of stored) {
      this.byRule.set(issue.shortcode, {
        id: issue.id,
        reported: this.reporting.reports(issue.category, issue.severity),
      });
    }
  }
}

/** One occurrence row, before it is written. */
export interface OccurrenceRow {
  issueId: string;
  path: string;
  beginLine: number;
  beginColumn: number;
  endLine: number;
  endColumn: number;
  title: string;
  fingerprint: string;
  isSuppressed: boolean;
}

/** Rows kept as one array per column, the shape the `unnest` insert takes (exported for bench/ingest.ts). */
export class OccurrenceBatch {
  readonly keys: string[] = [];
  readonly issueIds: string[] = [];
  readonly paths: string[] = [];
  readonly beginLines: number[] = [];
  readonly beginColumns: number[] = [];
  readonly endLines: number[] = [];
  readonly endColumns: number[] = [];
  readonly titles: string[] = [];
  readonly fingerprints: string[] = [];
  readonly suppressed: boolean[] = [];

  get size(): number {
    return this.keys.length;
  }

  push(row: OccurrenceRow): void {
    this.keys.push(newRowKey());
    this.issueIds.push(row.issueId);
    this.paths.push(row.path);
    this.beginLines.push(row.beginLine);
    this.beginColumns.push(row.beginColumn);
    this.endLines.push(row.endLine);
    this.endColumns.push(row.endColumn);
    this.titles.push(row.title);
    this.fingerprints.push(row.fingerprint);
    this.suppressed.push(row.isSuppressed);
  }
}

/** Where a batch goes: the check and artifact, and the base check its states are judged against. */
export interface BatchTarget {
  checkId: string;
  artifactId: string;
  baseCheckId: string | null;
}

/**
 * Writes one batch in one statement (exported for bench/ingest.ts). The state is decided here
 * already (EXISTING when the base check has a non-RESOLVED occurrence with the fingerprint), so
 * the check-wide state pass after processing only tests the check's other artifacts' rows.
 *
 * The base is looked up row by row (a lateral index probe that stops at the first match): an
 * EXISTS would let PostgreSQL hash the whole base check for every batch when its statistics
 * think that check small, which they do while it is fresh.
 */
export async function insertOccurrenceBatch(
  tx: Kysely<Database>,
  target: BatchTarget,
  batch: OccurrenceBatch,
): Promise<void> {
  const inBase =
    target.baseCheckId === null
      ? sql`SELECT NULL::boolean AS found`
      : sql`SELECT true AS found FROM occurrences AS b WHERE b.check_id = ${target.baseCheckId}
          AND b.fingerprint = u.fingerprint AND b.state <> 'RESOLVED' LIMIT 1`;
  await sql`
    INSERT INTO occurrences (key, check_id, issue_id, artifact_id, path, begin_line, begin_column,
      end_line, end_column, title, fingerprint, state, is_suppressed)
    SELECT u.key, ${target.checkId}, u.issue_id, ${target.artifactId}, u.path, u.begin_line, u.begin_column,
      u.end_line, u.end_column, u.title, u.fingerprint,
      CASE WHEN m.found THEN 'EXISTING' ELSE 'INTRODUCED' END, u.is_suppressed
    FROM unnest(${batch.keys}::text[], ${batch.issueIds}::bigint[], ${batch.paths}::text[],
      ${batch.beginLines}::int[], ${batch.beginColumns}::int[], ${batch.endLines}::int[],
      ${batch.endColumns}::int[], ${batch.titles}::text[], ${batch.fingerprints}::text[],
      ${batch.suppressed}::boolean[])
      AS u(key, issue_id, path, begin_line, begin_column, end_line, end_column, title, fingerprint, is_suppressed)
    LEFT JOIN LATERAL (${inBase}) AS m ON true
  `.execute(tx);
}

/**
 * Collects rows into batches and writes each in one statement, while the next batch fills: at
 * most one statement is in flight, so memory holds two batches.
 */
class OccurrenceWriter {
  private batch = new OccurrenceBatch();
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly tx: Kysely<Database>,
    private readonly target: BatchTarget,
    private readonly batchSize: number,
  ) {}

  /** Adds a row; true when the batch is full and should be sent ({@link send}). */
  add(row: OccurrenceRow): boolean {
    this.batch.push(row);
    return this.batch.size >= this.batchSize;
  }

  /** Writes what is left and waits for every statement. */
  async finish(): Promise<void> {
    if (this.batch.size > 0) await this.send();
    await this.inFlight;
    this.inFlight = null;
  }

  /** Waits for the statement in flight, if any, ignoring its outcome (after another failure). */
  async settle(): Promise<void> {
    await this.inFlight?.catch(() => {});
  }

  /** Sends the batch once the statement in flight is done, and starts a new batch. */
  async send(): Promise<void> {
    const batch = this.batch;
    this.batch = new OccurrenceBatch();
    await this.inFlight;
    const sending = insertOccurrenceBatch(this.tx, this.target, batch);
    // Awaited by the next send or by finish; until then a failure must not count as unhandled.
    sending.catch(() => {});
    this.inFlight = sending;
  }
}

/** Text PostgreSQL can store: without NUL characters. */
function withoutNul(text: string): string {
  return text.includes("\0") ? text.replaceAll("\0", "") : text;
}

/** A message as an occurrence title: storable, at most {@link MAX_TITLE_LENGTH} characters. */
function titleText(message: string): string {
  const text = withoutNul(message);
  return text.length > MAX_TITLE_LENGTH ? `${text.slice(0, MAX_TITLE_LENGTH - 1)}…` : text;
}

function clampInteger(value: number): number {
  return Math.min(value, MAX_INTEGER);
}

/** What one processing pass shares while it reads the report. */
interface ResultContext {
  analyzer: string;
  catalog: IssueCatalog;
  suppression: SuppressionRules;
  fingerprints: FingerprintSequence;
}

/** The row `result` becomes at `location`, as a finding of `issue`. */
function occurrenceOf(
  result: SarifResult,
  location: SarifLocation & { path: string },
  issue: IssueRef,
  context: ResultContext,
): OccurrenceRow {
  const path = withoutNul(location.path);
  const region = location.region;
  const beginLine = clampInteger(region?.startLine ?? 1);
  const beginColumn = clampInteger(region?.startColumn ?? 1);
  const title = result.message || result.rule?.shortDescription || result.ruleId;
  return {
    issueId: issue.id,
    path,
    beginLine,
    beginColumn,
    endLine: clampInteger(region?.endLine ?? beginLine),
    endColumn: clampInteger(region?.endColumn ?? beginColumn),
    title: titleText(title),
    fingerprint: context.fingerprints.next({
      analyzer: context.analyzer,
      ruleId: result.ruleId,
      path,
      context: fingerprintContext(result, region?.snippet),
    }),
    isSuppressed:
      result.isSuppressed || suppressionOf(context.suppression, { issueId: issue.id, path }) !== null,
  };
}

/**
 * Processes a SARIF artifact into occurrences of its check (docs/ingestion.md): files the rules
 * as issues, stores each result that belongs in the repository with its fingerprint and
 * suppression, then sets the states of all the check's findings against the base check. Begins
 * by deleting the artifact's earlier rows, so processing it again gives the same rows.
 *
 * Result: results `read`, `stored` and `skipped` by reason (a warning names the first path outside
 * the repository); counts: `suppressed` among the stored, `rules` met, and `introduced`,
 * `existing` and `resolved`, the whole check's after processing (a check may hold several
 * artifacts).
 */
export async function processSarif(
  input: ProcessInput,
  options: ProcessSarifOptions = {},
): Promise<ProcessResult> {
  const { tx, artifact, repository, run, check } = input;
  if (check === null) throw new Error(`The SARIF artifact ${artifact.key} has no check.`);
  await tx.deleteFrom("occurrences").where("artifact_id", "=", artifact.id).execute();
  const analyzer = await findAnalyzer(tx, artifact.analyzer);
  const catalog = new IssueCatalog(tx, analyzer, await loadReportingSettings(tx, repository.id));
  const context: ResultContext = {
    analyzer: artifact.analyzer,
    catalog,
    suppression: await loadSuppressionRules(tx, repository.id, run.created_at),
    fingerprints: new FingerprintSequence(),
  };
  const writer = new OccurrenceWriter(
    tx,
    { checkId: check.id, artifactId: artifact.id, baseCheckId: input.baseCheckId },
    options.batchSize ?? OCCURRENCE_BATCH_SIZE,
  );
  const tally = new ProcessTally();
  let suppressed = 0;
  let firstOutside: string | null = null;
  try {
    for await (const event of readSarif(input.text(), { workDir: artifact.work_dir })) {
      if (event.type === "run") {
        await catalog.describe(event.run.tool.rules);
        continue;
      }
      const result = event.result;
      const location = placementOf(result);
      if (typeof location === "string") {
        tally.skip(location);
        if (location === "OUTSIDE_REPOSITORY") firstOutside ??= outsidePathOf(result);
        continue;
      }
      // Known rules need no query: the common path stays synchronous.
      const issue = catalog.known(result.ruleId) ?? (await catalog.issueFor(result));
      if (!issue.reported) {
        tally.skip("NOT_REPORTED");
        continue;
      }
      const row = occurrenceOf(result, location, issue, context);
      tally.store();
      if (row.isSuppressed) suppressed += 1;
      if (writer.add(row)) await writer.send();
    }
    await writer.finish();
  } catch (error) {
    // A statement still in flight must end before the caller rolls the transaction back.
    await writer.settle();
    throw error;
  }
  if (firstOutside !== null)
    tally.warn(outsideWarning(tally.skipped.OUTSIDE_REPOSITORY ?? 0, firstOutside, artifact.work_dir));
  if (tally.skipped.NO_LOCATION) tally.warn(noLocationWarning(tally.skipped.NO_LOCATION));
  const states = await settleFindingStates(tx, check.id, input.baseCheckId, artifact.id);
  return tally.result({ suppressed, rules: catalog.size, ...states });
}

/** The sentence telling the uploader that results were left out for their paths, and what to do. */
function outsideWarning(count: number, example: string, workDir: string | null): string {
  const what = `${count} result(s) lie outside the repository and were not stored (first: ${example})`;
  return workDir === null
    ? `${what}; absolute paths are made relative to the upload's workDir, and this upload gave none.`
    : `${what}; paths are made relative to the upload's workDir "${workDir}".`;
}

/** The sentence telling the uploader that results without a file were left out. */
function noLocationWarning(count: number): string {
  return `${count} result(s) name no file (no location, or only logical ones) and were not stored.`;
}

/**
 * Sets the states of all of `checkId`'s findings against `baseCheckId` (docs/ingestion.md
 * "States against the base"): deletes the check's RESOLVED rows; marks each other row EXISTING
 * when the base check has a non-RESOLVED occurrence with its fingerprint, else INTRODUCED (all
 * INTRODUCED without a base); then copies every base occurrence whose fingerprint the check lacks
 * as a RESOLVED row. Returns the check's counts by state.
 */
export function recomputeFindingStates(
  tx: Kysely<Database>,
  checkId: string,
  baseCheckId: string | null,
): Promise<FindingStateCounts> {
  return settleFindingStates(tx, checkId, baseCheckId, null);
}

/**
 * {@link recomputeFindingStates}, skipping the state test for the rows of `freshArtifactId`,
 * which were just written with their state decided against the same base.
 */
async function settleFindingStates(
  tx: Kysely<Database>,
  checkId: string,
  baseCheckId: string | null,
  freshArtifactId: string | null,
): Promise<FindingStateCounts> {
  await sql`DELETE FROM occurrences WHERE check_id = ${checkId} AND state = 'RESOLVED'`.execute(tx);
  const others =
    freshArtifactId === null
      ? sql``
      : sql`AND (o.artifact_id IS NULL OR o.artifact_id <> ${freshArtifactId})`;
  // Flips exactly the rows whose state disagrees with the base: EXISTING without a base
  // occurrence of the fingerprint, INTRODUCED with one. Rows already right are not rewritten.
  await sql`
    UPDATE occurrences AS o
    SET state = CASE WHEN o.state = 'EXISTING' THEN 'INTRODUCED' ELSE 'EXISTING' END
    WHERE o.check_id = ${checkId} AND o.state <> 'RESOLVED' ${others}
      AND (o.state = 'EXISTING') <> EXISTS (SELECT 1 FROM occurrences AS b
        WHERE b.check_id = ${baseCheckId}::bigint AND b.fingerprint = o.fingerprint AND b.state <> 'RESOLVED')
  `.execute(tx);
  if (baseCheckId !== null) await insertResolved(tx, checkId, baseCheckId);
  const { rows } = await sql<{ state: string; count: number }>`
    SELECT state, count(*)::int AS count FROM occurrences WHERE check_id = ${checkId} GROUP BY state
  `.execute(tx);
  const count = (state: string) => rows.find((row) => row.state === state)?.count ?? 0;
  return { introduced: count("INTRODUCED"), existing: count("EXISTING"), resolved: count("RESOLVED") };
}

/**
 * Copies the base's occurrences whose fingerprint `checkId` lacks as RESOLVED rows. One cursor
 * walks the base's rows once, each with whether the check has its fingerprint; the absent ones are
 * copied a page at a time. The test is a per-row lookup in the SELECT list (never planned as a
 * join), so a fresh check that the table's statistics do not know yet cannot make it quadratic.
 */
async function insertResolved(tx: Kysely<Database>, checkId: string, baseCheckId: string): Promise<void> {
  const batchSize = OCCURRENCE_BATCH_SIZE;
  await sql`
    DECLARE assay_resolved_candidates NO SCROLL CURSOR FOR
    SELECT b.id, EXISTS (SELECT 1 FROM occurrences AS o WHERE o.check_id = ${checkId}
      AND o.fingerprint = b.fingerprint AND o.state <> 'RESOLVED') AS present
    FROM occurrences AS b WHERE b.check_id = ${baseCheckId} AND b.state <> 'RESOLVED'
  `.execute(tx);
  // On an error the transaction is rolled back, which closes the cursor too.
  for (;;) {
    const { rows } = await sql<{ id: string; present: boolean }>`
      FETCH ${sql.lit(batchSize)} FROM assay_resolved_candidates
    `.execute(tx);
    const ids = rows.filter((row) => !row.present).map((row) => row.id);
    if (ids.length > 0) await copyAsResolved(tx, checkId, ids);
    if (rows.length < batchSize) break;
  }
  await sql`CLOSE assay_resolved_candidates`.execute(tx);
}

/** Inserts a RESOLVED copy (new key, no artifact) of each base occurrence in `ids` into `checkId`. */
async function copyAsResolved(tx: Kysely<Database>, checkId: string, ids: string[]): Promise<void> {
  const keys = ids.map(() => newRowKey());
  await sql`
    INSERT INTO occurrences (key, check_id, issue_id, artifact_id, path, begin_line, begin_column,
      end_line, end_column, title, fingerprint, state, is_suppressed)
    SELECT n.key, ${checkId}, b.issue_id, NULL, b.path, b.begin_line, b.begin_column,
      b.end_line, b.end_column, b.title, b.fingerprint, 'RESOLVED', b.is_suppressed
    FROM unnest(${ids}::bigint[], ${keys}::text[]) AS n(id, key)
    JOIN occurrences AS b ON b.id = n.id
  `.execute(tx);
}
