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

  /** The document, components placed. The root itself is left out of the components. */
  build(standard: SbomStandard, specVersion: string, encoding: SbomEncoding): SbomDocument {
    const direct = new Set<string>();
    for (const root of this.rootRefs) for (const ref of this.edges.get(root) ?? []) direct.add(ref);
    const hasGraph = direct.size > 0;
    const rootPurl = this.root?.purl ?? null;
    const components: SbomComponent[] = [];
    for (const component of this.components) {
      if (component.ref !== null && this.rootRefs.has(component.ref)) continue;
      if (rootPurl !== null && component.purl === rootPurl) continue;
      components.push({
        ...component,
        direct: !hasGraph || (component.ref !== null && direct.has(component.ref)),
      });
    }
    return { standard, specVersion, encoding, root: this.root, components, hasGraph };
  }
}
