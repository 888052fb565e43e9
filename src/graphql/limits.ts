import {
  type ASTVisitor,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  getNullableType,
  getOperationAST,
  getVariableValues,
  isInterfaceType,
  isObjectType,
  isScalarType,
  Kind,
  type OperationDefinitionNode,
  parse,
  type SelectionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from "graphql";
import { AssayError, badUserInput, ErrorCode, limitExceeded } from "./errors.ts";
import { withoutEchoedToken } from "./variables.ts";

/**
 * Query limits checked before execution: depth, aliases, directives and tokens while the document
 * is parsed and validated (so the verdict is cached with the document), page sizes and the total
 * number of nodes once the request's variables are known.
 */

/** Deepest field nesting allowed; introspection (`__schema`, `__type`) does not count. */
export const MAX_DEPTH = 15;

/** Most aliased fields one operation may contain, counted once per use of a fragment. */
export const MAX_ALIASES = 15;

/** Most directives one operation may contain, counted once per use of a fragment. */
export const MAX_DIRECTIVES = 50;

/** Most lexical tokens a document may have; parsing stops at the first token past it. */
export const MAX_TOKENS = 2000;

/** Largest `first` or `last` a connection field accepts. */
export const MAX_PAGE_SIZE = 500;

/** Page size of a connection field given neither `first` nor `last`. */
export const DEFAULT_PAGE_SIZE = 100;

/** Most nodes one operation may request, summed over its connection fields (see {@link checkPageSizes}). */
export const MAX_NODES = 100_000;

// graphql 16.15 words it "more that"; accept the corrected spelling too so an upgrade keeps working.
const TOKEN_LIMIT_MESSAGE = /Document contains more tha[nt] \d+ tokens/;

/**
 * Parses `source` with the token limit. Throws an AssayError: `MAX_TOKENS_EXCEEDED` past
 * {@link MAX_TOKENS}, otherwise `GRAPHQL_PARSE_FAILED` with the syntax error's message (without the
 * token it quotes) and location.
 */
export function parseWithLimits(source: string): DocumentNode {
  try {
    return parse(source, { maxLexicalTokens: MAX_TOKENS });
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    const options = { source: error.source, positions: error.positions };
    if (TOKEN_LIMIT_MESSAGE.test(error.message)) {
      throw limitExceeded(
        "MAX_TOKENS_EXCEEDED",
        `Document has more than the limit of ${MAX_TOKENS} tokens.`,
        options,
      );
    }
    // Without the token it quotes, which may be a secret or part of a report written inline.
    throw new AssayError(withoutEchoedToken(error.message), ErrorCode.GRAPHQL_PARSE_FAILED, options);
  }
}

type Measured = OperationDefinitionNode | FragmentDefinitionNode | SelectionNode;

/** How one limit measures a document: what each node adds, and how sibling selections combine. */
interface Measure {
  /** What `node` adds on top of what lies under it; `undefined` leaves out the node and its subtree. */
  own(node: Measured): number | undefined;
  combine(a: number, b: number): number;
}

/**
 * Measures an operation with fragments expanded at every spread. A fragment's measure does not
 * depend on where it is spread, so it is computed once: documents that spread fragments inside
 * fragments cannot make this exponential. A spread of a fragment already being measured counts 0,
 * so cycles (which NoFragmentCycles reports) end here too.
 */
function createMeasurer(context: ValidationContext, measure: Measure): (node: Measured) => number {
  const fragments = new Map<string, number>();
  const inProgress = new Set<string>();

  const measureFragment = (name: string): number => {
    const known = fragments.get(name);
    if (known !== undefined) return known;
    const fragment = context.getFragment(name);
    if (!fragment || inProgress.has(name)) return 0;
    inProgress.add(name);
    const value = measureNode(fragment);
    inProgress.delete(name);
    fragments.set(name, value);
    return value;
  };

  const measureSelections = (selectionSet: SelectionSetNode): number =>
    selectionSet.selections.reduce((total, selection) => measure.combine(total, measureNode(selection)), 0);

  const measureNode = (node: Measured): number => {
    const own = measure.own(node);
    if (own === undefined) return 0;
    if (node.kind === Kind.FRAGMENT_SPREAD) return own + measureFragment(node.name.value);
    return own + (node.selectionSet ? measureSelections(node.selectionSet) : 0);
  };

  return measureNode;
}

function isIntrospectionRoot(node: Measured): boolean {
  return node.kind === Kind.FIELD && (node.name.value === "__schema" || node.name.value === "__type");
}

/** A validation rule that reports `code` for each operation whose measure is above `limit`. */
function limitRule(
  code: "MAX_DEPTH_EXCEEDED" | "MAX_ALIASES_EXCEEDED" | "MAX_DIRECTIVES_EXCEEDED",
  limit: number,
  measure: Measure,
  describe: (found: number) => string,
): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const measureNode = createMeasurer(context, measure);
    return {
      OperationDefinition(operation) {
        const found = measureNode(operation);
        if (found > limit) context.reportError(limitExceeded(code, describe(found), { nodes: operation }));
        return false;
      },
    };
  };
}

