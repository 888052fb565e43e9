import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { buildSchema, type GraphQLSchema } from "graphql";
import {
  assessCompatibility,
  buildContractSchema,
  findCompatProblems,
  isPathUnder,
  listContractPaths,
  readFencedList,
} from "./compat.ts";

const contract = buildSchema(`
  interface MaskPrimaryKeyNode { id: ID! }
  enum Color { RED GREEN }
  input PaintInput { color: Color! note: String }
  type Query {
    repo(name: String!, owner: String): Repo
    repos(first: Int, tags: [String!]): [Repo]
    node(id: ID!): MaskPrimaryKeyNode
  }
  type Repo implements MaskPrimaryKeyNode {
    id: ID!
    name: String
    size: Int!
    color: Color
    paint(input: PaintInput!): Boolean
  }
`);

/** The contract in our spelling (`Node`), with `edit` applied: "our" schema for one test. */
function oursWith(edit?: (sdl: string) => string): GraphQLSchema {
  const sdl = `
  interface Node { id: ID! }
  enum Color { RED GREEN }
  input PaintInput { color: Color! note: String }
  type Query {
    repo(name: String!, owner: String): Repo
    repos(first: Int, tags: [String!]): [Repo]
    node(id: ID!): Node
  }
  type Repo implements Node {
    id: ID!
    name: String
    size: Int!
    color: Color
    paint(input: PaintInput!): Boolean
  }`;
  if (!edit) return buildSchema(sdl);
  const edited = edit(sdl);
  assert.notEqual(edited, sdl, "the edit must change the schema");
  return buildSchema(edited);
}

describe("findCompatProblems", () => {
  it("finds nothing when our schema matches the contract with Node for MaskPrimaryKeyNode", () => {
    assert.deepEqual(findCompatProblems(oursWith(), contract), []);
  });

  it("reports a missing field by its path", () => {
    const ours = oursWith((sdl) => sdl.replace("size: Int!", ""));
    assert.deepEqual(findCompatProblems(ours, contract), [{ path: "Repo.size", problem: "missing" }]);
  });

  it("reports a missing type once, at the type", () => {
    const ours = oursWith((sdl) =>
      sdl
        .replace("color: Color\n", "")
        .replace("enum Color { RED GREEN }", "")
        .replace("input PaintInput { color: Color! note: String }", "")
        .replace("paint(input: PaintInput!): Boolean", ""),
    );
    assert.deepEqual(
      findCompatProblems(ours, contract).map((p) => p.path),
      ["Color", "PaintInput", "Repo.color", "Repo.paint"],
    );
  });

  it("reports an output that may be null where the contract promises a value", () => {
    const ours = oursWith((sdl) => sdl.replace("size: Int!", "size: Int"));
    const [problem, ...rest] = findCompatProblems(ours, contract);
    assert.equal(rest.length, 0);
    assert.equal(problem?.path, "Repo.size");
    assert.match(problem?.problem ?? "", /^incompatible: .*may be null/);
  });

  it("accepts an output that is stricter than the contract's, at any list level", () => {
    const ours = oursWith((sdl) =>
      sdl.replace("name: String\n", "name: String!\n").replace("): [Repo]", "): [Repo!]!"),
    );
    assert.deepEqual(findCompatProblems(ours, contract), []);
  });

  it("reports an output of another type", () => {
    const ours = oursWith((sdl) => sdl.replace("size: Int!", "size: String!"));
    assert.match(findCompatProblems(ours, contract)[0]?.problem ?? "", /different type/);
  });

  it("reports an argument required where the contract lets it be left out", () => {
    const ours = oursWith((sdl) => sdl.replace("owner: String)", "owner: String!)"));
    const problems = findCompatProblems(ours, contract);
    assert.equal(problems.length, 1);
    assert.equal(problems[0]?.path, "Query.repo(owner)");
    assert.match(problems[0]?.problem ?? "", /^incompatible: .*required where the contract allows/);
  });

  it("accepts an argument that is optional where the contract requires it", () => {
    const ours = oursWith((sdl) => sdl.replace("repo(name: String!", "repo(name: String"));
    assert.deepEqual(findCompatProblems(ours, contract), []);
  });

  it("reports a missing argument and one of another type", () => {
    const ours = oursWith((sdl) => sdl.replace("repos(first: Int, tags: [String!])", "repos(tags: [Int!])"));
    assert.deepEqual(
      findCompatProblems(ours, contract).map((p) => [p.path, p.problem.split(" ")[0]]),
      [
        ["Query.repos(first)", "missing"],
        ["Query.repos(tags)", "incompatible:"],
      ],
    );
  });

  it("reports a required argument the contract does not have, and accepts an optional one", () => {
    const required = oursWith((sdl) =>
      sdl.replace("repos(first: Int,", "repos(first: Int, branch: String!,"),
    );
    assert.deepEqual(
      findCompatProblems(required, contract).map((p) => p.path),
      ["Query.repos(branch)"],
    );
    const optional = oursWith((sdl) => sdl.replace("repos(first: Int,", "repos(first: Int, branch: String,"));
    assert.deepEqual(findCompatProblems(optional, contract), []);
  });

  it("reports a missing enum value", () => {
    const ours = oursWith((sdl) => sdl.replace("enum Color { RED GREEN }", "enum Color { RED BLUE }"));
    assert.deepEqual(findCompatProblems(ours, contract), [{ path: "Color.GREEN", problem: "missing" }]);
  });

  it("checks input fields like arguments", () => {
    const ours = oursWith((sdl) => sdl.replace("note: String }", "note: String! }"));
    assert.deepEqual(
      findCompatProblems(ours, contract).map((p) => p.path),
      ["PaintInput.note"],
    );
  });

  it("reports a type that no longer implements the node interface", () => {
    const ours = oursWith((sdl) => sdl.replace("type Repo implements Node", "type Repo"));
    assert.deepEqual(findCompatProblems(ours, contract), [
      { path: "Repo", problem: "incompatible: does not implement Node" },
    ]);
  });

  it("reports a type of another kind", () => {
    const ours = oursWith((sdl) => sdl.replace("enum Color { RED GREEN }", "scalar Color"));
    assert.deepEqual(findCompatProblems(ours, contract), [
      { path: "Color", problem: "incompatible: ours is a scalar, the contract's is an enum" },
    ]);
  });
});

