import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CliError, OutcomeUnknownError } from "./command.ts";
import {
  isSettled,
  type PollClock,
  pollDelayMs,
  pollUntilSettled,
  runLink,
  type UploadState,
  verdictOf,
} from "./upload-wait.ts";

/** A clock that only moves when the code under test sleeps, and records each sleep. */
function fakeClock(random = 0.5): PollClock & { slept: number[]; at: number } {
  const clock = {
    at: 0,
    slept: [] as number[],
    now: () => clock.at,
    sleep: async (ms: number) => {
      clock.slept.push(ms);
      clock.at += ms;
    },
    random: () => random,
  };
  return clock;
}

const pending: UploadState = { artifactStatus: "QUEUED", runStatus: "PENDING", checkStatus: "PENDING" };
const failed: UploadState = { artifactStatus: "PROCESSED", runStatus: "FAILURE", checkStatus: "FAILURE" };

describe("backoff", () => {
  test("waits 1 s, growing by 1.6 to at most 10 s, give or take 10 %", () => {
    const middle = Array.from({ length: 8 }, (_, attempt) => pollDelayMs(attempt, () => 0.5));
    assert.deepEqual(middle, [1000, 1600, 2560, 4096, 6554, 10000, 10000, 10000]);
    assert.equal(
      pollDelayMs(0, () => 0),
      900,
    );
    assert.equal(
      pollDelayMs(0, () => 1),
      1100,
    );
    assert.equal(
      pollDelayMs(40, () => 1),
      11000,
      "the cap holds for any attempt",
    );
  });

  test("polls until the state is settled, sleeping before each poll", async () => {
    const clock = fakeClock();
    const answers: UploadState[] = [
      pending,
      pending,
      { artifactStatus: "PROCESSED", runStatus: "PENDING", checkStatus: "PENDING" },
      failed,
    ];
    const seen: UploadState[] = [];
    const settled = await pollUntilSettled(
      async () => {
        const next = answers.shift()!;
        seen.push(next);
        return next;
      },
      60_000,
      () => "unused",
      clock,
    );
    assert.deepEqual(settled, failed);
    assert.equal(seen.length, 4);
    assert.deepEqual(clock.slept, [1000, 1600, 2560, 4096]);
  });

  test("runs out of time with an unknown outcome, never sleeping past the deadline", async () => {
    const clock = fakeClock();
    await assert.rejects(
      pollUntilSettled(
        async () => pending,
        5000,
        (state, lastError) => `still ${state?.checkStatus}; ${lastError?.message ?? "no error"}`,
        clock,
      ),
      (e: unknown) => e instanceof OutcomeUnknownError && e.message === "still PENDING; no error",
    );
    assert.deepEqual(clock.slept, [1000, 1600, 2400], "the last sleep ends at the deadline");
    assert.equal(clock.at, 5000);
  });

  test("a server error or network failure is retried; another error ends the wait at once", async () => {
    const clock = fakeClock();
    const answers: Array<UploadState | Error> = [
      new OutcomeUnknownError("the server answered HTTP 502: Bad gateway"),
      pending,
      new OutcomeUnknownError("cannot reach http://assay/graphql/: ECONNRESET"),
      failed,
    ];
    const poll = async () => {
      const next = answers.shift()!;
      if (next instanceof Error) throw next;
      return next;
    };
    assert.deepEqual(await pollUntilSettled(poll, 60_000, () => "unused", clock), failed);

    const lastError = await pollUntilSettled(
      async () => {
        throw new OutcomeUnknownError("the server answered HTTP 503: down");
      },
      3000,
      (state, error) => `state ${state === null ? "unknown" : state.checkStatus}: ${error?.message}`,
      fakeClock(),
    ).catch((e: unknown) => e);
    assert.ok(lastError instanceof OutcomeUnknownError);
    assert.equal(lastError.message, "state unknown: the server answered HTTP 503: down");

    let polls = 0;
    await assert.rejects(
      pollUntilSettled(
        async () => {
          polls++;
          throw new CliError("the server refused the token (HTTP 401)");
        },
        60_000,
        () => "unused",
        fakeClock(),
      ),
      /HTTP 401/,
    );
    assert.equal(polls, 1);
  });
});

