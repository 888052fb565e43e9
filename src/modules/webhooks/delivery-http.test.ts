import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { verifyDeepSourceSignature, verifyWebhook } from "../../../docs/examples/verify-webhook.mjs";
import {
  AttemptAbortedError,
  deliveryHeaders,
  postWebhook,
  RESPONSE_EXCERPT_BYTES,
} from "./delivery-http.ts";

const LOCAL = { timeoutMs: 2000, allowHttp: true, allowPrivateNetworks: true };
let server: http.Server;
let base: string;
const seen: Array<{ url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
/** Answers of `/slow`, held open; and who waits for the next `/slow` request to arrive. */
const unanswered: http.ServerResponse[] = [];
let slowArrived: (() => void) | undefined;

before(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      seen.push({ url: req.url ?? "", headers: req.headers, body });
      if (req.url === "/big") res.end("é".repeat(2000));
      else if (req.url === "/redirect") res.writeHead(302, { location: "/target" }).end();
      else if (req.url === "/slow") {
        // Never answered until the tests end: only the sender's timeout or abort can end the attempt.
        unanswered.push(res);
        slowArrived?.();
      } else if (req.url === "/nul") res.end("a\0b");
      else res.writeHead(201).end("created");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  for (const res of unanswered) res.end();
  server.closeAllConnections();
  server.close();
});

test("the headers sign the body, and the timestamped signature, as docs/webhooks.md says", () => {
  const body = '{"id":"7","type":"test.event","createdAt":1,"data":{"test":true}}';
  const headers = deliveryHeaders({
    deliveryId: "7",
    eventType: "test.event",
    secret: "s3cret-0123456789",
    body,
    timestamp: 1767225600,
  });
  assert.equal(
    headers["x-deepsource-signature"],
    createHmac("sha256", "s3cret-0123456789").update(body).digest("hex"),
  );
  assert.equal(
    headers["x-assay-signature"],
    `v1=${createHmac("sha256", "s3cret-0123456789").update(`1767225600.${body}`).digest("hex")}`,
  );
  assert.equal(headers["x-assay-delivery"], "7");
  assert.equal(headers["x-assay-event"], "test.event");
  assert.equal(headers["user-agent"], "Assay-Webhooks/1");
  assert.equal(headers["content-type"], "application/json");
  assert.deepEqual(
    verifyWebhook(body, headers, "s3cret-0123456789", 1767225600_000 + 60_000),
    JSON.parse(body),
  );
  assert.equal(verifyDeepSourceSignature(body, headers, "s3cret-0123456789"), true);
  assert.throws(() => verifyWebhook(body, headers, "s3cret-0123456789", 1767225600_000 + 600_000), /too far/);
  assert.throws(() => verifyWebhook(body, headers, "another-secret-xyz", 1767225600_000), /does not match/);
  assert.throws(
    () => verifyWebhook(body.replace("7", "8"), headers, "s3cret-0123456789", 1767225600_000),
    /does not match/,
  );
});

test("a 2xx answer succeeds; the receiver gets the headers and the body as sent", async () => {
  const result = await postWebhook(`${base}/hooks?x=1`, "{}", { "x-assay-delivery": "9" }, LOCAL);
  assert.equal(result.succeeded, true);
  assert.equal(result.statusCode, 201);
  assert.equal(result.responseExcerpt, "created");
  assert.equal(result.error, null);
  assert.ok(result.latencyMs >= 0);
  const request = seen.at(-1)!;
  assert.equal(request.url, "/hooks?x=1");
  assert.equal(request.body, "{}");
  assert.equal(request.headers["x-assay-delivery"], "9");
  assert.equal(request.headers["content-length"], "2");
});

test("the connection goes to the address that was checked, with the URL's host name in the Host header", async () => {
  const port = (server.address() as AddressInfo).port;
  const result = await postWebhook(`http://localhost:${port}/named`, "{}", {}, LOCAL);
  assert.equal(result.statusCode, 201, result.error ?? "");
  assert.equal(seen.at(-1)!.headers.host, `localhost:${port}`);
});

test("redirects are not followed: a 3xx is a failure", async () => {
  const before = seen.length;
  const result = await postWebhook(`${base}/redirect`, "{}", {}, LOCAL);
  assert.equal(result.succeeded, false);
  assert.equal(result.statusCode, 302);
  assert.deepEqual(
    seen.slice(before).map((r) => r.url),
    ["/redirect"],
  );
});

test("only the first 1 KB of the answer is kept, and NUL characters are replaced", async () => {
  const big = await postWebhook(`${base}/big`, "{}", {}, LOCAL);
  assert.ok(Buffer.byteLength(big.responseExcerpt ?? "") <= RESPONSE_EXCERPT_BYTES + 3);
  assert.ok((big.responseExcerpt ?? "").startsWith("éé"));
  const nul = await postWebhook(`${base}/nul`, "{}", {}, LOCAL);
  assert.equal(nul.responseExcerpt, "a\uFFFDb");
});

test("a timeout, a refused connection, a refused address and a refused scheme are answers, not exceptions", async () => {
  const slow = await postWebhook(`${base}/slow`, "{}", {}, { ...LOCAL, timeoutMs: 200 });
  assert.deepEqual([slow.succeeded, slow.statusCode, slow.error], [false, null, "timed out after 200 ms"]);
  assert.ok(slow.latencyMs >= 150, `${slow.latencyMs} ms`);

  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const refused = await postWebhook(`http://127.0.0.1:${closedPort}/`, "{}", {}, LOCAL);
  assert.equal(refused.error, "connection refused");

  const before = seen.length;
  const privateAddress = await postWebhook(
    `${base}/hooks`,
    "{}",
    {},
    { ...LOCAL, allowPrivateNetworks: false },
  );
  assert.match(privateAddress.error ?? "", /^not sent: 127\.0\.0\.1 resolves to 127\.0\.0\.1, a loopback/);
  const plain = await postWebhook(`${base}/hooks`, "{}", {}, { ...LOCAL, allowHttp: false });
  assert.equal(plain.error, "not sent: the URL must use https://");
  assert.equal(seen.length, before, "nothing was sent");
});

test("an attempt aborted by the worker throws instead of answering", async () => {
  const controller = new AbortController();
  const arrived = new Promise<void>((resolve) => {
    slowArrived = resolve;
  });
  const attempt = postWebhook(`${base}/slow`, "{}", {}, { ...LOCAL, signal: controller.signal });
  await arrived;
  controller.abort();
  await assert.rejects(attempt, AttemptAbortedError);
});
