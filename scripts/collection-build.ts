/**
 * Builds the Postman collection (v2.1) and its two environments from the example operations in
 * docs/examples and the committed schema.graphql. Pure: it reads files and returns the documents;
 * scripts/collection.ts writes them, test/collection.test.ts compares them with the committed ones.
 * The output is deterministic (sorted, no timestamps, ids derived from names) so that comparison is
 * exact.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  buildSchema,
  type FieldNode,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isEnumType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type OperationDefinitionNode,
  parse,
  type SelectionSetNode,
  validate,
} from "graphql";

const ROOT = path.resolve(import.meta.dirname, "..");
const EXAMPLES = path.join(ROOT, "docs", "examples");

/** Where the generated files live, relative to the repository root. */
export const COLLECTION_DIR = path.join("docs", "collection");

/** The collection's file name, and the environments', in COLLECTION_DIR. */
export const COLLECTION_FILES = {
  collection: "assay.postman_collection.json",
  cloud: "assay-cloud.postman_environment.json",
  onPremise: "assay-on-premise.postman_environment.json",
} as const;

/**
 * Example variables the collection fills from the demo at run time instead of the file's value,
 * keyed by the operation's variable name, valued by the collection variable that holds it. The
 * first request of the collection sets them (see `lookupRequest`).
 */
const CHAINED_VARIABLES: Record<string, string> = { id: "repositoryId", runUid: "runUid" };

/** A JSON Schema, as far as the shape checks use it. */
type JsonSchema = Record<string, unknown>;

