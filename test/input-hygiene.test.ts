import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  buildClientSchema,
  type GraphQLInputType,
  type GraphQLSchema,
  getIntrospectionQuery,
  getNamedType,
  type IntrospectionQuery,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isScalarType,
} from "graphql";
import { dsnToken } from "../src/modules/repositories/dsn.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { startInstance, type TestInstance } from "./helpers/instance.ts";
import { gql } from "./helpers/server.ts";

/**
 * Values a caller sends are checked before anything runs (src/graphql/variables.ts): text
 * PostgreSQL cannot store is refused as BAD_USER_INPUT, and variables that do not coerce are
 * refused without repeating what was sent (tokens, reports).
 */

const BAD_TEXTS = { nul: "a\u0000b", surrogate: "a\ud800b" };

/** Values of `type` that carry `bad` in one String or ID slot each (lists and input objects too). */
function valuesCarrying(type: GraphQLInputType, bad: string, depth = 0): unknown[] {
  if (isNonNullType(type)) return valuesCarrying(type.ofType, bad, depth);
  if (isListType(type)) return valuesCarrying(type.ofType, bad, depth).map((value) => [value]);
  if (isScalarType(type)) return type.name === "String" || type.name === "ID" ? [bad] : [];
  if (!isInputObjectType(type) || depth > 3) return [];
  const values: unknown[] = [];
  for (const field of Object.values(type.getFields())) {
    for (const value of valuesCarrying(field.type, bad, depth + 1)) values.push({ [field.name]: value });
  }
  return values;
}

/** One request per String/ID slot of every argument of every root field of `schema`. */
function* fuzzRequests(schema: GraphQLSchema, bad: string) {
  for (const [keyword, root] of [
    ["query", schema.getQueryType()],
    ["mutation", schema.getMutationType()],
  ] as const) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      const named = getNamedType(field.type);
      const selection = isLeafType(named) ? "" : " { __typename }";
      for (const arg of field.args) {
        for (const value of valuesCarrying(arg.type, bad)) {
          // Other required arguments are declared too, so the document validates.
          const others = field.args.filter((other) => other !== arg && isNonNullType(other.type));
          const definitions = [`$v: ${arg.type}`, ...others.map((o, i) => `$o${i}: ${o.type}`)];
          const passed = [`${arg.name}: $v`, ...others.map((o, i) => `${o.name}: $o${i}`)];
          yield {
            what: `${field.name}(${arg.name}: ${JSON.stringify(value)})`,
            query: `${keyword}(${definitions.join(", ")}) { ${field.name}(${passed.join(", ")})${selection} }`,
            variables: { v: value },
          };
        }
      }
    }
  }
}

