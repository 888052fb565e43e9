import assert from "node:assert/strict";
import { test } from "node:test";
import { compareCodeUnits, compareIds } from "./insert-missing.ts";

test("ids order by value, not as text", () => {
  const ids = ["10", "9", "100", "11", "1", "9007199254740993", "9007199254740992"];
  assert.deepEqual(ids.sort(compareIds), [
    "1",
    "9",
    "10",
    "11",
    "100",
    "9007199254740992",
    "9007199254740993",
  ]);
  assert.equal(compareIds("42", "42"), 0);
});

test("strings order by UTF-16 code unit, whatever the locale", () => {
  assert.deepEqual(["b", "B", "a", "é", "Z"].sort(compareCodeUnits), ["B", "Z", "a", "b", "é"]);
  assert.equal(compareCodeUnits("x", "x"), 0);
});
