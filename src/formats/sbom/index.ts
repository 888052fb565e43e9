import { SNIFF_HEAD_BYTES, sniffFormat } from "../sniff.ts";
import { readCycloneDxJson, readCycloneDxXml } from "./cyclonedx.ts";
import { parsePurl } from "./purl.ts";
import { readSpdxJson, readSpdxTagValue } from "./spdx.ts";
import {
  type SbomComponent,
  type SbomDocument,
  type SbomEcosystem,
  SbomFormatError,
  type SbomStandard,
} from "./types.ts";

export { licenseRefOf } from "./license.ts";
export { parsePurl } from "./purl.ts";
export * from "./types.ts";

/**
 * Reads an SBOM of any supported kind — CycloneDX 1.4-1.6 JSON or XML, SPDX 2.2/2.3 JSON or
 * tag-value — telling which from its first bytes (src/formats/sniff.ts). Pure: no I/O beyond the
 * stream it is given. See docs/ingestion-sbom.md.
 */

/** Sees the head of a stream, then hands on every chunk, head included. */
async function withHead(
  source: AsyncIterable<Uint8Array | string>,
): Promise<{ head: string; chunks: AsyncIterable<Uint8Array | string> }> {
  const iterator = source[Symbol.asyncIterator]();
  const seen: Array<Uint8Array | string> = [];
  let size = 0;
  let done = false;
  while (size < SNIFF_HEAD_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    seen.push(next.value);
    size += typeof next.value === "string" ? next.value.length : next.value.byteLength;
  }
  const head = seen
    .map((chunk) => (typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")))
    .join("")
    .slice(0, SNIFF_HEAD_BYTES);
  async function* chunks(): AsyncGenerator<Uint8Array | string> {
    yield* seen;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { head, chunks: chunks() };
}

/** What {@link readSbom} may be told. */
export interface ReadSbomOptions {
  /** The standard the uploader says the SBOM is in (`key`); another is refused. */
  expect?: SbomStandard | null;
}

/** Reads an SBOM; throws {@link SbomFormatError} naming what is wrong. */
export async function readSbom(
  source: AsyncIterable<Uint8Array | string>,
  options: ReadSbomOptions = {},
): Promise<SbomDocument> {
  const { head, chunks } = await withHead(source);
  const sniffed = sniffFormat(head);
  const standard: SbomStandard | null = sniffed.format.startsWith("cyclonedx")
    ? "cyclonedx"
    : sniffed.format.startsWith("spdx")
      ? "spdx"
      : null;
  if (standard === null) {
    throw new SbomFormatError(
      sniffed.format === "empty"
        ? "the SBOM is empty"
        : `the report is not a CycloneDX or SPDX SBOM (it looks like ${sniffed.description})`,
    );
  }
  if (options.expect && options.expect !== standard) {
    throw new SbomFormatError(
      `the upload's key says ${options.expect}, but the report is ${sniffed.description}`,
    );
  }
  switch (sniffed.format) {
    case "cyclonedx-json":
      return readCycloneDxJson(chunks);
    case "cyclonedx-xml":
      return readCycloneDxXml(chunks);
    case "spdx-json":
      return readSpdxJson(chunks);
    default:
      return readSpdxTagValue(chunks);
  }
}

/** Why a component of an SBOM is not stored as a package version. */
export type SbomSkip = "NO_PURL" | "UNSUPPORTED_ECOSYSTEM" | "NO_VERSION" | "PROJECT_PACKAGE";

/** A component as a package version of a supported ecosystem. */
export interface SbomPackage {
  ecosystem: SbomEcosystem;
  /** The package's name in its ecosystem (`@scope/name`, `group:artifact`...). */
  name: string;
  version: string;
  /** The purl without version: the package's identity. */
  packagePurl: string;
  /** The purl as the SBOM gives it. */
  purl: string;
  direct: boolean;
  license: string | null;
  /** The manifests or lockfiles the SBOM says it was found in. */
  locations: string[];
}

/** The package version `component` names, or why it names none. */
export function packageOfComponent(component: SbomComponent): SbomPackage | { skip: SbomSkip } {
  if (component.purl === null) return { skip: "NO_PURL" };
  const parsed = parsePurl(component.purl);
  if (parsed === null) return { skip: "NO_PURL" };
  if (parsed.ecosystem === null) return { skip: "UNSUPPORTED_ECOSYSTEM" };
  const version = parsed.version ?? component.version;
  if (version === null || version.trim() === "") return { skip: "NO_VERSION" };
  return {
    ecosystem: parsed.ecosystem,
    name: parsed.name,
    version: version.trim(),
    packagePurl: parsed.packagePurl,
    purl: component.purl,
    direct: component.direct,
    license: component.license,
    locations: component.locations,
  };
}

/** The standard a `key` names ("cyclonedx", "spdx", case-insensitive); undefined for any other. */
export function standardOfKey(key: string): SbomStandard | undefined {
  const normal = key.trim().toLowerCase();
  return normal === "cyclonedx" || normal === "spdx" ? normal : undefined;
}

export { defaultTarget, type SbomTarget, targetOfLocation } from "./targets.ts";
export { SbomFormatError };
