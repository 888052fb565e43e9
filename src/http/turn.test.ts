import assert from "node:assert/strict";
import { readFile } from "node:fs";
import { test } from "node:test";
import { turnOfRead, waitForTurnsOtherRequests } from "./turn.ts";

/** Runs `body` from an I/O callback: in the poll phase of a turn, as a request's read runs. */
function inPollPhase<T>(body: () => T): Promise<T> {
  return new Promise((resolve, reject) => {
    readFile(import.meta.filename, () => {
      try {
        resolve(body());
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** A request read now and about to run at once: whether it runs now, or the wait it is given. */
function readAndRun(): Promise<void> | undefined {
  return waitForTurnsOtherRequests(turnOfRead());
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test("the first request run in a turn runs at once; the turn's later ones wait for its check phase, in order", async () => {
  const events: string[] = [];
  await inPollPhase(async () => {
    assert.equal(readAndRun(), undefined, "the first request of the turn runs now");
    const second = readAndRun();
    const third = readAndRun();
    assert.ok(second instanceof Promise && third instanceof Promise);
    assert.equal(second, third, "the turn's later requests share one wait");
    void second.then(() => events.push("second"));
    void third.then(() => events.push("third"));
    setImmediate(() => events.push("an immediate queued after them"));
    for (let i = 0; i < 10; i++) await Promise.resolve();
    assert.deepEqual(events, [], "they do not run within the poll phase");
  });
  await nextTurn();
  await nextTurn();
  assert.deepEqual(
    events,
    ["second", "third", "an immediate queued after them"],
    "they run in the check phase of their own turn, in the order they arrived",
  );
});

test("a request alone in its turn never waits, turn after turn", async () => {
  for (let turn = 0; turn < 3; turn++) {
    assert.equal(await inPollPhase(readAndRun), undefined);
    await nextTurn();
  }
});

test("a turn's wait ends with the turn: the next turn's first request runs at once again", async () => {
  // Wrapped, or the poll phase's promise would adopt the wait.
  const { later } = await inPollPhase(() => {
    readAndRun();
    return { later: readAndRun() };
  });
  assert.ok(later instanceof Promise);
  await later;
  assert.equal(await inPollPhase(readAndRun), undefined);
});

test("requests that waited for I/O since they were read run at once, however many resume together", async () => {
  const readIns = await inPollPhase(() => [turnOfRead(), turnOfRead(), turnOfRead()]);
  await nextTurn(); // their round trip (the rate limit's Redis command, a body's last packet)
  await inPollPhase(() => {
    for (const readIn of readIns) assert.equal(waitForTurnsOtherRequests(readIn), undefined);
    assert.equal(readAndRun(), undefined, "and they do not count as the turn's first request");
    assert.ok(readAndRun() instanceof Promise, "a second request read in this turn waits");
  });
});
