import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ARTIFACT_SKIP_REASONS } from "../modules/artifacts/artifact-service.ts";
import { isEverythingLost, ProcessTally, SKIP_REASONS } from "./types.ts";

describe("artifact results", () => {
  it("the API lists exactly the pipeline's skip reasons, in the same order", () => {
    assert.deepEqual([...ARTIFACT_SKIP_REASONS], [...SKIP_REASONS]);
  });

  it("a check lost everything when nothing was stored and something was skipped for a reason no one chose", () => {
    const result = (stored: number, skipped: Record<string, number>) => ({ stored, skipped });
    assert.equal(isEverythingLost([result(0, { OUTSIDE_REPOSITORY: 3 })]), true);
    assert.equal(isEverythingLost([result(0, { NO_LOCATION: 1, NOT_REPORTED: 4 })]), true);
    assert.equal(isEverythingLost([result(0, { OUTSIDE_REPOSITORY: 3 }), result(1, {})]), false);
    // The repository's settings and the tool's "absent" are decisions: the empty check is true.
    assert.equal(isEverythingLost([result(0, { NOT_REPORTED: 2, ABSENT: 1 })]), false);
    // Findings another artifact of the check holds are not lost: they are in the check.
    assert.equal(isEverythingLost([result(0, { ALREADY_REPORTED: 3 })]), false);
    // Files the configuration excludes are its decision too.
    assert.equal(isEverythingLost([result(0, { EXCLUDED: 2 })]), false);
    // A diagnostic the report repeats (GCC's header warnings) is in the check once, as the first.
    assert.equal(isEverythingLost([result(0, { NOT_REPORTED: 1, REPEATED: 2 })]), false);
    assert.equal(isEverythingLost([result(0, {})]), false, "an empty report is a clean one");
    assert.equal(isEverythingLost([]), false);
  });

  it("entries stored, then left out at publication, count as skipped, and the tally they came from is unchanged", () => {
    const tally = new ProcessTally();
    tally.store(3);
    tally.skip("OUTSIDE_REPOSITORY");
    const final = tally.copy();
    final.unstore("ALREADY_REPORTED", 2);
    final.warn("2 left out.");
    assert.deepEqual(final.result({}), {
      read: 4,
      stored: 1,
      skipped: { OUTSIDE_REPOSITORY: 1, ALREADY_REPORTED: 2 },
      warnings: ["2 left out."],
      counts: {},
    });
    assert.deepEqual(tally.result({}), {
      read: 4,
      stored: 3,
      skipped: { OUTSIDE_REPOSITORY: 1 },
      warnings: [],
      counts: {},
    });
  });
});
