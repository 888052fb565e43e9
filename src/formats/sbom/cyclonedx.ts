import type { ParsedElementInfo } from "@streamparser/json";
import { SaxesParser, type SaxesTagPlain } from "saxes";
import { SbomGraph } from "./graph.ts";
import { objectOf, streamJson, stringOf } from "./json-stream.ts";
import { joinLicenses, licenseRefOf } from "./license.ts";
import { type RawComponent, type SbomDocument, SbomFormatError } from "./types.ts";

/**
 * CycloneDX 1.4 to 1.6 (https://cyclonedx.org/specification/overview/), JSON and XML. Read:
 * `metadata.component` (the root), `components` (nested ones too; `file` components are not
 * packages and are passed over), each one's `bom-ref`, name, version, `purl`, `licenses` and the
 * location properties syft and cdxgen write, and `dependencies` (the graph).
 */

export const CYCLONEDX_VERSIONS = ["1.4", "1.5", "1.6"];

/** Component properties naming the manifest or lockfile a component was found in. */
const LOCATION_PROPERTIES = ["syft:location:0:path", "SrcFile"];

function checkVersion(version: string | null): string {
  if (version === null) throw new SbomFormatError("the CycloneDX SBOM states no specVersion");
  if (!CYCLONEDX_VERSIONS.includes(version)) {
    throw new SbomFormatError(
      `CycloneDX ${version} is not supported: upload CycloneDX ${CYCLONEDX_VERSIONS.join(", ")} (most tools take a --spec-version option)`,
    );
  }
  return version;
}

// --- JSON --------------------------------------------------------------------------------------

function licensesOfJson(value: unknown): string | null {
  if (!Array.isArray(value)) return null;
  const parts: string[] = [];
  for (const entry of value) {
    const item = objectOf(entry);
    const expression = stringOf(item?.expression);
    if (expression !== null) {
      parts.push(expression);
      continue;
    }
    const license = objectOf(item?.license);
    const id = stringOf(license?.id);
    const name = stringOf(license?.name);
    if (id !== null) parts.push(id);
    else if (name !== null) parts.push(licenseRefOf(name));
  }
  return joinLicenses(parts);
}

function locationOfJson(properties: unknown): string | null {
  if (!Array.isArray(properties)) return null;
  for (const entry of properties) {
    const property = objectOf(entry);
    const name = stringOf(property?.name);
    if (name !== null && LOCATION_PROPERTIES.includes(name)) return stringOf(property?.value);
  }
  return null;
}

function componentOfJson(value: unknown): RawComponent | null {
  const component = objectOf(value);
  if (!component) return null;
  return {
    ref: stringOf(component["bom-ref"]),
    name: stringOf(component.name) ?? "",
    version: stringOf(component.version),
    purl: stringOf(component.purl),
    license: licensesOfJson(component.licenses),
    location: locationOfJson(component.properties),
  };
}

function addJsonComponents(graph: SbomGraph, value: unknown): void {
  const component = objectOf(value);
  if (!component) throw new SbomFormatError("the CycloneDX SBOM has a component that is not an object");
  if (component.type !== "file") {
    const raw = componentOfJson(component);
    if (raw) graph.components.push(raw);
  }
  if (Array.isArray(component.components))
    for (const nested of component.components) addJsonComponents(graph, nested);
}

/** Reads a CycloneDX JSON SBOM. Throws {@link SbomFormatError}. */
export async function readCycloneDxJson(source: AsyncIterable<Uint8Array | string>): Promise<SbomDocument> {
  const graph = new SbomGraph();
  let bomFormat: unknown;
  let specVersion: string | null = null;
  await streamJson(
    "the CycloneDX SBOM",
    source,
    ["$.bomFormat", "$.specVersion", "$.metadata", "$.components.*", "$.dependencies.*"],
    ({ value, key, stack }: ParsedElementInfo) => {
      if (stack.length === 1) {
        if (key === "bomFormat") bomFormat = value;
        else if (key === "specVersion") specVersion = checkVersion(stringOf(value));
        else if (key === "metadata") {
          const root = componentOfJson(objectOf(value)?.component);
          if (root) {
            graph.root = { name: root.name || null, version: root.version, purl: root.purl };
            if (root.ref !== null) graph.addRoot(root.ref);
          }
        }
        return;
      }
      const list = stack[1]?.key;
      if (list === "components") addJsonComponents(graph, value);
      else if (list === "dependencies") {
        const dependency = objectOf(value);
        const ref = stringOf(dependency?.ref);
        if (ref === null) throw new SbomFormatError("the CycloneDX SBOM has a dependency without ref");
        const on = dependency?.dependsOn;
        if (Array.isArray(on)) for (const to of on) if (typeof to === "string") graph.addEdge(ref, to);
      }
    },
  );
  if (bomFormat !== "CycloneDX") {
    throw new SbomFormatError(
      bomFormat === undefined
        ? 'the CycloneDX SBOM has no bomFormat (expected "CycloneDX")'
        : `the CycloneDX SBOM's bomFormat is not "CycloneDX"`,
    );
  }
  return graph.build("cyclonedx", checkVersion(specVersion), "JSON");
}

// --- XML ---------------------------------------------------------------------------------------

const NAMESPACE = /^http:\/\/cyclonedx\.org\/schema\/bom\/(\d+\.\d+)$/;

