// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { type EmbeddedDatabase, startEmbeddedDatabase } from "./embedded.ts";
import { endsIdle, frame } from "./embedded-socket.ts";

describe("embedded database under concurrent connections", () => {
  let dataDir: string;
  let embedded: EmbeddedDatabase;
  let pool: pg.Pool;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-embedded-socket-"));
    embedded = await startEmbeddedDatabase(dataDir);
    pool = new pg.Pool({ host: embedded.socketDirectory, port: embedded.port, user: "postgres", max: 8 });
  });

  after(async () => {
    await pool.end();
    await embedded.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test("parameterised queries on many connections each get their own statement and values", async () => {
    // Different statements with different parameter types: if one connection's Bind reached
    // another's Parse, a value would come back wrong or fail to bind.
    const answers = await Promise.all(
      Array.from({ length: 400 }, async (_, i) => {
        if (i % 3 === 0) {
          const { rows } = await pool.query("SELECT $1::int + 1 AS v", [i]);
          return rows[0].v === i + 1;
        }
        if (i % 3 === 1) {
          const { rows } = await pool.query("SELECT upper($1::text) AS v, $2::bigint AS w", [`x${i}`, i]);
          return rows[0].v === `X${i}` && rows[0].w === String(i);
        }
        const { rows } = await pool.query("SELECT $1::boolean AS v, $2::text AS w, $3::int AS z", [
          i % 2 === 0,
          `t${i}`,
          i,
        ]);
        return rows[0].v === (i % 2 === 0) && rows[0].w === `t${i}` && rows[0].z === i;
      }),
    );
    assert.equal(answers.filter((ok) => !ok).length, 0);
  });

  test("queries beside transactions on other connections are not cut in two by them", async () => {
    // A transaction that starts between another connection's Parse and Bind used to take the
    // session, run its own statements, and leave that connection to bind one of them.
    const inTransaction = async (i: number) => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const { rows } = await client.query("SELECT $1::text || 'tx' AS v", [`a${i}`]);
        await client.query("COMMIT");
        return rows[0].v === `a${i}tx`;
      } finally {
        client.release();
      }
    };
    const outside = async (i: number) => {
      const { rows } = await pool.query("SELECT $1::int * 2 AS v", [i]);
      return rows[0].v === i * 2;
    };
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? inTransaction(i) : outside(i)).catch(() => false)),
    );
    assert.equal(answers.filter((ok) => !ok).length, 0);
  });

  test("a transaction keeps the session; queries beside it wait and then see its commit", async () => {
    await pool.query("CREATE TABLE IF NOT EXISTS counter (n int NOT NULL)");
    await pool.query("DELETE FROM counter");
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("INSERT INTO counter VALUES ($1)", [1]);
      const outside = pool.query("SELECT count(*)::int AS c FROM counter WHERE n = $1", [1]);
      await client.query("INSERT INTO counter VALUES ($1)", [1]);
      await client.query("COMMIT");
      assert.equal((await outside).rows[0].c, 2);
    } finally {
      client.release();
    }
  });

  test("a connection that goes away inside a transaction releases the session", async () => {
    const client = new pg.Client({ host: embedded.socketDirectory, port: embedded.port, user: "postgres" });
    client.on("error", () => {}); // the socket is destroyed below on purpose
    await client.connect();
    await client.query("BEGIN");
    await client.query("INSERT INTO counter VALUES ($1)", [7]);
    const waiting = pool.query("SELECT count(*)::int AS c FROM counter WHERE n = $1", [7]);
    // Drop the socket without COMMIT or ROLLBACK.
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    assert.equal((await waiting).rows[0].c, 0);
  });

  test("a connection that ends inside a transaction (Terminate) releases the session and its work is rolled back", async () => {
    const client = new pg.Client({ host: embedded.socketDirectory, port: embedded.port, user: "postgres" });
    await client.connect();
    await client.query("BEGIN");
    await client.query("INSERT INTO counter VALUES ($1)", [8]);
    const waiting = pool.query("SELECT count(*)::int AS c FROM counter WHERE n = $1", [8]);
    await client.end(); // sends Terminate without COMMIT
    assert.equal((await waiting).rows[0].c, 0);
  });

  test("a connection's named statements are deallocated when it goes away, and only its own", async () => {
    const named = async () =>
      (
        await pool.query<{ name: string }>(
          "SELECT name FROM pg_prepared_statements WHERE name LIKE 'socket_test_%' ORDER BY name",
        )
      ).rows.map((row) => row.name);
    const connect = async () => {
      const client = new pg.Client({ host: embedded.socketDirectory, port: embedded.port, user: "postgres" });
      await client.connect();
      return client;
    };
    const [leaving, staying, closing] = [await connect(), await connect(), await connect()];
    await leaving.query({ name: "socket_test_leaving", text: "SELECT $1::int AS v", values: [1] });
    await staying.query({ name: "socket_test_staying", text: "SELECT $1::int AS v", values: [2] });
    await closing.query({ name: "socket_test_closed", text: "SELECT $1::int AS v", values: [3] });
    // One its connection deallocated itself is passed over when that connection goes.
    await closing.query("DEALLOCATE socket_test_closed");
    assert.deepEqual(await named(), ["socket_test_leaving", "socket_test_staying"]);
    await leaving.end();
    await closing.end();
    assert.deepEqual(await named(), ["socket_test_staying"]);
    const { rows } = await staying.query({
      name: "socket_test_staying",
      text: "SELECT $1::int AS v",
      values: [4],
    });
    assert.deepEqual(rows, [{ v: 4 }], "the staying connection's statement still runs");
    await staying.end();
    assert.deepEqual(await named(), []);
  });

  test("a message that arrives in many pieces (a 3 MB parameter) is read whole, beside small ones", async () => {
    const large = "x".repeat(3 * 1024 * 1024);
    const [big, ...small] = await Promise.all([
      pool.query("SELECT length($1::text) AS n, md5($1::text) AS h", [large]),
      ...Array.from({ length: 20 }, (_, i) => pool.query("SELECT $1::int AS v", [i])),
    ]);
    assert.equal(big?.rows[0].n, large.length);
    assert.equal(big?.rows[0].h, createHash("md5").update(large).digest("hex"));
    assert.deepEqual(
      small.map((result) => result.rows[0].v),
      Array.from({ length: 20 }, (_, i) => i),
    );
  });

  test("an error inside a protocol group answers the error, skips to Sync, and the connection goes on", async () => {
    const client = await pool.connect();
    try {
      await assert.rejects(client.query("SELEC $1::int", [1]), /syntax error/);
      assert.equal((await client.query("SELECT $1::int AS v", [5])).rows[0].v, 5);
    } finally {
      client.release();
    }
  });

  test("groups pipelined in one write are all answered, in order, on a raw connection", async () => {
    const socket = net.createConnection(path.join(embedded.socketDirectory, `.s.PGSQL.${embedded.port}`));
    const received: Buffer[] = [];
    socket.on("data", (data: Buffer) => received.push(data));
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    const readUntil = async (predicate: (all: Buffer) => boolean): Promise<Buffer> => {
      for (;;) {
        const all = Buffer.concat(received);
        if (predicate(all)) return all;
        await new Promise<void>((resolve) => socket.once("data", () => resolve()));
      }
    };
    // An SSLRequest is declined with 'N', as by a server without TLS.
    socket.write(int32s(8, 80877103));
    assert.equal((await readUntil((all) => all.length >= 1)).toString("latin1", 0, 1), "N");
    received.length = 0;
    socket.write(startupPacket("postgres", "postgres"));
    await readUntil((all) => readyCount(all) === 1);
    received.length = 0;
    socket.write(
      Buffer.concat([...extendedQuery("SELECT 'first' AS v"), ...extendedQuery("SELECT 'second' AS v")]),
    );
    const answer = await readUntil((all) => readyCount(all) === 2);
    socket.destroy();
    const text = answer.toString("latin1");
    assert.ok(text.indexOf("first") !== -1 && text.indexOf("first") < text.indexOf("second"), text);
  });

  test("only ReadyForQuery with status idle ends a connection's hold", () => {
    assert.equal(endsIdle(Uint8Array.from([0x5a, 0, 0, 0, 5, 0x49])), true);
    assert.equal(endsIdle(Uint8Array.from([0x5a, 0, 0, 0, 5, 0x54])), false); // in a transaction
    assert.equal(endsIdle(Uint8Array.from([0x5a, 0, 0, 0, 5, 0x45])), false); // failed transaction
    assert.equal(endsIdle(Uint8Array.from([0x31, 0, 0, 0, 4])), false); // ParseComplete
  });
});

