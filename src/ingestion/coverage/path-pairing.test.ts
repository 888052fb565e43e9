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

  test("an exact path pairs with itself only", () => {
    const pairing = pairStoredPaths([{ path: "src/a.ts", kind: "exact" }], ["src/a.ts", "lib/src/a.ts"]);
    assert.equal(pairing.changedPathOf("src/a.ts"), "src/a.ts");
    assert.equal(pairing.changedPathOf("a.ts"), undefined);
  });
});
