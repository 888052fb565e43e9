/**
 * The embedded database: PGlite (PostgreSQL compiled to WebAssembly) served over the PostgreSQL
 * wire protocol on a Unix socket, in its own process. Running it out of process keeps its
 * synchronous WebAssembly work off the HTTP server's event loop, and lets the server talk to it
 * with `pg` exactly as it talks to PostgreSQL.
 *
 * Started by `embedded.ts` with an IPC channel. Protocol: the child sends `{ type: "ready" }`
 * once the socket accepts connections, or `{ type: "error", message }`; the parent sends
 * `{ type: "stop" }` to close cleanly. If the parent goes away the child closes too.
 */
import fs from "node:fs";
import v8 from "node:v8";
import { PGlite } from "@electric-sql/pglite";
import { trimFreedMemoryEvery } from "../native/malloc-trim.ts";
import { EmbeddedSocketServer } from "./embedded-socket.ts";

/**
 * How much of PostgreSQL's WebAssembly a function must run before V8 recompiles it with its
 * optimizing compiler: 100 times V8's default (roughly 1.8 MB of code executed). At the default,
 * a start and a few queries tier up hundreds of functions that ran a handful of times, and their
 * optimized code stays resident. `npm run bench:embedded-wasm` measures both in one run
 * (docs/benchmarks.md "The embedded database's WebAssembly"). Set before PGlite compiles its
 * module, unless node was given the flag itself (the benchmark's baseline). A V8 without the flag
 * (none of Node 20 to 24's) would print that it does not know it and go on.
 */
const WASM_TIERING_BUDGET = 180_000_000;
if (!process.execArgv.some((arg) => arg.startsWith("--wasm-tiering-budget"))) {
  v8.setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
}

const [dataDirectory, socketPath] = process.argv.slice(2);

/**
 * PostgreSQL's page cache inside PGlite's WebAssembly memory, which never shrinks. PGlite's default
 * (128 MB) made the process about 110 MB larger at idle than this; pages beyond it are read back
 * from the operating system's cache. A 50,000-result upload and the query benchmark measured the
 * same with either (docs/benchmarks.md "Embedded start").
 */
const SHARED_BUFFERS = "32MB";

function send(message: { type: "ready" } | { type: "error"; message: string }): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  if (!dataDirectory || !socketPath) throw new Error("usage: embedded-server <data-directory> <socket-path>");
  fs.mkdirSync(dataDirectory, { recursive: true, mode: 0o700 });

  const db = await PGlite.create({
    dataDir: dataDirectory,
    startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${SHARED_BUFFERS}`],
  });
  // One session serves every pooled connection: each connection holds it for a whole protocol
  // group (Parse … Sync) and for a whole transaction (embedded-socket.ts).
  const server = new EmbeddedSocketServer(db, socketPath, 16);
  await server.start();
  fs.chmodSync(socketPath, 0o600);
  // What compiling PostgreSQL's WebAssembly and starting it freed, then what each burst of
  // queries frees: glibc keeps about 30 MB of it otherwise (src/native/malloc-trim.ts).
  const stopTrimming = trimFreedMemoryEvery();

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    stopTrimming?.();
    try {
      await server.stop();
      await db.close();
    } finally {
      fs.rmSync(socketPath, { force: true });
      process.exit(0);
    }
  };
  process.on("message", (message: { type?: string }) => {
    if (message?.type === "stop") void stop();
  });
  process.on("disconnect", () => void stop());
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => {
    // The parent handles Ctrl-C and tells us to stop; ignore the terminal's copy of the signal.
  });
  send({ type: "ready" });
}

main().catch((error: unknown) => {
  send({ type: "error", message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
