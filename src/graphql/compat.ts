import fs from "node:fs";
import path from "node:path";
import {
  buildASTSchema,
  concatAST,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isListType,
  isNonNullType,
  isObjectType,
  isSpecifiedScalarType,
  isUnionType,
  parse,
} from "graphql";

/**
 * Checks our schema against the API contract (the DeepSource schema we are compatible with).
 *
 * A client written for the contract keeps working against us when every contract type, field,
 * argument and enum value exists here with a type it can live with: an output may be stricter
 * (non-null where the contract allows null) but never looser, and an argument may be optional
 * where the contract requires it but never required where the contract lets it be left out.
 * These are the "safe change" rules of schema evolution, seen from the client's side.
 *
 * Paths name what a problem is about: `Type`, `Type.field`, `Type.field(arg)`, `Enum.VALUE`,
 * `Input.field`.
 */

/** One way our schema fails a contract path. */
export interface CompatProblem {
  path: string;
  /** `missing`, or `incompatible: <why>`. */
  problem: string;
}

/** The contract's files, in the order they apply (the 2026 delta extends the 2025 schema). */
export const CONTRACT_FILES = ["deepsource-2025.graphql", "deepsource-2026-delta.graphql"] as const;

/**
 * Contract type names we answer under another name. Clients select through `... on Type`
 * fragments and never spell the node interface, so its name is free (see docs/compatibility.md).
 */
export const CONTRACT_TYPE_RENAMES: ReadonlyMap<string, string> = new Map([["MaskPrimaryKeyNode", "Node"]]);

/** Builds one schema from SDL sources that extend each other (`extend type` in later ones). */
export function buildContractSchema(sources: readonly string[]): GraphQLSchema {
  return buildASTSchema(concatAST(sources.map((source) => parse(source))));
}

/** Reads {@link CONTRACT_FILES} from `dir` and builds the combined contract schema. */
export function readContractSchema(dir: string): GraphQLSchema {
  return buildContractSchema(CONTRACT_FILES.map((file) => fs.readFileSync(path.join(dir, file), "utf8")));
}

/** The contract types we compare: everything but graphql's built-in scalars and introspection types. */
function contractTypes(contract: GraphQLSchema): GraphQLNamedType[] {
  return Object.values(contract.getTypeMap())
    .filter((type) => !isIntrospectionType(type) && !isSpecifiedScalarType(type))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Every path the contract defines: types, fields, arguments, enum values and input fields. */
export function listContractPaths(contract: GraphQLSchema): string[] {
  const paths: string[] = [];
  for (const type of contractTypes(contract)) {
    paths.push(type.name);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        paths.push(`${type.name}.${field.name}`);
        for (const arg of field.args) paths.push(`${type.name}.${field.name}(${arg.name})`);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) paths.push(`${type.name}.${field.name}`);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) paths.push(`${type.name}.${value.name}`);
    }
  }
  return paths;
}

/**
 * Compares `ours` with `contract` and lists every contract path we miss or answer incompatibly,
 * plus required arguments and input fields of ours that a contract client would not send. A
 * missing type is reported once, at the type; its fields are not listed again.
 */
