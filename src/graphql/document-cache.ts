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

/** Options of a {@link DocumentCache}. */
export interface DocumentCacheOptions {
  /** Query texts kept; the least recently used is dropped past this. Default 1,000. */
  maxEntries?: number;
  /** Compile operations with this graphql-jit (see {@link DocumentCache.compiled}); absent: do not compile. */
  jit?: GraphqlJit;
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
  readonly #jit: GraphqlJit | undefined;
  readonly #hideSuggestions: boolean;
  // A Map iterates in insertion order; re-inserting on each hit keeps the oldest entry first.
  readonly #entries = new Map<string, PreparedDocument>();
  readonly #compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();

  /** A cache for documents run against `schema`. */
  constructor(schema: GraphQLSchema, options: DocumentCacheOptions = {}) {
    this.#schema = schema;
    this.#maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_MAX_ENTRIES);
    this.#jit = options.jit;
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
   * returned without errors), compiled once. Undefined when jit is off or the operation does not
   * compile; the caller then runs graphql's `execute`, which reports any error in its own words.
   */
  compiled(document: DocumentNode, operationName?: string | null): CompiledQuery | undefined {
    const jit = this.#jit;
    if (!jit) return undefined;
    let byOperation = this.#compiled.get(document);
    if (!byOperation) {
      byOperation = new Map();
      this.#compiled.set(document, byOperation);
    }
    const key = operationName ?? ANONYMOUS;
    let compiled = byOperation.get(key);
    if (compiled === undefined) {
      compiled = this.#compile(jit, document, operationName ?? undefined);
      byOperation.set(key, compiled);
    }
    return compiled ?? undefined;
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