describe("buildContractSchema", () => {
  it("merges a delta that extends the base schema", () => {
    const schema = buildContractSchema([
      "type Query { a: Int }",
      "extend type Query { b: String } type Extra { c: Int }",
    ]);
    assert.deepEqual(Object.keys(schema.getQueryType()?.getFields() ?? {}), ["a", "b"]);
    assert.ok(schema.getType("Extra"));
  });

  it("lists every contract path", () => {
    const paths = listContractPaths(contract);
    for (const path of ["Repo", "Repo.size", "Query.repo(owner)", "Color.GREEN", "PaintInput.note"]) {
      assert.ok(paths.includes(path), path);
    }
    assert.ok(!paths.includes("String"), "built-in scalars are not contract paths");
  });
});

describe("assessCompatibility", () => {
  it("sorts problems into pending, deviations and failures, and finds stale entries", () => {
    const ours = oursWith((sdl) =>
      sdl.replace("size: Int!", "").replace("owner: String)", "owner: String!)").replace(" GREEN }", " }"),
    );
    const result = assessCompatibility(ours, contract, {
      pending: ["Repo", "Query.nothing"],
      deviations: ["Query.repo(owner)"],
    });
    assert.deepEqual(result.pending, [{ path: "Repo.size", problem: "missing" }]);
    assert.deepEqual(
      result.deviations.map((p) => p.path),
      ["Query.repo(owner)"],
    );
    assert.deepEqual(result.problems, [{ path: "Color.GREEN", problem: "missing" }]);
    assert.deepEqual(result.staleEntries, ["Query.nothing"]);
    assert.deepEqual(result.pendingPaths, ["Repo.size"]);
    assert.equal(result.covered.length + 3, result.total);
  });

  it("counts the paths under a missing type as not covered", () => {
    const ours = oursWith((sdl) =>
      sdl
        .replace("paint(input: PaintInput!): Boolean", "")
        .replace("input PaintInput { color: Color! note: String }", ""),
    );
    const result = assessCompatibility(ours, contract, {
      pending: ["PaintInput", "Repo.paint"],
      deviations: [],
    });
    assert.deepEqual(result.problems, []);
    assert.deepEqual(result.pendingPaths.sort(), [
      "PaintInput",
      "PaintInput.color",
      "PaintInput.note",
      "Repo.paint",
      "Repo.paint(input)",
    ]);
  });
});

describe("path lists", () => {
  it("an entry covers its path, its fields and its arguments, nothing else", () => {
    assert.ok(isPathUnder("Repo", "Repo"));
    assert.ok(isPathUnder("Repo.size", "Repo"));
    assert.ok(isPathUnder("Query.repo(owner)", "Query.repo"));
    assert.ok(!isPathUnder("RepoEdge", "Repo"));
    assert.ok(!isPathUnder("Query.repos", "Query.repo"));
  });

  it("reads a tagged fenced block, skipping comments and blank lines", () => {
    const markdown = [
      "text",
      "```compat-pending",
      "# a comment",
      "Repo.size  # why",
      "",
      "Color",
      "```",
      "```compat-deviations",
      "```",
    ].join("\n");
    assert.deepEqual(readFencedList(markdown, "compat-pending"), ["Repo.size", "Color"]);
    assert.deepEqual(readFencedList(markdown, "compat-deviations"), []);
    assert.throws(() => readFencedList(markdown, "compat-other"), /no ```compat-other block/);
  });
});
