import assert from "node:assert/strict";
import { test } from "node:test";
import { RequestActivity } from "./request-activity.ts";

/** Whether `promise` has settled by the time the microtask queue and pending immediates have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

test("quiet resolves at once without requests, and when the last request being served ends", async () => {
  const activity = new RequestActivity();
  assert.equal(await settled(activity.quiet(60_000)), true);

  const endFirst = activity.begin();
  const endSecond = activity.begin();
  const waiting = activity.quiet(60_000);
  assert.equal(await settled(waiting), false);
  endFirst();
  endFirst(); // ending twice counts once
  assert.equal(await settled(waiting), false, "one request is still being served");
  endSecond();
  assert.equal(await settled(waiting), true);
  assert.equal(await settled(activity.quiet(60_000)), true);
});

test("quiet gives up waiting after its limit while requests go on", async () => {
  const activity = new RequestActivity();
  const end = activity.begin();
  const started = performance.now();
  await activity.quiet(30);
  assert.ok(performance.now() - started >= 25, "it waited for the limit");
  end();
});
