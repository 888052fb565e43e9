import assert from "node:assert/strict";
import type { Kysely } from "kysely";
import type { Database } from "../../src/db/types.ts";
import { compareCheckIssueCounts } from "../../src/modules/checks/issue-count-store.ts";

/**
 * Fails unless every check's stored issue counts (`check_issue_counts`) equal the counts of its
 * published occurrences now, row for row. Every summary and total the API answers reads the
 * stored ones, so a writer of findings that forgot to rewrite them makes the API answer numbers
 * its findings do not add up to. `after` names the writes that came before, for the message.
 */
export async function assertIssueCountsMatchFindings(db: Kysely<Database>, after: string): Promise<void> {
  const { stored, computed } = await compareCheckIssueCounts(db);
  assert.ok(computed.length > 0, `${after}: there are findings to count`);
  assert.deepEqual(stored, computed, `${after}: the stored issue counts are the findings' own`);
}
