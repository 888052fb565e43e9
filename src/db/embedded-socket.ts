/**
 * The embedded database's wire: PGlite's one PostgreSQL session served to many `pg` connections
 * over a Unix socket.
 *
 * PGlite is a single session, so the connections take turns. A connection holds the session from
 * its first message until the session answers ReadyForQuery with status idle (`Z` … `I`): the end
 * of a Sync or a simple Query outside a transaction. Inside a transaction (status `T` or `E`) it
 * keeps the session until it commits or rolls back. Anything less lets one connection's Bind
 * reach another's unnamed statement, or run inside another's transaction.
 *
 * Each turn hands PGlite every complete message the connection has sent (a `pg` query is Parse,
 * Bind, Describe, Execute and Sync in one write) in one call, and writes the answer back in one
 * write. Passing them one message at a time, as pglite-socket does, cost about ten times
 * PGlite's own time per query (docs/benchmarks.md).
 *
 * A connection that goes away while holding the session has its group ended (Sync) and its
 * transaction rolled back, and the others go on. Terminate (`X`) closes the connection here:
 * PGlite's session outlives every connection.
 *
 * Named statements live in the session, not in a connection, so each connection's names must be its
 * own (src/db/prepared-statements.ts gives each client a prefix of its own), and the names a
 * connection prepared (Parse with a name) and did not close are deallocated once it is gone, when
 * the session is next free: a pool that replaces its idle connections would otherwise fill the
 * session with plans nobody can use.
 */
import fs from "node:fs";
import net from "node:net";
import type { PGlite } from "@electric-sql/pglite";

const READY_FOR_QUERY = 0x5a; // 'Z'
const IDLE = 0x49; // 'I'
const TERMINATE = 0x58; // 'X'
const PARSE = 0x50; // 'P'
const CLOSE = 0x43; // 'C'
const STATEMENT = 0x53; // 'S', what a Close closes
/** A frontend Sync message: 'S' and the length 4. */
const SYNC_MESSAGE = new Uint8Array([0x53, 0, 0, 0, 4]);
/** Codes a message without a type byte can carry in place of a protocol version. */
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
/** Larger than any message `pg` sends for what Assay stores (an artifact chunk is at most a few MiB). */
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/** True when `tail` (the last six bytes of a response) is ReadyForQuery with status idle. */
export function endsIdle(tail: Uint8Array): boolean {
  return (
    tail.length === 6 &&
    tail[0] === READY_FOR_QUERY &&
    tail[1] === 0 &&
    tail[2] === 0 &&
    tail[3] === 0 &&
    tail[4] === 5 &&
    tail[5] === IDLE
  );
}

/** What the start of a connection's buffer holds. */
export type Framed =
  | { kind: "incomplete" }
  | { kind: "invalid"; reason: string }
  | { kind: "ssl-request"; length: number }
  | { kind: "cancel-request"; length: number }
  | { kind: "startup"; length: number }
  | { kind: "terminate"; length: number }
  | { kind: "message"; length: number };

/**
 * Frames the first message of `buffer`. Before the startup packet a message has no type byte
 * (length, then a protocol version or a request code); after it, a type byte and a length.
 */
export function frame(buffer: Buffer, started: boolean): Framed {
  if (!started) {
    if (buffer.length < 8) return { kind: "incomplete" };
    const length = buffer.readInt32BE(0);
    const code = buffer.readInt32BE(4);
    if (length < 8 || length > 10_000) return { kind: "invalid", reason: "startup packet length" };
    if (buffer.length < length) return { kind: "incomplete" };
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) return { kind: "ssl-request", length };
    if (code === CANCEL_REQUEST) return { kind: "cancel-request", length };
    return { kind: "startup", length };
  }
  if (buffer.length < 5) return { kind: "incomplete" };
  const declared = buffer.readInt32BE(1);
  if (declared < 4 || declared > MAX_MESSAGE_BYTES) return { kind: "invalid", reason: "message length" };
  const length = 1 + declared;
  if (buffer.length < length) return { kind: "incomplete" };
  return { kind: buffer[0] === TERMINATE ? "terminate" : "message", length };
}

/** The length of the incomplete message at the start of `buffer`, once its header is here; else 0. */
function neededBytes(buffer: Buffer, started: boolean): number {
  if (!started) return buffer.length >= 4 ? buffer.readInt32BE(0) : 0;
  return buffer.length >= 5 ? 1 + buffer.readInt32BE(1) : 0;
}

class Connection {
  /** Bytes received and not yet framed, as they came. */
  received: Buffer[] = [];
  receivedBytes = 0;
  /** How many bytes the message being received needs: framing waits until they are here. */
  needed = 0;
  /** Complete messages waiting for this connection's turn. */
  messages: Buffer[] = [];
  started = false;
  closed = false;
  /** Named statements this connection prepared and has not closed. */
  readonly statements = new Set<string>();

  constructor(readonly socket: net.Socket) {}

  /** Notes the statement a Parse names, or forgets the one a Close closes. */
  track(message: Buffer): void {
    if (message[0] === PARSE) {
      const name = cString(message, 5);
      if (name !== "") this.statements.add(name);
    } else if (message[0] === CLOSE && message[5] === STATEMENT) {
      this.statements.delete(cString(message, 6));
    }
  }
}

/** The NUL-terminated string of `message` at `start`. */
function cString(message: Buffer, start: number): string {
  const end = message.indexOf(0, start);
  return message.toString("utf8", start, end === -1 ? message.length : end);
}

