/** Types of tree.mjs, which is plain JavaScript (it runs before anything can compile TypeScript). */
export declare const ROOT: string;
export declare const TREE_CACHE: string;
export declare const TREE_FORMAT: number;
export declare const MANIFEST: string;
export declare function hashSources(sources: readonly string[]): string;
export declare function compiledModule(source: string, cache?: string): string | undefined;
