import type { Kysely } from "kysely";
import type { Database, Ecosystem } from "../../db/types.ts";
import {
  type CompiledAffected,
  compileAffected,
  isAffected,
  smallestFix,
} from "../../formats/osv/affected.ts";
import { normalisePackageName, parseVersion } from "../../formats/osv/versions.ts";
import {
  type AdvisoryPackageMatch,
  type CheckDependency,
  findAdvisoryPackages,
  findCheckOccurrences,
  findScaCheckDependencies,
  findScaCheckWithBase,
  type OccurrenceWrite,
  writeCheckOccurrences,
} from "./advisory-store.ts";

/**
 * Matching an SCA check's package versions against the imported advisories (docs/advisories.md
 * "Matching"). Candidate advisories are read by (ecosystem, normalised package name); whether a
 * version is affected is decided here, in the ecosystem's own version order. Each match is an
 * occurrence, INTRODUCED when the base run's check of the same target does not have the same
 * advisory on the same package, EXISTING when it does; what the base had and this check no longer
 * has is recorded RESOLVED (counted, never listed). Occurrences that stand keep their rows (and
 * global ids); those no longer matching (a withdrawn advisory, a changed range) are removed.
 */

/** What one match found: the advisory, the package version, the smallest fixing upgrade. */
interface Match {
  vulnerabilityId: string;
  packageId: string;
  packageVersionId: string;
  fixVersion: string | null;
}

/** What {@link matchScaCheck} changed. */
export interface MatchOutcome {
  introduced: number;
  existing: number;
  resolved: number;
  /** Occurrences that appeared in this pass (new rows that are not RESOLVED). */
  added: number;
  removed: number;
}

function lookupKey(ecosystem: Ecosystem, name: string): string {
  return `${ecosystem}\u0000${normalisePackageName(ecosystem, name)}`;
}

/** The advisories affecting each of `dependencies`. */
async function matchDependencies(
  db: Kysely<Database>,
  dependencies: readonly CheckDependency[],
): Promise<Match[]> {
  const keys = new Map<string, { ecosystem: Ecosystem; name: string }>();
  for (const d of dependencies) {
    keys.set(lookupKey(d.ecosystem, d.name), {
      ecosystem: d.ecosystem,
      name: normalisePackageName(d.ecosystem, d.name),
    });
  }
  const rows = await findAdvisoryPackages(db, [...keys.values()]);
  const byPackage = new Map<string, AdvisoryPackageMatch[]>();
  for (const row of rows) {
    const key = `${row.ecosystem}\u0000${row.name}`;
    const list = byPackage.get(key) ?? [];
    list.push(row);
    byPackage.set(key, list);
  }
  const compiled = new Map<string, CompiledAffected>();
  const compile = (row: AdvisoryPackageMatch) => {
    let c = compiled.get(row.id);
    if (!c) {
      c = compileAffected({
        ecosystem: row.ecosystem,
        name: row.name,
        normalisedName: row.name,
        purl: null,
        ranges: row.ranges as never,
        versions: row.versions,
      });
      compiled.set(row.id, c);
    }
    return c;
  };
  // Candidates grouped by advisory once per package, then every version of it checked.
  const groups = new Map<string, Map<string, CompiledAffected[]>>();
  const groupOf = (key: string): Map<string, CompiledAffected[]> | undefined => {
    let group = groups.get(key);
    if (group) return group;
    const candidates = byPackage.get(key);
    if (!candidates) return undefined;
    group = new Map();
    for (const row of candidates) {
      const list = group.get(row.vulnerability_id) ?? [];
      list.push(compile(row));
      group.set(row.vulnerability_id, list);
    }
    groups.set(key, group);
    return group;
  };
  const matches: Match[] = [];
  for (const d of dependencies) {
    const byVulnerability = groupOf(lookupKey(d.ecosystem, d.name));
    if (!byVulnerability) continue;
    const parsed = parseVersion(d.ecosystem, d.version);
    for (const [vulnerabilityId, entries] of byVulnerability) {
      if (!entries.some((entry) => isAffected(entry, d.version, parsed))) continue;
      matches.push({
        vulnerabilityId,
        packageId: d.package_id,
        packageVersionId: d.package_version_id,
        fixVersion: parsed ? smallestFix(entries, parsed) : null,
      });
    }
  }
  return matches;
}

/**
 * Matches SCA check `scaCheckId` against the standing advisories and writes its vulnerability
 * occurrences, in the caller's transaction `tx`. Safe to run again (after an import): the result
 * depends only on the check's dependencies, its base's and the advisories.
 */
export async function matchScaCheck(tx: Kysely<Database>, scaCheckId: string): Promise<MatchOutcome> {
  const check = await findScaCheckWithBase(tx, scaCheckId);
  if (!check) throw new Error(`SCA check ${scaCheckId} does not exist`);
  const matches = await matchDependencies(tx, await findScaCheckDependencies(tx, scaCheckId));
  const baseMatches = check.base_check_id
    ? await matchDependencies(tx, await findScaCheckDependencies(tx, check.base_check_id))
    : [];
  const inBase = new Set(baseMatches.map((m) => `${m.vulnerabilityId}:${m.packageId}`));
  const now = new Set(matches.map((m) => `${m.vulnerabilityId}:${m.packageId}`));

  const wanted = new Map<string, OccurrenceWrite>();
  const want = (m: Match, state: OccurrenceWrite["state"]) =>
    wanted.set(`${m.vulnerabilityId}:${m.packageVersionId}`, {
      vulnerability_id: m.vulnerabilityId,
      package_version_id: m.packageVersionId,
      state,
      fixability: m.fixVersion === null ? "UNFIXABLE" : "MANUALLY_FIXABLE",
      fix_version: m.fixVersion,
    });
  for (const m of matches)
    want(m, inBase.has(`${m.vulnerabilityId}:${m.packageId}`) ? "EXISTING" : "INTRODUCED");
  for (const m of baseMatches) {
    if (!now.has(`${m.vulnerabilityId}:${m.packageId}`)) want(m, "RESOLVED");
  }

  const existing = await findCheckOccurrences(tx, scaCheckId);
  const update: (OccurrenceWrite & { id: string })[] = [];
  const remove: string[] = [];
  const seen = new Set<string>();
  for (const row of existing) {
    const key = `${row.vulnerability_id}:${row.package_version_id}`;
    const target = wanted.get(key);
    if (!target || seen.has(key)) {
      remove.push(row.id);
      continue;
    }
    seen.add(key);
    if (
      row.state !== target.state ||
      row.fixability !== target.fixability ||
      row.fix_version !== target.fix_version
    ) {
      update.push({ ...target, id: row.id });
    }
  }
  const insert = [...wanted].filter(([key]) => !seen.has(key)).map(([, row]) => row);
  await writeCheckOccurrences(tx, scaCheckId, { insert, update, remove });
  const states = [...wanted.values()].map((w) => w.state);
  return {
    introduced: states.filter((s) => s === "INTRODUCED").length,
    existing: states.filter((s) => s === "EXISTING").length,
    resolved: states.filter((s) => s === "RESOLVED").length,
    added: insert.filter((row) => row.state !== "RESOLVED").length,
    removed: remove.length,
  };
}
