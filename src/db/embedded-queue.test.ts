// test-runner: execution-mode independent
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { type EmbeddedDatabase, startEmbeddedDatabase } from "./embedded.ts";
import { endsIdle } from "./embedded-queue.ts";

describe("embedded database under concurrent connections", () => {
  let dataDir: string;
  let embedded: EmbeddedDatabase;
  let pool: pg.Pool;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-embedded-queue-"));
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

  test("only ReadyForQuery with status idle ends a connection's hold", () => {
    assert.equal(endsIdle(Uint8Array.from([0x5a, 0, 0, 0, 5, 0x49])), true);
    assert.equal(endsIdle(Uint8Array.from([0x5a, 0, 0, 0, 5, 0x54])), false); // in a transaction
    assert.equal(endsIdle(Uint8Array.from([0x5a, 0, 0, 0, 5, 0x45])), false); // failed transaction
    assert.equal(endsIdle(Uint8Array.from([0x31, 0, 0, 0, 4])), false); // ParseComplete
  });
});
