import type { ParsedElementInfo } from "@streamparser/json";
import { SbomGraph } from "./graph.ts";
import { objectOf, streamJson, stringOf } from "./json-stream.ts";
import { spdxLicense } from "./license.ts";
import { type RawComponent, type SbomDocument, SbomFormatError } from "./types.ts";

/**
 * SPDX 2.2 and 2.3 (https://spdx.github.io/spdx-spec/v2.3/), JSON and tag-value. Read: the
 * packages (name, version, the `purl` external reference, the concluded licence, else the
 * declared one), the described packages (`documentDescribes` and DESCRIBES relationships: the
 * root), and the dependency relationships: `A DEPENDS_ON B`, and `B DEPENDENCY_OF A` with every
 * kind of it (DEV_, OPTIONAL_, BUILD_, RUNTIME_, TEST_, PROVIDED_DEPENDENCY_OF). For npm's own
 * documents (creator `Tool: npm/cli-…`), whether a package states a `downloadLocation` or a
 * checksum: npm states neither for a workspace package or a `file:` link (docs/ingestion-sbom.md).
 */

export const SPDX_VERSIONS = ["2.2", "2.3"];

function checkVersion(value: string | null): string {
  if (value === null) throw new SbomFormatError("the SPDX SBOM states no spdxVersion");
  const found = /^SPDX-(\d+\.\d+)$/.exec(value.trim());
  if (!found || !SPDX_VERSIONS.includes(found[1]!)) {
    throw new SbomFormatError(
      `${value.trim().slice(0, 40)} is not supported: upload SPDX ${SPDX_VERSIONS.join(" or ")} (JSON or tag-value)`,
    );
  }
  return found[1]!;
}

/** True when a creator of the document (`Tool: npm/cli-11.0.0`) is npm's own `npm sbom`. */
function isNpmCreator(creator: string): boolean {
  return /^Tool:\s*npm\/cli-/i.test(creator.trim());
}

/**
 * Whether the package states where it was downloaded from or a checksum; null for a package
 * inside another package's node_modules with neither (a bundled dependency, fetched with it).
 */
function downloadedOf(
  downloadLocation: string | null,
  checksums: boolean,
  fileName: string | null,
): boolean | null {
  const location = downloadLocation?.trim() ?? "";
  if (checksums || (location !== "" && location !== "NOASSERTION" && location !== "NONE")) return true;
  return fileName !== null && /node_modules\/.*\/node_modules\//.test(fileName) ? null : false;
}

/** One package as the document states it, before the root is known. */
interface SpdxPackage extends RawComponent {
  ref: string;
}

/**
 * Adds a relationship to the graph: dependencies as edges, DESCRIBES as roots. A prerequisite is a
 * dependency too: npm writes a peer dependency as `<peer> PREREQUISITE_FOR <package>`.
 */
function relate(graph: SbomGraph, element: string, type: string, related: string): void {
  const kind = type.trim().toUpperCase();
  if (kind === "DESCRIBES") graph.addRoot(related);
  else if (kind === "DESCRIBED_BY") graph.addRoot(element);
  else if (kind === "DEPENDS_ON" || kind === "HAS_PREREQUISITE") graph.addEdge(element, related);
  else if (kind.endsWith("DEPENDENCY_OF") || kind === "PREREQUISITE_FOR") graph.addEdge(related, element);
}

/** The graph with the packages added and the first root's package as the document's root. */
function finish(graph: SbomGraph, packages: SpdxPackage[], roots: ReadonlySet<string>): void {
  for (const pkg of packages) {
    if (roots.has(pkg.ref) && graph.root === null) {
      graph.root = { name: pkg.name || null, version: pkg.version, purl: pkg.purl };
    }
    graph.components.push(pkg);
  }
}

// --- JSON --------------------------------------------------------------------------------------

function packageOfJson(value: unknown): SpdxPackage {
  const pkg = objectOf(value);
  const ref = stringOf(pkg?.SPDXID);
  if (!pkg || ref === null) throw new SbomFormatError("the SPDX SBOM has a package without SPDXID");
  let purl: string | null = null;
  if (Array.isArray(pkg.externalRefs)) {
    for (const entry of pkg.externalRefs) {
      const reference = objectOf(entry);
      if (String(reference?.referenceType ?? "").toLowerCase() === "purl") {
        purl = stringOf(reference?.referenceLocator);
        if (purl !== null) break;
      }
    }
  }
  return {
    ref,
    name: stringOf(pkg.name) ?? "",
    version: stringOf(pkg.versionInfo),
    purl,
    license: spdxLicense(pkg.licenseConcluded) ?? spdxLicense(pkg.licenseDeclared),
    locations: [],
    linked: false,
    downloaded: downloadedOf(
      stringOf(pkg.downloadLocation),
      Array.isArray(pkg.checksums) && pkg.checksums.length > 0,
      stringOf(pkg.packageFileName),
    ),
  };
}

