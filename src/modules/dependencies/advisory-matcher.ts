import type { Ecosystem } from "../../db/types.ts";
import {
  type CompiledAffected,
  compileAffected,
  isAffected,
  smallestFix,
} from "../../formats/osv/affected.ts";
import { normalisePackageName, versionCache } from "../../formats/osv/versions.ts";
import type { AdvisoryPackageMatch, CheckDependency } from "./advisory-store.ts";

/**
 * The in-process half of matching (docs/advisories.md "Matching"): given package versions and the
 * affected packages of standing advisories read for their names, which advisories affect which
 * version, and the smallest fix. Pure, so it is tested without a database; each distinct version
 * text is parsed once per ecosystem, each affected package compiled once, and each distinct
 * package version decided once however many checks list it.
 */

/** One advisory affecting one package version, with the smallest fixing upgrade. */
export interface VersionMatch {
  vulnerabilityId: string;
  packageId: string;
  packageVersionId: string;
  fixVersion: string | null;
}

/** The key candidates and versions meet on: the ecosystem and the name as the registry compares it. */
export function advisoryLookupKey(ecosystem: Ecosystem, name: string): string {
  return `${ecosystem}\u0000${normalisePackageName(ecosystem, name)}`;
}

/**
 * The (ecosystem, normalised name) pairs to read candidates for: one per distinct package of
 * `versions`.
 */
export function advisoryLookups(
  versions: readonly CheckDependency[],
): { ecosystem: Ecosystem; name: string }[] {
  const keys = new Map<string, { ecosystem: Ecosystem; name: string }>();
  for (const v of versions) {
    const key = advisoryLookupKey(v.ecosystem, v.name);
    if (!keys.has(key))
      keys.set(key, { ecosystem: v.ecosystem, name: normalisePackageName(v.ecosystem, v.name) });
  }
  return [...keys.values()];
}

/**
 * The advisories affecting each of `versions`, by package version id (versions nothing affects
 * are absent). `candidates` are the affected packages read for {@link advisoryLookups}; a
 * candidate of another package or ecosystem is never applied.
 */
export function matchVersions(
  versions: readonly CheckDependency[],
  candidates: readonly AdvisoryPackageMatch[],
): Map<string, VersionMatch[]> {
  const parse = versionCache();
  // Candidates of each package, grouped by advisory (an advisory may list a package twice).
  const byPackage = new Map<string, Map<string, AdvisoryPackageMatch[]>>();
  for (const row of candidates) {
    const key = `${row.ecosystem}\u0000${row.name}`;
    let group = byPackage.get(key);
    if (!group) {
      group = new Map();
      byPackage.set(key, group);
    }
    const list = group.get(row.vulnerability_id);
    if (list) list.push(row);
    else group.set(row.vulnerability_id, [row]);
  }
  const compiled = new Map<string, [string, CompiledAffected[]][]>();
  const compiledOf = (key: string) => {
    let entries = compiled.get(key);
    if (entries) return entries;
    entries = [...(byPackage.get(key) ?? [])].map(([vulnerabilityId, rows]) => [
      vulnerabilityId,
      rows.map((row) =>
        compileAffected(
          {
            ecosystem: row.ecosystem,
            name: row.name,
            normalisedName: row.name,
            purl: null,
            ranges: row.ranges as never,
            versions: row.versions,
          },
          parse,
        ),
      ),
    ]);
    compiled.set(key, entries);
    return entries;
  };

  const matches = new Map<string, VersionMatch[]>();
  const decided = new Set<string>();
  for (const v of versions) {
    if (decided.has(v.package_version_id)) continue;
    decided.add(v.package_version_id);
    const entries = compiledOf(advisoryLookupKey(v.ecosystem, v.name));
    if (entries.length === 0) continue;
    const parsed = parse(v.ecosystem, v.version);
    const found: VersionMatch[] = [];
    for (const [vulnerabilityId, affected] of entries) {
      if (!affected.some((entry) => isAffected(entry, v.version, parsed))) continue;
      found.push({
        vulnerabilityId,
        packageId: v.package_id,
        packageVersionId: v.package_version_id,
        fixVersion: parsed ? smallestFix(affected, parsed) : null,
      });
    }
    if (found.length > 0) matches.set(v.package_version_id, found);
  }
  return matches;
}
