import { type DocumentNode, GraphQLError, type GraphQLSchema, specifiedRules, validate } from "graphql";
import type { CompiledQuery } from "graphql-jit";
import { AssayError, ErrorCode } from "./errors.ts";
import { limitValidationRules, parseWithLimits } from "./limits.ts";
import { storableLiteralsRule, withoutEchoedLiteral } from "./variables.ts";

/** A query text after parsing and validation; the document is there whenever parsing succeeded. */
export interface PreparedDocument {
  readonly document?: DocumentNode;
  /** Parse or validation errors; execute only when empty. */
  readonly errors: readonly GraphQLError[];
}

/** graphql-jit's module, as {@link loadGraphqlJit} answers it. */
export type GraphqlJit = typeof import("graphql-jit");

/**
 * Loads graphql-jit. Only a server that executes with it loads it (several MB resident, and
 * execution is graphql-js by default), so the import happens at start, not with this module.
 */
export function loadGraphqlJit(): Promise<GraphqlJit> {
  return import("graphql-jit");
}

/** How a {@link DocumentCache} compiles operations with graphql-jit. */
export interface JitOptions {
  /**
   * graphql-jit, or how to load it: then it is loaded when the first operation is due to be
   * compiled, and operations run with graphql-js until it is (a server that never compiles never
   * holds the module).
   */
  module: GraphqlJit | (() => Promise<GraphqlJit>);
  /**
   * Runs of an operation before it is compiled, each with graphql-js. Default 0: compiled at its
   * first run. A compilation costs several times a parse and validation, so compiling only what
   * repeats keeps one-off documents as cheap as without jit.
   */
  afterRuns?: number;
  /** Told when loading the module fails; operations then keep running with graphql-js. */
  onLoadError?: (error: unknown) => void;
}

/** Options of a {@link DocumentCache}. */
export interface DocumentCacheOptions {
  /** Query texts kept; the least recently used is dropped past this. Default 1,000. */
  maxEntries?: number;
  /** Compile operations with graphql-jit (see {@link DocumentCache.compiled}); absent: do not compile. */
  jit?: JitOptions;
  /** Drop graphql-js "Did you mean ...?" hints, which would disclose the schema. Default false. */
  hideSuggestions?: boolean;
}

const DEFAULT_MAX_ENTRIES = 1000;

const rules = [...specifiedRules, ...limitValidationRules, storableLiteralsRule];

// graphql-js appends every hint as a last sentence: ` Did you mean "a", "b", or "c"?`,
// ` Did you mean the enum value "X"?`, ` Did you mean to use an inline fragment on "T"?`.
const SUGGESTION = / Did you mean .*\?$/;

// Operation names cannot be empty, so "" stands for "the only operation".
const ANONYMOUS = "";

/**
 * Parses, validates and (optionally) compiles each distinct query text once. Clients send the same
 * few queries over and over, so this takes parsing, validation and compilation off the hot path.
 * Entries are bounded and dropped least recently used first; compiled queries live as long as their
 * document.
 */
export class DocumentCache {
  readonly #schema: GraphQLSchema;
  readonly #maxEntries: number;
  readonly #jit: JitOptions | undefined;
  readonly #afterRuns: number;
  /** graphql-jit once loaded; undefined while it loads, or when jit is off or failed to load. */
  #jitModule: GraphqlJit | undefined;
  /** Whether loading graphql-jit has started: it is loaded once, when a document first runs often enough. */
  #jitLoadStarted = false;
  readonly #hideSuggestions: boolean;
  // A Map iterates in insertion order; re-inserting on each hit keeps the oldest entry first.
  readonly #entries = new Map<string, PreparedDocument>();
  /** By document and operation: its compilation (null: it does not compile), or its runs so far. */
  readonly #compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null | number>>();

