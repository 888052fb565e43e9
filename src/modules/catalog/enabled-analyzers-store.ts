import { type RawBuilder, sql } from "kysely";
import type { ConnectionSource } from "../../graphql/pagination.ts";
import { latestDefaultBranchRun } from "../runs/run-store.ts";

/**
 * Which analyzers a repository has turned on (docs/read-model.md, "Enabled analyzers"). When the
 * repository's stored configuration (`config_json`, its `.deepsource.toml` as JSON) has an
 * `analyzers` list, the catalog analyzers named there (`name` = shortcode) whose `enabled` is not
 * `false`; otherwise, without a configuration to go by, the analyzers that have a check in its
 * latest finished default-branch run.
 */

/** True when the configuration of the repository row `repository` has an `analyzers` list (false, not null, without one). */
function listsAnalyzers(repository: string): RawBuilder<boolean> {
  return sql<boolean>`(jsonb_typeof(${sql.ref(`${repository}.config_json`)} -> 'analyzers') IS NOT DISTINCT FROM 'array')`;
}

/**
 * The entries of the `analyzers` list of the repository row `repository` that turn an analyzer on
 * (objects whose `enabled` is not `false`), as rows of `entry(value)`; none without a list.
 */
function turningOn(repository: string): RawBuilder<unknown> {
  const config = sql.ref(`${repository}.config_json`);
  // Guarded, so a configuration whose `analyzers` is not a list is never expanded as one.
  return sql`(SELECT value FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${config} -> 'analyzers') = 'array'
      THEN ${config} -> 'analyzers' ELSE '[]'::jsonb END)
    WHERE jsonb_typeof(value) = 'object' AND (value -> 'enabled') IS DISTINCT FROM 'false'::jsonb)`;
}

/**
 * The ids of the analyzers the configuration of the repository row `repository` turns on, as a
 * bigint[]; null when it lists no analyzers, and Assay has nothing to go by: every analyzer that
 * reports counts. Read by the repository's current findings (checks/current-check-store.ts).
 */
export function analyzersTurnedOn(repository: string): RawBuilder<string[] | null> {
  return sql<string[] | null>`CASE WHEN ${listsAnalyzers(repository)} THEN ARRAY(
    SELECT a.id FROM ${turningOn(repository)} AS entry JOIN analyzers AS a ON a.shortcode = entry.value ->> 'name'
  ) END`;
}

/** A repository's enabled analyzers, by name then key. Parent: the repository id. */
export const enabledAnalyzersOfRepository: ConnectionSource = {
  name: "enabledAnalyzersOfRepository",
  from: sql`(
    SELECT a.*, repo.id AS repository_id
    FROM repositories AS repo
    LEFT JOIN LATERAL ${latestDefaultBranchRun("repo")} AS latest ON true
    JOIN analyzers AS a ON CASE
      WHEN ${listsAnalyzers("repo")} THEN EXISTS (
        SELECT 1 FROM ${turningOn("repo")} AS entry WHERE entry.value ->> 'name' = a.shortcode)
      ELSE EXISTS (SELECT 1 FROM checks AS c WHERE c.run_id = latest.id AND c.analyzer_id = a.id)
    END
  )`,
  parentColumn: "repository_id",
  order: [
    { column: "name", kind: "text" },
    { column: "key", kind: "text" },
  ],
  direction: "asc",
};