/** An id that stays the same for the same name, in the UUID layout Postman uses. */
export function stableId(name: string): string {
  const hex = createHash("sha256").update(`assay-collection:${name}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The JSON types a scalar answers with; an empty list means any JSON value. */
function scalarJsonTypes(name: string): string[] {
  switch (name) {
    case "Int":
      return ["integer"];
    case "Float":
      return ["number"];
    case "Boolean":
      return ["boolean"];
    case "JSON":
    case "GenericScalar":
      return [];
    default:
      return ["string"];
  }
}

/** Adds `null` to a schema's allowed types (GraphQL nullable positions). */
function allowNull(schema: JsonSchema): JsonSchema {
  const type = schema.type;
  if (type === undefined) return schema;
  return { ...schema, type: [...(Array.isArray(type) ? type : [type]), "null"] };
}

/** The schema of one selected field's value, from its output type and sub-selection. */
function valueSchema(
  schema: GraphQLSchema,
  type: GraphQLOutputType,
  selection?: SelectionSetNode,
): JsonSchema {
  const nullable = !isNonNullType(type);
  const inner = getNullableType(type);
  let result: JsonSchema;
  if (isListType(inner)) {
    result = { type: "array", items: valueSchema(schema, inner.ofType, selection) };
  } else if (isScalarType(inner) || isEnumType(inner)) {
    const types = isEnumType(inner) ? ["string"] : scalarJsonTypes(inner.name);
    if (types.length === 0) return {};
    result = { type: types.length === 1 ? types[0] : types };
  } else {
    if (!selection) throw new Error(`a selection of ${inner.name} has no sub-selection`);
    result = objectSchema(schema, inner, selection);
  }
  return nullable ? allowNull(result) : result;
}

/** The field nodes answered under one response key, with the type they are selected on. */
interface KeyedSelection {
  parentType: GraphQLNamedType;
  nodes: FieldNode[];
  /** Whether some node is selected on the parent type itself, unconditionally. */
  isAlwaysPresent: boolean;
}

/**
 * Groups a selection set's fields by response key, through inline fragments, as the spec's
 * CollectFields() does: a field in a fragment on a narrower type, or under `@skip` or `@include`,
 * may be absent from the answer.
 */
function collectFields(
  schema: GraphQLSchema,
  parentType: GraphQLNamedType,
  selectionSet: SelectionSetNode,
  isConditional: boolean,
  into: Map<string, KeyedSelection>,
): Map<string, KeyedSelection> {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FRAGMENT_SPREAD)
      throw new Error("named fragments are not supported in examples");
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const condition = selection.typeCondition
        ? schema.getType(selection.typeCondition.name.value)
        : undefined;
      const isNarrower = condition !== undefined && condition !== parentType;
      collectFields(
        schema,
        condition ?? parentType,
        selection.selectionSet,
        isConditional || isNarrower,
        into,
      );
      continue;
    }
    const key = selection.alias?.value ?? selection.name.value;
    const isDirected = (selection.directives ?? []).some((d) => ["include", "skip"].includes(d.name.value));
    const entry = into.get(key) ?? { parentType, nodes: [], isAlwaysPresent: false };
    entry.nodes.push(selection);
    entry.isAlwaysPresent ||= !isConditional && !isDirected;
    into.set(key, entry);
  }
  return into;
}

/**
 * The schema of an object selection: the keys that are always answered are required, the others
 * may be absent. Extra keys are refused, since a GraphQL answer holds exactly what was selected.
 */
function objectSchema(
  schema: GraphQLSchema,
  parent: GraphQLOutputType,
  selectionSet: SelectionSetNode,
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, entry] of collectFields(schema, getNamedType(parent), selectionSet, false, new Map())) {
    const [first] = entry.nodes;
    const name = first?.name.value ?? key;
    if (name === "__typename") properties[key] = { type: "string" };
    else {
      const { parentType } = entry;
      const fields = isObjectType(parentType) || isInterfaceType(parentType) ? parentType.getFields() : {};
      const field = fields[name];
      if (!field) throw new Error(`${parentType.name} has no field ${name}`);
      // Same-key fields merge (the spec's MergeSelectionSets()): their sub-selections are answered together.
      const selections = entry.nodes.flatMap((node) => node.selectionSet?.selections ?? []);
      const merged: SelectionSetNode | undefined =
        selections.length > 0 ? { kind: Kind.SELECTION_SET, selections } : undefined;
      properties[key] = valueSchema(schema, field.type, merged);
    }
    if (entry.isAlwaysPresent) required.push(key);
  }
  return { type: "object", required, properties, additionalProperties: false };
}

/**
 * The JSON Schema of an operation's `data`, derived from its selection set and the schema. Checks
 * every selected field's presence and JSON type, with `null` allowed exactly where the schema
 * allows it.
 */
export function dataSchema(schema: GraphQLSchema, operation: OperationDefinitionNode): JsonSchema {
  const root = schema.getRootType(operation.operation);
  if (!root) throw new Error(`the schema has no ${operation.operation} type`);
  return objectSchema(schema, root, operation.selectionSet);
}

/** The `# ` comment header of an example: what it shows, as Markdown. */
function headerOf(text: string): string {
  const lines: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("#")) break;
    lines.push(line.replace(/^# ?/, ""));
  }
  return lines.join(" ").trim();
}

/** JSON on as few lines as stays readable: a value whose JSON fits in 80 characters stays on one line. */
export function printCompact(value: unknown, indent = ""): string {
  const flat = JSON.stringify(value);
  if (flat.length + indent.length <= 80 || value === null || typeof value !== "object") return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    return `[\n${value.map((item) => `${inner}${printCompact(item, inner)}`).join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(value).map(
    ([key, item]) => `${inner}${JSON.stringify(key)}: ${printCompact(item, inner)}`,
  );
  return `{\n${entries.join(",\n")}\n${indent}}`;
}

/** The test script of a request: status 200, no `errors`, `data` of the selected shape. */
function testScript(shape: JsonSchema, extra: string[] = []): string[] {
  return [
    'pm.test("answers 200", () => pm.response.to.have.status(200));',
    "const body = pm.response.json();",
    'pm.test("has no errors", () => pm.expect(body).to.not.have.property("errors"));',
    "// The shape of `data`, derived from the operation's selection set and the schema.",
    ...`const shape = ${printCompact(shape)};`.split("\n"),
    'pm.test("data has the selected shape", () => pm.expect(body).to.have.property("data").that.has.jsonSchema(shape));',
    ...extra,
  ];
}

/** One request of the collection. */
function requestItem(name: string, description: string, query: string, variables: string, script: string[]) {
  return {
    id: stableId(`item:${name}`),
    name,
    event: [
      { listen: "test", script: { id: stableId(`script:${name}`), type: "text/javascript", exec: script } },
    ],
    request: {
      method: "POST",
      header: [{ key: "Content-Type", value: "application/json" }],
      body: { mode: "graphql", graphql: { query, variables } },
      url: "{{baseUrl}}{{graphqlPath}}",
      description,
    },
  };
}

/** The first request: looks up the demo repository and keeps its id and newest runUid. */
function lookupRequest(schema: GraphQLSchema) {
  const query = [
    "query DemoRepository($login: String!, $name: String!, $vcsProvider: VCSProvider!) {",
    "  repository(login: $login, name: $name, vcsProvider: $vcsProvider) {",
    "    id",
    "    analysisRuns(first: 1) {",
    "      edges {",
    "        node {",
    "          runUid",
    "        }",
    "      }",
    "    }",
    "  }",
    "}",
    "",
  ].join("\n");
  const operation = operationOf(schema, query, "demo-repository");
  const set = [
    "const repository = body.data.repository;",
    'pm.collectionVariables.set("repositoryId", repository.id);',
    'pm.collectionVariables.set("runUid", repository.analysisRuns.edges[0].node.runUid);',
  ];
  return requestItem(
    "demo-repository",
    "Looks up acme-labs/api-gateway and keeps its global id (`repositoryId`) and its newest run's " +
      "`runUid` in collection variables, for the requests that need them. Run it first.",
    query,
    JSON.stringify({ login: "acme-labs", name: "api-gateway", vcsProvider: "GITHUB" }, null, 2),
    testScript(dataSchema(schema, operation), set),
  );
}

/** The single operation of an example document, which must be valid against the schema. */
function operationOf(schema: GraphQLSchema, query: string, name: string): OperationDefinitionNode {
  const document = parse(query);
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`${name}: ${errors.map((error) => error.message).join("; ")}`);
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const [operation] = operations;
  if (operations.length !== 1 || !operation) throw new Error(`${name}: expected exactly one operation`);
  return operation;
}

/** An example's variables, with the chained ones replaced by `{{collectionVariable}}`. */
function exampleVariables(name: string, operation: OperationDefinitionNode): string {
  let variables: Record<string, unknown> = {};
  try {
    variables = JSON.parse(readFileSync(path.join(EXAMPLES, `${name}.variables.json`), "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  for (const definition of operation.variableDefinitions ?? []) {
    const variable = definition.variable.name.value;
    const chained = CHAINED_VARIABLES[variable];
    if (chained) variables[variable] = `{{${chained}}}`;
  }
  return Object.keys(variables).length === 0 ? "" : JSON.stringify(variables, null, 2);
}

/** The example requests, one per docs/examples/*.graphql, sorted by name. */
function exampleItems(schema: GraphQLSchema) {
  const names = readdirSync(EXAMPLES)
    .filter((file) => file.endsWith(".graphql"))
    .map((file) => file.slice(0, -".graphql".length))
    .sort();
  return names.map((name) => {
    const text = readFileSync(path.join(EXAMPLES, `${name}.graphql`), "utf8");
    const operation = operationOf(schema, text, name);
    if (operation.operation !== "query") {
      throw new Error(`${name}: only queries run against the demo; mutations need a folder of their own`);
    }
    const query = text.slice(operation.loc?.start ?? 0);
    return requestItem(
      name,
      `${headerOf(text)}\n\nFrom docs/examples/${name}.graphql.`,
      query,
      exampleVariables(name, operation),
      testScript(dataSchema(schema, operation)),
    );
  });
}

/** One environment: the server's address, the GraphQL path, and the token (secret, empty). */
function environment(name: string, graphqlPath: string) {
  return {
    id: stableId(`environment:${name}`),
    name,
    values: [
      { key: "baseUrl", value: "http://127.0.0.1:4000", type: "default", enabled: true },
      { key: "graphqlPath", value: graphqlPath, type: "default", enabled: true },
      { key: "token", value: "", type: "secret", enabled: true },
    ],
    _postman_variable_scope: "environment",
  };
}

/** The three generated files, by file name, each as the JSON text to commit. */
export function buildCollectionFiles(): Record<string, string> {
  const schema = buildSchema(readFileSync(path.join(ROOT, "schema.graphql"), "utf8"));
  const collection = {
    info: {
      _postman_id: stableId("collection"),
      name: "Assay GraphQL API",
      description:
        "The documented example operations of the Assay GraphQL API (docs/examples), generated by " +
        "`npm run collection`. Pick the Assay cloud or Assay on-premise environment and set its " +
        "`token`. Every request checks that the answer is 200, has no `errors`, and that `data` " +
        "has the shape the query selects. The requests read the demo data (what `npm start` seeds on a new database); the " +
        "first one keeps the ids the others need.",
      schema: "https://schema.getpostman.com/json/collection/v2.1.0/collection.json",
    },
    item: [lookupRequest(schema), ...exampleItems(schema)],
    auth: { type: "bearer", bearer: [{ key: "token", value: "{{token}}", type: "string" }] },
    variable: [
      { key: "repositoryId", value: "", type: "string" },
      { key: "runUid", value: "", type: "string" },
    ],
  };
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  return {
    [COLLECTION_FILES.collection]: json(collection),
    [COLLECTION_FILES.cloud]: json(environment("Assay cloud", "/graphql/")),
    [COLLECTION_FILES.onPremise]: json(environment("Assay on-premise", "/api/graphql/")),
  };
}