interface OpenComponent {
  raw: RawComponent;
  isFile: boolean;
  isRoot: boolean;
  licenses: string[];
  licenseName: string | null;
  propertyName: string | null;
}

/** Reads a CycloneDX XML SBOM (its version from the namespace). Throws {@link SbomFormatError}. */
export async function readCycloneDxXml(source: AsyncIterable<Uint8Array | string>): Promise<SbomDocument> {
  const graph = new SbomGraph();
  const parser = new SaxesParser({ position: true, xmlns: false });
  const names: string[] = [];
  const components: OpenComponent[] = [];
  const dependencyRefs: string[] = [];
  let text = "";
  let version: string | null = null;
  let sawRoot = false;

  parser.on("opentag", (tag: SaxesTagPlain) => {
    const name = localName(tag.name);
    const parent = names.at(-1);
    names.push(name);
    text = "";
    if (names.length === 1) {
      if (name !== "bom")
        throw new SbomFormatError(`the CycloneDX SBOM's root element is <${tag.name}>, expected <bom>`);
      sawRoot = true;
      const namespace = String(tag.attributes.xmlns ?? "");
      const found = NAMESPACE.exec(namespace);
      if (!found)
        throw new SbomFormatError(`the CycloneDX SBOM's namespace "${namespace}" is not CycloneDX's`);
      version = checkVersion(found[1]!);
      return;
    }
    const grandparent = names.at(-3);
    const listed = parent === "components" && (grandparent === "bom" || grandparent === "component");
    if (name === "component" && (listed || parent === "metadata")) {
      components.push({
        raw: {
          ref: attribute(tag, "bom-ref"),
          name: "",
          version: null,
          purl: null,
          license: null,
          location: null,
        },
        isFile: attribute(tag, "type") === "file",
        isRoot: parent === "metadata",
        licenses: [],
        licenseName: null,
        propertyName: null,
      });
    } else if (name === "property") {
      const open = components.at(-1);
      if (open) open.propertyName = attribute(tag, "name");
    } else if (name === "dependency") {
      const ref = attribute(tag, "ref");
      if (ref === null)
        throw new SbomFormatError(`the CycloneDX SBOM has a dependency without ref (line ${parser.line})`);
      const from = dependencyRefs.at(-1);
      if (from !== undefined && parent === "dependency") graph.addEdge(from, ref);
      dependencyRefs.push(ref);
    }
  });
  parser.on("text", (value) => {
    text += value;
  });
  parser.on("closetag", (tag: SaxesTagPlain) => {
    const name = localName(tag.name);
    names.pop();
    const parent = names.at(-1);
    const open = components.at(-1);
    const value = text.trim();
    text = "";
    if (name === "dependency") {
      dependencyRefs.pop();
      return;
    }
    const grandparent = names.at(-2);
    const listed = parent === "components" && (grandparent === "bom" || grandparent === "component");
    if (name === "component" && open && (listed || parent === "metadata")) {
      components.pop();
      open.raw.license = joinLicenses(open.licenses);
      if (open.isRoot) {
        graph.root = { name: open.raw.name || null, version: open.raw.version, purl: open.raw.purl };
        if (open.raw.ref !== null) graph.addRoot(open.raw.ref);
      } else if (!open.isFile) graph.components.push(open.raw);
      return;
    }
    if (!open) return;
    if (parent === "component") {
      if (name === "name") open.raw.name = value;
      else if (name === "version") open.raw.version = value || null;
      else if (name === "purl") open.raw.purl = value || null;
    } else if (parent === "licenses" && name === "expression" && value !== "") open.licenses.push(value);
    else if (parent === "license") {
      if (name === "id" && value !== "") open.licenses.push(value);
      else if (name === "name" && value !== "") open.licenseName = value;
    } else if (name === "license") {
      if (open.licenseName !== null && !open.licenses.length)
        open.licenses.push(licenseRefOf(open.licenseName));
      open.licenseName = null;
    } else if (name === "property" && open.propertyName !== null) {
      if (LOCATION_PROPERTIES.includes(open.propertyName) && value !== "") open.raw.location ??= value;
      open.propertyName = null;
    }
  });

  const decoder = new TextDecoder("utf-8", { fatal: false });
  try {
    for await (const chunk of source) {
      parser.write(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
    }
    const rest = decoder.decode();
    if (rest !== "") parser.write(rest);
    if (names.length > 0 || !sawRoot) {
      throw new SbomFormatError(
        `the CycloneDX SBOM ends at line ${parser.line} before <${names[0] ?? "bom"}> is closed (is the file cut short?)`,
      );
    }
    parser.close();
  } catch (error) {
    if (error instanceof SbomFormatError) throw error;
    const message = error instanceof Error ? error.message.replace(/^[^:]*:\d+:\d+: /, "") : String(error);
    throw new SbomFormatError(`the CycloneDX SBOM is not well-formed XML at line ${parser.line}: ${message}`);
  }
  return graph.build("cyclonedx", checkVersion(version), "XML");
}

function localName(name: string): string {
  const colon = name.indexOf(":");
  return colon === -1 ? name : name.slice(colon + 1);
}

function attribute(tag: SaxesTagPlain, name: string): string | null {
  const value = tag.attributes[name];
  return typeof value === "string" && value.trim() !== "" ? value : null;
}
