import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { outcomeOf } from "./artifact-store.ts";

/**
 * What settling a check reads of an artifact's stored result about the code its tool could not
 * analyze (docs/ingestion.md "Status"): the places, when the result kept them; none known for a
 * result stored before they were kept, so such a check stays NEUTRAL after an upgrade.
 */
describe("outcomeOf reads the places a tool could not analyze", () => {
  const processed = { read: 3, stored: 3, skipped: {}, warnings: [] };

  test("a result without errors of the tool has nothing unanalyzed", () => {
    const outcome = outcomeOf({ ...processed, counts: { introduced: 3 } });
    assert.deepEqual([outcome?.unanalyzed, outcome?.unanalyzedPaths], [0, []]);
  });

  test("a result that kept the places answers them", () => {
    const outcome = outcomeOf(
      JSON.stringify({
        ...processed,
        counts: { unanalyzed: 2 },
        unanalyzedPaths: ["src/legacy.c", "broken/"],
      }),
    );
    assert.deepEqual([outcome?.unanalyzed, outcome?.unanalyzedPaths], [2, ["src/legacy.c", "broken/"]]);
  });

  test("a result stored before the places were kept, or with a malformed list, knows none", () => {
    for (const unanalyzedPaths of [undefined, [], [""], "src/a.c", [1]]) {
      const outcome = outcomeOf({ ...processed, counts: { unanalyzed: 1 }, unanalyzedPaths });
      assert.equal(outcome?.unanalyzedPaths, null, JSON.stringify(unanalyzedPaths));
    }
  });
});