export function findCompatProblems(
  ours: GraphQLSchema,
  contract: GraphQLSchema,
  renames: ReadonlyMap<string, string> = CONTRACT_TYPE_RENAMES,
): CompatProblem[] {
  const problems: CompatProblem[] = [];
  const report = (path: string, problem: string) => problems.push({ path, problem });
  const ourName = (contractName: string) => renames.get(contractName) ?? contractName;

  for (const expected of contractTypes(contract)) {
    const actual = ours.getType(ourName(expected.name));
    if (!actual) {
      report(expected.name, "missing");
      continue;
    }
    if (kindOf(actual) !== kindOf(expected)) {
      report(expected.name, `incompatible: ours is ${kindOf(actual)}, the contract's is ${kindOf(expected)}`);
      continue;
    }
    if (
      (isObjectType(expected) || isInterfaceType(expected)) &&
      (isObjectType(actual) || isInterfaceType(actual))
    ) {
      const implemented = new Set(actual.getInterfaces().map((i) => i.name));
      const lacking = expected.getInterfaces().filter((i) => !implemented.has(ourName(i.name)));
      if (lacking.length > 0) {
        const names = lacking.map((i) => ourName(i.name)).join(", ");
        report(expected.name, `incompatible: does not implement ${names}`);
      }
      compareFields(actual.getFields(), expected.getFields(), expected.name, ourName, report);
    } else if (isInputObjectType(expected) && isInputObjectType(actual)) {
      compareInputs(actual.getFields(), expected.getFields(), expected.name, "input field", ourName, report);
    } else if (isEnumType(expected) && isEnumType(actual)) {
      for (const value of expected.getValues()) {
        if (!actual.getValue(value.name)) report(`${expected.name}.${value.name}`, "missing");
      }
    } else if (isUnionType(expected) && isUnionType(actual)) {
      // A fragment on a member we lack fails validation; a member the contract lacks is a
      // __typename its clients cannot handle. Either way the sets must match.
      const mine = actual.getTypes().map((t) => t.name);
      const theirs = expected.getTypes().map((t) => ourName(t.name));
      if (mine.sort().join() !== theirs.sort().join()) {
        report(
          expected.name,
          `incompatible: members are ${mine.join(" | ")}, the contract's ${theirs.join(" | ")}`,
        );
      }
    }
  }
  return problems;
}

type Report = (path: string, problem: string) => void;
type Rename = (contractName: string) => string;

function kindOf(type: GraphQLNamedType): string {
  if (isObjectType(type)) return "an object type";
  if (isInterfaceType(type)) return "an interface";
  if (isUnionType(type)) return "a union";
  if (isEnumType(type)) return "an enum";
  if (isInputObjectType(type)) return "an input type";
  return "a scalar";
}

function compareFields(
  actual: Record<string, GraphQLField<unknown, unknown>>,
  expected: Record<string, GraphQLField<unknown, unknown>>,
  typeName: string,
  ourName: Rename,
  report: Report,
): void {
  for (const field of Object.values(expected)) {
    const path = `${typeName}.${field.name}`;
    const mine = actual[field.name];
    if (!mine) {
      report(path, "missing");
      continue;
    }
    const why = outputMismatch(mine.type, field.type, ourName);
    if (why) report(path, `incompatible: ours is ${mine.type}, the contract's is ${field.type} (${why})`);
    compareInputs(byName(mine.args), byName(field.args), path, "argument", ourName, report);
  }
}

function byName<T extends { name: string }>(items: readonly T[]): Record<string, T> {
  return Object.fromEntries(items.map((item) => [item.name, item]));
}

/** Arguments of one field, or fields of one input type: the client writes these. */
function compareInputs(
  actual: Record<string, GraphQLArgument | GraphQLInputField>,
  expected: Record<string, GraphQLArgument | GraphQLInputField>,
  owner: string,
  what: "argument" | "input field",
  ourName: Rename,
  report: Report,
): void {
  const pathOf = (name: string) => (what === "argument" ? `${owner}(${name})` : `${owner}.${name}`);
  for (const input of Object.values(expected)) {
    const mine = actual[input.name];
    if (!mine) {
      report(pathOf(input.name), "missing");
      continue;
    }
    const why = inputMismatch(mine.type, input.type, ourName);
    if (why)
      report(
        pathOf(input.name),
        `incompatible: ours is ${mine.type}, the contract's is ${input.type} (${why})`,
      );
  }
  for (const mine of Object.values(actual)) {
    if (!expected[mine.name] && isNonNullType(mine.type) && mine.defaultValue === undefined) {
      report(pathOf(mine.name), `incompatible: required ${what} that the contract does not have`);
    }
  }
}

/**
 * Why a client of `expected` cannot read `actual`, or undefined when it can. Non-null may be
 * added at any level (the client never sees the null it is ready for), never removed.
 */
function outputMismatch(
  actual: GraphQLOutputType,
  expected: GraphQLOutputType,
  ourName: Rename,
): string | undefined {
  if (isNonNullType(expected)) {
    if (!isNonNullType(actual)) return "may be null where the contract promises a value";
    return outputMismatch(actual.ofType, expected.ofType, ourName);
  }
  if (isNonNullType(actual)) return outputMismatch(actual.ofType, expected, ourName);
  if (isListType(expected) || isListType(actual)) {
    if (!isListType(expected) || !isListType(actual)) return "list and single value differ";
    return outputMismatch(actual.ofType, expected.ofType, ourName);
  }
  return actual.name === ourName(expected.name) ? undefined : "different type";
}

