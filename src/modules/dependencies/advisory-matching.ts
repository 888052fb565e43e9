import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import { advisoryLookups, matchVersions, type VersionMatch } from "./advisory-matcher.ts";
import {
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
 * occurrence, INTRODUCED when the base scan of the same target (`findScaCheckWithBase`: the
 * target's newest counting scan up to the run's base run on its branch) does not have the same
 * advisory on the same package, EXISTING when it does; what the base had and this check no longer
 * has is recorded RESOLVED (counted, never listed). Occurrences that stand keep their rows (and
 * global ids); those no longer matching (a withdrawn advisory, a changed range) are removed.
 */

/** What {@link matchScaCheck} changed. */
export interface MatchOutcome {
  introduced: number;
  existing: number;
  resolved: number;
  /** Occurrences that appeared in this pass (new rows that are not RESOLVED). */
  added: number;
  removed: number;
}

/**
 * The advisories affecting the check's versions and its base's, decided in one pass over the
 * distinct versions of both (most are the same versions: the base is the previous commit), with
 * one read of candidates.
 */
async function matchCheckAndBase(
  tx: Kysely<Database>,
  dependencies: readonly CheckDependency[],
  baseDependencies: readonly CheckDependency[],
): Promise<{ matches: VersionMatch[]; baseMatches: VersionMatch[] }> {
  const all = [...dependencies, ...baseDependencies];
  const byVersion = matchVersions(all, await findAdvisoryPackages(tx, advisoryLookups(all)));
  const matchesOf = (list: readonly CheckDependency[]) => {
    const seen = new Set<string>();
    return list.flatMap((d) => {
      if (seen.has(d.package_version_id)) return [];
      seen.add(d.package_version_id);
      return byVersion.get(d.package_version_id) ?? [];
    });
  };
  return { matches: matchesOf(dependencies), baseMatches: matchesOf(baseDependencies) };
}

/** The dependencies a transaction has just written for the SCA check it has just created. */
export interface WrittenCheck {
  dependencies: readonly CheckDependency[];
}

/**
 * Matches SCA check `scaCheckId` against the standing advisories and writes its vulnerability
 * occurrences, in the caller's transaction `tx`. Safe to run again (after an import): the result
 * depends only on the check's dependencies, its base's and the advisories.
 *
 * `written` is for the transaction that has just created the check: it passes the dependencies it
 * wrote, so they are not read back, and the check is known to exist with no occurrences yet.
 * Without it the check is locked first, and the answer is null when it no longer exists: a newer
 * SBOM of the same target in the same run replaced it since the caller listed it (its replacement
 * was matched when it was processed).
 */
export async function matchScaCheck(
  tx: Kysely<Database>,
  scaCheckId: string,
  written: WrittenCheck,
): Promise<MatchOutcome>;
export async function matchScaCheck(tx: Kysely<Database>, scaCheckId: string): Promise<MatchOutcome | null>;
export async function matchScaCheck(
  tx: Kysely<Database>,
  scaCheckId: string,
  written?: WrittenCheck,
): Promise<MatchOutcome | null> {
  const check = await findScaCheckWithBase(tx, scaCheckId);
  if (!check) {
    if (written) throw new Error(`SCA check ${scaCheckId}, created in this transaction, does not exist`);
    return null;
  }
  const { matches, baseMatches } = await matchCheckAndBase(
    tx,
    written?.dependencies ?? (await findScaCheckDependencies(tx, scaCheckId)),
    check.base_check_id ? await findScaCheckDependencies(tx, check.base_check_id) : [],
  );
  const inBase = new Set(baseMatches.map((m) => `${m.vulnerabilityId}:${m.packageId}`));
  const now = new Set(matches.map((m) => `${m.vulnerabilityId}:${m.packageId}`));

  const wanted = new Map<string, OccurrenceWrite>();
  const want = (m: VersionMatch, state: OccurrenceWrite["state"]) =>
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

  const existing = written ? [] : await findCheckOccurrences(tx, scaCheckId);
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
