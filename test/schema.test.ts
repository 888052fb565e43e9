import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import {
  type GraphQLField,
  type GraphQLNamedType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
} from "graphql";
import {
  assessCompatibility,
  findCompatProblems,
  readContractSchema,
  readFencedList,
} from "../src/graphql/compat.ts";
import { buildAssaySchema, printAssaySchema } from "../src/schema.ts";

const root = new URL("..", import.meta.url);
const schema = buildAssaySchema();
const contract = readContractSchema(fileURLToPath(new URL("test/fixtures/contract/", root)));
const compatibilityDoc = fs.readFileSync(new URL("docs/compatibility.md", root), "utf8");

/** `name(arg: Type, ...): Type`, arguments in declaration order. */
function signature(field: GraphQLField<unknown, unknown>): string {
  const args = field.args.map((arg) => `${arg.name}: ${arg.type}`).join(", ");
  return `${field.name}${args ? `(${args})` : ""}: ${field.type}`;
}

/** The types we define: everything but graphql's built-in scalars and introspection types. */
function ourTypes(): GraphQLNamedType[] {
  return Object.values(schema.getTypeMap()).filter(
    (type) => !isIntrospectionType(type) && !isSpecifiedScalarType(type),
  );
}

describe("schema artifact and contract", () => {
  test("schema.graphql in the repository is the schema the code builds", () => {
    const committed = fs.readFileSync(new URL("schema.graphql", root), "utf8");
    assert.ok(
      committed === printAssaySchema(),
      "schema.graphql differs from the schema the code builds; run `npm run schema:print` and review the diff",
    );
  });

  test("the contract check finds no problem outside the pending and deviation lists", () => {
    const assessment = assessCompatibility(schema, contract, {
      pending: readFencedList(compatibilityDoc, "compat-pending"),
      deviations: readFencedList(compatibilityDoc, "compat-deviations"),
    });
    assert.deepEqual(assessment.problems, [], "run `npm run compat` for the full report");
    assert.deepEqual(
      assessment.staleEntries,
      [],
      "these entries of docs/compatibility.md match no problem any more; remove them",
    );
    // Nothing pending and no deviation: every contract path is covered.
    assert.equal(assessment.covered.length, assessment.total);
  });

  test("every contract field we implement has a compatible type, pending list or not", () => {
    const incompatible = findCompatProblems(schema, contract).filter((p) => p.problem !== "missing");
    assert.deepEqual(incompatible, []);
  });

  test("the root fields have the contract's signatures", () => {
    const query = schema.getQueryType();
    assert.ok(query);
    const fields = query.getFields();
    const expected = [
      "viewer: User",
      "installation: Installation",
      "account(login: String!, vcsProvider: VCSProvider!): Account",
      "repository(name: String!, login: String!, vcsProvider: VCSProvider!): Repository",
      "run(runUid: UUID, commitOid: String): AnalysisRun!",
      "node(id: ID!): Node",
    ];
    for (const line of expected) {
      const name = line.split(/[(:]/)[0] ?? "";
      const field = fields[name];
      assert.ok(field, `Query.${name} exists`);
      assert.equal(signature(field), line);
    }
  });

  test("Repository.analysisRuns takes the 2026 branch filter, our commitOid filter and the contract's page arguments", () => {
    const repository = schema.getType("Repository");
    assert.ok(isObjectType(repository));
    const analysisRuns = repository.getFields().analysisRuns;
    assert.ok(analysisRuns);
    assert.deepEqual(analysisRuns.args.map((arg) => `${arg.name}: ${arg.type}`).sort(), [
      "after: String",
      "before: String",
      "branch: String",
      "commitOid: String",
      "first: Int",
      "last: Int",
      "offset: Int",
    ]);
  });

  // Enum values are the contract's words and not checked; each enum's description explains them.
  test("every type, field and argument we define has a description", () => {
    const undescribed: string[] = [];
    const check = (path: string, description: string | null | undefined) => {
      if (!description?.trim()) undescribed.push(path);
    };
    for (const type of ourTypes()) {
      check(type.name, type.description);
      if (isObjectType(type) || isInterfaceType(type)) {
        for (const field of Object.values(type.getFields())) {
          check(`${type.name}.${field.name}`, field.description);
          for (const arg of field.args) check(`${type.name}.${field.name}(${arg.name})`, arg.description);
        }
      } else if (isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          check(`${type.name}.${field.name}`, field.description);
        }
      }
    }
    assert.deepEqual(undescribed, []);
  });
});