/**
 * Why a client of `expected` cannot send its value to `actual`, or undefined when it can. An
 * input may accept null where the contract requires a value, never the reverse.
 */
function inputMismatch(
  actual: GraphQLInputType,
  expected: GraphQLInputType,
  ourName: Rename,
): string | undefined {
  if (isNonNullType(actual)) {
    if (!isNonNullType(expected)) return "required where the contract allows leaving it out";
    return inputMismatch(actual.ofType, expected.ofType, ourName);
  }
  if (isNonNullType(expected)) return inputMismatch(actual, expected.ofType, ourName);
  if (isListType(expected) || isListType(actual)) {
    if (!isListType(expected) || !isListType(actual)) return "list and single value differ";
    return inputMismatch(actual.ofType, expected.ofType, ourName);
  }
  return actual.name === ourName(expected.name) ? undefined : "different type";
}

/** True when `entry` (a path from a list such as the pending one) covers `path`. */
export function isPathUnder(path: string, entry: string): boolean {
  return path === entry || path.startsWith(`${entry}.`) || path.startsWith(`${entry}(`);
}

/**
 * The entries of the fenced code block tagged `tag` in `markdown` (```` ```compat-pending ````):
 * one path per line, `#` starts a comment, blank lines are skipped. Throws when the block is absent,
 * so a renamed block cannot silently empty a list.
 */
export function readFencedList(markdown: string, tag: string): string[] {
  const block = new RegExp(`^\`\`\`${tag}[ \\t]*\\n([\\s\\S]*?)^\`\`\`[ \\t]*$`, "m").exec(markdown);
  if (!block) throw new Error(`no \`\`\`${tag} block found`);
  return (block[1] ?? "")
    .split("\n")
    .map((line) => line.replace(/#.*/, "").trim())
    .filter((line) => line.length > 0);
}

/** How our schema stands against the contract once the known lists are applied. */
export interface CompatAssessment {
  /** Contract paths that exist here with a compatible type. */
  covered: string[];
  /** Contract paths not covered yet that a pending entry names. */
  pendingPaths: string[];
  /** Problems the pending list names: work for the next issues. */
  pending: CompatProblem[];
  /** Problems the deviations list names: kept on purpose. */
  deviations: CompatProblem[];
  /** Problems neither list names: these fail the check. */
  problems: CompatProblem[];
  /** Entries of either list that name no problem: implemented or misspelt, to be removed. */
  staleEntries: string[];
  /** How many paths the contract defines. */
  total: number;
}

/**
 * Runs {@link findCompatProblems} and sorts its findings with the `pending` and `deviations`
 * lists (see docs/compatibility.md). A path's problem is its own, or a `missing` one of the type
 * or field it belongs to.
 */
export function assessCompatibility(
  ours: GraphQLSchema,
  contract: GraphQLSchema,
  lists: { pending: readonly string[]; deviations: readonly string[] },
): CompatAssessment {
  const found = findCompatProblems(ours, contract);
  const listed = (entries: readonly string[], path: string) => entries.some((e) => isPathUnder(path, e));
  const assessment: CompatAssessment = {
    covered: [],
    pendingPaths: [],
    pending: [],
    deviations: [],
    problems: [],
    staleEntries: [],
    total: 0,
  };
  for (const problem of found) {
    if (listed(lists.deviations, problem.path)) assessment.deviations.push(problem);
    else if (listed(lists.pending, problem.path)) assessment.pending.push(problem);
    else assessment.problems.push(problem);
  }
  const missing = found.filter((p) => p.problem === "missing").map((p) => p.path);
  const failing = new Set(found.map((p) => p.path));
  for (const path of listContractPaths(contract)) {
    assessment.total += 1;
    const uncovered = failing.has(path) || missing.some((m) => isPathUnder(path, m));
    if (!uncovered) assessment.covered.push(path);
    else if (listed(lists.pending, path)) assessment.pendingPaths.push(path);
  }
  for (const entry of [...lists.pending, ...lists.deviations]) {
    if (!found.some((p) => isPathUnder(p.path, entry))) assessment.staleEntries.push(entry);
  }
  return assessment;
}
