import assert from "node:assert/strict";
import { test } from "node:test";
import { smallestFixAbove, smallestFixingUpgrade } from "./tools-health.ts";

test("the smallest fix is the lowest fixed version above the one in use, in the ecosystem's order", () => {
  assert.equal(smallestFixAbove("NPM", "1.9.0", ["1.10.0", "2.0.0", "1.9.5"]), "1.9.5");
  assert.equal(smallestFixAbove("NPM", "1.9.0", ["1.10.0", "1.2.3"]), "1.10.0");
  // A fix below the version in use belongs to another release line.
  assert.equal(smallestFixAbove("NPM", "3.0.0", ["2.4.1"]), null);
  assert.equal(smallestFixAbove("PYPI", "1.0rc1", ["1.0", "0.9"]), "1.0");
  assert.equal(smallestFixAbove("MAVEN", "1.0-SNAPSHOT", ["1.0"]), "1.0");
  assert.equal(smallestFixAbove("NPM", "1.0.0", [null, "1.0.1"]), "1.0.1");
  assert.equal(smallestFixAbove("NPM", "1.0.0", []), null);
});

test("the smallest fixing upgrade reaches every vulnerability's first fix, and is null when one has none", () => {
  assert.equal(smallestFixingUpgrade("NPM", ["1.2.0", "1.10.0", "1.9.0"]), "1.10.0");
  assert.equal(smallestFixingUpgrade("NPM", ["1.2.0", null]), null);
  assert.equal(smallestFixingUpgrade("NPM", []), null);
});
