import type { IssueSeverity } from "../../db/types.ts";
import { newOrderedRowKey } from "../../graphql/global-id.ts";
import {
  type BatchTarget,
  insertOccurrenceBatch,
  type OccurrenceColumns,
} from "../../modules/checks/occurrence-write-store.ts";
import type { ProcessStep } from "../types.ts";
import type { AlreadyReported, Holder } from "./already-reported.ts";

/**
 * Occurrences on their way to the database: rows collected into column batches, each written in
 * one statement (src/modules/checks/occurrence-write-store.ts) while the next one fills.
 */

/**
 * Occurrences per INSERT statement. Of 1,000, 5,000 and 10,000 measured on PostgreSQL
 * (docs/benchmarks.md "Ingestion"), 5,000 was the fastest; 10,000 also holds twice the rows.
 */
export const OCCURRENCE_BATCH_SIZE = 5000;

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
  /** The fingerprint at the file's old path, for a file the run's changes renamed; else absent or null. */
  formerFingerprint?: string | null;
  /** The fingerprint at the old path of a file renamed against a commit that is not the run's base yet. */
  deferredFormerFingerprint?: string | null;
  isSuppressed: boolean;
  /** The finding's own severity (docs/ingestion-sarif.md "Severity"). */
  severity: IssueSeverity;
}

/** Rows kept as one array per column, the shape the `unnest` insert takes (exported for bench/ingest.ts). */
export class OccurrenceBatch implements OccurrenceColumns {
  readonly keys: string[] = [];
  readonly issueIds: string[] = [];
  readonly paths: string[] = [];
  readonly beginLines: number[] = [];
  readonly beginColumns: number[] = [];
  readonly endLines: number[] = [];
  readonly endColumns: number[] = [];
  readonly titles: string[] = [];
  readonly fingerprints: string[] = [];
  readonly formerFingerprints: Array<string | null> = [];
  readonly deferredFormerFingerprints: Array<string | null> = [];
  readonly suppressed: boolean[] = [];
  readonly severities: IssueSeverity[] = [];

  get size(): number {
    return this.keys.length;
  }

  push(row: OccurrenceRow): void {
    this.keys.push(newOrderedRowKey());
    this.issueIds.push(row.issueId);
    this.paths.push(row.path);
    this.beginLines.push(row.beginLine);
    this.beginColumns.push(row.beginColumn);
    this.endLines.push(row.endLine);
    this.endColumns.push(row.endColumn);
    this.titles.push(row.title);
    this.fingerprints.push(row.fingerprint);
    this.formerFingerprints.push(row.formerFingerprint ?? null);
    this.deferredFormerFingerprints.push(row.deferredFormerFingerprint ?? null);
    this.suppressed.push(row.isSuppressed);
    this.severities.push(row.severity);
  }
}

/** How an {@link OccurrenceWriter} batches, and what it judges rows against in memory. */
export interface WriterOptions {
  batchSize: number;
  /** Where rows the check already holds, and which are therefore not written, are counted. */
  reported: AlreadyReported;
  /** Statements in flight at once (default 1). */
  maxInFlight?: number | undefined;
  /** The base check's non-RESOLVED findings by fingerprint, when read into memory; else PostgreSQL looks them up. */
  base?: ReadonlyMap<string, unknown> | null;
  /**
   * The check's findings a row must not repeat, by fingerprint, when read into memory; else
   * PostgreSQL looks them up (when the target says the check holds findings).
   */
  held?: ReadonlyMap<string, Holder> | null;
}

/**
 * Collects rows into batches and writes each in one statement, as one step of its own (a short
 * transaction), while the next batch fills: at most `maxInFlight` steps are in flight (each on a
 * connection of its own when the steps are transactions of their own), so memory holds one batch
 * more than that, and between steps the database serves everyone else. Rows the check already
 * held, and which were therefore not written, are added to `reported`.
 */
export class OccurrenceWriter {
  private batch = new OccurrenceBatch();
  private readonly inFlight: Promise<void>[] = [];

  constructor(
    private readonly step: ProcessStep,
    private readonly target: BatchTarget,
    private readonly options: WriterOptions,
  ) {}

  /**
   * Adds a row, or counts it as already reported when the check holds its fingerprint; true when
   * the batch is full and should be sent ({@link send}).
   */
  add(row: OccurrenceRow): boolean {
    const holder = this.options.held?.get(row.fingerprint);
    if (holder !== undefined) {
      this.options.reported.addOne(holder, row.isSuppressed);
      return false;
    }
    this.batch.push(row);
    return this.batch.size >= this.options.batchSize;
  }

  /** Writes what is left and waits for every statement. */
  async finish(): Promise<void> {
    if (this.batch.size > 0) await this.send();
    while (this.inFlight.length > 0) await this.inFlight.shift();
  }

  /** Waits for the statements in flight, ignoring their outcome (after another failure). */
  async settle(): Promise<void> {
    await Promise.allSettled(this.inFlight.splice(0));
  }

  /** Sends the batch once a statement in flight is done, if too many are, and starts a new batch. */
  async send(): Promise<void> {
    const batch = this.batch;
    this.batch = new OccurrenceBatch();
    const { base, reported, maxInFlight = 1 } = this.options;
    while (this.inFlight.length >= maxInFlight) await this.inFlight.shift();
    const columns = base == null ? batch : { ...batch, inBase: inBase(batch, base) };
    const sending = this.step((tx) => insertOccurrenceBatch(tx, this.target, columns)).then((held) => {
      reported.add(held);
    });
    // Awaited by a later send or by finish; until then a failure must not count as unhandled.
    sending.catch(() => {});
    this.inFlight.push(sending);
  }
}

/** For each row of `batch`: whether `base` holds its fingerprint, or its former one. */
function inBase(batch: OccurrenceBatch, base: ReadonlyMap<string, unknown>): boolean[] {
  return batch.fingerprints.map((fingerprint, i) => {
    if (base.has(fingerprint)) return true;
    const former = batch.formerFingerprints[i];
    return former != null && base.has(former);
  });
}
