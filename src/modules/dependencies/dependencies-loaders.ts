import type {
  PackageRow,
  PackageVersionRow,
  RepositoryTargetRow,
  ScaCheckRow,
  VulnerabilityRow,
} from "../../db/types.ts";
import { alignRows, defineLoader } from "../../graphql/context.ts";
import {
  findPackagesByIds,
  findPackagesByKeys,
  findPackageVersionsByIds,
  findPackageVersionsByKeys,
  findVisibleScaChecksByKeys,
  findVisibleTargetsByKeys,
  findVisibleVulnerabilityOccurrencesByKeys,
  findVulnerabilitiesByIds,
  findVulnerabilitiesByKeys,
  type LocatedVulnerabilityOccurrence,
} from "./dependencies-store.ts";
import { findTargetsByIds } from "./sbom-store.ts";

/** Packages by key (global advisory data). */
export const packageByKey = defineLoader<string, PackageRow | null>("packageByKey", async (ctx, keys) =>
  alignRows(keys, await findPackagesByKeys(ctx.db, keys), (p) => p.key),
);

/** Packages by internal id. */
export const packageById = defineLoader<string, PackageRow | null>("packageById", async (ctx, ids) =>
  alignRows(ids, await findPackagesByIds(ctx.db, ids), (p) => p.id),
);

/** Package versions by key (global advisory data). */
export const packageVersionByKey = defineLoader<string, PackageVersionRow | null>(
  "packageVersionByKey",
  async (ctx, keys) => alignRows(keys, await findPackageVersionsByKeys(ctx.db, keys), (v) => v.key),
);

/** Package versions by internal id. */
export const packageVersionById = defineLoader<string, PackageVersionRow | null>(
  "packageVersionById",
  async (ctx, ids) => alignRows(ids, await findPackageVersionsByIds(ctx.db, ids), (v) => v.id),
);

/** Vulnerabilities by key (global advisory data). */
export const vulnerabilityByKey = defineLoader<string, VulnerabilityRow | null>(
  "vulnerabilityByKey",
  async (ctx, keys) => alignRows(keys, await findVulnerabilitiesByKeys(ctx.db, keys), (v) => v.key),
);

/** Vulnerabilities by internal id. */
export const vulnerabilityById = defineLoader<string, VulnerabilityRow | null>(
  "vulnerabilityById",
  async (ctx, ids) => alignRows(ids, await findVulnerabilitiesByIds(ctx.db, ids), (v) => v.id),
);

/** Repository targets by key, limited to repositories the viewer can see. */
export const visibleTargetByKey = defineLoader<string, RepositoryTargetRow | null>(
  "visibleTargetByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleTargetsByKeys(ctx.db, ctx.viewer.userId, keys), (t) => t.key),
);

/** SCA checks by key, limited to repositories the viewer can see. */
export const visibleScaCheckByKey = defineLoader<string, ScaCheckRow | null>(
  "visibleScaCheckByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleScaChecksByKeys(ctx.db, ctx.viewer.userId, keys), (c) => c.key),
);

/** Vulnerability occurrences by key, limited to repositories the viewer can see. */
export const visibleVulnerabilityOccurrenceByKey = defineLoader<
  string,
  LocatedVulnerabilityOccurrence | null
>("visibleVulnerabilityOccurrenceByKey", async (ctx, keys) =>
  alignRows(
    keys,
    await findVisibleVulnerabilityOccurrencesByKeys(ctx.db, ctx.viewer.userId, keys),
    (o) => o.key,
  ),
);

/** Repository targets by internal id (an SCA check's target: the check was already seen). */
export const targetById = defineLoader<string, RepositoryTargetRow | null>("targetById", async (ctx, ids) =>
  alignRows(ids, await findTargetsByIds(ctx.db, ids), (t) => t.id),
);