describe("input hygiene", () => {
  let server: TestInstance;
  let token: string;
  let dsn: string;

  before(async () => {
    server = await startInstance({
      env: { LOG_LEVEL: "trace", RATE_LIMIT_PER_HOUR: "0", ASSAY_WORKER: "false" },
    });
    const user = await aUser(server.db);
    const team = await anAccount(server.db, {}, [{ user, role: "ADMIN" }]);
    const repo = await aRepository(server.db, team, { name: "hygiene" });
    token = await aToken(server.db, server.config.tokenPepper, user);
    dsn = dsnToken(repo, server.config.tokenPepper);
  });
  after(() => server.stop());

  const endpoints = [
    { name: "the API", url: () => server.endpoint, credential: () => token, least: 50 },
    // The CLI's endpoint takes no token (its mutation carries the DSN) and has one mutation.
    { name: "the CLI endpoint", url: () => `${server.url}/graphql/cli/`, credential: () => null, least: 3 },
  ];
  for (const [kind, bad] of Object.entries(BAD_TEXTS))
    for (const endpoint of endpoints)
      test(`a ${kind} in any String or ID argument of ${endpoint.name}'s schema is refused as BAD_USER_INPUT`, async () => {
        const [url, credential] = [endpoint.url(), endpoint.credential()];
        const introspection = await gql<IntrospectionQuery>(url, credential, getIntrospectionQuery());
        assert.ok(introspection.body.data, JSON.stringify(introspection.body.errors));
        const schema = buildClientSchema(introspection.body.data);
        let sent = 0;
        for (const request of fuzzRequests(schema, bad)) {
          const res = await gql(url, credential, request.query, request.variables);
          sent += 1;
          assert.equal(res.status, 200, request.what);
          const errors = res.body.errors ?? [];
          assert.ok(errors.length > 0, `${request.what} was accepted: ${JSON.stringify(res.body)}`);
          for (const error of errors) {
            assert.equal(
              error.extensions?.code,
              "BAD_USER_INPUT",
              `${request.what}: ${JSON.stringify(error)}`,
            );
          }
          assert.ok(
            errors.some((e) =>
              /^Variable "\$v" at "v[^"]*" contains a NUL character or an unpaired/.test(e.message),
            ),
            `${request.what}: ${JSON.stringify(errors)}`,
          );
        }
        assert.ok(sent >= endpoint.least, `only ${sent} string arguments were found`);
        const logged = server.log.entries().filter((entry) => Number(entry.level) >= 40);
        assert.deepEqual(logged, [], "nothing was logged as a warning or an error");
      });

  test("a NUL in a string literal is refused as BAD_USER_INPUT naming the argument", async () => {
    const res = await gql(server.endpoint, token, '{ analyzer(shortcode: "a\\u0000b") { id } }');
    assert.equal(res.body.errors?.[0]?.extensions?.code, "BAD_USER_INPUT", JSON.stringify(res.body));
    assert.match(res.body.errors?.[0]?.message ?? "", /^Argument "shortcode" contains a NUL/);
  });

  test("ordinary text, including paired surrogates, still passes", async () => {
    const res = await gql(server.endpoint, token, "query($s: String!) { analyzer(shortcode: $s) { id } }", {
      s: "emoji-\ud83d\ude00",
    });
    // It reaches the resolver, which looks it up and finds no such analyzer.
    assert.equal(res.body.errors?.[0]?.extensions?.code, "NOT_FOUND", JSON.stringify(res.body));
  });

  describe("variables that do not coerce are refused without the value sent", () => {
    const report = JSON.stringify({ version: "2.1.0", runs: [{ marker: "report-body-7d1e2f" }] });
    const cliMutation =
      "mutation($input: CreateArtifactInput!) { createArtifact(input: $input) { ok error } }";
    const uploadMutation =
      "mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok error } }";

    /** Asserts `answer` refuses as BAD_USER_INPUT and neither it nor the log holds a secret. */
    function assertNothingEchoed(answer: unknown, secrets: string[], reason: RegExp): void {
      const text = JSON.stringify(answer);
      assert.match(text, /BAD_USER_INPUT/);
      assert.match(text, reason);
      for (const secret of [...secrets, "report-body-7d1e2f"]) {
        assert.ok(!text.includes(secret), `the answer holds ${secret}: ${text}`);
        assert.ok(!server.log.text.includes(secret), "the log holds a secret");
      }
    }

    test("createArtifact at /graphql/cli/ with a field missing or of the wrong type", async () => {
      const base = { accessToken: dsn, commitOid: "a".repeat(40), reporter: "cli", data: report };
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ ...base }, /Variable \\"\$input\\" got invalid value; Field \\"analyzer\\" of required type/],
        [
          { ...base, analyzer: "javascript", reporterVersion: 7 },
          /got invalid value at \\"input.reporterVersion\\"; String cannot represent a non string value\./,
        ],
        [{ ...base, analyzer: { token: dsn } }, /got invalid value at \\"input.analyzer\\"/],
      ];
      for (const [input, reason] of cases) {
        const response = await fetch(`${server.url}/graphql/cli/`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: cliMutation, variables: { input } }),
        });
        assertNothingEchoed(await response.json(), [dsn], reason);
      }
    });

    test("uploadArtifact on the main endpoint with a field missing or of the wrong type", async () => {
      const missing = await gql(server.endpoint, token, uploadMutation, {
        input: { commitOid: "b".repeat(40), data: report, secretNote: token },
      });
      assertNothingEchoed(missing.body, [token], /Variable \\"\$input\\" got invalid value; /);
      const wrong = await gql(server.endpoint, token, uploadMutation, {
        input: { commitOid: { token }, data: report },
      });
      assertNothingEchoed(wrong.body, [token], /got invalid value at \\"input.commitOid\\"/);
    });
  });
});
