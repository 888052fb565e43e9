import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildSchema, parse } from "graphql";
import { DocumentCache } from "../graphql/document-cache.ts";
import {
  isPublicOperation,
  isPublicRequest,
  PUBLIC_ROOT_FIELDS,
  type PublicRootFields,
  TOKEN_REFRESH_ROOT_FIELDS,
} from "./public-operations.ts";

const schema = buildSchema(`
  type Query { viewer: String deviceCodeStatus(code: String!): String }
  type Mutation { requestDeviceCode: String revokeToken: String }
  type Subscription { ticks: Int }
`);

const deviceLogin: PublicRootFields = {
  query: new Set(["deviceCodeStatus"]),
  mutation: new Set(["requestDeviceCode"]),
};

function isPublic(text: string, operationName?: string): boolean {
  return isPublicOperation(parse(text), operationName, deviceLogin);
}

describe("isPublicOperation", () => {
  test("an operation selecting only listed fields of its own type is public", () => {
    assert.equal(isPublic("mutation { requestDeviceCode }"), true);
    assert.equal(
      isPublic('query Poll { deviceCodeStatus(code: "x") status: deviceCodeStatus(code: "y") }'),
      true,
    );
  });

  test("a field listed for another operation type is not public", () => {
    assert.equal(isPublic('mutation { deviceCodeStatus(code: "x") }'), false);
    assert.equal(isPublic("{ requestDeviceCode }"), false);
  });

  test("a listed field beside an unlisted one, even a skipped one, is not public", () => {
    assert.equal(isPublic("mutation { requestDeviceCode revokeToken }"), false);
    assert.equal(isPublic("mutation { requestDeviceCode revokeToken @skip(if: true) }"), false);
    assert.equal(isPublic('{ deviceCodeStatus(code: "x") __typename }'), false);
  });

  test("root fragments and subscriptions are never public", () => {
    assert.equal(isPublic("mutation { ... on Mutation { requestDeviceCode } }"), false);
    assert.equal(isPublic("mutation { ...F } fragment F on Mutation { requestDeviceCode }"), false);
    // Even a list that names the subscription's field does not open it.
    const naming = { ...deviceLogin, subscription: new Set(["ticks"]) };
    assert.equal(isPublicOperation(parse("subscription { ticks }"), undefined, naming), false);
  });

  test("the operation that operationName picks is the one judged", () => {
    const text = "mutation Login { requestDeviceCode } query Me { viewer }";
    assert.equal(isPublic(text, "Login"), true);
    assert.equal(isPublic(text, "Me"), false);
    assert.equal(isPublic(text, "Missing"), false);
    assert.equal(isPublic(text), false, "two operations and no name pick none");
  });

  test("the endpoint's allow-list opens device login and the session-token mutations, and nothing else", () => {
    assert.deepEqual([...PUBLIC_ROOT_FIELDS.query], []);
    assert.deepEqual([...PUBLIC_ROOT_FIELDS.mutation].sort(), [
      "refreshToken",
      "registerDevice",
      "requestPatWithDeviceCode",
      "revokeToken",
      "verifyToken",
    ]);
    assert.equal(isPublicOperation(parse("mutation { registerDevice }"), undefined), true);
    assert.equal(isPublicOperation(parse("mutation { registerDevice refreshPat }"), undefined), false);
    assert.equal(isPublicOperation(parse("mutation { revokePat }"), undefined), false);
    assert.equal(isPublicOperation(parse("{ __typename }"), undefined), false);
    assert.equal(isPublicOperation(parse("{ viewer }"), undefined), false);
  });

  test("the expired-token list opens refreshPat alone", () => {
    assert.equal(
      isPublicOperation(parse("mutation { refreshPat }"), undefined, TOKEN_REFRESH_ROOT_FIELDS),
      true,
    );
    assert.equal(
      isPublicOperation(parse("mutation { refreshPat revokePat }"), undefined, TOKEN_REFRESH_ROOT_FIELDS),
      false,
    );
    assert.equal(isPublicOperation(parse("{ refreshPat }"), undefined, TOKEN_REFRESH_ROOT_FIELDS), false);
    assert.equal(
      isPublicOperation(parse("mutation { registerDevice }"), undefined, TOKEN_REFRESH_ROOT_FIELDS),
      false,
    );
  });
});

describe("isPublicRequest", () => {
  test("a query text is judged through the document cache, and one that does not validate is not public", () => {
    const documents = new DocumentCache(schema);
    assert.equal(isPublicRequest(documents, "mutation { requestDeviceCode }", null, deviceLogin), true);
    assert.equal(documents.size, 1, "parsed once, through the cache");
    assert.equal(
      isPublicRequest(documents, "mutation { requestDeviceCode(extra: 1) }", null, deviceLogin),
      false,
    );
    assert.equal(isPublicRequest(documents, "mutation { requestDeviceCode", null, deviceLogin), false);
  });

  test("a text naming no listed field is not parsed", () => {
    const documents = new DocumentCache(schema);
    assert.equal(isPublicRequest(documents, "{ viewer }", null, deviceLogin), false);
    assert.equal(isPublicRequest(documents, "mutation { revokeToken }", null, deviceLogin), false);
    assert.equal(documents.size, 0);
    const empty = { query: new Set<string>(), mutation: new Set<string>() };
    assert.equal(isPublicRequest(documents, "mutation { requestDeviceCode }", null, empty), false);
    assert.equal(documents.size, 0);
  });
});
