import { type RawBuilder, sql } from "kysely";

/**
 * What a repository's stored configuration (`config_json`, its `.deepsource.toml` as JSON) says
 * about its analyzers (docs/read-model.md "Repository.enabledAnalyzers"): when it has an
 * `analyzers` list, the catalog analyzers named there (`name` = shortcode) whose `enabled` is not
 * `false` are turned on and no other; without one, it says nothing. Read by the repository's
 * current findings (current-check-store.ts) and by `enabledAnalyzers`.
 */

/** True when the configuration of the repository row `repository` has an `analyzers` list (false, not null, without one). */
export function listsAnalyzers(repository: string): RawBuilder<boolean> {
  return sql<boolean>`(jsonb_typeof(${sql.ref(`${repository}.config_json`)} -> 'analyzers') IS NOT DISTINCT FROM 'array')`;
}

/**
 * The entries of the `analyzers` list of the repository row `repository` that turn an analyzer on
 * (objects whose `enabled` is not `false`), as rows of `entry(value)`; none without a list.
 */
export function turningOn(repository: string): RawBuilder<unknown> {
  const config = sql.ref(`${repository}.config_json`);
  // Guarded, so a configuration whose `analyzers` is not a list is never expanded as one.
  return sql`(SELECT value FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${config} -> 'analyzers') = 'array'
      THEN ${config} -> 'analyzers' ELSE '[]'::jsonb END)
    WHERE jsonb_typeof(value) = 'object' AND (value -> 'enabled') IS DISTINCT FROM 'false'::jsonb)`;
}

/**
 * The ids of the analyzers the configuration of the repository row `repository` turns on, as a
 * bigint[]; null when it lists no analyzers, and Assay has nothing to go by: every analyzer that
 * reports counts.
 */
export function analyzersTurnedOn(repository: string): RawBuilder<string[] | null> {
  return sql<string[] | null>`CASE WHEN ${listsAnalyzers(repository)} THEN ARRAY(
    SELECT a.id FROM ${turningOn(repository)} AS entry JOIN analyzers AS a ON a.shortcode = entry.value ->> 'name'
  ) END`;
}
