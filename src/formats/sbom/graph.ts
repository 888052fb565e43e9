import type {
  RawComponent,
  SbomComponent,
  SbomDocument,
  SbomEncoding,
  SbomRoot,
  SbomStandard,
} from "./types.ts";

/**
 * Collects what a reader finds — components, the root's references, dependency edges — and places
 * each component in the graph once the document is read: direct when a root depends on it,
 * transitive otherwise. Memory grows with the components and edges kept, never with the text.
 */
export class SbomGraph {
  readonly components: RawComponent[] = [];
  /** `ref` → the refs it depends on. */
  private readonly edges = new Map<string, Set<string>>();
  private readonly rootRefs = new Set<string>();
  root: SbomRoot | null = null;

  /** Records that the component with `ref` is (one of) the document's subject(s). */
  addRoot(ref: string): void {
    this.rootRefs.add(ref);
  }

  /** Records that `from` depends on `to`. */
  addEdge(from: string, to: string): void {
    let targets = this.edges.get(from);
    if (targets === undefined) {
      targets = new Set();
      this.edges.set(from, targets);
    }
    targets.add(to);
  }

  /**
   * True when npm (`npm sbom`) or cyclonedx-npm wrote the document: both state where each package
   * npm fetched came from (a `distribution` reference, a `downloadLocation`) or its checksum, and
   * state neither for a workspace package or a `file:` link, which npm never fetched.
   */
  writtenByNpm = false;

  /**
   * The document, components placed. The root itself is left out of the components. The project's
   * own packages (see {@link SbomComponent.own}) stay among them, marked, and stand for the project
   * as roots do: what they depend on is direct.
   */
  build(standard: SbomStandard, specVersion: string, encoding: SbomEncoding): SbomDocument {
    const rootPurl = this.root?.purl ?? null;
    const isRoot = (component: RawComponent) =>
      (component.ref !== null && this.rootRefs.has(component.ref)) ||
      (rootPurl !== null && component.purl === rootPurl);
    // What npm leaves out tells only when the document states it for some package: a lockfile
    // written without registry URLs or hashes leaves every package without them.
    const judgeDownloads = this.writtenByNpm && this.components.some((c) => c.downloaded === true);
    const isOwn = (component: RawComponent) =>
      component.linked ||
      (judgeDownloads && component.downloaded === false && (component.purl ?? "").startsWith("pkg:npm/"));
    const sources = new Set(this.rootRefs);
    for (const component of this.components)
      if (component.ref !== null && !isRoot(component) && isOwn(component)) sources.add(component.ref);
    const direct = new Set<string>();
    let rootDependsOn = 0;
    for (const source of sources) {
      for (const ref of this.edges.get(source) ?? []) {
        direct.add(ref);
        if (this.rootRefs.has(source)) rootDependsOn += 1;
      }
    }
    const hasGraph = rootDependsOn > 0;
    const components: SbomComponent[] = [];
    for (const component of this.components) {
      if (isRoot(component)) continue;
      components.push({
        ...component,
        direct: !hasGraph || (component.ref !== null && direct.has(component.ref)),
        own: isOwn(component),
      });
    }
    return { standard, specVersion, encoding, root: this.root, components, hasGraph };
  }
}
