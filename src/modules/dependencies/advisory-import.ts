import type { Kysely } from "kysely";
import type { Database, Ecosystem } from "../../db/types.ts";
import {
  type OsvAdvisory,
  OsvRecordError,
  rangeBoundaries,
  readOsvRecord,
} from "../../formats/osv/record.ts";
import { matchScaCheck } from "./advisory-matching.ts";
import {
  type AdvisoryWrite,
  findImportedModified,
  findLatestScaChecks,
  findVulnerabilityIdsByCve,
  updateEpss,
  upsertAdvisories,
} from "./advisory-store.ts";

/**
 * Advisory import (docs/advisories.md): OSV records, read one by one from wherever the caller
 * found them, are upserted by id in batches, each batch one transaction. A record whose
 * `modified` equals the one last imported is left alone, so importing the same export again
 * changes nothing. A withdrawn record keeps its row with `withdrawn_at` set and stops matching.
 * After the import, the SCA checks of every repository's latest finished run that depend on a
 * package of an ecosystem the import touched are matched again, each in its own transaction.
 */

/** One record as read from a file: where it came from (for messages) and its JSON text. */
export interface RecordSource {
  name: string;
  text: string;
}

/** What an import did. */
export interface ImportSummary {
  read: number;
  imported: number;
  unchanged: number;
  withdrawn: number;
  invalid: number;
  /** The first few problems, each naming its file. */
  problems: string[];
  /** Affected entries of ecosystems Assay does not match (Debian, Alpine…), left out. */
  skippedAffected: number;
  rematchedChecks: number;
  occurrencesAdded: number;
  occurrencesRemoved: number;
}

const BATCH = 500;
const MAX_PROBLEMS = 20;

function toWrite(advisory: OsvAdvisory): AdvisoryWrite {
  const { introduced, fixed } = rangeBoundaries(advisory);
  return {
    identifier: advisory.id,
    aliases: advisory.aliases,
    summary: advisory.summary,
    details: advisory.details,
    severity: advisory.severity,
    cvss: { v2: advisory.cvssV2, v3: advisory.cvssV3, v4: advisory.cvssV4 },
    publishedAt: advisory.published,
    modifiedAt: advisory.modified,
    withdrawnAt: advisory.withdrawn,
    introducedVersions: introduced,
    fixedVersions: fixed,
    referenceUrls: advisory.references,
    packages: advisory.affected.map((a) => ({
      ecosystem: a.ecosystem,
      name: a.normalisedName,
      ranges: a.ranges.map((r) => ({ type: r.type, events: r.events as Record<string, string>[] })),
      versions: a.versions,
    })),
  };
}

