import { type Kysely, sql } from "kysely";
import type { Database, IgnoreRuleRow, IssueRow } from "../../db/types.ts";
import { newRowKey } from "../../graphql/global-id.ts";

/**
 * The SQL of the write side of suppression: team-wide suppressions, ignore rules, and what
 * ingestion reads to apply them (src/modules/settings/suppression-rules.ts).
 */

/** A catalog issue with its analyzer's shortcode. */
export type IssueWithAnalyzer = IssueRow & { analyzer_shortcode: string };

/**
 * Every issue with this shortcode that `accountId`'s findings are filed under, one per analyzer
 * that has it, by analyzer shortcode: the shared catalog's and the account's own (another
 * account's own issues are not its to name).
 */
export function findIssuesWithShortcode(
  db: Kysely<Database>,
  shortcode: string,
  accountId: string,
): Promise<IssueWithAnalyzer[]> {
  return db
    .selectFrom("issues as i")
    .innerJoin("analyzers as a", "a.id", "i.analyzer_id")
    .selectAll("i")
    .select("a.shortcode as analyzer_shortcode")
    .where("i.shortcode", "=", shortcode)
    .where((eb) => eb.or([eb("i.account_id", "is", null), eb("i.account_id", "=", accountId)]))
    .orderBy("a.shortcode")
    .orderBy(sql`i.account_id IS NOT NULL`)
    .execute();
}

/** Suppresses `issueIds` in `accountId` on behalf of `userId`; issues already suppressed stay as they are. */
export async function insertTeamSuppressions(
  db: Kysely<Database>,
  accountId: string,
  issueIds: readonly string[],
  userId: string,
): Promise<void> {
  if (issueIds.length === 0) return;
  await db
    .insertInto("team_suppressed_issues")
    .values(
      issueIds.map((issueId) => ({
        key: newRowKey(),
        account_id: accountId,
        issue_id: issueId,
        user_id: userId,
      })),
    )
    .onConflict((oc) => oc.columns(["account_id", "issue_id"]).doNothing())
    .execute();
}

/** Lifts the team-wide suppression of `issueIds` in `accountId`, where there is one. */
export async function deleteTeamSuppressions(
  db: Kysely<Database>,
  accountId: string,
  issueIds: readonly string[],
): Promise<void> {
  if (issueIds.length === 0) return;
  await db
    .deleteFrom("team_suppressed_issues")
    .where("account_id", "=", accountId)
    .where("issue_id", "in", issueIds)
    .execute();
}

/** What an ignore rule says, without its identity. */
export interface IgnoreRuleSpec {
  repositoryId: string;
  issueId: string;
  level: IgnoreRuleRow["level"];
  type: IgnoreRuleRow["type"];
  filePath: string | null;
  globPattern: string | null;
}

/** An ignore rule of the repository that says exactly what `spec` says, if there is one. */
export function findSameIgnoreRule(
  db: Kysely<Database>,
  spec: IgnoreRuleSpec,
): Promise<IgnoreRuleRow | undefined> {
  return db
    .selectFrom("ignore_rules")
    .selectAll()
    .where("repository_id", "=", spec.repositoryId)
    .where("issue_id", "=", spec.issueId)
    .where("level", "=", spec.level)
    .where("type", "=", spec.type)
    .where((eb) =>
      eb.and([
        spec.filePath === null ? eb("file_path", "is", null) : eb("file_path", "=", spec.filePath),
        spec.globPattern === null
          ? eb("glob_pattern", "is", null)
          : eb("glob_pattern", "=", spec.globPattern),
      ]),
    )
    .orderBy("created_at")
    .executeTakeFirst();
}

/** Stores an ignore rule made by `userId`. */
export function insertIgnoreRule(
  db: Kysely<Database>,
  spec: IgnoreRuleSpec,
  userId: string,
): Promise<IgnoreRuleRow> {
  return db
    .insertInto("ignore_rules")
    .values({
      key: newRowKey(),
      repository_id: spec.repositoryId,
      issue_id: spec.issueId,
      level: spec.level,
      type: spec.type,
      file_path: spec.filePath,
      glob_pattern: spec.globPattern,
      created_by: userId,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The key of the repository of the ignore rule `ruleKey`, if `viewerId` is a member of its account. */
export async function findVisibleIgnoreRuleRepositoryKey(
  db: Kysely<Database>,
  viewerId: string,
  ruleKey: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom("ignore_rules as g")
    .innerJoin("repositories as r", "r.id", "g.repository_id")
    .innerJoin("memberships as m", "m.account_id", "r.account_id")
    .select("r.key")
    .where("g.key", "=", ruleKey)
    .where("m.user_id", "=", viewerId)
    .executeTakeFirst();
  return row?.key;
}

/** Deletes the ignore rule `ruleKey` of `repositoryId`; true when there was one. */
export async function deleteIgnoreRule(
  db: Kysely<Database>,
  repositoryId: string,
  ruleKey: string,
): Promise<boolean> {
  const deleted = await db
    .deleteFrom("ignore_rules")
    .where("repository_id", "=", repositoryId)
    .where("key", "=", ruleKey)
    .executeTakeFirst();
  return deleted.numDeletedRows > 0n;
}

/** The ignore rules of `repositoryId` made at or before `asOf`. */
export function findIgnoreRulesInForce(
  db: Kysely<Database>,
  repositoryId: string,
  asOf: Date,
): Promise<IgnoreRuleRow[]> {
  return db
    .selectFrom("ignore_rules")
    .selectAll()
    .where("repository_id", "=", repositoryId)
    .where("created_at", "<=", asOf)
    .execute();
}

/** The issues the account of `repositoryId` suppressed for the team at or before `asOf`. */
export async function findTeamSuppressedIssueIdsInForce(
  db: Kysely<Database>,
  repositoryId: string,
  asOf: Date,
): Promise<string[]> {
  const rows = await db
    .selectFrom("team_suppressed_issues as t")
    .innerJoin("repositories as r", "r.account_id", "t.account_id")
    .select("t.issue_id")
    .where("r.id", "=", repositoryId)
    .where("t.created_at", "<=", asOf)
    .execute();
  return rows.map((r) => r.issue_id);
}
