import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { assertPageSizeIndependent } from "./helpers/instance.ts";

describe("the page-size statement check used by the N+1 tests", () => {
  const batch = (n: number) =>
    `select * from "issues" where "id" in (${Array.from({ length: n }, (_, i) => `$${i + 1}`).join(", ")})`;

  test("batches of different sizes read as one statement", () => {
    assertPageSizeIndependent([batch(2), "select 1"], [batch(40), "select 1"]);
  });

  test("a batch split in two by timing is tolerated once", () => {
    assertPageSizeIndependent([batch(3)], [batch(1), batch(2)]);
  });

  test("a statement per parent fails and names the statement", () => {
    const perParent = (n: number) => Array.from({ length: n }, () => `select * from "users" where "id" = $1`);
    assert.throws(
      () => assertPageSizeIndependent(["select 1", ...perParent(2)], ["select 1", ...perParent(8)]),
      /8× \(2× for N=10\): select \* from "users" where "id" = \$1/,
    );
  });
});