/** Imports the OSV records `sources` yields; see the module comment. */
export async function importAdvisories(
  db: Kysely<Database>,
  sources: AsyncIterable<RecordSource> | Iterable<RecordSource>,
  options: { onProgress?: (line: string) => void; rematch?: boolean } = {},
): Promise<ImportSummary> {
  const summary: ImportSummary = {
    read: 0,
    imported: 0,
    unchanged: 0,
    withdrawn: 0,
    invalid: 0,
    problems: [],
    skippedAffected: 0,
    rematchedChecks: 0,
    occurrencesAdded: 0,
    occurrencesRemoved: 0,
  };
  const ecosystems = new Set<Ecosystem>();
  const problem = (text: string) => {
    summary.invalid++;
    if (summary.problems.length < MAX_PROBLEMS) summary.problems.push(text);
  };
  let batch: OsvAdvisory[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    // The newest of duplicate ids in one batch wins.
    const byId = new Map<string, OsvAdvisory>();
    for (const a of batch) {
      const known = byId.get(a.id);
      if (!known || known.modified < a.modified) byId.set(a.id, a);
    }
    batch = [];
    await db.transaction().execute(async (tx) => {
      const known = await findImportedModified(tx, [...byId.keys()]);
      const changed = [...byId.values()].filter((a) => known.get(a.id) !== a.modified.getTime());
      summary.unchanged += byId.size - changed.length;
      await upsertAdvisories(tx, changed.map(toWrite));
      for (const a of changed) {
        summary.imported++;
        if (a.withdrawn) summary.withdrawn++;
        for (const affected of a.affected) ecosystems.add(affected.ecosystem);
      }
    });
    options.onProgress?.(`${summary.read} records read, ${summary.imported} imported`);
  };
  for await (const source of sources) {
    summary.read++;
    let advisory: OsvAdvisory;
    try {
      advisory = readOsvRecord(JSON.parse(source.text));
    } catch (error) {
      if (error instanceof OsvRecordError) problem(`${source.name}: ${error.message}`);
      else if (error instanceof SyntaxError) problem(`${source.name}: not JSON (${error.message})`);
      else throw error;
      continue;
    }
    summary.skippedAffected += advisory.skippedAffected;
    batch.push(advisory);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  if (options.rematch !== false) {
    for (const checkId of await findLatestScaChecks(db, [...ecosystems])) {
      const outcome = await db.transaction().execute((tx) => matchScaCheck(tx, checkId));
      // Replaced since it was listed: its replacement was matched when it was processed.
      if (!outcome) continue;
      summary.rematchedChecks++;
      summary.occurrencesAdded += outcome.added;
      summary.occurrencesRemoved += outcome.removed;
    }
  }
  return summary;
}

/** What an EPSS import did. */
export interface EpssSummary {
  rows: number;
  updated: number;
  unknown: number;
  scoreDate: string | null;
}

/** A FIRST EPSS CSV that cannot be read. */
export class EpssFormatError extends Error {}

/**
 * Imports FIRST's EPSS CSV (`#model_version:…,score_date:…` comment line, then the header
 * `cve,epss,percentile`, then one row per CVE): each vulnerability known by that CVE (its
 * identifier or an alias) gets the score and percentile. CVEs no advisory mentions are counted.
 */
export async function importEpss(db: Kysely<Database>, lines: AsyncIterable<string>): Promise<EpssSummary> {
  // Take the iterator before the first await, so a stream that starts flowing loses no line.
  const iterator = lines[Symbol.asyncIterator]();
  const byCve = await findVulnerabilityIdsByCve(db);
  const summary: EpssSummary = { rows: 0, updated: 0, unknown: 0, scoreDate: null };
  const scores: { id: string; score: number; percentile: number }[] = [];
  let header: string[] | null = null;
  let lineNumber = 0;
  for await (const raw of { [Symbol.asyncIterator]: () => iterator }) {
    lineNumber++;
    const line = raw.trim();
    if (line === "") continue;
    if (line.startsWith("#")) {
      summary.scoreDate ??= /score_date:([^,\s]+)/.exec(line)?.[1] ?? null;
      continue;
    }
    const cells = line.split(",").map((c) => c.trim());
    if (!header) {
      header = cells.map((c) => c.toLowerCase());
      for (const column of ["cve", "epss", "percentile"]) {
        if (!header.includes(column)) {
          throw new EpssFormatError(
            `line ${lineNumber}: the header has no "${column}" column (expected cve,epss,percentile)`,
          );
        }
      }
      continue;
    }
    const cve = cells[header.indexOf("cve")] ?? "";
    const score = Number(cells[header.indexOf("epss")]);
    const percentile = Number(cells[header.indexOf("percentile")]);
    if (
      !/^CVE-\d{4}-\d+$/.test(cve) ||
      !(score >= 0 && score <= 1) ||
      !(percentile >= 0 && percentile <= 1)
    ) {
      throw new EpssFormatError(`line ${lineNumber}: expected a CVE id and two numbers from 0 to 1`);
    }
    summary.rows++;
    const ids = byCve.get(cve);
    if (!ids) {
      summary.unknown++;
      continue;
    }
    for (const id of ids) scores.push({ id, score, percentile });
  }
  if (!header) throw new EpssFormatError("the file has no header line (cve,epss,percentile)");
  await db.transaction().execute((tx) => updateEpss(tx, scores));
  summary.updated = scores.length;
  return summary;
}