describe("verdict", () => {
  test("settled once the artifact is processed and its check passed or failed; WAITING, PENDING and READY are not", () => {
    const state = (
      checkStatus: string | null,
      artifactStatus: string | null = "PROCESSED",
      runStatus = "PENDING",
    ) => ({
      artifactStatus,
      runStatus,
      checkStatus,
    });
    for (const status of [
      "SUCCESS",
      "SKIPPED",
      "FAILURE",
      "NEUTRAL",
      "TIMEOUT",
      "ARTIFACT_TIMEOUT",
      "CANCEL",
    ]) {
      assert.equal(isSettled(state(status)), true, status);
    }
    for (const status of ["WAITING", "PENDING", "READY"]) {
      assert.equal(isSettled(state(status, "PROCESSED", "SUCCESS")), false, status);
    }
    assert.equal(
      isSettled(state("SUCCESS", "QUEUED")),
      false,
      "a check settled before this artifact was processed",
    );
    assert.equal(isSettled(state("FAILURE", "FAILED")), true);
    assert.equal(isSettled(state(null, "PROCESSED", "PENDING")), true, "changed lines: the artifact decides");
    assert.equal(isSettled(state(null, "QUEUED", "PENDING")), false);
    assert.equal(isSettled(state(null, null, "PENDING")), false, "nothing known but the run: it decides");
    assert.equal(isSettled(state(null, null, "SUCCESS")), true);
    assert.equal(
      isSettled(state("SUCCESS", null)),
      true,
      "an artifact the server did not answer does not hold the wait",
    );
  });

  test("exit 0 for a passing check, 1 for any other verdict or a failed artifact; without a check the artifact decides", () => {
    const check = (status: string) => ({
      analyzer: "eslint",
      status,
      introduced: 0,
      resolved: 0,
      suppressed: 0,
      newByCategory: [],
      newBySeverity: [],
      metrics: [],
    });
    const artifact = (status: string) => ({
      kind: "SARIF",
      status,
      format: "SARIF 2.1.0",
      error: null,
      readCount: 1,
      storedCount: 1,
      skippedCount: 0,
      skipped: [],
      warnings: [],
    });
    const processed = artifact("PROCESSED");
    for (const status of ["SUCCESS", "SKIPPED"]) {
      assert.equal(verdictOf({ runStatus: "FAILURE", check: check(status), artifact: processed }), 0, status);
    }
    for (const status of ["FAILURE", "NEUTRAL", "TIMEOUT", "ARTIFACT_TIMEOUT", "CANCEL"]) {
      assert.equal(verdictOf({ runStatus: "SUCCESS", check: check(status), artifact: processed }), 1, status);
    }
    assert.equal(
      verdictOf({ runStatus: "SUCCESS", check: check("SUCCESS"), artifact: artifact("FAILED") }),
      1,
    );
    assert.equal(verdictOf({ runStatus: "PENDING", check: null, artifact: processed }), 0, "changed lines");
    assert.equal(verdictOf({ runStatus: "PENDING", check: null, artifact: artifact("FAILED") }), 1);
    assert.equal(verdictOf({ runStatus: "SUCCESS", check: null, artifact: null }), 0);
    assert.equal(verdictOf({ runStatus: "TIMEOUT", check: null, artifact: null }), 1);
  });

  test("the link is the run's query in GET form on /graphql/, with the run's id and no credential", () => {
    const link = new URL(runLink("https://assay.example.com", "3f0c7a4e-0000-4000-8000-000000000001"));
    assert.equal(`${link.origin}${link.pathname}`, "https://assay.example.com/graphql/");
    assert.deepEqual([...link.searchParams.keys()], ["query", "variables"]);
    assert.match(
      link.searchParams.get("query")!,
      /^query AssayRun\(\$runUid: UUID!\) \{ run\(runUid: \$runUid\)/,
    );
    assert.deepEqual(JSON.parse(link.searchParams.get("variables")!), {
      runUid: "3f0c7a4e-0000-4000-8000-000000000001",
    });
  });
});
