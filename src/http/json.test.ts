import assert from "node:assert/strict";
import { test } from "node:test";
import { jsonSyntaxReason } from "./json.ts";

function parseError(text: string): unknown {
  try {
    JSON.parse(text);
  } catch (error) {
    return error;
  }
  throw new Error("expected invalid JSON");
}

test("why a body is not JSON is told without the excerpt of it V8 quotes", () => {
  const error = parseError("accesstokensecret0123 and the report");
  assert.match((error as Error).message, /accesstoke/, "V8 quotes the body (else this test shows nothing)");
  const reason = jsonSyntaxReason(error);
  assert.doesNotMatch(reason, /accesstoke|report|not valid JSON/);
  assert.match(reason, /^Unexpected token/);
  assert.match(jsonSyntaxReason(parseError('{"a": 1')), /position|end of JSON/);
});
