import { type Kysely, sql } from "kysely";

/**
 * SBOM uploads (docs/ingestion-sbom.md): artifacts of kind SBOM, the SCA check each upload makes
 * (its artifact, its analyzer check, what it counted) and the dependencies it found, one row per
 * (SCA check, target, package version), which the DDP metric and advisory matching read.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (statement: ReturnType<typeof sql>) => statement.execute(db);
  await run(sql`ALTER TABLE artifacts DROP CONSTRAINT artifacts_kind_check`);
  await run(
    sql`ALTER TABLE artifacts ADD CONSTRAINT artifacts_kind_check CHECK (kind IN ('SARIF', 'COVERAGE', 'CHANGES', 'SBOM'))`,
  );
  await run(sql`
    ALTER TABLE sca_checks
      ADD COLUMN check_id bigint REFERENCES checks (id) ON DELETE CASCADE,
      ADD COLUMN artifact_id bigint UNIQUE REFERENCES artifacts (id) ON DELETE CASCADE,
      ADD COLUMN format text,
      ADD COLUMN dependencies_count integer,
      ADD COLUMN direct_dependencies_count integer,
      ADD COLUMN transitive_dependencies_count integer`);
  await run(sql`CREATE INDEX sca_checks_check_idx ON sca_checks (check_id)`);
  await run(sql`
    CREATE TABLE sca_check_dependencies (
      sca_check_id bigint NOT NULL REFERENCES sca_checks (id) ON DELETE CASCADE,
      target_id bigint NOT NULL REFERENCES repository_targets (id) ON DELETE CASCADE,
      package_version_id bigint NOT NULL REFERENCES package_versions (id),
      is_direct boolean NOT NULL,
      license_expression text,
      PRIMARY KEY (sca_check_id, target_id, package_version_id)
    )`);
  await run(
    sql`CREATE INDEX sca_check_dependencies_version_idx ON sca_check_dependencies (package_version_id)`,
  );
}

/** Drops what {@link up} added; SBOM artifacts go with the constraint they need. */
export async function down(db: Kysely<unknown>): Promise<void> {
  const run = (statement: ReturnType<typeof sql>) => statement.execute(db);
  await run(sql`DROP TABLE IF EXISTS sca_check_dependencies`);
  await run(sql`DROP INDEX IF EXISTS sca_checks_check_idx`);
  await run(sql`
    ALTER TABLE sca_checks
      DROP COLUMN IF EXISTS check_id,
      DROP COLUMN IF EXISTS artifact_id,
      DROP COLUMN IF EXISTS format,
      DROP COLUMN IF EXISTS dependencies_count,
      DROP COLUMN IF EXISTS direct_dependencies_count,
      DROP COLUMN IF EXISTS transitive_dependencies_count`);
  await run(sql`DELETE FROM artifacts WHERE kind = 'SBOM'`);
  await run(sql`ALTER TABLE artifacts DROP CONSTRAINT artifacts_kind_check`);
  await run(
    sql`ALTER TABLE artifacts ADD CONSTRAINT artifacts_kind_check CHECK (kind IN ('SARIF', 'COVERAGE', 'CHANGES'))`,
  );
}
