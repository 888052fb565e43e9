import type { Kysely } from "kysely";
import type { Database, IgnoreRuleRow } from "../../db/types.ts";
import { compileGlob } from "./glob.ts";
import { findIgnoreRulesInForce, findTeamSuppressedIssueIdsInForce } from "./suppression-store.ts";

/**
 * Which findings of a run are suppressed (docs/workflows.md, "What ingestion applies"). Ingestion
 * loads the rules in force for the run once ({@link loadSuppressionRules}, as of the run's creation)
 * and asks {@link suppressionOf} for each finding; the answer decides `occurrences.is_suppressed`.
 *
 * A finding is suppressed when its account suppressed its issue for the team, or when one of its
 * repository's ignore rules matches it: same issue, and the rule's scope and type both accept its
 * path. Scope: REPOSITORY accepts every path, FILE only the rule's `filePath` exactly. Type: FOREVER
 * accepts every path; PATTERN accepts the paths its glob matches (glob.ts); TEST_PATTERN accepts
 * test files: the paths the configuration's `test_patterns` match (the contract's meaning, and
 * what a rule made without a glob does), or, for a rule made with a glob of its own, the paths
 * that glob matches.
 */

/** Whether a repository-relative path is a test file, as the run's configuration names them. */
export type TestFileTest = (path: string) => boolean;

/** For callers with no configuration at hand: no file is a test. */
const NO_TEST_FILES: TestFileTest = () => false;

/** A finding as ingestion knows it: the catalog issue it raises and its repository-relative path. */
export interface FindingLocation {
  issueId: string;
  path: string;
}

/** The fields of an ignore rule the matcher reads. */
export type IgnoreRuleTerms = Pick<
  IgnoreRuleRow,
  "key" | "issue_id" | "level" | "type" | "file_path" | "glob_pattern"
>;

/** Why a finding is suppressed: its team suppressed the issue, or an ignore rule (by key) matched. */
export type Suppression = { by: "TEAM" } | { by: "IGNORE_RULE"; ruleKey: string };

/** The rules in force for one run, ready to test findings against. */
export interface SuppressionRules {
  /** Issues the repository's account suppressed for the team. */
  teamSuppressedIssueIds: ReadonlySet<string>;
  /** The repository's ignore rules by issue id, each with its path test. */
  ignoreRulesByIssue: ReadonlyMap<string, ReadonlyArray<{ key: string; accepts: (path: string) => boolean }>>;
  /** How many rules name their files by the configuration's `test_patterns`. */
  rulesOnTestPatterns: number;
}

/**
 * Whether `rule` matches `finding`. A rule whose glob does not compile (never stored by the API,
 * which validates it) matches nothing.
 */
export function ignoreRuleMatches(
  rule: IgnoreRuleTerms,
  finding: FindingLocation,
  isTestFile: TestFileTest = NO_TEST_FILES,
): boolean {
  return rule.issue_id === finding.issueId && pathTestOf(rule, isTestFile)(finding.path);
}

/** Prepares team suppressions and ignore rules for testing many findings (each glob compiled once). */
export function suppressionRules(
  teamSuppressedIssueIds: Iterable<string>,
  ignoreRules: readonly IgnoreRuleTerms[],
  isTestFile: TestFileTest = NO_TEST_FILES,
): SuppressionRules {
  const byIssue = new Map<string, Array<{ key: string; accepts: (path: string) => boolean }>>();
  for (const rule of ignoreRules) {
    const list = byIssue.get(rule.issue_id) ?? [];
    list.push({ key: rule.key, accepts: pathTestOf(rule, isTestFile) });
    byIssue.set(rule.issue_id, list);
  }
  return {
    teamSuppressedIssueIds: new Set(teamSuppressedIssueIds),
    ignoreRulesByIssue: byIssue,
    rulesOnTestPatterns: ignoreRules.filter(readsTestPatterns).length,
  };
}

/** Why `finding` is suppressed under `rules` (the team's suppression first), or null when it is not. */
export function suppressionOf(rules: SuppressionRules, finding: FindingLocation): Suppression | null {
  if (rules.teamSuppressedIssueIds.has(finding.issueId)) return { by: "TEAM" };
  const match = rules.ignoreRulesByIssue.get(finding.issueId)?.find((rule) => rule.accepts(finding.path));
  return match ? { by: "IGNORE_RULE", ruleKey: match.key } : null;
}

/** True when `finding` is suppressed under `rules`. */
export function isFindingSuppressed(rules: SuppressionRules, finding: FindingLocation): boolean {
  return suppressionOf(rules, finding) !== null;
}

/**
 * The rules in force for a run of `repositoryId` created at `asOf`: the ignore rules of the
 * repository and the team suppressions of its account made at or before then. Rules made later,
 * and rules deleted since, do not apply. `isTestFile` tells the run's test files (its
 * configuration's `test_patterns`).
 */
export async function loadSuppressionRules(
  db: Kysely<Database>,
  repositoryId: string,
  asOf: Date,
  isTestFile: TestFileTest = NO_TEST_FILES,
): Promise<SuppressionRules> {
  const [ignoreRules, teamIssueIds] = await Promise.all([
    findIgnoreRulesInForce(db, repositoryId, asOf),
    findTeamSuppressedIssueIdsInForce(db, repositoryId, asOf),
  ]);
  return suppressionRules(teamIssueIds, ignoreRules, isTestFile);
}

/** True for a TEST_PATTERN rule without a glob of its own: the configuration names its files. */
function readsTestPatterns(rule: IgnoreRuleTerms): boolean {
  return rule.type === "TEST_PATTERN" && rule.glob_pattern === null;
}

function pathTestOf(rule: IgnoreRuleTerms, isTestFile: TestFileTest): (path: string) => boolean {
  const inScope = rule.level === "FILE" ? (path: string) => path === rule.file_path : () => true;
  if (rule.type === "FOREVER") return inScope;
  if (readsTestPatterns(rule)) return (path) => inScope(path) && isTestFile(path);
  const compiled = rule.glob_pattern === null ? null : compileGlob(rule.glob_pattern);
  if (!compiled?.ok) return () => false;
  const { regExp } = compiled;
  return (path) => inScope(path) && regExp.test(path);
}
