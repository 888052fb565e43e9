import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_OPERATION_NAMES, OperationNames } from "./operation-names.ts";

test("names are kept up to the cap; later new names, malformed names and no name are bounded", () => {
  const names = new OperationNames();
  for (let i = 0; i < MAX_OPERATION_NAMES; i += 1) assert.equal(names.label(`Op${i}`), `Op${i}`);
  assert.equal(names.label("OneTooMany"), "other");
  assert.equal(names.label("Op0"), "Op0", "a name seen before the cap stays itself");
  assert.equal(names.label(undefined), "anonymous");
  assert.equal(names.label(""), "anonymous");
});

test("a name that is not a plain GraphQL name is other, and never takes a place under the cap", () => {
  const names = new OperationNames(1);
  for (const bad of ["has space", "1starts", "a".repeat(65), "dash-ed", 'quote"'])
    assert.equal(names.label(bad), "other");
  assert.equal(names.label("a".repeat(64)), "a".repeat(64));
  assert.equal(names.label("Second"), "other");
});
