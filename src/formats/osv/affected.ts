import type { AffectedPackage, AffectedRange } from "./record.ts";
import { compareParsed, type ParsedVersion, parseVersion, type VersionReader } from "./versions.ts";

/**
 * Whether a version is affected, by the OSV schema's evaluation of ranges: events are sorted by
 * version in the ecosystem's order (`introduced: "0"` first) and walked; an `introduced` at or
 * below the version turns "affected" on, a `fixed` at or below it or a `last_affected` below it
 * turns it off. `limit` events only bound GIT ranges' commit walks and are ignored here. Explicit
 * `versions` match by string equality, even when the ecosystem cannot read the version.
 */

/** One affected package's ranges, parsed once so many versions can be checked quickly. */
export interface CompiledAffected {
  versions: ReadonlySet<string>;
  ranges: CompiledEvent[][];
  /** Every `fixed` version of the ranges, parsed, ascending. */
  fixed: ParsedVersion[];
}

type CompiledEvent =
  | { kind: "introduced"; at: ParsedVersion | "zero" }
  | { kind: "fixed"; at: ParsedVersion }
  | { kind: "last_affected"; at: ParsedVersion };

function compileRange(
  affected: AffectedPackage,
  range: AffectedRange,
  parse: VersionReader,
): CompiledEvent[] {
  const events: CompiledEvent[] = [];
  for (const event of range.events) {
    if ("introduced" in event) {
      if (event.introduced === "0") {
        events.push({ kind: "introduced", at: "zero" });
        continue;
      }
      const at = parse(affected.ecosystem, event.introduced);
      if (at) events.push({ kind: "introduced", at });
    } else if ("fixed" in event) {
      const at = parse(affected.ecosystem, event.fixed);
      if (at) events.push({ kind: "fixed", at });
    } else if ("last_affected" in event) {
      const at = parse(affected.ecosystem, event.last_affected);
      if (at) events.push({ kind: "last_affected", at });
    }
  }
  return events.sort((a, b) => {
    if (a.at === "zero" || b.at === "zero") return a.at === b.at ? 0 : a.at === "zero" ? -1 : 1;
    return compareParsed(a.at, b.at);
  });
}

/**
 * Parses an affected package's ranges once; `parse` reads each event's version (a
 * {@link versionCache}'s reader when many packages share versions).
 */
export function compileAffected(
  affected: AffectedPackage,
  parse: VersionReader = parseVersion,
): CompiledAffected {
  const ranges = affected.ranges
    .map((range) => compileRange(affected, range, parse))
    .filter((r) => r.length > 0);
  const fixed = ranges
    .flat()
    .flatMap((event) => (event.kind === "fixed" ? [event.at] : []))
    .sort(compareParsed);
  return { versions: new Set(affected.versions), ranges, fixed };
}

function inRange(events: CompiledEvent[], version: ParsedVersion): boolean {
  let affected = false;
  for (const event of events) {
    if (event.kind === "introduced") {
      if (event.at === "zero" || compareParsed(version, event.at) >= 0) affected = true;
    } else if (event.kind === "fixed") {
      if (compareParsed(version, event.at) >= 0) affected = false;
    } else if (compareParsed(version, event.at) > 0) {
      affected = false;
    }
  }
  return affected;
}

/** True when `version` (the text, and `parsed` when the ecosystem reads it) is affected. */
export function isAffected(
  compiled: CompiledAffected,
  version: string,
  parsed: ParsedVersion | null,
): boolean {
  if (compiled.versions.has(version)) return true;
  if (!parsed) return false;
  return compiled.ranges.some((events) => inRange(events, parsed));
}

/**
 * The smallest upgrade that fixes `version`: the lowest `fixed` version above it that the same
 * package's ranges no longer affect (a fix inside a later affected range is no way out); null
 * when there is none.
 */
export function smallestFix(compiled: readonly CompiledAffected[], version: ParsedVersion): string | null {
  // Each package's `fixed` list is sorted already; only several need merging.
  const ascending =
    compiled.length === 1 ? compiled[0]!.fixed : compiled.flatMap((c) => c.fixed).sort(compareParsed);
  for (const fix of ascending) {
    if (compareParsed(fix, version) <= 0) continue;
    if (!compiled.some((c) => isAffected(c, fix.text, fix))) return fix.text;
  }
  return null;
}

/** Convenience for one check: is `version` of `affected`'s package affected? */
export function versionAffected(affected: AffectedPackage, version: string): boolean {
  return isAffected(compileAffected(affected), version, parseVersion(affected.ecosystem, version));
}