const sum = (a: number, b: number): number => a + b;

// The standard introspection query nests `ofType` far past MAX_DEPTH, and its shape is fixed by the
// spec, so introspection subtrees do not count toward depth.
const depthRule = limitRule(
  ErrorCode.MAX_DEPTH_EXCEEDED,
  MAX_DEPTH,
  {
    own: (node) => (node.kind !== Kind.FIELD ? 0 : isIntrospectionRoot(node) ? undefined : 1),
    combine: Math.max,
  },
  (found) => `Query depth limit of ${MAX_DEPTH} exceeded, found ${found}.`,
);

const aliasesRule = limitRule(
  ErrorCode.MAX_ALIASES_EXCEEDED,
  MAX_ALIASES,
  { own: (node) => (node.kind === Kind.FIELD && node.alias ? 1 : 0), combine: sum },
  (found) => `Aliases limit of ${MAX_ALIASES} exceeded, found ${found}.`,
);

const directivesRule = limitRule(
  ErrorCode.MAX_DIRECTIVES_EXCEEDED,
  MAX_DIRECTIVES,
  { own: (node) => node.directives?.length ?? 0, combine: sum },
  (found) => `Directives limit of ${MAX_DIRECTIVES} exceeded, found ${found}.`,
);

/**
 * Validation rules for depth ({@link MAX_DEPTH}), aliases ({@link MAX_ALIASES}) and directives
 * ({@link MAX_DIRECTIVES}), to run after graphql's `specifiedRules`. Each reports one error per
 * operation over its limit, located at the operation, with the limit and the number found.
 */
export const limitValidationRules: readonly ValidationRule[] = [depthRule, aliasesRule, directivesRule];

/** State of one {@link checkPageSizes} walk. */
interface PageSizeWalk {
  readonly schema: GraphQLSchema;
  readonly variables: Record<string, unknown>;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  /** Nodes requested by one use of each fragment measured so far. */
  readonly fragmentNodes: Map<string, number>;
  readonly inProgress: Set<string>;
  readonly errors: GraphQLError[];
}

/**
 * Checks the connection arguments of the operation `getOperationAST` picks, with the request's
 * variables. Every `first`/`last` must be 0..{@link MAX_PAGE_SIZE} (a negative one is
 * `BAD_USER_INPUT`, a larger one `MAX_PAGE_SIZE_EXCEEDED`), and the nodes requested must not pass
 * {@link MAX_NODES}: each connection field asks for its page size times the page sizes of the
 * connections above it, at each place it is used. A field is a connection when it takes an Int
 * `first` or `last`; without either it asks for {@link DEFAULT_PAGE_SIZE}, with both the smaller.
 * Run after validation; returns no errors when there is no single operation to pick or the
 * variables do not coerce, since execution reports those.
 */
export function checkPageSizes(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): GraphQLError[] {
  const operation = getOperationAST(document, operationName);
  const rootType = operation ? schema.getRootType(operation.operation) : undefined;
  if (!operation || !rootType) return [];
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  if (coerced.errors) return [];

  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const walk: PageSizeWalk = {
    schema,
    variables: coerced.coerced,
    fragments,
    fragmentNodes: new Map(),
    inProgress: new Set(),
    errors: [],
  };
  const total = nodesInSelections(walk, rootType, operation.selectionSet, "");
  if (total > MAX_NODES) {
    const message = `Query requests up to ${total} nodes, more than the limit of ${MAX_NODES}. Ask for smaller pages or fewer nested connections.`;
    walk.errors.push(limitExceeded("MAX_NODES_EXCEEDED", message, { nodes: operation }));
  }
  return walk.errors;
}