  /** A cache for documents run against `schema`. */
  constructor(schema: GraphQLSchema, options: DocumentCacheOptions = {}) {
    this.#schema = schema;
    this.#maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_MAX_ENTRIES);
    this.#jit = options.jit;
    this.#afterRuns = Math.max(0, options.jit?.afterRuns ?? 0);
    if (typeof options.jit?.module === "object") this.#jitModule = options.jit.module;
    this.#hideSuggestions = options.hideSuggestions ?? false;
  }

  /** Number of query texts cached. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Parses `query` with the token limit and validates it with graphql's rules and ours, or returns
   * the cached result of doing so (the same objects each time). Errors all carry an
   * `extensions.code`: `GRAPHQL_PARSE_FAILED`, `GRAPHQL_VALIDATION_FAILED` or a limit's code.
   */
  prepare(query: string): PreparedDocument {
    const cached = this.#entries.get(query);
    if (cached) {
      this.#entries.delete(query);
      this.#entries.set(query, cached);
      return cached;
    }
    const prepared = this.#prepareUncached(query);
    this.#entries.set(query, prepared);
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    return prepared;
  }

  /**
   * The graphql-jit compilation of `operationName` in `document` (a document {@link prepare}
   * returned without errors) for a run of it, compiled once, at the run after its first
   * `afterRuns` ({@link JitOptions}). Undefined when jit is off, for those first runs, while the
   * module loads, or when the operation does not compile; the caller then runs graphql's
   * `execute`, which reports any error in its own words.
   */
  compiled(document: DocumentNode, operationName?: string | null): CompiledQuery | undefined {
    if (!this.#jit) return undefined;
    let byOperation = this.#compiled.get(document);
    if (!byOperation) {
      byOperation = new Map();
      this.#compiled.set(document, byOperation);
    }
    const key = operationName ?? ANONYMOUS;
    const entry = byOperation.get(key);
    // Compiled already, or found not to compile (null).
    if (entry !== undefined && typeof entry !== "number") return entry ?? undefined;
    const runs = entry ?? 0;
    const jit = runs < this.#afterRuns ? undefined : this.#loadedJit();
    if (!jit) {
      byOperation.set(key, runs + 1);
      return undefined;
    }
    const compiled = this.#compile(jit, document, operationName ?? undefined);
    byOperation.set(key, compiled);
    return compiled ?? undefined;
  }

  /** graphql-jit when loaded; otherwise starts loading it (once) and answers undefined. */
  #loadedJit(): GraphqlJit | undefined {
    const load = this.#jit?.module;
    if (this.#jitModule || typeof load !== "function" || this.#jitLoadStarted) return this.#jitModule;
    this.#jitLoadStarted = true;
    load().then(
      (module) => {
        this.#jitModule = module;
      },
      (error: unknown) => this.#jit?.onLoadError?.(error),
    );
    return undefined;
  }

  #prepareUncached(query: string): PreparedDocument {
    let document: DocumentNode;
    try {
      document = parseWithLimits(query);
    } catch (error) {
      if (error instanceof GraphQLError) return { errors: [error] };
      throw error;
    }
    const errors = validate(this.#schema, document, rules).map((error) => this.#toValidationError(error));
    return { document, errors };
  }

  #toValidationError(error: GraphQLError): GraphQLError {
    // Our limit rules raise AssayErrors with their own code already.
    if (error.extensions.code !== undefined) return error;
    const shown = withoutEchoedLiteral(error.message);
    const message = this.#hideSuggestions ? shown.replace(SUGGESTION, "") : shown;
    return new AssayError(message, ErrorCode.GRAPHQL_VALIDATION_FAILED, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      extensions: error.extensions,
    });
  }

  #compile(jit: GraphqlJit, document: DocumentNode, operationName: string | undefined): CompiledQuery | null {
    try {
      const result = jit.compileQuery(this.#schema, document, operationName, { customJSONSerializer: false });
      return jit.isCompiledQuery(result) ? result : null;
    } catch {
      // graphql-jit throws on some shapes it does not support; graphql's execute still runs them.
      return null;
    }
  }
}
