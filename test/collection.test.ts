// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { buildSchema, parse } from "graphql";
import {
  buildCollectionFiles,
  COLLECTION_DIR,
  COLLECTION_FILES,
  dataSchema,
  printCompact,
} from "../scripts/collection-build.ts";

/**
 * The committed Postman collection and environments are exactly what `npm run collection` makes
 * from docs/examples and schema.graphql, and each request carries its checks. The collection is run
 * against a live server by test/collection-newman.test.ts.
 */

const ROOT = path.resolve(import.meta.dirname, "..");

interface Item {
  name: string;
  event: Array<{ listen: string; script: { exec: string[] } }>;
  request: { url: string; body: { mode: string; graphql: { query: string; variables: string } } };
}

describe("Postman collection", () => {
  const files = buildCollectionFiles();

  test("the committed files are what npm run collection makes", () => {
    const committed = readdirSync(path.join(ROOT, COLLECTION_DIR)).sort();
    assert.deepEqual(
      committed,
      Object.keys(files).sort(),
      "docs/collection holds exactly the generated files",
    );
    for (const [file, text] of Object.entries(files)) {
      const onDisk = readFileSync(path.join(ROOT, COLLECTION_DIR, file), "utf8");
      assert.ok(onDisk === text, `${file} differs from the generator's output: run npm run collection`);
    }
  });

  test("the generator's output does not change between runs", () => {
    assert.deepEqual(buildCollectionFiles(), files);
  });

  test("every example is a GraphQL request to the environment's endpoint with the bearer token", () => {
    const collection = JSON.parse(files[COLLECTION_FILES.collection] ?? "");
    assert.equal(
      collection.info.schema,
      "https://schema.getpostman.com/json/collection/v2.1.0/collection.json",
    );
    assert.deepEqual(collection.auth, {
      type: "bearer",
      bearer: [{ key: "token", value: "{{token}}", type: "string" }],
    });
    const examples = readdirSync(path.join(ROOT, "docs", "examples"))
      .filter((file) => file.endsWith(".graphql"))
      .map((file) => file.slice(0, -".graphql".length))
      .sort();
    const items = collection.item as Item[];
    assert.deepEqual(
      items.map((item) => item.name),
      ["demo-repository", ...examples],
    );
    for (const item of items) {
      assert.equal(item.request.url, "{{baseUrl}}{{graphqlPath}}");
      assert.equal(item.request.body.mode, "graphql");
      const script = item.event.find((event) => event.listen === "test")?.script.exec.join("\n") ?? "";
      for (const check of ["to.have.status(200)", 'not.have.property("errors")', "has.jsonSchema(shape)"]) {
        assert.ok(script.includes(check), `${item.name} checks ${check}`);
      }
    }
    const runChecks = items.find((item) => item.name === "run-checks-and-issues");
    assert.equal(JSON.parse(runChecks?.request.body.graphql.variables ?? "{}").runUid, "{{runUid}}");
    const nodeLookup = items.find((item) => item.name === "node-lookup");
    assert.equal(JSON.parse(nodeLookup?.request.body.graphql.variables ?? "{}").id, "{{repositoryId}}");
  });

  test("the environments differ only in the GraphQL path, and leave the token empty and secret", () => {
    const values = (file: string) => JSON.parse(files[file] ?? "").values as Array<Record<string, unknown>>;
    const cloud = values(COLLECTION_FILES.cloud);
    const onPremise = values(COLLECTION_FILES.onPremise);
    assert.equal(cloud.find((v) => v.key === "graphqlPath")?.value, "/graphql/");
    assert.equal(onPremise.find((v) => v.key === "graphqlPath")?.value, "/api/graphql/");
    for (const env of [cloud, onPremise]) {
      assert.deepEqual(
        env.find((v) => v.key === "token"),
        { key: "token", value: "", type: "secret", enabled: true },
      );
      assert.ok(env.some((v) => v.key === "baseUrl"));
    }
  });
});

describe("the shape of data derived from a selection", () => {
  const schema = buildSchema(`
    interface Node { id: ID! }
    type Repo implements Node { id: ID! name: String! stars: Int tags: [String!]! }
    type Run implements Node { id: ID! uid: String }
    type Query { node(id: ID!): Node repos: [Repo]! viewer: Repo! }
  `);
  const shapeOf = (query: string) => {
    const [operation] = parse(query).definitions;
    assert.ok(operation?.kind === "OperationDefinition");
    return dataSchema(schema, operation);
  };

  test("null is allowed exactly where the schema allows it, and aliases name the keys", () => {
    assert.deepEqual(shapeOf("{ viewer { name count: stars tags } }"), {
      type: "object",
      required: ["viewer"],
      properties: {
        viewer: {
          type: "object",
          required: ["name", "count", "tags"],
          properties: {
            name: { type: "string" },
            count: { type: ["integer", "null"] },
            tags: { type: "array", items: { type: "string" } },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    });
  });

  test("fields of a fragment on one implementation may be absent; fields of the interface may not", () => {
    const node = shapeOf("{ node(id: 1) { id __typename ... on Repo { name } ... on Run { uid } } }")
      .properties as {
      node: { type: string[]; required: string[]; properties: Record<string, unknown> };
    };
    assert.deepEqual(node.node.type, ["object", "null"]);
    assert.deepEqual(node.node.required, ["id", "__typename"]);
    assert.deepEqual(Object.keys(node.node.properties), ["id", "__typename", "name", "uid"]);
  });

  test("fields under one key merge their sub-selections, and a conditional key becomes required when also unconditional", () => {
    const shape = shapeOf("{ node(id: 1) { ... on Repo { id } id } viewer { name } viewer { tags } }")
      .properties as Record<string, { required: string[]; properties: Record<string, unknown> }>;
    assert.deepEqual(shape.node?.required, ["id"]);
    assert.deepEqual(shape.viewer?.required, ["name", "tags"]);
    assert.deepEqual(Object.keys(shape.viewer?.properties ?? {}), ["name", "tags"]);
  });

  test("a field the schema does not have is an error naming it", () => {
    assert.throws(() => shapeOf("{ viewer { color } }"), /color/);
  });

  test("short values stay on one line and long ones break", () => {
    assert.equal(printCompact({ type: ["string", "null"] }), '{"type":["string","null"]}');
    const long = printCompact({ required: Array.from({ length: 12 }, (_, i) => `field${i}`) });
    assert.ok(long.split("\n").length > 3);
    assert.deepEqual(JSON.parse(long), { required: Array.from({ length: 12 }, (_, i) => `field${i}`) });
  });
});
