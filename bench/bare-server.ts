/**
 * The baseline: the thinnest `node:http` server, answering every POST with one fixed JSON body
 * about the size of the GraphQL answers (after reading the request, as a real server must). What
 * Assay does per request is measured against this.
 *
 * Started by bench/run.ts with an IPC channel: it listens on an ephemeral port on 127.0.0.1,
 * sends `{ type: "ready", url }`, and exits on `{ type: "stop" }`, SIGTERM, or when the parent goes.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** The same shape and size as the answer to the `node(id:)` query. */
const BARE_BODY = '{"data":{"node":{"id":"UmVwb3NpdG9yeTpiZW5jaDEyMzQ1","name":"api-gateway"}}}';
const HEADERS = {
  "content-type": "application/json; charset=utf-8",
  "content-length": Buffer.byteLength(BARE_BODY),
};

const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, HEADERS);
    res.end(BARE_BODY);
  });
});

const stop = (): void => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on("message", (message: { type?: string }) => {
  if (message?.type === "stop") stop();
});
process.on("disconnect", stop);
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.send?.({ type: "ready", url: `http://127.0.0.1:${port}/graphql/` });
});
