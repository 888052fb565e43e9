import assert from "node:assert/strict";
import { test } from "node:test";
import { LargeBodySlots, leadingQuery } from "./large-bodies.ts";

test("leadingQuery reads the query a body opens with, escapes and UTF-8 included", () => {
  const body = Buffer.from(
    ' { "query" : "mutation { uploadArtifact(x: \\"é\\") }", "variables": {"input": "',
  );
  assert.equal(leadingQuery(body), 'mutation { uploadArtifact(x: "é") }');
});

test("leadingQuery finds nothing when the query is not first or not complete in the prefix", () => {
  assert.equal(leadingQuery(Buffer.from('{"variables":{},"query":"{ viewer { id } }"}')), undefined);
  assert.equal(leadingQuery(Buffer.from('{"query":"mutation { uploadArt')), undefined);
  assert.equal(leadingQuery(Buffer.from('{"query":"ends in an escape \\')), undefined);
  assert.equal(leadingQuery(Buffer.from('{"query":"bad \\x escape"}')), undefined);
});

test("LargeBodySlots gives out at most its capacity, and a release is counted once", () => {
  const slots = new LargeBodySlots(2);
  const first = slots.tryAcquire();
  const second = slots.tryAcquire();
  assert.ok(first && second);
  assert.equal(slots.tryAcquire(), undefined);
  first();
  first();
  assert.equal(slots.inUse, 1);
  assert.ok(slots.tryAcquire());
  assert.equal(slots.tryAcquire(), undefined);
});
