import { type CvssRating, cvssScore } from "./cvss.ts";
import { ecosystemOf, normalisePackageName, type OsvEcosystem } from "./versions.ts";

/**
 * Reads one OSV record (https://ossf.github.io/osv-schema/) into what Assay keeps of it: ids,
 * dates, texts, CVSS ratings, references, and per affected package of an ecosystem Assay knows
 * its SEMVER and ECOSYSTEM ranges and explicit versions. GIT ranges (commits, not versions) and
 * packages of other ecosystems (Debian, Alpine…) are left out and counted.
 */

/** One event of a range, as OSV writes it: exactly one of the keys. */
export type RangeEvent =
  | { introduced: string }
  | { fixed: string }
  | { last_affected: string }
  | { limit: string };

/** A SEMVER or ECOSYSTEM range. */
export interface AffectedRange {
  type: "SEMVER" | "ECOSYSTEM";
  events: RangeEvent[];
}

/** One affected package of a record. */
export interface AffectedPackage {
  ecosystem: OsvEcosystem;
  /** The name as the record writes it. */
  name: string;
  /** The name as the registry compares names ({@link normalisePackageName}). */
  normalisedName: string;
  purl: string | null;
  ranges: AffectedRange[];
  versions: string[];
}

/** What Assay keeps of one OSV record. */
export interface OsvAdvisory {
  id: string;
  aliases: string[];
  modified: Date;
  published: Date;
  withdrawn: Date | null;
  summary: string | null;
  details: string | null;
  /** The database's own rating (GitHub's `database_specific.severity`), as the API's severity. */
  severity: "LOW" | "MEDIUM" | "HIGH" | "CRITICAL" | null;
  cvssV2: CvssRating | null;
  cvssV3: CvssRating | null;
  cvssV4: CvssRating | null;
  references: string[];
  affected: AffectedPackage[];
  /** Affected entries left out: other ecosystems, or no package. */
  skippedAffected: number;
}

/** A record that is not OSV, or misses what every OSV record has. */
export class OsvRecordError extends Error {}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && v !== "") : [];
}

function date(value: unknown, field: string, id: string): Date {
  const d = typeof value === "string" ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(d.getTime())) throw new OsvRecordError(`${id}: "${field}" is not an RFC 3339 time`);
  return d;
}

const DATABASE_SEVERITY: Record<string, OsvAdvisory["severity"]> = {
  LOW: "LOW",
  MODERATE: "MEDIUM",
  MEDIUM: "MEDIUM",
  HIGH: "HIGH",
  CRITICAL: "CRITICAL",
};

function readEvents(value: unknown): RangeEvent[] {
  const events: RangeEvent[] = [];
  if (!Array.isArray(value)) return events;
  for (const event of value) {
    if (!isObject(event)) continue;
    for (const key of ["introduced", "fixed", "last_affected", "limit"] as const) {
      const v = event[key];
      if (typeof v === "string" && v !== "") events.push({ [key]: v } as RangeEvent);
    }
  }
  return events;
}

function readAffected(entry: unknown): AffectedPackage | null {
  if (!isObject(entry) || !isObject(entry.package)) return null;
  const ecosystemName = text(entry.package.ecosystem);
  const name = text(entry.package.name);
  const ecosystem = ecosystemName ? ecosystemOf(ecosystemName) : null;
  if (!ecosystem || !name) return null;
  const ranges: AffectedRange[] = [];
  for (const range of Array.isArray(entry.ranges) ? entry.ranges : []) {
    if (!isObject(range) || (range.type !== "SEMVER" && range.type !== "ECOSYSTEM")) continue;
    const events = readEvents(range.events);
    if (events.length > 0) ranges.push({ type: range.type, events });
  }
  return {
    ecosystem,
    name,
    normalisedName: normalisePackageName(ecosystem, name),
    purl: text(entry.package.purl),
    ranges,
    versions: strings(entry.versions),
  };
}

function rating(severity: unknown[], type: string): CvssRating | null {
  for (const entry of severity) {
    if (!isObject(entry) || entry.type !== type || typeof entry.score !== "string") continue;
    const scored = cvssScore(entry.score);
    if (scored) return scored;
  }
  return null;
}

/** Reads one parsed JSON value as an OSV record; throws {@link OsvRecordError} naming what is wrong. */
export function readOsvRecord(value: unknown): OsvAdvisory {
  if (!isObject(value)) throw new OsvRecordError("an OSV record is a JSON object");
  const id = text(value.id);
  if (!id) throw new OsvRecordError('an OSV record needs an "id"');
  if (id.length > 200) throw new OsvRecordError(`"${id.slice(0, 40)}…": id longer than 200 characters`);
  const modified = date(value.modified, "modified", id);
  const severity = Array.isArray(value.severity) ? value.severity : [];
  const databaseSeverity = isObject(value.database_specific) ? value.database_specific.severity : undefined;
  const affected: AffectedPackage[] = [];
  let skippedAffected = 0;
  for (const entry of Array.isArray(value.affected) ? value.affected : []) {
    const read = readAffected(entry);
    if (read) affected.push(read);
    else skippedAffected++;
  }
  return {
    id,
    aliases: strings(value.aliases).filter((alias) => alias !== id),
    modified,
    published: value.published === undefined ? modified : date(value.published, "published", id),
    withdrawn: value.withdrawn === undefined ? null : date(value.withdrawn, "withdrawn", id),
    summary: text(value.summary),
    details: text(value.details),
    severity:
      typeof databaseSeverity === "string"
        ? (DATABASE_SEVERITY[databaseSeverity.toUpperCase()] ?? null)
        : null,
    cvssV2: rating(severity, "CVSS_V2"),
    cvssV3: rating(severity, "CVSS_V3"),
    cvssV4: rating(severity, "CVSS_V4"),
    references: Array.isArray(value.references)
      ? value.references.flatMap((r) => (isObject(r) && typeof r.url === "string" ? [r.url] : []))
      : [],
    affected,
    skippedAffected,
  };
}

/** Every `introduced` (but "0") and every `fixed` version of the record's ranges, each once, in record order. */
export function rangeBoundaries(advisory: OsvAdvisory): { introduced: string[]; fixed: string[] } {
  const introduced = new Set<string>();
  const fixed = new Set<string>();
  for (const affected of advisory.affected) {
    for (const range of affected.ranges) {
      for (const event of range.events) {
        if ("introduced" in event && event.introduced !== "0") introduced.add(event.introduced);
        if ("fixed" in event) fixed.add(event.fixed);
      }
    }
  }
  return { introduced: [...introduced], fixed: [...fixed] };
}
