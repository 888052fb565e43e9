import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { after, before, test } from "node:test";
import { createLogger } from "../logger.ts";
import { createCliDownload, hashedCliPackagePath, type ServedCliPackage } from "./cli-download.ts";

/**
 * The route that serves the CLI package, over a build the test controls: built once, a failed
 * build answered 503 without its cause and tried again, HEAD without a body. The real package
 * through the real server is tested in test/upload-cli.test.ts.
 */

const BYTES = Buffer.from("a tarball");
const PACKAGE: ServedCliPackage = {
  version: "1.2.3",
  bytes: BYTES,
  sha256: createHash("sha256").update(BYTES).digest("hex"),
};

let builds = 0;
let failNext = false;
let logged = "";
let server: http.Server;
let url: string;

before(async () => {
  const logStream = new Writable({
    write(chunk, _encoding, callback) {
      logged += chunk.toString();
      callback();
    },
  });
  const download = createCliDownload(
    async () => {
      builds++;
      if (failNext) {
        failNext = false;
        throw new Error("spawn npm ENOENT in /srv/assay");
      }
      return PACKAGE;
    },
    createLogger("error", logStream),
  );
  server = http.createServer((req, res) => {
    void download(req, res, (req.url ?? "/").split("?")[0]!);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test("a failed build answers 503 without its cause, logs it, and is tried again on the next request", async () => {
  failNext = true;
  const failed = await fetch(`${url}/cli/assay-cli.tgz`);
  assert.equal(failed.status, 503);
  const body = (await failed.json()) as { errors: Array<{ message: string }> };
  assert.equal(
    body.errors[0]!.message,
    "The CLI package could not be built on this server; its log says why.",
  );
  assert.match(logged, /building the CLI package failed/);
  assert.match(logged, /spawn npm ENOENT/, "the cause is in the log");

  const [a, b] = await Promise.all([fetch(`${url}/cli/assay-cli.tgz`), fetch(`${url}/cli/assay-cli.tgz`)]);
  assert.deepEqual([a.status, b.status], [200, 200]);
  assert.ok(Buffer.from(await a.arrayBuffer()).equals(BYTES));
  await fetch(`${url}/cli/assay-cli.tgz`);
  assert.equal(builds, 2, "one failed build, then one build for every later request");
});

test("the hashed name is immutable; HEAD answers the headers alone; other methods are refused", async () => {
  const hashed = hashedCliPackagePath(PACKAGE);
  assert.equal(hashed, `/cli/assay-cli-1.2.3-${PACKAGE.sha256.slice(0, 16)}.tgz`);
  const head = await fetch(`${url}${hashed}`, { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("content-length"), String(BYTES.length));
  assert.equal(head.headers.get("cache-control"), "public, max-age=31536000, immutable");
  assert.equal((await head.arrayBuffer()).byteLength, 0);
  const post = await fetch(`${url}/cli/assay-cli.tgz`, { method: "POST" });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get("allow"), "GET, HEAD");
});
