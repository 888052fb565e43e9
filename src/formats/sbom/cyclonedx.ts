import type { ParsedElementInfo } from "@streamparser/json";
import { SaxesParser, type SaxesTagPlain } from "saxes";
import { SbomGraph } from "./graph.ts";
import { objectOf, streamJson, stringOf } from "./json-stream.ts";
import { joinLicenses, licenseRefOf } from "./license.ts";
import { type RawComponent, type SbomDocument, SbomFormatError } from "./types.ts";

/**
 * CycloneDX 1.4 to 1.6 (https://cyclonedx.org/specification/overview/), JSON and XML. Read:
 * `metadata.component` (the root) and the components nested in it (the further projects cdxgen
 * finds when it recurses: roots too), `metadata.tools` (whether npm or cyclonedx-npm wrote it),
 * `components` (nested ones too; `file` components are not packages and are passed over), each
 * one's `bom-ref`, name, version, `purl`, `licenses`, the location properties syft and cdxgen
 * write, cdxgen's link marks, whether a `distribution` reference or a hash says where it was
 * fetched from, and `dependencies` (the graph).
 */

export const CYCLONEDX_VERSIONS = ["1.4", "1.5", "1.6"];

/** Component properties naming the manifest or lockfile a component was found in. */
const LOCATION_PROPERTIES = ["syft:location:0:path", "SrcFile"];

/** cdxgen's marks of a package that is the project's own code (a `file:` link, a workspace). */
const LINK_PROPERTIES = ["cdx:npm:isLink", "cdx:npm:isWorkspace"];

/** npm's and cyclonedx-npm's mark of a package bundled inside another one (fetched with it). */
const BUNDLED_PROPERTY = "cdx:npm:package:bundled";

/** What a component's properties say, as the reader collects them. */
interface PropertyMarks {
  locations: string[];
  linked: boolean;
  bundled: boolean;
}

function noteProperty(marks: PropertyMarks, name: string, value: string): void {
  if (LOCATION_PROPERTIES.includes(name) && value.trim() !== "") {
    if (!marks.locations.includes(value)) marks.locations.push(value);
  } else if (LINK_PROPERTIES.includes(name) && value.trim() === "true") marks.linked = true;
  else if (name === BUNDLED_PROPERTY && value.trim() === "true") marks.bundled = true;
}

/**
 * True for the tools whose documents state where every fetched package came from: npm's own
 * `npm sbom` (1.5's tool `{vendor: "npm", name: "cli"}`) and cyclonedx-npm (`@cyclonedx/cyclonedx-npm`).
 */
function isNpmTool(vendor: string | null, group: string | null, name: string | null): boolean {
  return (
    (vendor === "npm" && name === "cli") ||
    (name === "cyclonedx-npm" && (group ?? "@cyclonedx") === "@cyclonedx")
  );
}

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

function marksOfJson(properties: unknown): PropertyMarks {
  const marks: PropertyMarks = { locations: [], linked: false, bundled: false };
  if (!Array.isArray(properties)) return marks;
  for (const entry of properties) {
    const property = objectOf(entry);
    const name = stringOf(property?.name);
    const value = stringOf(property?.value);
    if (name !== null && value !== null) noteProperty(marks, name, value);
  }
  return marks;
}

function componentOfJson(value: unknown): RawComponent | null {
  const component = objectOf(value);
  if (!component) return null;
  const marks = marksOfJson(component.properties);
  const hashes = Array.isArray(component.hashes) && component.hashes.length > 0;
  const distribution =
    Array.isArray(component.externalReferences) &&
    component.externalReferences.some((reference) => objectOf(reference)?.type === "distribution");
  return {
    ref: stringOf(component["bom-ref"]),
    name: stringOf(component.name) ?? "",
    version: stringOf(component.version),
    purl: stringOf(component.purl),
    license: licensesOfJson(component.licenses),
    locations: marks.locations,
    linked: marks.linked,
    downloaded: marks.bundled ? null : hashes || distribution,
  };
}

