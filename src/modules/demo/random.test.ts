import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { globMatches } from "./findings.ts";
import { hash32, KeySpace, Random } from "./random.ts";

describe("Random", () => {
  test("the same seed gives the same sequence and another seed another one", () => {
    const draw = (seed: number) => {
      const r = new Random(seed);
      return Array.from({ length: 20 }, () => r.next());
    };
    assert.deepEqual(draw(42), draw(42));
    assert.notDeepEqual(draw(42), draw(43));
  });

  test("derived streams depend on their label", () => {
    assert.notEqual(Random.derive(1, "a").next(), Random.derive(1, "b").next());
    assert.equal(Random.derive(1, "a", 2).next(), Random.derive(1, "a", 2).next());
  });

  test("int stays within its bounds and reaches both ends", () => {
    const r = new Random(7);
    const seen = new Set(Array.from({ length: 500 }, () => r.int(3, 6)));
    assert.deepEqual([...seen].sort(), [3, 4, 5, 6]);
  });

  test("uuid has the version-4 layout", () => {
    const r = new Random(9);
    for (let i = 0; i < 50; i++) {
      assert.match(r.uuid(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });

  test("poisson draws average close to their mean", () => {
    const r = new Random(11);
    const mean = Array.from({ length: 4000 }, () => r.poisson(3)).reduce((a, b) => a + b) / 4000;
    assert.ok(Math.abs(mean - 3) < 0.15, `mean ${mean}`);
  });
});

describe("KeySpace", () => {
  test("keys are ten base-36 characters, stable for a seed and different for another", () => {
    const a = new KeySpace(1);
    assert.match(a.key("occurrences", 5, 17), /^[0-9a-z]{10}$/);
    assert.equal(a.key("occurrences", 5, 17), new KeySpace(1).key("occurrences", 5, 17));
    assert.notEqual(a.key("occurrences", 5, 17), new KeySpace(2).key("occurrences", 5, 17));
    assert.notEqual(a.key("occurrences", 5, 17), a.key("checks", 5, 17));
  });

  test("keys of one table never collide across namespaces and counters", () => {
    const keys = new KeySpace(hash32("collisions"));
    const seen = new Set<string>();
    for (let namespace = 0; namespace < 40; namespace++) {
      const next = keys.counter("occurrences", namespace);
      for (let i = 0; i < 5000; i++) seen.add(next());
    }
    assert.equal(seen.size, 40 * 5000);
  });

  test("a namespace or counter beyond the key space is refused", () => {
    assert.throws(() => new KeySpace(1).key("t", 2 ** 28, 0), RangeError);
    assert.throws(() => new KeySpace(1).key("t", 0, 2 ** 22), RangeError);
  });
});

describe("globMatches", () => {
  test("understands the ignore-rule globs the generator writes", () => {
    assert.ok(globMatches("tests/**", "tests/api/test_auth.py"));
    assert.ok(!globMatches("tests/**", "src/tests.py"));
    assert.ok(globMatches("**/*_test.go", "internal/cache/cache_test.go"));
    assert.ok(!globMatches("**/*_test.go", "internal/cache/cache.go"));
    assert.ok(globMatches("**/__tests__/**", "src/__tests__/Auth.test.tsx"));
    assert.ok(globMatches("**/__tests__/**", "__tests__/a.ts"));
    assert.ok(!globMatches("**/__tests__/**", "src/tests/a.ts"));
  });
});