/** `name` as an SQL identifier. */
function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Serves `db` on a Unix socket at `path` (see the module comment). */
export class EmbeddedSocketServer {
  private readonly server: net.Server;
  private readonly connections = new Set<Connection>();
  /** The connection that holds the session, or null when it is free. */
  private owner: Connection | null = null;
  /** Connections with messages waiting, in the order they became ready. */
  private readonly waiting: Connection[] = [];
  /** Statements of departed connections, deallocated when the session is next free. */
  private orphans: string[] = [];
  private running = false;

  constructor(
    private readonly db: PGlite,
    private readonly path: string,
    maxConnections: number,
  ) {
    this.server = net.createServer((socket) => this.accept(socket));
    this.server.maxConnections = maxConnections;
  }

  start(): Promise<void> {
    fs.rmSync(this.path, { force: true });
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.path, () => {
        this.server.off("error", reject);
        resolve();
      });
    });
  }

  /** Stops listening and closes every connection. */
  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const connection of this.connections) connection.socket.destroy();
    await closed;
  }

  private accept(socket: net.Socket): void {
    const connection = new Connection(socket);
    this.connections.add(connection);
    socket.setNoDelay(true);
    socket.on("data", (data: Buffer) => this.receive(connection, data));
    socket.on("error", () => this.close(connection));
    socket.on("close", () => this.close(connection));
  }

  private receive(connection: Connection, data: Buffer): void {
    if (connection.closed) return;
    connection.received.push(data);
    connection.receivedBytes += data.length;
    // A large message comes in many pieces: they are joined once, when all of it is here.
    if (connection.receivedBytes < connection.needed) return;
    let buffer = connection.received.length === 1 ? data : Buffer.concat(connection.received);
    let received = false;
    for (;;) {
      const framed = frame(buffer, connection.started);
      if (framed.kind === "incomplete") {
        connection.needed = neededBytes(buffer, connection.started);
        break;
      }
      if (framed.kind === "invalid") {
        connection.socket.destroy();
        return;
      }
      const message = buffer.subarray(0, framed.length);
      buffer = buffer.subarray(framed.length);
      if (framed.kind === "ssl-request") {
        connection.socket.write("N");
      } else if (framed.kind === "cancel-request") {
        // Cancelling would need a second session; the request is answered by closing, as PostgreSQL does.
        connection.socket.destroy();
        return;
      } else if (framed.kind === "terminate") {
        connection.socket.end();
        this.close(connection);
        return;
      } else {
        connection.started = true;
        connection.track(message);
        connection.messages.push(message);
        received = true;
      }
    }
    connection.received = buffer.length > 0 ? [buffer] : [];
    connection.receivedBytes = buffer.length;
    if (received && this.owner !== connection && !this.waiting.includes(connection)) {
      this.waiting.push(connection);
    }
    void this.pump();
  }

  /** Gives the session to the next connection whose turn it is, while there is one. */
  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        if (!this.owner && this.orphans.length > 0) {
          await this.deallocateOrphans();
          continue;
        }
        let next: Connection | undefined;
        if (this.owner) {
          // The holder's next message has not arrived yet: the others wait for it.
          if (this.owner.messages.length === 0) break;
          next = this.owner;
        } else {
          next = this.waiting.shift();
          if (!next) break;
          if (next.closed || next.messages.length === 0) continue;
        }
        await this.turn(next);
      }
    } finally {
      this.running = false;
    }
  }

  /** Runs every message `connection` has waiting, and writes the answer in one go. */
  private async turn(connection: Connection): Promise<void> {
    this.owner = connection;
    const input =
      connection.messages.length === 1 ? connection.messages[0]! : Buffer.concat(connection.messages);
    connection.messages = [];
    const chunks: Uint8Array[] = [];
    try {
      await this.db.runExclusive(() =>
        this.db.execProtocolRawStream(input, { onRawData: (data: Uint8Array) => chunks.push(data.slice()) }),
      );
    } catch {
      // PGlite refused the input outright: this connection cannot go on.
      connection.socket.destroy();
      await this.release(connection).catch(() => {});
      return;
    }
    const output = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    const tail = output.subarray(Math.max(0, output.length - 6));
    if (output.length > 0 && !connection.closed && connection.socket.writable)
      connection.socket.write(output);
    if (connection.closed) {
      await this.release(connection).catch(() => {});
    } else if (endsIdle(tail)) {
      this.owner = null;
      // What it sent meanwhile waits behind the others.
      if (connection.messages.length > 0) this.waiting.push(connection);
    }
  }

  private close(connection: Connection): void {
    if (connection.closed) return;
    connection.closed = true;
    connection.messages = [];
    this.connections.delete(connection);
    const index = this.waiting.indexOf(connection);
    if (index !== -1) this.waiting.splice(index, 1);
    if (connection.statements.size > 0) {
      this.orphans.push(...connection.statements);
      void this.pump();
    }
    // A turn in progress releases the session itself when it ends.
    if (this.owner === connection && !this.running) {
      // A failed release still frees the session (release's finally); the others go on either way.
      void this.release(connection)
        .catch(() => {})
        .then(() => this.pump());
    }
  }

  /** Deallocates the statements departed connections left; one that is already gone is passed over. */
  private async deallocateOrphans(): Promise<void> {
    const names = this.orphans;
    this.orphans = [];
    for (const name of names) await this.db.exec(`DEALLOCATE ${quoteIdentifier(name)}`).catch(() => {});
  }

  /** Ends what a departed holder left open: its protocol group, then its transaction. */
  private async release(connection: Connection): Promise<void> {
    if (this.owner !== connection) return;
    try {
      await this.db.runExclusive(() => this.db.execProtocolRaw(SYNC_MESSAGE));
      // `exec` takes PGlite's lock itself, so it runs after the lock above is let go.
      if (this.db.isInTransaction()) await this.db.exec("ROLLBACK");
    } finally {
      this.owner = null;
    }
  }
}
