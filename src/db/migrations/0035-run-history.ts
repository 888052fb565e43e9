import { type Kysely, sql } from "kysely";

/**
 * A default-branch run's place in the commit history rather than in the upload order
 * (docs/ingestion.md "Base" and "Where a run stands in the history"):
 *
 * - `analysis_runs.ancestor_oids`: the commit's first-parent ancestors, nearest first, as the
 *   upload that made the run sent them (`uploadArtifact`'s `ancestorOids`, which `assay upload`
 *   sends); null when it sent none. A new run is compared with its nearest analysed ancestor, and
 *   a run whose commit is in another run's list is older than that run in the history.
 * - `analysis_runs.placed_at`: where the run stands among its branch's runs. Every read of "the
 *   newest run" or "the current check" orders by it. It is the run's `created_at` (a trigger fills
 *   it in when an insert gives none, so every run written before or without an ancestry keeps its
 *   upload order); a run whose commit an earlier run of the branch descends from is placed just
 *   before that run instead, after its own ancestors.
 * - `checks.run_created_at`, which the repository's current checks and the code health trend order
 *   and place checks by, is copied from `placed_at` from now on (it was the run's `created_at`,
 *   which equals `placed_at` for every run stored before).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (query: ReturnType<typeof sql>) => query.execute(db);
  await run(sql`ALTER TABLE analysis_runs ADD COLUMN ancestor_oids text[], ADD COLUMN placed_at timestamptz`);
  await run(sql`UPDATE analysis_runs SET placed_at = created_at`);
  await run(sql`ALTER TABLE analysis_runs ALTER COLUMN placed_at SET NOT NULL`);
  await run(sql`
    CREATE FUNCTION analysis_runs_default_placed_at() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.placed_at IS NULL THEN NEW.placed_at := NEW.created_at; END IF;
      RETURN NEW;
    END $$`);
  await run(sql`
    CREATE TRIGGER analysis_runs_default_placed_at BEFORE INSERT ON analysis_runs
      FOR EACH ROW EXECUTE FUNCTION analysis_runs_default_placed_at()`);
  await run(sql`
    CREATE OR REPLACE FUNCTION checks_copy_run() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      SELECT r.repository_id, r.branch_name, r.placed_at, r.key
        INTO NEW.repository_id, NEW.branch_name, NEW.run_created_at, NEW.run_key
        FROM analysis_runs AS r WHERE r.id = NEW.run_id;
      RETURN NEW;
    END $$`);
  // The newest analysed run of a branch, in history order; and the runs that name a commit among
  // their ancestors (the descendants of a late run's commit).
  await run(sql`
    CREATE INDEX analysis_runs_branch_placed_idx ON analysis_runs (repository_id, branch_name, placed_at DESC, key DESC)`);
  await run(sql`CREATE INDEX analysis_runs_ancestors_idx ON analysis_runs USING gin (ancestor_oids)`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const run = (query: ReturnType<typeof sql>) => query.execute(db);
  await run(sql`
    CREATE OR REPLACE FUNCTION checks_copy_run() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      SELECT r.repository_id, r.branch_name, r.created_at, r.key
        INTO NEW.repository_id, NEW.branch_name, NEW.run_created_at, NEW.run_key
        FROM analysis_runs AS r WHERE r.id = NEW.run_id;
      RETURN NEW;
    END $$`);
  await run(sql`DROP TRIGGER IF EXISTS analysis_runs_default_placed_at ON analysis_runs`);
  await run(sql`DROP FUNCTION IF EXISTS analysis_runs_default_placed_at()`);
  await run(sql`DROP INDEX IF EXISTS analysis_runs_ancestors_idx`);
  await run(sql`DROP INDEX IF EXISTS analysis_runs_branch_placed_idx`);
  await run(
    sql`ALTER TABLE analysis_runs DROP COLUMN IF EXISTS ancestor_oids, DROP COLUMN IF EXISTS placed_at`,
  );
}
