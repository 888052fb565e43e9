import assert from "node:assert/strict";
import { test } from "node:test";
import { DatabaseAvailability, isDatabaseUnavailable } from "./availability.ts";

function withCode(code: string, message = "failed"): Error {
  return Object.assign(new Error(message), { code });
}

test("connection failures are told apart from bad statements", () => {
  assert.ok(isDatabaseUnavailable(withCode("ECONNREFUSED")));
  assert.ok(isDatabaseUnavailable(withCode("57P01", "terminating connection due to administrator command")));
  assert.ok(isDatabaseUnavailable(withCode("08006")));
  assert.ok(isDatabaseUnavailable(new Error("timeout exceeded when trying to connect")));
  assert.ok(isDatabaseUnavailable(new Error("Connection terminated unexpectedly")));
  assert.ok(isDatabaseUnavailable(new AggregateError([withCode("ECONNREFUSED")])));
  assert.ok(isDatabaseUnavailable(new Error("wrapped", { cause: withCode("ECONNRESET") })));
  assert.ok(isDatabaseUnavailable({ message: "resolver", originalError: withCode("08001") }));

  assert.equal(isDatabaseUnavailable(withCode("23505", "duplicate key value")), false);
  assert.equal(isDatabaseUnavailable(withCode("22021", "invalid byte sequence")), false);
  assert.equal(isDatabaseUnavailable(withCode("0800")), false);
  assert.equal(isDatabaseUnavailable(new Error("boom")), false);
  assert.equal(isDatabaseUnavailable(undefined), false);
});

test("an outage is logged once when it starts and once when it ends", () => {
  const lines: string[] = [];
  const availability = new DatabaseAvailability({
    warn: (_fields: object, message: string) => lines.push(message),
  });
  availability.succeeded();
  assert.deepEqual(lines, []);
  for (let i = 0; i < 10; i++) availability.failed(withCode("ECONNREFUSED"));
  assert.equal(availability.isDown, true);
  for (let i = 0; i < 3; i++) availability.succeeded();
  assert.equal(availability.isDown, false);
  assert.deepEqual(lines, [
    "database unavailable: requests get 503 until it answers again",
    "database available again",
  ]);
});
