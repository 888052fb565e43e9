import type { PGlite } from "@electric-sql/pglite";
import type { PGLiteSocketServer } from "@electric-sql/pglite-socket";

/**
 * PGlite is one PostgreSQL session; the socket server multiplexes every client connection onto
 * it through a queue. pglite-socket 0.2.17 queues single protocol messages and keeps a connection
 * to itself only while a transaction is open. That is not enough: a query of the extended
 * protocol is several messages (Parse, Bind, Describe, Execute, Sync), and when two connections'
 * messages interleave, one connection's Bind binds the other's unnamed statement — the wrong SQL,
 * or "incorrect binary data format in bind parameter".
 *
 * {@link serializeProtocolGroups} replaces the queue's scheduling with one that gives the session
 * to a connection from its first message until the server answers ReadyForQuery with status idle
 * (`Z` … `I`): the end of a Sync or simple Query outside a transaction. Inside a transaction
 * (status `T` or `E`) the connection keeps the session until it commits or rolls back, as before.
 * A connection that goes away while holding the session has its group ended and its transaction
 * rolled back, and the others go on.
 */

interface QueuedMessage {
  handlerId: number;
  message: Uint8Array;
  resolve: (bytes: number) => void;
  reject: (error: unknown) => void;
  onData: (data: Uint8Array) => void;
}

/** The parts of pglite-socket's (unexported) query queue this module replaces or reads. */
interface QueryQueue {
  db: PGlite;
  queue: QueuedMessage[];
  processing: boolean;
  lastHandlerId: number | null;
  processQueue(): Promise<void>;
  clearTransactionIfNeeded(handlerId: number): Promise<void>;
}

const READY_FOR_QUERY = 0x5a; // 'Z'
const IDLE = 0x49; // 'I'
/** A frontend Sync message: 'S' and the length 4. */
const SYNC_MESSAGE = new Uint8Array([0x53, 0, 0, 0, 4]);

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

/** The last `n` bytes of `previous` followed by `next`. */
function lastBytes(previous: Uint8Array, next: Uint8Array, n: number): Uint8Array {
  if (next.length >= n) return next.slice(next.length - n);
  const joined = new Uint8Array(previous.length + next.length);
  joined.set(previous);
  joined.set(next, previous.length);
  return joined.slice(Math.max(0, joined.length - n));
}

/** Installs protocol-group scheduling on `server`'s queue (see the module comment). */
export function serializeProtocolGroups(server: PGLiteSocketServer): void {
  const queue = (server as unknown as { queryQueue?: QueryQueue }).queryQueue;
  if (
    !queue ||
    !Array.isArray(queue.queue) ||
    typeof queue.processQueue !== "function" ||
    typeof queue.clearTransactionIfNeeded !== "function"
  ) {
    throw new Error("pglite-socket's query queue is not the shape this version of Assay expects");
  }
  const db = queue.db;
  /** The connection that holds the session, or null when it is free. */
  let owner: number | null = null;

  queue.processQueue = async () => {
    if (queue.processing) return;
    queue.processing = true;
    try {
      while (queue.queue.length > 0) {
        const index = owner === null ? 0 : queue.queue.findIndex((item) => item.handlerId === owner);
        // The owner's next message has not arrived yet: the others wait for it.
        if (index === -1) break;
        const [item] = queue.queue.splice(index, 1) as [QueuedMessage];
        owner = item.handlerId;
        let tail: Uint8Array = new Uint8Array(0);
        let bytes = 0;
        try {
          await db.runExclusive(() =>
            db.execProtocolRawStream(item.message, {
              onRawData: (data: Uint8Array) => {
                bytes += data.length;
                tail = lastBytes(tail, data, 6);
                item.onData(data);
              },
            }),
          );
        } catch (error) {
          // The handler closes its connection on a rejected message; releasing is left to that.
          item.reject(error);
          continue;
        }
        if (endsIdle(tail)) owner = null;
        queue.lastHandlerId = item.handlerId;
        item.resolve(bytes);
      }
    } finally {
      queue.processing = false;
    }
  };

  queue.clearTransactionIfNeeded = async (handlerId: number) => {
    if (owner === handlerId) {
      try {
        await db.runExclusive(() => db.execProtocolRaw(SYNC_MESSAGE));
        if (db.isInTransaction()) await db.exec("ROLLBACK");
      } finally {
        owner = null;
      }
    }
    await queue.processQueue();
  };
}
