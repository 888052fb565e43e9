import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { BodyError, readBody } from "./body.ts";

/** What a test's handler does before reading: wait for the client's move, as authentication makes the server wait. */
type BeforeRead = (req: http.IncomingMessage, started: () => void) => Promise<void>;

/**
 * A server whose handler runs `beforeRead`, then reads the body; `outcome` settles with the read's
 * result, `started` when the handler has begun (so the client can act at a known point, not after
 * a guessed delay).
 */
async function withServer(
  beforeRead: BeforeRead,
  run: (port: number, outcome: Promise<string>, started: Promise<void>) => Promise<void>,
) {
  let settle: (value: string) => void = () => {};
  const outcome = new Promise<string>((resolve) => {
    settle = resolve;
  });
  let markStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const server = http.createServer(async (req, res) => {
    await beforeRead(req, markStarted);
    try {
      settle(`body:${await readBody(req, 1024)}`);
      res.end("ok");
    } catch (error) {
      settle(error instanceof BodyError ? error.reason : "other");
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    await run((server.address() as AddressInfo).port, outcome, started);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

function partialRequest(port: number): http.ClientRequest {
  const req = http.request({ port, host: "127.0.0.1", method: "POST", headers: { "content-length": "100" } });
  req.on("error", () => {});
  req.write('{"query":');
  return req;
}

// Each test has a timeout so a read that never settles fails instead of hanging the run.
const guard = { timeout: 10_000 };

test("a client that hangs up before the body is read settles the read as aborted", guard, async () => {
  // The handler lets the client go away, and reads only once the server has seen the hang-up.
  const beforeRead: BeforeRead = async (req, started) => {
    // The hang-up also surfaces as an `error` event, which must not fail the test before the read.
    req.on("error", () => {});
    const closed = new Promise((resolve) => req.once("close", resolve));
    started();
    await closed;
  };
  await withServer(beforeRead, async (port, outcome, started) => {
    const req = partialRequest(port);
    await started;
    req.destroy();
    assert.equal(await outcome, "aborted");
  });
});

test("a client that hangs up in the middle of the body settles the read as aborted", guard, async () => {
  // The handler starts reading at once; the client hangs up once the first bytes have arrived.
  const beforeRead: BeforeRead = async (req, started) => {
    req.once("data", () => started());
  };
  await withServer(beforeRead, async (port, outcome, started) => {
    const req = partialRequest(port);
    await started;
    req.destroy();
    assert.equal(await outcome, "aborted");
  });
});

test("a complete body is read whole", guard, async () => {
  await withServer(
    async () => {},
    async (port, outcome) => {
      const req = http.request({ port, host: "127.0.0.1", method: "POST" });
      req.on("error", () => {});
      req.end('{"query":"{ viewer { email } }"}');
      assert.equal(await outcome, 'body:{"query":"{ viewer { email } }"}');
    },
  );
});
