// test-runner: execution-mode independent (pure logic, steps played by hand, no database)
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import type { ProcessStep } from "../types.ts";
import { AlreadyReported } from "./already-reported.ts";
import { type OccurrenceRow, OccurrenceWriter } from "./occurrence-writer.ts";

/**
 * The writer's steps, played by hand: each step the writer starts waits until the test ends it,
 * so the test sees how many are in flight at every point. The steps' transactions are never used.
 */
class HeldSteps {
  readonly started: { end: (error?: Error) => void }[] = [];
  running = 0;
  mostRunning = 0;

  readonly step: ProcessStep = <T>(_work: (tx: Kysely<Database>) => Promise<T>): Promise<T> => {
    this.running += 1;
    this.mostRunning = Math.max(this.mostRunning, this.running);
    return new Promise<T>((resolve, reject) => {
      this.started.push({
        end: (error) => {
          this.running -= 1;
          // A batch the check did not hold already: insertOccurrenceBatch answers no rows.
          if (error) reject(error);
          else resolve([] as T);
        },
      });
    });
  };
}

const TARGET = { checkId: "1", artifactId: "1", baseCheckId: null, checkHoldsFindings: false };

function aRow(line: number): OccurrenceRow {
  return {
    issueId: "1",
    path: "src/a.js",
    beginLine: line,
    beginColumn: 1,
    endLine: line,
    endColumn: 1,
    title: "a finding",
    fingerprint: String(line).padStart(32, "0"),
    isSuppressed: false,
    severity: "MINOR",
  };
}

/** Adds rows as processing does: a full batch is sent, and the reading waits for the send. */
async function addRows(writer: OccurrenceWriter, from: number, count: number): Promise<void> {
  for (let line = from; line < from + count; line += 1) if (writer.add(aRow(line))) await writer.send();
}

/** Lets every promise callback that is ready run. */
function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe("OccurrenceWriter", () => {
  it("keeps one batch in flight by default: the next is sent when the one before it is written", async () => {
    const steps = new HeldSteps();
    const writer = new OccurrenceWriter(steps.step, TARGET, {
      batchSize: 2,
      reported: new AlreadyReported(),
    });
    await addRows(writer, 1, 2);
    let thirdBatchSent = false;
    const reading = addRows(writer, 3, 4).then(() => {
      thirdBatchSent = true;
    });
    await settled();
    assert.equal(steps.started.length, 1, "the second batch waits for the first");
    steps.started[0]!.end();
    await settled();
    assert.equal(steps.started.length, 2);
    assert.equal(thirdBatchSent, false, "the third batch waits for the second");
    steps.started[1]!.end();
    await reading;
    assert.equal(steps.started.length, 3);
    const finishing = writer.finish();
    steps.started[2]!.end();
    await finishing;
    assert.equal(steps.mostRunning, 1);
  });

  it("writes up to maxInFlight batches at once, and finish waits for all of them", async () => {
    const steps = new HeldSteps();
    const writer = new OccurrenceWriter(steps.step, TARGET, {
      batchSize: 2,
      reported: new AlreadyReported(),
      maxInFlight: 2,
    });
    const reading = addRows(writer, 1, 6);
    await settled();
    assert.equal(steps.started.length, 2, "two batches in flight, the third waits");
    assert.equal(steps.running, 2);
    steps.started[1]!.end();
    await settled();
    assert.equal(steps.started.length, 2, "the oldest batch, not any, frees the place");
    steps.started[0]!.end();
    await reading;
    assert.equal(steps.started.length, 3);
    let finished = false;
    const finishing = writer.finish().then(() => {
      finished = true;
    });
    await settled();
    assert.equal(finished, false, "finish waits for the batch in flight");
    steps.started[2]!.end();
    await finishing;
    assert.equal(steps.mostRunning, 2);
  });

  it("answers a batch's failure, and settle waits for the batch still in flight beside it", async () => {
    const steps = new HeldSteps();
    const writer = new OccurrenceWriter(steps.step, TARGET, {
      batchSize: 1,
      reported: new AlreadyReported(),
      maxInFlight: 2,
    });
    const reading = addRows(writer, 1, 3);
    await settled();
    assert.equal(steps.started.length, 2);
    steps.started[0]!.end(new Error("the first batch broke a foreign key"));
    await assert.rejects(reading, /foreign key/);
    assert.equal(steps.running, 1, "the second batch is still being written");
    let settledAll = false;
    const settling = writer.settle().then(() => {
      settledAll = true;
    });
    await settled();
    assert.equal(settledAll, false, "settle waits for it");
    steps.started[1]!.end(new Error("and so did the second"));
    await settling;
    assert.equal(steps.running, 0);
  });
});
