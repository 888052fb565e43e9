import {
  type ASTVisitor,
  coerceInputValue,
  type DocumentNode,
  type GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  isInputType,
  isNonNullType,
  Kind,
  print,
  typeFromAST,
  type ValidationContext,
  type ValidationRule,
} from "graphql";
import { AssayError, ErrorCode } from "./errors.ts";

/**
 * Request-level checks of what a caller sends as values, run once before execution in both
 * execution modes (graphql-js and graphql-jit):
 *
 * - Text PostgreSQL cannot store (a NUL character, a lone UTF-16 surrogate) is refused as
 *   BAD_USER_INPUT naming the argument or variable, rather than failing in a store.
 * - Variables are coerced here, with messages that never repeat the value sent: graphql-js words a
 *   failure as `Variable "$input" got invalid value { accessToken: "…", data: "…" }; …`, which
 *   would hand a DSN token and a whole report back to the caller (and to any log of errors).
 */

// A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when PostgreSQL cannot store `text` as sent (NUL, lone surrogate). */
export function isUnstorableText(text: string): boolean {
  return text.includes("\u0000") || LONE_SURROGATE.test(text);
}

/**
 * `text` with each character PostgreSQL cannot store (NUL, lone surrogate) replaced by U+FFFD,
 * for text Assay writes itself around what a user sent (a warning quoting a tool's message).
 */
export function replaceUnstorableText(text: string): string {
  return isUnstorableText(text)
    ? text.replace(new RegExp(`\u0000|${LONE_SURROGATE.source}`, "g"), "\ufffd")
    : text;
}

const UNSTORABLE_REASON = "contains a NUL character or an unpaired UTF-16 surrogate, which cannot be stored";

/** The dotted path of the first unstorable string inside `value`, or undefined. */
function findUnstorable(value: unknown, path: string): string | undefined {
  if (typeof value === "string") return isUnstorableText(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorable(value[i], `${path}.${i}`);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (isUnstorableText(key)) return `${path}.<key>`;
      const found = findUnstorable(item, `${path}.${key}`);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * A validation rule: a string literal anywhere in an argument that PostgreSQL could not store is
 * refused with BAD_USER_INPUT naming the argument.
 */
export const storableLiteralsRule: ValidationRule = (context: ValidationContext): ASTVisitor => ({
  Argument(node) {
    let unstorable = false;
    const visit = (value: typeof node.value): void => {
      if (value.kind === Kind.STRING) unstorable ||= isUnstorableText(value.value);
      else if (value.kind === Kind.LIST) value.values.forEach(visit);
      else if (value.kind === Kind.OBJECT) for (const field of value.fields) visit(field.value);
    };
    visit(node.value);
    if (unstorable) {
      context.reportError(
        new AssayError(`Argument "${node.name.value}" ${UNSTORABLE_REASON}.`, ErrorCode.BAD_USER_INPUT, {
          nodes: [node],
          extensions: { field: node.name.value },
        }),
      );
    }
    return false;
  },
});

// Scalar messages that end with the value they were given: graphql-js' built-ins
// ("String cannot represent a non string value: …") and ours (`…, got "…"`).
const ECHOED_VALUE = [
  /(cannot represent[^:]*?value): [\s\S]*$/,
  /, got [\s\S]*$/,
  /^Value [\s\S]* does not exist in /,
];
const ECHO_REPLACEMENTS = ["$1.", ".", "The value does not exist in "];

/** `reason` (an input coercion message) without the value it quotes. */
export function withoutEchoedValue(reason: string): string {
  let text = reason;
  ECHOED_VALUE.forEach((pattern, i) => {
    text = text.replace(pattern, ECHO_REPLACEMENTS[i] ?? "");
  });
  return text;
}

/**
 * A validation message about a literal without the literal: graphql-js words a literal of the wrong
 * type as `Expected value of type "Int", found "…"` or with the scalar's own words (`Int cannot
 * represent non-integer value: "…"`), which would repeat a token or a report written inline.
 */
export function withoutEchoedLiteral(message: string): string {
  return withoutEchoedValue(message.replace(/^(Expected value of type "[^"]*"), found [\s\S]*$/, "$1."));
}

/**
 * A syntax error without the token it quotes (`Unexpected Name "…"`, `Expected Name, found String
 * "…"`): the token may be a secret or part of a report; the location still says where it is.
 */
export function withoutEchoedToken(message: string): string {
  return message.replace(
    /\b(Unexpected|found) (Name|String|BlockString|Int|Float) "(?:[^"\\]|\\.)*"/g,
    "$1 $2",
  );
}

/**
 * A coercion message from an execution engine, cut before the value it quotes. {@link checkVariables}
 * runs first and refuses such variables in its own words; this keeps a message that gets past it
 * (an engine's coercion differing from graphql-js') from echoing what was sent.
 */
export function withoutEchoedVariable(message: string): string {
  const echo = /^(Variable "\$[^"]+" got invalid value) /.exec(message);
  return echo ? `${echo[1]}.` : message;
}

/**
 * Checks the variables of the operation `operationName` in `document` (a validated document)
 * before it runs: unstorable text first, then coercion to the declared types. Returns
 * BAD_USER_INPUT errors naming the variable (and the path inside it), none when all is well.
 */
export function checkVariables(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
): GraphQLError[] {
  const operation = getOperationAST(document, operationName);
  const inputs = variables ?? {};
  const errors: GraphQLError[] = [];
  for (const definition of operation?.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type);
    if (!type || !isInputType(type)) continue; // validation has refused it already
    const refuse = (message: string, field = name) =>
      errors.push(
        new AssayError(message, ErrorCode.BAD_USER_INPUT, { nodes: [definition], extensions: { field } }),
      );
    if (!Object.hasOwn(inputs, name)) {
      if (!definition.defaultValue && isNonNullType(type)) {
        refuse(`Variable "$${name}" of required type "${print(definition.type)}" was not provided.`);
      }
      continue;
    }
    const value = inputs[name];
    const unstorable = findUnstorable(value, name);
    if (unstorable) {
      refuse(`Variable "$${name}" at "${unstorable}" ${UNSTORABLE_REASON}.`, unstorable);
      continue;
    }
    if (value === null && isNonNullType(type)) {
      refuse(`Variable "$${name}" of non-null type "${print(definition.type)}" must not be null.`);
      continue;
    }
    coerceInputValue(value, type, (path, _invalid, error) => {
      const at = path.length > 0 ? ` at "${[name, ...path].join(".")}"` : "";
      refuse(`Variable "$${name}" got invalid value${at}; ${withoutEchoedValue(error.message)}`);
    });
  }
  return errors;
}
