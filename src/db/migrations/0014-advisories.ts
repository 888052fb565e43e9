import { type Kysely, sql } from "kysely";

/**
 * Advisories imported from OSV (docs/advisories.md).
 *
 * - `advisory_packages`: one row per affected package of a record, keyed for lookup by
 *   (ecosystem, normalised name), with the record's SEMVER/ECOSYSTEM ranges and explicit versions
 *   as JSON. Matching reads the rows of a check's packages by that index and decides in process,
 *   in the ecosystem's own version order (src/formats/osv/affected.ts).
 * - `advisory_sources`: what `advisories sync` last saw of each configured export URL (its ETag
 *   and Last-Modified), so an unchanged export is not downloaded again.
 * - `vulnerabilities.source_modified`: the record's `modified` as imported, so a re-import of an
 *   unchanged record changes nothing.
 * - `vulnerability_occurrences.fix_version`: the smallest upgrade that fixes the occurrence.
 *
 * Matching reads `sca_check_dependencies`, which SBOM processing writes (0015).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (statement: ReturnType<typeof sql>) => statement.execute(db);
  await run(sql`
    CREATE TABLE advisory_packages (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      vulnerability_id bigint NOT NULL REFERENCES vulnerabilities (id) ON DELETE CASCADE,
      ecosystem text NOT NULL,
      name text NOT NULL,
      ranges jsonb NOT NULL DEFAULT '[]'::jsonb,
      versions jsonb NOT NULL DEFAULT '[]'::jsonb
    )`);
  await run(sql`CREATE INDEX advisory_packages_lookup_idx ON advisory_packages (ecosystem, name)`);
  await run(sql`CREATE INDEX advisory_packages_vulnerability_idx ON advisory_packages (vulnerability_id)`);
  await run(sql`ALTER TABLE vulnerabilities ADD COLUMN source_modified timestamptz`);
  await run(sql`ALTER TABLE vulnerability_occurrences ADD COLUMN fix_version text`);
  await run(sql`
    CREATE TABLE advisory_sources (
      url text PRIMARY KEY,
      etag text,
      last_modified text,
      checked_at timestamptz,
      imported_at timestamptz
    )`);
}

/** Drops what {@link up} added. */
export async function down(db: Kysely<unknown>): Promise<void> {
  const run = (statement: ReturnType<typeof sql>) => statement.execute(db);
  await run(sql`DROP TABLE IF EXISTS advisory_sources`);
  await run(sql`ALTER TABLE vulnerability_occurrences DROP COLUMN IF EXISTS fix_version`);
  await run(sql`ALTER TABLE vulnerabilities DROP COLUMN IF EXISTS source_modified`);
  await run(sql`DROP TABLE IF EXISTS advisory_packages`);
}