/** The root and the projects nested in it (cdxgen's further projects), each a root of the graph. */
function addJsonRoots(graph: SbomGraph, value: unknown, top: boolean): void {
  const component = objectOf(value);
  const root = componentOfJson(component);
  if (!component || !root) return;
  if (top) graph.root = { name: root.name || null, version: root.version, purl: root.purl };
  if (root.ref !== null) graph.addRoot(root.ref);
  if (Array.isArray(component.components))
    for (const nested of component.components) addJsonRoots(graph, nested, false);
}

/** Whether `metadata.tools` (1.4's list of tools, or 1.5's `components` and `services`) names npm's. */
function toolsAreNpm(value: unknown): boolean {
  const tools = Array.isArray(value)
    ? value
    : [objectOf(value)?.components, objectOf(value)?.services].flatMap((list) =>
        Array.isArray(list) ? list : [],
      );
  return tools.some((entry) => {
    const tool = objectOf(entry);
    return isNpmTool(stringOf(tool?.vendor), stringOf(tool?.group), stringOf(tool?.name));
  });
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
          const metadata = objectOf(value);
          addJsonRoots(graph, metadata?.component, true);
          graph.writtenByNpm = toolsAreNpm(metadata?.tools);
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
  /** The root (`metadata`'s component) or a project nested in it. */
  isRoot: boolean;
  isTopRoot: boolean;
  marks: PropertyMarks;
  hashes: boolean;
  distribution: boolean;
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
  /** A tool of `metadata.tools` being read: 1.4's `<tool>`, 1.5's `<component>` or `<service>`. */
  let tool: { vendor: string | null; group: string | null; name: string | null; depth: number } | null = null;

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
    const inTools =
      names.at(-4) === "metadata" &&
      names.at(-3) === "tools" &&
      (parent === "components" || parent === "services");
    if ((name === "tool" && parent === "tools" && grandparent === "metadata") || inTools) {
      tool = { vendor: null, group: null, name: null, depth: names.length };
      return;
    }
    if (name === "component" && (listed || parent === "metadata")) {
      const enclosing = components.at(-1);
      components.push({
        raw: {
          ref: attribute(tag, "bom-ref"),
          name: "",
          version: null,
          purl: null,
          license: null,
          locations: [],
          linked: false,
          downloaded: null,
        },
        isFile: attribute(tag, "type") === "file",
        isRoot: parent === "metadata" || (listed && enclosing?.isRoot === true),
        isTopRoot: parent === "metadata",
        marks: { locations: [], linked: false, bundled: false },
        hashes: false,
        distribution: false,
        licenses: [],
        licenseName: null,
        propertyName: null,
      });
    } else if (name === "property") {
      const open = components.at(-1);
      if (open) open.propertyName = attribute(tag, "name");
    } else if (name === "reference" && parent === "externalReferences" && grandparent === "component") {
      const open = components.at(-1);
      if (open && attribute(tag, "type") === "distribution") open.distribution = true;
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
    if (tool !== null) {
      if (names.length === tool.depth - 1) {
        if (isNpmTool(tool.vendor, tool.group, tool.name)) graph.writtenByNpm = true;
        tool = null;
      } else if (names.length === tool.depth) {
        if (name === "vendor") tool.vendor = value;
        else if (name === "group") tool.group = value;
        else if (name === "name") tool.name = value;
      }
      return;
    }
    const listed = parent === "components" && (grandparent === "bom" || grandparent === "component");
    if (name === "component" && open && (listed || parent === "metadata")) {
      components.pop();
      open.raw.license = joinLicenses(open.licenses);
      open.raw.locations = open.marks.locations;
      open.raw.linked = open.marks.linked;
      open.raw.downloaded = open.marks.bundled ? null : open.hashes || open.distribution;
      if (open.isRoot) {
        if (open.isTopRoot)
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
      noteProperty(open.marks, open.propertyName, value);
      open.propertyName = null;
    } else if (name === "hash" && parent === "hashes" && grandparent === "component") open.hashes = true;
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