describe("framing the embedded wire", () => {
  test("before the startup packet: requests and the startup are told apart, and only once complete", () => {
    assert.deepEqual(frame(int32s(8, 80877103), false), { kind: "ssl-request", length: 8 });
    assert.deepEqual(frame(int32s(8, 80877104), false), { kind: "ssl-request", length: 8 });
    assert.deepEqual(frame(int32s(16, 80877102, 1, 2), false), { kind: "cancel-request", length: 16 });
    const startup = startupPacket("postgres", "postgres");
    assert.deepEqual(frame(startup, false), { kind: "startup", length: startup.length });
    assert.deepEqual(frame(startup.subarray(0, startup.length - 1), false), { kind: "incomplete" });
    assert.deepEqual(frame(int32s(4, 196608), false), { kind: "invalid", reason: "startup packet length" });
  });

  test("after it: a type byte and a length; Terminate is its own kind; a bad length is refused", () => {
    const sync = Buffer.from([0x53, 0, 0, 0, 4]);
    assert.deepEqual(frame(sync, true), { kind: "message", length: 5 });
    assert.deepEqual(frame(Buffer.concat([sync, sync]), true), { kind: "message", length: 5 });
    assert.deepEqual(frame(Buffer.from([0x58, 0, 0, 0, 4]), true), { kind: "terminate", length: 5 });
    assert.deepEqual(frame(Buffer.from([0x51, 0, 0, 0, 9, 0x53]), true), { kind: "incomplete" });
    assert.deepEqual(frame(Buffer.from([0x51, 0, 0, 0, 3]), true), {
      kind: "invalid",
      reason: "message length",
    });
    assert.deepEqual(frame(Buffer.from([0x51, 0x7f, 0, 0, 0]), true), {
      kind: "invalid",
      reason: "message length",
    });
  });
});

