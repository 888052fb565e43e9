import assert from "node:assert/strict";
import { test } from "node:test";
import { describeDuration, retryDelayMs } from "./delivery-policy.ts";

const DEFAULTS = { baseMs: 60_000, maxMs: 4 * 3_600_000 };

test("retries wait base × 2^(n−1), capped, times a factor between 0.75 and 1.25", () => {
  const middle = () => 0.5;
  assert.deepEqual(
    [1, 2, 3, 4, 8, 9, 14].map((n) => retryDelayMs(n, DEFAULTS, middle)),
    [60_000, 120_000, 240_000, 480_000, 7_680_000, 14_400_000, 14_400_000],
  );
  assert.equal(
    retryDelayMs(1, DEFAULTS, () => 0),
    45_000,
  );
  assert.equal(
    retryDelayMs(1, DEFAULTS, () => 0.999999),
    75_000,
  );
  assert.equal(retryDelayMs(1000, DEFAULTS, middle), 14_400_000, "huge retry numbers do not overflow");
});

test("the default schedule keeps retrying for more than 24 hours, even with the shortest jitter", () => {
  // Retries stop at the first failure after the 24-hour window; with the shortest waits the last
  // attempt still comes after it, and the schedule has about 14 attempts.
  let elapsed = 0;
  let attempts = 1;
  while (elapsed < 24 * 3_600_000) {
    elapsed += retryDelayMs(attempts, DEFAULTS, () => 0);
    attempts += 1;
  }
  assert.ok(attempts >= 14 && attempts <= 18, `${attempts} attempts`);
  let longest = 0;
  let n = 1;
  for (; longest < 24 * 3_600_000; n++) longest += retryDelayMs(n, DEFAULTS, () => 0.5);
  assert.equal(n, 14, "about 14 attempts without jitter, as docs/webhooks.md says");
});

test("durations read as words", () => {
  assert.equal(describeDuration(259_200), "3 days");
  assert.equal(describeDuration(86_400), "1 day");
  assert.equal(describeDuration(7_200), "2 hours");
  assert.equal(describeDuration(5_400), "90 minutes");
  assert.equal(describeDuration(1), "1 second");
  assert.equal(describeDuration(61), "61 seconds");
});
