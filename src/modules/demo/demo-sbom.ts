import type { Kysely } from "kysely";
import type { AnalysisRunRow, Database, RepositoryRow } from "../../db/types.ts";
import { advisoryDataset } from "./advisories.ts";
import type { PlannedSbom } from "./plan-types.ts";
import { hash32 } from "./random.ts";

/**
 * The demo's SBOMs: each analyzed run's scan of each target written as a CycloneDX 1.5 JSON
 * document (what cdxgen or syft would upload), then stored and processed by the SBOM ingestion,
 * so packages, targets, SCA checks, the DDP value and vulnerability occurrences come out of the
 * same code as an `sca` upload's.
 */

/**
 * Stores and processes one SBOM for a run's `sca` check in the caller's transaction. The wiring
 * passes the ingestion's implementation (src/ingestion/sca/sbom-upload.ts): the demo, a domain,
 * does not import the pipelines above it.
 */
export type SbomUploader = (
  tx: Kysely<Database>,
  sbom: {
    repository: RepositoryRow;
    run: AnalysisRunRow;
    check: { id: string; key: string; run_id: string; analyzer_id: string };
    document: string;
    reporter: string;
  },
) => Promise<unknown>;

/** Licences the invented scans state (each package always gets the same one). */
const LICENSES = ["MIT", "Apache-2.0", "BSD-3-Clause", "ISC", "MIT", "Apache-2.0", "MPL-2.0", "BSD-2-Clause"];

/** A UUID made from `parts`, so the same scan always gets the same serial number. */
function serialOf(...parts: Array<string | number>): string {
  const hex = Array.from({ length: 4 }, (_, i) =>
    hash32(...parts, i)
      .toString(16)
      .padStart(8, "0"),
  ).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The CycloneDX 1.5 JSON document of `sbom`: the repository as the metadata component, each
 * pinned package a library with its purl, version, licence and the lockfile it was found in (the
 * `SrcFile` property cdxgen writes), and the dependency graph: the root depends on the direct
 * packages, the first direct package on the transitive ones.
 */
export function cycloneDxOf(sbom: PlannedSbom, repositoryName: string, commitOid: string): string {
  const { packages } = advisoryDataset();
  const components = sbom.packages.map((p) => {
    const pkg = packages[p.index]!;
    const purl = `${pkg.purl}@${p.version}`;
    const slash = pkg.name.lastIndexOf(pkg.ecosystem === "MAVEN" ? ":" : "/");
    return {
      type: "library",
      "bom-ref": purl,
      ...(slash > 0 && { group: pkg.name.slice(0, slash) }),
      name: slash > 0 ? pkg.name.slice(slash + 1) : pkg.name,
      version: p.version,
      purl,
      licenses: [{ license: { id: LICENSES[hash32(pkg.name) % LICENSES.length]! } }],
      properties: [{ name: "SrcFile", value: sbom.target.lockfilePath }],
    };
  });
  const direct = components.filter((_, i) => sbom.packages[i]!.direct).map((c) => c["bom-ref"]);
  const transitive = components.filter((_, i) => !sbom.packages[i]!.direct).map((c) => c["bom-ref"]);
  const root = `${repositoryName}@${commitOid}`;
  return JSON.stringify({
    bomFormat: "CycloneDX",
    specVersion: "1.5",
    serialNumber: `urn:uuid:${serialOf(root, sbom.target.lockfilePath)}`,
    version: 1,
    metadata: {
      timestamp: sbom.createdAt.toISOString(),
      tools: { components: [{ type: "application", name: "cdxgen", version: "10.10.0" }] },
      component: { type: "application", "bom-ref": root, name: repositoryName, version: commitOid },
    },
    components,
    dependencies: [
      { ref: root, dependsOn: direct },
      ...direct.map((ref, i) => ({ ref, dependsOn: i === 0 ? transitive : [] })),
      ...transitive.map((ref) => ({ ref, dependsOn: [] })),
    ],
  });
}
