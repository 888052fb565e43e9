import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { BodyError, readBody } from "./body.ts";

/** A server whose handler waits `delayMs` (as authentication does) before reading the body. */
async function withServer(delayMs: number, run: (port: number, outcome: Promise<string>) => Promise<void>) {
  let settle: (value: string) => void = () => {};
  const outcome = new Promise<string>((resolve) => {
    settle = resolve;
  });
  const server = http.createServer(async (req, res) => {
    await sleep(delayMs);
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
    await run((server.address() as AddressInfo).port, outcome);
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

test("a client that hangs up before the body is read settles the read as aborted", async () => {
  await withServer(100, async (port, outcome) => {
    const req = partialRequest(port);
    await sleep(20);
    req.destroy();
    const result = await Promise.race([outcome, sleep(2000).then(() => "still pending")]);
    assert.equal(result, "aborted");
  });
});

test("a client that hangs up in the middle of the body settles the read as aborted", async () => {
  await withServer(0, async (port, outcome) => {
    const req = partialRequest(port);
    await sleep(50);
    req.destroy();
    const result = await Promise.race([outcome, sleep(2000).then(() => "still pending")]);
    assert.equal(result, "aborted");
  });
});

test("a complete body is read whole", async () => {
  await withServer(20, async (port, outcome) => {
    const req = http.request({ port, host: "127.0.0.1", method: "POST" });
    req.on("error", () => {});
    req.end('{"query":"{ viewer { email } }"}');
    assert.equal(await outcome, 'body:{"query":"{ viewer { email } }"}');
  });
});
