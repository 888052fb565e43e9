import { sql } from "kysely";
import type { ConnectionSource } from "../../graphql/pagination.ts";
import { latestDefaultBranchRun } from "../runs/run-store.ts";

/**
 * Which analyzers a repository has turned on (docs/read-model.md, "Enabled analyzers"). When the
 * repository's stored configuration (`config_json`, its `.deepsource.toml` as JSON) has an
 * `analyzers` list, the catalog analyzers named there (`name` = shortcode) whose `enabled` is not
 * `false`; otherwise, without a configuration to go by, the analyzers that have a check in its
 * latest finished default-branch run.
 */

/** `config_json -> 'analyzers'` when it is a list, else an empty list. */
const CONFIGURED = sql`CASE WHEN jsonb_typeof(repo.config_json -> 'analyzers') = 'array'
  THEN repo.config_json -> 'analyzers' ELSE '[]'::jsonb END`;

/** A repository's enabled analyzers, by name then key. Parent: the repository id. */
export const enabledAnalyzersOfRepository: ConnectionSource = {
  name: "enabledAnalyzersOfRepository",
  from: sql`(
    SELECT a.*, repo.id AS repository_id
    FROM repositories AS repo
    LEFT JOIN LATERAL ${latestDefaultBranchRun("repo")} AS latest ON true
    JOIN analyzers AS a ON CASE
      WHEN jsonb_typeof(repo.config_json -> 'analyzers') = 'array' THEN EXISTS (
        SELECT 1 FROM jsonb_array_elements(${CONFIGURED}) AS entry(value)
        WHERE jsonb_typeof(entry.value) = 'object' AND entry.value ->> 'name' = a.shortcode
          AND (entry.value -> 'enabled') IS DISTINCT FROM 'false'::jsonb)
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
