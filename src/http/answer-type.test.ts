import assert from "node:assert/strict";
import { test } from "node:test";
import { GraphQLObjectType, GraphQLSchema, GraphQLString } from "graphql";
import { createHandler } from "graphql-http";
import { ANSWER_TYPE_OF_ACCEPT } from "./graphql-endpoint.ts";

/**
 * The endpoint writes a successful answer itself for the Accept headers it knows
 * (ANSWER_TYPE_OF_ACCEPT); each must get the Content-Type graphql-http's own negotiation gives it.
 */
test("each Accept the endpoint answers itself gets the type graphql-http would give it", async () => {
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({
      name: "Query",
      fields: { ok: { type: GraphQLString, resolve: () => "yes" } },
    }),
  });
  const handler = createHandler({ schema });
  assert.ok(ANSWER_TYPE_OF_ACCEPT.size > 0);
  for (const [accept, contentType] of ANSWER_TYPE_OF_ACCEPT) {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (accept !== "") headers.accept = accept;
    const [body, init] = await handler({
      method: "POST",
      url: "/graphql",
      headers,
      body: JSON.stringify({ query: "{ ok }" }),
      raw: null,
      context: null,
    });
    assert.equal(init.status, 200, accept);
    assert.equal(init.headers?.["content-type"], contentType, `Accept: ${accept || "(none)"}`);
    assert.equal(body, JSON.stringify({ data: { ok: "yes" } }));
  }
});