// Each function below returns the nodes one use of its selection asks for. That number scales
// linearly with the page sizes above it, so a fragment is walked once and its count reused at every
// spread; errors inside it name the path of its first use.

function nodesInSelections(
  walk: PageSizeWalk,
  parentType: GraphQLNamedType | undefined,
  selectionSet: SelectionSetNode,
  path: string,
): number {
  let total = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      total += nodesInField(walk, parentType, selection, path);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const condition = selection.typeCondition;
      const type = condition ? walk.schema.getType(condition.name.value) : parentType;
      total += nodesInSelections(walk, type ?? undefined, selection.selectionSet, path);
    } else {
      total += nodesInFragment(walk, selection.name.value, path);
    }
  }
  return total;
}

function nodesInFragment(walk: PageSizeWalk, name: string, path: string): number {
  const known = walk.fragmentNodes.get(name);
  if (known !== undefined) return known;
  const fragment = walk.fragments.get(name);
  if (!fragment || walk.inProgress.has(name)) return 0;
  walk.inProgress.add(name);
  const type = walk.schema.getType(fragment.typeCondition.name.value) ?? undefined;
  const nodes = nodesInSelections(walk, type, fragment.selectionSet, path);
  walk.inProgress.delete(name);
  walk.fragmentNodes.set(name, nodes);
  return nodes;
}

function nodesInField(
  walk: PageSizeWalk,
  parentType: GraphQLNamedType | undefined,
  node: FieldNode,
  parentPath: string,
): number {
  // Meta fields (`__typename`, `__schema`, `__type`) are not in getFields(), so they count nothing.
  const field =
    isObjectType(parentType) || isInterfaceType(parentType)
      ? parentType.getFields()[node.name.value]
      : undefined;
  if (!field) return 0;
  const key = node.alias?.value ?? node.name.value;
  const path = parentPath ? `${parentPath}.${key}` : key;
  const inner = node.selectionSet
    ? nodesInSelections(walk, getNamedType(field.type), node.selectionSet, path)
    : 0;
  const pageSize = connectionPageSize(walk, field, node, path);
  return pageSize === undefined ? inner : pageSize * (1 + inner);
}

function isPageSizeArgument(field: GraphQLField<unknown, unknown>, name: "first" | "last"): boolean {
  const argument = field.args.find((candidate) => candidate.name === name);
  if (!argument) return false;
  const type = getNullableType(argument.type);
  return isScalarType(type) && type.name === "Int";
}

/**
 * The page size `node` asks for, or `undefined` when `field` is not a connection. Out-of-range
 * values are reported and clamped so the node count reflects the request once they are fixed.
 */
function connectionPageSize(
  walk: PageSizeWalk,
  field: GraphQLField<unknown, unknown>,
  node: FieldNode,
  path: string,
): number | undefined {
  const names = (["first", "last"] as const).filter((name) => isPageSizeArgument(field, name));
  if (names.length === 0) return undefined;
  const values = readArguments(field, node, walk.variables);
  const sizes: number[] = [];
  for (const name of names) {
    const value = values[name];
    if (typeof value !== "number") continue;
    if (value < 0) {
      walk.errors.push(
        locate(
          badUserInput(`Argument "${name}" on "${path}" must not be negative, got ${value}.`, name),
          node,
        ),
      );
    } else if (value > MAX_PAGE_SIZE) {
      const message = `Argument "${name}" on "${path}" asks for ${value} items, more than the maximum page size of ${MAX_PAGE_SIZE}.`;
      walk.errors.push(limitExceeded("MAX_PAGE_SIZE_EXCEEDED", message, { nodes: node }));
    }
    sizes.push(Math.min(Math.max(value, 0), MAX_PAGE_SIZE));
  }
  return sizes.length > 0 ? Math.min(...sizes) : DEFAULT_PAGE_SIZE;
}

// badUserInput takes no location; keep its message and extensions and point at the field.
function locate(error: AssayError, node: FieldNode): AssayError {
  return new AssayError(error.message, error.extensions.code, { nodes: node, extensions: error.extensions });
}

function readArguments(
  field: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables: Record<string, unknown>,
): Record<string, unknown> {
  try {
    return getArgumentValues(field, node, variables);
  } catch {
    // An argument that does not coerce fails the field at execution, with graphql's own message.
    return {};
  }
}
