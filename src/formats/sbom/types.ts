/**
 * What the SBOM readers give (docs/ingestion-sbom.md): the document's format and root, and its
 * components with their package URL, licence and place in the dependency graph. Pure: no I/O.
 */

/** The package registries Assay stores packages of; a purl of another type is not stored. */
export type SbomEcosystem =
  | "NPM"
  | "PYPI"
  | "MAVEN"
  | "GO"
  | "RUBYGEMS"
  | "NUGET"
  | "PACKAGIST"
  | "CRATES_IO";

/** The SBOM standards read. */
export type SbomStandard = "cyclonedx" | "spdx";

/** How the document is written. */
export type SbomEncoding = "JSON" | "XML" | "tag-value";

/** The component the SBOM describes (the project itself), which is not one of its dependencies. */
export interface SbomRoot {
  name: string | null;
  version: string | null;
  purl: string | null;
}

/** One dependency as read from the document, before it is placed in the graph. */
export interface RawComponent {
  /** The document's own identifier of the component (CycloneDX bom-ref, SPDX SPDXID). */
  ref: string | null;
  name: string;
  version: string | null;
  purl: string | null;
  /** The licence as an SPDX expression; null when the document states none. */
  license: string | null;
  /**
   * The manifests or lockfiles the tool found it in, when the document says (syft's first
   * location, every `SrcFile` cdxgen names), in document order; empty when it names none.
   */
  locations: string[];
  /** The document marks it as a link to the project's own code (cdxgen's `cdx:npm:isLink`, `cdx:npm:isWorkspace`). */
  linked: boolean;
  /**
   * Whether the document says where the package was downloaded from or gives its checksum (a
   * `distribution` reference or a hash in CycloneDX, a `downloadLocation` or a checksum in SPDX);
   * null when its absence would say nothing (a package bundled inside another one).
   */
  downloaded: boolean | null;
}

/** One dependency of the SBOM, placed in the graph. */
export interface SbomComponent extends RawComponent {
  /**
   * True when the root, a nested project or one of the project's own packages depends on it
   * directly (or when the document has no graph at all).
   */
  direct: boolean;
  /**
   * The project's own code rather than a third-party package: an npm workspace package or a
   * package linked from the repository (`file:`), as the document marks it or, for npm's and
   * cyclonedx-npm's documents, as what npm leaves out of it tells (docs/ingestion-sbom.md).
   */
  own: boolean;
}

/** An SBOM as read. */
export interface SbomDocument {
  standard: SbomStandard;
  /** "1.5" for CycloneDX, "2.3" for SPDX. */
  specVersion: string;
  encoding: SbomEncoding;
  root: SbomRoot | null;
  /** Every component but the root, in document order (nested CycloneDX components included). */
  components: SbomComponent[];
  /** False when the document states no dependency of its root: then every component counts as direct. */
  hasGraph: boolean;
}

/** The format's name as an artifact records it: "CycloneDX 1.5 (JSON)", "SPDX 2.3 (tag-value)". */
export function sbomFormatName(
  document: Pick<SbomDocument, "standard" | "specVersion" | "encoding">,
): string {
  const standard = document.standard === "cyclonedx" ? "CycloneDX" : "SPDX";
  return `${standard} ${document.specVersion} (${document.encoding})`;
}

/** An SBOM that cannot be read; the message names the problem and, where it can, the place. */
export class SbomFormatError extends Error {
  override name = "SbomFormatError";
}
