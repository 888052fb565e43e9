import { type Kysely, sql } from "kysely";

/**
 * `analysis_runs.lockfile_paths`: the repository-relative paths of the dependency manifests and
 * lockfiles git tracks at the run's commit, as an upload of the run said (`uploadArtifact`'s
 * `lockfilePaths`, sent by `assay upload` with an SBOM); null when no upload said. A detected
 * target whose lockfile the default branch's newest such list leaves out counts as scanned and
 * empty (docs/read-model.md "Current dependency scans"). The index finds a branch's newest runs
 * with a list. Runs stored before have none, so no target is retired by the upgrade.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE analysis_runs ADD COLUMN lockfile_paths text[]`.execute(db);
  await sql`
    CREATE INDEX analysis_runs_lockfile_lists_idx
      ON analysis_runs (repository_id, branch_name, created_at DESC, key DESC)
      WHERE lockfile_paths IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS analysis_runs_lockfile_lists_idx`.execute(db);
  await sql`ALTER TABLE analysis_runs DROP COLUMN IF EXISTS lockfile_paths`.execute(db);
}
