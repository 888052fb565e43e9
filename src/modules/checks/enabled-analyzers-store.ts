import { sql } from "kysely";
import type { ConnectionSource } from "../../graphql/pagination.ts";
import { listsAnalyzers, turningOn } from "./analyzer-config-store.ts";
import { currentChecksOf } from "./current-check-store.ts";

/**
 * Which analyzers a repository has turned on (docs/read-model.md "Repository.enabledAnalyzers").
 * When the repository's stored configuration has an `analyzers` list, the catalog analyzers it
 * turns on (analyzer-config-store.ts); otherwise, without a configuration to go by, the analyzers
 * whose current findings the repository holds: those with a current check (current-check-store.ts),
 * the same analyzers `Repository.issues` reads, so an analyzer not sent in the newest run but
 * still counted there is listed too.
 */

/** A repository's enabled analyzers, by name then key. Parent: the repository id. */
export const enabledAnalyzersOfRepository: ConnectionSource = {
  name: "enabledAnalyzersOfRepository",
  // The current checks are read only for a repository whose configuration lists no analyzers.
  from: sql`(
    SELECT a.*, repo.id AS repository_id
    FROM repositories AS repo
    LEFT JOIN LATERAL (
      SELECT array_agg(cur.analyzer_id) AS ids FROM ${currentChecksOf("repo")} AS cur
      WHERE NOT ${listsAnalyzers("repo")}
    ) AS reporting ON true
    JOIN analyzers AS a ON CASE
      WHEN ${listsAnalyzers("repo")} THEN EXISTS (
        SELECT 1 FROM ${turningOn("repo")} AS entry WHERE entry.value ->> 'name' = a.shortcode)
      ELSE a.id = ANY(reporting.ids)
    END
  )`,
  parentColumn: "repository_id",
  samePlanForEveryParent: true,
  order: [
    { column: "name", kind: "text" },
    { column: "key", kind: "text" },
  ],
  direction: "asc",
};
