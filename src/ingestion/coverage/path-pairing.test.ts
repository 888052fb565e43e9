// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { pairStoredPaths } from "./path-pairing.ts";

describe("pairing stored coverage paths with a diff's paths", () => {
  test("a JaCoCo package path stands for the one changed file under a source root that ends in it", () => {
    const pairing = pairStoredPaths(
      [
        { path: "com/acme/Cart.java", kind: "below-source-root" },
        { path: "com/acme/Coupon.java", kind: "below-source-root" },
      ],
      ["src/main/java/com/acme/Cart.java", "src/test/java/com/acme/CartTest.java", "README.md"],
    );
    assert.equal(pairing.changedPathOf("com/acme/Cart.java"), "src/main/java/com/acme/Cart.java");
    assert.equal(pairing.changedPathOf("com/acme/Coupon.java"), undefined, "it did not change");
    assert.deepEqual(pairing.ambiguous, []);
  });

  test("only whole path segments count: `pkg/util.py` is not `util.py` of the root", () => {
    const pairing = pairStoredPaths(
      [
        { path: "util.py", kind: "exact" },
        { path: "acme/Cart.java", kind: "below-source-root" },
      ],
      ["pkg/util.py", "src/main/java/notacme/Cart.java"],
    );
    assert.equal(pairing.changedPathOf("util.py"), undefined);
    assert.equal(pairing.changedPathOf("acme/Cart.java"), undefined);
  });

  test("a package path two changed files end in is paired with neither, and listed", () => {
    const pairing = pairStoredPaths(
      [{ path: "com/acme/Util.java", kind: "below-source-root" }],
      ["web/src/main/java/com/acme/Util.java", "core/src/main/java/com/acme/Util.java"],
    );
    assert.equal(pairing.changedPathOf("com/acme/Util.java"), undefined);
    assert.deepEqual(pairing.ambiguous, [
      {
        path: "com/acme/Util.java",
        candidates: ["core/src/main/java/com/acme/Util.java", "web/src/main/java/com/acme/Util.java"],
      },
    ]);
  });

  test("a package path that is itself the changed path (sources at the root) pairs with it", () => {
    const pairing = pairStoredPaths(
      [{ path: "com/acme/Cart.java", kind: "below-source-root" }],
      ["com/acme/Cart.java"],
    );
    assert.equal(pairing.changedPathOf("com/acme/Cart.java"), "com/acme/Cart.java");
  });

  test("a changed file several package paths end in belongs to the longest: a default package's file is another", () => {
    const pairing = pairStoredPaths(
      [
        { path: "Cart.java", kind: "below-source-root" },
        { path: "com/acme/Cart.java", kind: "below-source-root" },
      ],
      ["src/main/java/com/acme/Cart.java"],
    );
    assert.equal(pairing.changedPathOf("com/acme/Cart.java"), "src/main/java/com/acme/Cart.java");
    assert.equal(pairing.changedPathOf("Cart.java"), undefined);
    assert.deepEqual(pairing.ambiguous, []);
  });

  test("a file under one of several sources stands for the one of its places that changed", () => {
    const pairing = pairStoredPaths(
      [
        { path: "{invoices,tests}/totals.py", kind: "one-of" },
        { path: "{invoices,tests}/test_totals.py", kind: "one-of" },
        { path: "{.,tests}/conftest.py", kind: "one-of" },
      ],
      ["invoices/totals.py", "tests/test_totals.py", "conftest.py", "docs/totals.py"],
    );
    assert.equal(pairing.changedPathOf("{invoices,tests}/totals.py"), "invoices/totals.py");
    assert.equal(pairing.changedPathOf("{invoices,tests}/test_totals.py"), "tests/test_totals.py");
    assert.equal(pairing.changedPathOf("{.,tests}/conftest.py"), "conftest.py", "`.` is the root");
    assert.deepEqual(pairing.ambiguous, []);
  });

  test("a file under one of several sources whose places both changed is paired with neither, and listed", () => {
    const pairing = pairStoredPaths(
      [{ path: "{app,tests}/helpers.py", kind: "one-of" }],
      ["tests/helpers.py", "app/helpers.py"],
    );
    assert.equal(pairing.changedPathOf("{app,tests}/helpers.py"), undefined);
    assert.deepEqual(pairing.ambiguous, [
      { path: "{app,tests}/helpers.py", candidates: ["app/helpers.py", "tests/helpers.py"] },
    ]);
  });

  test("an exact path pairs with itself only", () => {
    const pairing = pairStoredPaths([{ path: "src/a.ts", kind: "exact" }], ["src/a.ts", "lib/src/a.ts"]);
    assert.equal(pairing.changedPathOf("src/a.ts"), "src/a.ts");
    assert.equal(pairing.changedPathOf("a.ts"), undefined);
  });
});
