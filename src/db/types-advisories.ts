import type { ColumnType, Generated, Selectable } from "kysely";
import type { Ecosystem, ForeignKey, Id } from "./types.ts";

/** Tables of migration 0014 (docs/advisories.md). */

type Json<T> = ColumnType<T, string, string>;

/** A stored range: OSV's SEMVER or ECOSYSTEM range, events as OSV writes them. */
export interface StoredRange {
  type: "SEMVER" | "ECOSYSTEM";
  events: Record<string, string>[];
}

export interface AdvisoryPackagesTable {
  id: Generated<Id>;
  vulnerability_id: ForeignKey;
  ecosystem: Ecosystem;
  /** The package name as its registry compares names (src/formats/osv/versions.ts). */
  name: string;
  ranges: Json<StoredRange[]>;
  versions: Json<string[]>;
}

export interface AdvisorySourcesTable {
  url: string;
  etag: string | null;
  last_modified: string | null;
  checked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  imported_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** How the last check ended (0017); null before the first. */
  status: ColumnType<
    AdvisorySourceStatus | null,
    AdvisorySourceStatus | null | undefined,
    AdvisorySourceStatus | null
  >;
  /** Why the last check failed (0017). */
  error: ColumnType<string | null, string | null | undefined, string | null>;
  /** Size of the last export imported, in bytes (0017). */
  downloaded_bytes: ColumnType<string | null, number | null | undefined, number | null>;
  /** The summary of the last import (0017). */
  import_summary: ColumnType<unknown, string | null | undefined, string | null>;
}

/** How a sync's check of one export URL ended. */
export type AdvisorySourceStatus = "NOT_MODIFIED" | "IMPORTED" | "FAILED";

export interface ScaCheckDependenciesTable {
  sca_check_id: ForeignKey;
  target_id: ForeignKey;
  package_version_id: ForeignKey;
  is_direct: boolean;
  license_expression: string | null;
}

export interface AdvisoryTables {
  advisory_packages: AdvisoryPackagesTable;
  advisory_sources: AdvisorySourcesTable;
  sca_check_dependencies: ScaCheckDependenciesTable;
}

export type AdvisoryPackageRow = Selectable<AdvisoryPackagesTable>;
export type AdvisorySourceRow = Selectable<AdvisorySourcesTable>;