/** Reads an SPDX JSON SBOM. Throws {@link SbomFormatError}. */
export async function readSpdxJson(source: AsyncIterable<Uint8Array | string>): Promise<SbomDocument> {
  const graph = new SbomGraph();
  const packages: SpdxPackage[] = [];
  const roots = new Set<string>();
  const seen: { version: string | null; documentId: string | null } = { version: null, documentId: null };
  await streamJson(
    "the SPDX SBOM",
    source,
    [
      "$.spdxVersion",
      "$.SPDXID",
      "$.creationInfo",
      "$.documentDescribes.*",
      "$.packages.*",
      "$.relationships.*",
    ],
    ({ value, key, stack }: ParsedElementInfo) => {
      if (stack.length === 1) {
        if (key === "spdxVersion") seen.version = checkVersion(stringOf(value));
        else if (key === "SPDXID") seen.documentId = stringOf(value);
        else if (key === "creationInfo") {
          const creators = objectOf(value)?.creators;
          if (Array.isArray(creators))
            graph.writtenByNpm = creators.some((c) => typeof c === "string" && isNpmCreator(c));
        }
        return;
      }
      const list = stack[1]?.key;
      if (list === "documentDescribes" && typeof value === "string") {
        graph.addRoot(value);
        roots.add(value);
      } else if (list === "packages") packages.push(packageOfJson(value));
      else if (list === "relationships") {
        const relationship = objectOf(value);
        const element = stringOf(relationship?.spdxElementId);
        const related = stringOf(relationship?.relatedSpdxElement);
        const type = stringOf(relationship?.relationshipType);
        if (element === null || related === null || type === null) {
          throw new SbomFormatError(
            "the SPDX SBOM has a relationship without spdxElementId, relationshipType or relatedSpdxElement",
          );
        }
        relate(graph, element, type, related);
        if (type === "DESCRIBES") roots.add(related);
        else if (type === "DESCRIBED_BY") roots.add(element);
      }
    },
  );
  const version = seen.version ?? checkVersion(null);
  if (seen.documentId === null) throw new SbomFormatError("the SPDX SBOM has no SPDXID");
  finish(graph, packages, roots);
  return graph.build("spdx", version, "JSON");
}

// --- Tag-value ---------------------------------------------------------------------------------

/**
 * Reads an SPDX tag-value SBOM line by line (`Tag: value`; `<text>…</text>` values may span
 * lines). A package starts at each `PackageName`. Throws {@link SbomFormatError}.
 */
export async function readSpdxTagValue(source: AsyncIterable<Uint8Array | string>): Promise<SbomDocument> {
  const graph = new SbomGraph();
  const packages: SpdxPackage[] = [];
  const roots = new Set<string>();
  const seen: { version: string | null } = { version: null };
  let current: SpdxPackage | null = null;
  let lineNumber = 0;
  let inText = false;
  let concluded: string | null = null;
  let declared: string | null = null;
  let download: { location: string | null; checksums: boolean; fileName: string | null } = {
    location: null,
    checksums: false,
    fileName: null,
  };

  const closePackage = () => {
    if (current === null) return;
    if (current.ref === "")
      throw new SbomFormatError(`the SPDX SBOM's package "${current.name}" has no SPDXID`);
    current.license = concluded ?? declared;
    current.downloaded = downloadedOf(download.location, download.checksums, download.fileName);
    packages.push(current);
    current = null;
  };

  const onLine = (line: string) => {
    lineNumber += 1;
    if (inText) {
      if (line.includes("</text>")) inText = false;
      return;
    }
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    const colon = trimmed.indexOf(":");
    if (colon <= 0) throw new SbomFormatError(`the SPDX SBOM's line ${lineNumber} is not "Tag: value"`);
    const tag = trimmed.slice(0, colon).trim();
    const value = trimmed.slice(colon + 1).trim();
    if (value.startsWith("<text>") && !value.includes("</text>")) inText = true;
    switch (tag) {
      case "SPDXVersion":
        seen.version = checkVersion(value);
        break;
      case "PackageName":
        closePackage();
        current = {
          ref: "",
          name: value,
          version: null,
          purl: null,
          license: null,
          locations: [],
          linked: false,
          downloaded: null,
        };
        concluded = null;
        declared = null;
        download = { location: null, checksums: false, fileName: null };
        break;
      case "Creator":
        if (isNpmCreator(value)) graph.writtenByNpm = true;
        break;
      case "PackageDownloadLocation":
        download.location = value;
        break;
      case "PackageChecksum":
        download.checksums = true;
        break;
      case "PackageFileName":
        download.fileName = value;
        break;
      case "FileName":
      case "SnippetSPDXID":
        closePackage();
        break;
      case "SPDXID":
        if (current !== null && current.ref === "") current.ref = value;
        break;
      case "PackageVersion":
        if (current !== null) current.version = value || null;
        break;
      case "PackageLicenseConcluded":
        concluded = spdxLicense(value);
        break;
      case "PackageLicenseDeclared":
        declared = spdxLicense(value);
        break;
      case "ExternalRef": {
        const [category, type, locator] = value.split(/\s+/);
        if (current !== null && type?.toLowerCase() === "purl" && locator && category)
          current.purl ??= locator;
        break;
      }
      case "Relationship": {
        const [element, type, related] = value.split(/\s+/);
        if (!element || !type || !related) {
          throw new SbomFormatError(
            `the SPDX SBOM's line ${lineNumber} has a Relationship that is not "A TYPE B"`,
          );
        }
        relate(graph, element, type, related);
        if (type === "DESCRIBES") roots.add(related);
        else if (type === "DESCRIBED_BY") roots.add(element);
        break;
      }
      default:
        break;
    }
  };

  const decoder = new TextDecoder("utf-8");
  let pending = "";
  let sawText = false;
  for await (const chunk of source) {
    pending += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    const lines = pending.split(/\r?\n/);
    pending = lines.pop() ?? "";
    for (const line of lines) onLine(line);
    sawText ||= lines.length > 0 || pending !== "";
  }
  pending += decoder.decode();
  if (pending !== "") onLine(pending);
  if (!sawText && pending === "") throw new SbomFormatError("the SPDX SBOM is empty");
  if (inText) throw new SbomFormatError("the SPDX SBOM ends inside a <text> value (is the file cut short?)");
  closePackage();
  const checked = seen.version ?? checkVersion(null);
  finish(graph, packages, roots);
  return graph.build("spdx", checked, "tag-value");
}
