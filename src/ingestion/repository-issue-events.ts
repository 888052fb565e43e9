import type { Kysely } from "kysely";
import type { AccountRow, Database, RepositoryRow } from "../db/types.ts";
import { findAnalyzersByIds, findIssuesByIds } from "../modules/catalog/catalog-store.ts";
import { lockAnnouncedIssues, saveAnnouncedIssues } from "../modules/checks/announced-issue-store.ts";
import {
  countPresentOccurrencesByIssue,
  findPresentOccurrencesOfIssues,
} from "../modules/checks/occurrence-store.ts";
import { recordEvents } from "../modules/events/outbox.ts";
import { findLatestDefaultBranchRuns } from "../modules/runs/run-store.ts";
import {
  repositoryIssueIntroducedEvent,
  repositoryIssueResolvedEvent,
} from "../modules/webhooks/payloads.ts";

/**
 * The `repository_issue.*` events (docs/ingestion.md "A late upload to a finished run"): what
 * they last announced is kept per repository, and each announcement sends the difference between
 * that and the repository's current state, so a change is announced once however the state got
 * there (a run finishing twice, runs finishing out of order, a late artifact).
 */

/**
 * Occurrences listed in one `repository_issue.introduced` event (the count covers them all): an
 * issue with thousands of findings would otherwise make a payload of megabytes.
 */
export const EVENT_OCCURRENCE_LIMIT = 100;

/**
 * Announces what changed in the repository's issues since the last announcement: an `introduced`
 * event for each issue present in its current findings (per analyzer, its newest check on the
 * default branch that says what the code holds: docs/read-model.md "The repository's current
 * findings") and not announced, a `resolved` event for each announced issue no longer present
 * (counting the occurrences it had when announced); then the present issues are the announced
 * ones, noted with the latest analysed default-branch run. An issue is present when its current
 * check has a published, non-RESOLVED occurrence of it. Locks the repository's announcement row:
 * call it after every other lock the transaction takes.
 */
export async function announceRepositoryIssues(
  tx: Kysely<Database>,
  repository: RepositoryRow,
  account: AccountRow,
): Promise<void> {
  const announced = await lockAnnouncedIssues(tx, repository.id);
  const [latest] = await findLatestDefaultBranchRuns(tx, [repository.id]);
  const present = await countPresentOccurrencesByIssue(tx, repository.id);
  await saveAnnouncedIssues(tx, repository.id, { runId: latest?.id ?? null, issues: present }, announced);

  const introduced = [...present.keys()].filter((id) => !announced.issues.has(id));
  const resolved = [...announced.issues.keys()].filter((id) => !present.has(id));
  if (introduced.length === 0 && resolved.length === 0) return;

  const issues = await findIssuesByIds(tx, [...introduced, ...resolved]);
  const analyzers = await findAnalyzersByIds(tx, [...new Set(issues.map((i) => i.analyzer_id))]);
  const subjectOf = (issueId: string) => {
    const issue = issues.find((i) => i.id === issueId);
    const analyzer = analyzers.find((a) => a.id === issue?.analyzer_id);
    return issue && analyzer
      ? { repository, account, latestCommitOid: latest?.commit_oid ?? null, issue, analyzer }
      : undefined;
  };
  const occurrencesOf = await findPresentOccurrencesOfIssues(
    tx,
    repository.id,
    introduced,
    EVENT_OCCURRENCE_LIMIT,
  );
  await recordEvents(tx, [
    ...introduced.flatMap((issueId) => {
      const subject = subjectOf(issueId);
      const occurrences = occurrencesOf.get(issueId) ?? [];
      return subject ? [repositoryIssueIntroducedEvent(subject, occurrences, present.get(issueId) ?? 0)] : [];
    }),
    ...resolved.flatMap((issueId) => {
      const subject = subjectOf(issueId);
      return subject ? [repositoryIssueResolvedEvent(subject, announced.issues.get(issueId) ?? 0)] : [];
    }),
  ]);
}