function int32s(...values: number[]): Buffer {
  const buffer = Buffer.alloc(values.length * 4);
  for (const [i, value] of values.entries()) buffer.writeInt32BE(value, i * 4);
  return buffer;
}

function startupPacket(user: string, database: string): Buffer {
  const body = Buffer.from(`user\0${user}\0database\0${database}\0\0`, "latin1");
  return Buffer.concat([int32s(8 + body.length, 196608), body]);
}

function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, "latin1");
  header.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([header, body]);
}

/** Parse, Bind, Execute and Sync of `sql`, unnamed, without parameters. */
function extendedQuery(sql: string): Buffer[] {
  const zero = Buffer.from([0]);
  return [
    message("P", Buffer.concat([zero, Buffer.from(sql, "latin1"), zero, Buffer.from([0, 0])])),
    message("B", Buffer.concat([zero, zero, Buffer.from([0, 0, 0, 0, 0, 0])])),
    message("E", Buffer.concat([zero, Buffer.alloc(4)])),
    message("S", Buffer.alloc(0)),
  ];
}

/** How many ReadyForQuery messages `all` holds, walking it message by message. */
function readyCount(all: Buffer): number {
  let count = 0;
  for (let at = 0; at + 5 <= all.length; at += 1 + all.readInt32BE(at + 1)) {
    if (all[at] === 0x5a) count += 1;
  }
  return count;
}
