import { type Kysely, sql } from "kysely";

/**
 * `analysis_runs.is_branch_defaulted`: true when the run is on the default branch only because
 * no upload named a branch (the contract's `createArtifact` has no branch field) and no pull
 * request gave one. Such a run moves to a pull request's branch when the provider reports its
 * commit as that pull request's head (docs/vcs-events.md "Runs that move off the default
 * branch"); a run whose upload named the default branch never does. Runs stored before are taken
 * as named: what their uploads said is not known.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE analysis_runs ADD COLUMN is_branch_defaulted boolean NOT NULL DEFAULT false`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE analysis_runs DROP COLUMN IF EXISTS is_branch_defaulted`.execute(db);
}
