import assert from "node:assert/strict";
import { test } from "node:test";
import { LocalWindows } from "./rate-limit-fallback.ts";

const HOUR_MS = 3_600_000;

function windows(perHour: number, instances: number) {
  const clock = { nowMs: Date.parse("2026-01-01T00:00:00Z") };
  return { clock, local: new LocalWindows(perHour, instances, HOUR_MS, () => clock.nowMs) };
}

function allowedOf(local: LocalWindows, key: string, requests: number): number {
  let allowed = 0;
  for (let i = 0; i < requests; i++) if (local.decide(key).allowed) allowed++;
  return allowed;
}

test("each of N instances allows ceil(limit / N) of a budget nobody has spent from", () => {
  assert.equal(allowedOf(windows(200, 2).local, "user-1", 300), 100);
  assert.equal(allowedOf(windows(5, 2).local, "user-1", 10), 3, "rounded up: 2 instances may allow 6 of 5");
  assert.equal(allowedOf(windows(200, 1).local, "user-1", 300), 200);
});

test("the share is taken from what Redis last said was left, so an outage never refills a budget", () => {
  const { local } = windows(200, 2);
  local.recordShared("user-1", 150, 30 * 60_000);
  assert.equal(allowedOf(local, "user-1", 100), 25);

  local.recordShared("user-2", 250, 30 * 60_000);
  const denied = local.decide("user-2");
  assert.deepEqual(denied, { allowed: false, remaining: 0, endsAtMs: denied.endsAtMs });
});

test("a decision reports what this instance still allows and when the window closes", () => {
  const { clock, local } = windows(10, 2);
  local.recordShared("user-1", 4, 10 * 60_000);
  assert.deepEqual(local.decide("user-1"), {
    allowed: true,
    remaining: 2,
    endsAtMs: clock.nowMs + 10 * 60_000,
  });
});

test("requests allowed alone are owed to Redis until marked synced, and a Redis answer keeps them owed", () => {
  const { clock, local } = windows(100, 2);
  local.recordShared("user-1", 10, 20 * 60_000);
  allowedOf(local, "user-1", 3);
  clock.nowMs += 60_000;
  assert.deepEqual(local.openWindows("unsynced"), [
    { key: "user-1", sharedUsed: 10, unsynced: 3, msLeft: 19 * 60_000 },
  ]);

  // A late answer from Redis about another request does not make these three known to it.
  local.recordShared("user-1", 11, 19 * 60_000);
  assert.equal(local.openWindows("unsynced")[0]?.unsynced, 3);
  assert.equal(
    allowedOf(local, "user-1", 100),
    Math.ceil(89 / 2) - 3,
    "the owed three still use up the share",
  );

  local.markSynced("user-1", 100);
  assert.deepEqual(local.openWindows("unsynced"), []);
  assert.equal(local.openWindows("all").length, 1);
});

test("spending in a window that closed during the outage is dropped, and the next request opens a full window", () => {
  const { clock, local } = windows(10, 2);
  local.recordShared("user-1", 8, 5 * 60_000);
  assert.equal(allowedOf(local, "user-1", 5), 1);

  clock.nowMs += 5 * 60_000;
  assert.deepEqual(local.openWindows("all"), [], "closed exactly at its end");
  const fresh = local.decide("user-1");
  assert.deepEqual(fresh, { allowed: true, remaining: 4, endsAtMs: clock.nowMs + HOUR_MS });
  assert.deepEqual(local.openWindows("unsynced"), [
    { key: "user-1", sharedUsed: 0, unsynced: 1, msLeft: HOUR_MS },
  ]);
});

test("closed windows are swept from memory", () => {
  const { clock, local } = windows(10, 1);
  local.recordShared("user-1", 1, 1000);
  local.decide("user-2");
  clock.nowMs += 1000;
  local.sweep();
  assert.deepEqual(
    local.openWindows("all").map((window) => window.key),
    ["user-2"],
  );
});

test("an instance count below 1 is refused", () => {
  assert.throws(() => new LocalWindows(10, 0, HOUR_MS, Date.now), RangeError);
  assert.throws(() => new LocalWindows(10, 1.5, HOUR_MS, Date.now), RangeError);
});
