// test-runner: execution-mode independent (bytes, compression and SQL; no GraphQL execution)
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { compress, init } from "@bokuweb/zstd-wasm";
import { anAccount, aRepository, aRun, aUser } from "../../test/helpers/builders.ts";
import { createTestDatabase, type TestDatabase } from "../../test/helpers/database.ts";
import { type DatabaseHandle, openDatabase } from "../db/database.ts";
import { newRowKey } from "../graphql/global-id.ts";
import {
  ARTIFACT_CHUNK_BYTES,
  artifactText,
  decodeUploadData,
  sha256Of,
  storeArtifactBytes,
  storedArtifactBytes,
  textChunks,
} from "./artifact-bytes.ts";
import { UploadError, type UploadProblem } from "./errors.ts";

const ZSTD_BLOCK = 128 * 1024;
const NO_CAP = 1 << 30;

/** A SARIF-like report of about `lines` lines: compressible, but not trivially. */
function reportText(lines: number): Buffer {
  const parts = Array.from(
    { length: lines },
    (_, i) =>
      `{"ruleId":"rule-${i % 53}","message":"finding ${i} in src/file-${(i * 7919) % 1013}.ts","é":"ü"}`,
  );
  return Buffer.from(parts.join("\n"), "utf8");
}

/** The system zstd command line, as the contract's CLI (and a shell script) would compress. */
function zstdCli(input: Buffer, args: string[] = []): Buffer {
  return execFileSync("/usr/bin/zstd", ["-q", "-c", ...args], { input, maxBuffer: 1 << 28 });
}

/** `bytes` in pieces of `size` (views). */
async function* inPieces(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<{ bytes: Buffer; largest: number }> {
  const parts: Uint8Array[] = [];
  let largest = 0;
  for await (const chunk of chunks) {
    parts.push(chunk);
    largest = Math.max(largest, chunk.length);
  }
  return { bytes: Buffer.concat(parts), largest };
}

/** Reads `chunks` until it throws; the error must be an UploadError of `problem`. */
async function assertRefused(
  chunks: AsyncIterable<Uint8Array>,
  problem: UploadProblem,
  message: RegExp,
): Promise<number> {
  let seen = 0;
  await assert.rejects(
    async () => {
      for await (const chunk of chunks) seen += chunk.length;
    },
    (error: unknown) => {
      assert.ok(error instanceof UploadError, `expected an UploadError, got ${String(error)}`);
      assert.equal(error.problem, problem);
      assert.match(error.message, message);
      return true;
    },
  );
  return seen;
}

function assertUploadError(fn: () => unknown, problem: UploadProblem, message: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof UploadError, `expected an UploadError, got ${String(error)}`);
    assert.equal(error.problem, problem);
    assert.match(error.message, message);
    return true;
  });
}

before(() => init());

describe("decodeUploadData", () => {
  test("plain data is the text's UTF-8 bytes", () => {
    assert.deepEqual(decodeUploadData('{"a":"é"}', "NONE"), Buffer.from('{"a":"é"}', "utf8"));
  });

  test("compressed data is base64, with or without padding, across lines and spaces", () => {
    const bytes = randomBytes(1000);
    const encoded = bytes.toString("base64");
    assert.deepEqual(decodeUploadData(encoded, "ZSTD"), bytes);
    assert.deepEqual(decodeUploadData(encoded.replace(/=+$/, ""), "GZIP"), bytes);
    const wrapped = `${encoded.match(/.{1,76}/g)!.join("\r\n")}\n  \t`;
    assert.deepEqual(decodeUploadData(wrapped, "ZSTD"), bytes);
    assert.deepEqual(decodeUploadData("QQ==", "ZSTD"), Buffer.from("A"));
    assert.deepEqual(decodeUploadData("QUI", "ZSTD"), Buffer.from("AB"));
  });

  test("empty data is refused as INVALID_INPUT", () => {
    assertUploadError(() => decodeUploadData("", "NONE"), "INVALID_INPUT", /^data is empty$/);
    assertUploadError(() => decodeUploadData("", "ZSTD"), "INVALID_INPUT", /^data is empty$/);
    assertUploadError(() => decodeUploadData(" \n", "GZIP"), "INVALID_INPUT", /^data is empty$/);
  });

  test("anything but standard base64 is refused as INVALID_ENCODING naming what is wrong", () => {
    const invalid = (data: string, message: RegExp) =>
      assertUploadError(() => decodeUploadData(data, "ZSTD"), "INVALID_ENCODING", message);
    invalid("QUJD-EVG", /^data is not valid base64 .*unexpected character "-" at offset 4$/);
    invalid("QUJD_EVG", /unexpected character "_" at offset 4/);
    invalid("QUJDéEVG", /unexpected character U\+00E9 at offset 4/);
    invalid("QUJD\u0000", /unexpected character U\+0000 at offset 4/);
    invalid("QQ==QUJD", /unexpected character "Q" at offset 4 after the padding/);
    invalid("QQ===", /unexpected character "=" at offset 4 after the padding/);
    invalid("QUJDR", /5 base64 characters and 0 "=" cannot be whole bytes/);
    invalid("QUJ==", /3 base64 characters and 2 "=" cannot be whole bytes/);
    invalid('{"version":"2.1.0"}', /unexpected character "\{" at offset 0/);
  });

  test("a 100 MB base64 string is checked and decoded", () => {
    const bytes = Buffer.alloc(75 * 1024 * 1024, 0xa7);
    bytes.writeUInt32BE(0xdeadbeef, bytes.length - 4);
    const decoded = decodeUploadData(bytes.toString("base64"), "ZSTD");
    assert.equal(decoded.length, bytes.length);
    assert.ok(decoded.equals(bytes));
  });
});

describe("textChunks", () => {
  const text = reportText(30_000);
  const pieceSizes = [7, 4093, 65_537, ARTIFACT_CHUNK_BYTES];

  test("plain text passes through whole, streamed in any pieces", async () => {
    for (const size of [1, 13, ARTIFACT_CHUNK_BYTES]) {
      const { bytes } = await collect(textChunks(inPieces(text.subarray(0, 20_000), size), "NONE", NO_CAP));
      assert.ok(bytes.equals(text.subarray(0, 20_000)), `pieces of ${size}`);
    }
    const whole = await collect(textChunks(text, "NONE", NO_CAP));
    assert.ok(whole.bytes.equals(text));
    assert.ok(whole.largest <= ARTIFACT_CHUNK_BYTES, "a buffer is streamed in slices of at most 1 MiB");
  });

  test("zstd from the wasm encoder decompresses to the text, one block at most per chunk", async () => {
    const compressed = Buffer.from(compress(text, 3));
    for (const size of pieceSizes) {
      const { bytes, largest } = await collect(textChunks(inPieces(compressed, size), "ZSTD", NO_CAP));
      assert.ok(bytes.equals(text), `pieces of ${size}`);
      assert.ok(largest <= ZSTD_BLOCK, `pieces of ${size}: a chunk of ${largest} bytes`);
    }
    assert.ok((await collect(textChunks(compressed, "ZSTD", NO_CAP))).bytes.equals(text));
  });

  test("zstd from the zstd command line decompresses: from a file, from a pipe, level 12, several frames", async () => {
    const variants = {
      // A file's size is known: the frame declares it, with a checksum (the CLI's default).
      file: zstdCli(text),
      level12: zstdCli(text, ["-12"]),
      // From a pipe the size is unknown, so the frame declares none.
      pipe: execFileSync("sh", ["-c", "cat | /usr/bin/zstd -q -c --no-check"], {
        input: text,
        maxBuffer: 1 << 28,
      }),
      // Concatenated frames and a skippable frame between them are one stream.
      frames: Buffer.concat([
        zstdCli(text.subarray(0, 1000)),
        Buffer.from([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]),
        zstdCli(text.subarray(1000)),
      ]),
    };
    for (const [name, compressed] of Object.entries(variants)) {
      for (const size of pieceSizes) {
        const { bytes, largest } = await collect(textChunks(inPieces(compressed, size), "ZSTD", NO_CAP));
        assert.ok(bytes.equals(text), `${name}, pieces of ${size}`);
        assert.ok(largest <= ZSTD_BLOCK, `${name}, pieces of ${size}`);
      }
    }
  });

  test("gzip decompresses to the text, streamed in any pieces", async () => {
    const compressed = gzipSync(text);
    for (const size of [61, 4093, ARTIFACT_CHUNK_BYTES]) {
      const { bytes } = await collect(textChunks(inPieces(compressed, size), "GZIP", NO_CAP));
      assert.ok(bytes.equals(text), `pieces of ${size}`);
    }
    const twoMembers = Buffer.concat([gzipSync(text.subarray(0, 10)), gzipSync(text.subarray(10))]);
    assert.ok((await collect(textChunks(twoMembers, "GZIP", NO_CAP))).bytes.equals(text));
  });

  test("corrupt, truncated or foreign zstd data is refused as INVALID_ENCODING", async () => {
    const compressed = zstdCli(text);
    const corrupt = Buffer.from(compressed);
    for (let i = 40; i < corrupt.length; i += 97) corrupt[i] = corrupt[i]! ^ 0x5a;
    await assertRefused(textChunks(corrupt, "ZSTD", NO_CAP), "INVALID_ENCODING", /^data is not valid zstd: /);
    await assertRefused(
      textChunks(compressed.subarray(0, compressed.length - 100), "ZSTD", NO_CAP),
      "INVALID_ENCODING",
      /^data is not valid zstd: the data ends in the middle of a frame/,
    );
    await assertRefused(
      textChunks(gzipSync(text), "ZSTD", NO_CAP),
      "INVALID_ENCODING",
      /^data is not valid zstd: it does not start with a zstd frame$/,
    );
    await assertRefused(
      textChunks(Buffer.concat([compressed, Buffer.from("trailing")]), "ZSTD", NO_CAP),
      "INVALID_ENCODING",
      /^data is not valid zstd: unexpected bytes after a frame$/,
    );
  });

  test("a zstd frame asking for a window over 128 MiB is refused before anything is allocated", async () => {
    // Magic, a descriptor without size or checksum, and a window descriptor of 2^28 bytes.
    const header = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 18 << 3, 0x01, 0x00, 0x00]);
    await assertRefused(
      textChunks(header, "ZSTD", NO_CAP),
      "INVALID_ENCODING",
      /^data is not valid zstd: a frame needs a 268435456-byte window, more than the 134217728 decoded here/,
    );
  });

  test("corrupt or truncated gzip data is refused as INVALID_ENCODING", async () => {
    const compressed = gzipSync(text);
    await assertRefused(
      textChunks(compressed.subarray(0, 5000), "GZIP", NO_CAP),
      "INVALID_ENCODING",
      /^data is not valid gzip: unexpected end of file$/,
    );
    await assertRefused(
      textChunks(Buffer.from("not gzip at all"), "GZIP", NO_CAP),
      "INVALID_ENCODING",
      /^data is not valid gzip: incorrect header check$/,
    );
  });

  test("a zstd bomb that declares its size is refused at its header, before any output", async () => {
    const bomb = Buffer.from(compress(new Uint8Array(50 * 1024 * 1024), 3));
    assert.ok(bomb.length < 10_000);
    const seen = await assertRefused(
      textChunks(bomb, "ZSTD", 1024 * 1024),
      "TOO_LARGE",
      /^the report is larger than the limit of 1048576 bytes \(ASSAY_ARTIFACT_MAX_BYTES\)$/,
    );
    assert.equal(seen, 0);
  });

  test("a zstd bomb without a declared size stops at the cap, block by block", async () => {
    const bomb = execFileSync("sh", ["-c", "head -c 52428800 /dev/zero | /usr/bin/zstd -q -c"], {
      maxBuffer: 1 << 20,
    });
    let largest = 0;
    const capped = textChunks(inPieces(bomb, 64), "ZSTD", 1024 * 1024);
    const watched = (async function* () {
      for await (const chunk of capped) {
        largest = Math.max(largest, chunk.length);
        yield chunk;
      }
    })();
    const seen = await assertRefused(watched, "TOO_LARGE", /limit of 1048576 bytes/);
    assert.ok(seen <= 1024 * 1024, `${seen} bytes came out before the refusal`);
    assert.ok(largest <= ZSTD_BLOCK, "never more than one block of output at a time");
  });

  test("gzip and plain text past the cap are refused; at the cap they pass", async () => {
    const zeros = Buffer.alloc(20 * 1024 * 1024);
    const seen = await assertRefused(
      textChunks(gzipSync(zeros), "GZIP", 1024 * 1024),
      "TOO_LARGE",
      /1048576/,
    );
    assert.ok(seen <= 1024 * 1024);
    await assertRefused(textChunks(text, "NONE", text.length - 1), "TOO_LARGE", /limit of \d+ bytes/);
    assert.equal((await collect(textChunks(text, "NONE", text.length))).bytes.length, text.length);
    const exact = await collect(textChunks(zstdCli(text), "ZSTD", text.length));
    assert.equal(exact.bytes.length, text.length);
  });
});

test("sha256Of hashes the chunks as they pass, unchanged", async () => {
  const text = reportText(5000);
  const hash = createHash("sha256");
  const { bytes } = await collect(sha256Of(inPieces(text, 999), hash));
  assert.ok(bytes.equals(text));
  assert.equal(hash.digest("hex"), createHash("sha256").update(text).digest("hex"));
});

describe("stored artifact bytes", () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  const statements: string[] = [];

  before(async () => {
    database = await createTestDatabase();
    handle = await openDatabase({ ...database, databasePoolSize: 2 }, { onQuery: (s) => statements.push(s) });
  });
  after(async () => {
    await handle?.close();
    await database?.drop();
  });

  /** A CHANGES artifact row (the kind without a check) of a fresh run, with `bytes` as its size. */
  async function anArtifact(compression: "NONE" | "ZSTD" | "GZIP", bytes: Buffer): Promise<string> {
    const { db } = handle;
    const user = await aUser(db);
    const account = await anAccount(db, {}, [{ user, role: "ADMIN" }]);
    const repository = await aRepository(db, account);
    const run = await aRun(db, repository, { status: "PENDING" });
    const row = await db
      .insertInto("artifacts")
      .values({
        key: newRowKey(),
        repository_id: repository.id,
        run_id: run.id,
        check_id: null,
        kind: "CHANGES",
        analyzer: "changes",
        analyzer_type: null,
        language_key: null,
        reporter: "test",
        reporter_version: null,
        work_dir: null,
        compression,
        stored_bytes: bytes.length,
        content_sha256: createHash("sha256").update(bytes).digest(),
        error: null,
        uploaded_by: user.id,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  }

  test("bytes are stored in 1 MiB chunks, several per INSERT, and read back one chunk per query", async () => {
    const bytes = randomBytes(9 * ARTIFACT_CHUNK_BYTES + ARTIFACT_CHUNK_BYTES / 2);
    const id = await anArtifact("NONE", bytes);
    statements.length = 0;
    await handle.db.transaction().execute((tx) => storeArtifactBytes(tx, id, bytes));
    const inserts = statements.filter((s) => /^insert into "artifact_chunks"/.test(s));
    assert.equal(inserts.length, 3, "10 chunks in INSERTs of 4");

    const rows = await handle.db
      .selectFrom("artifact_chunks")
      .select(["seq", (eb) => eb.fn<number>("length", ["data"]).as("size")])
      .where("artifact_id", "=", id)
      .orderBy("seq")
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.seq, Number(r.size)]),
      [...Array.from({ length: 9 }, (_, i) => [i, ARTIFACT_CHUNK_BYTES]), [9, ARTIFACT_CHUNK_BYTES / 2]],
    );

    statements.length = 0;
    const read = await collect(storedArtifactBytes(handle.db, id));
    assert.ok(read.bytes.equals(bytes));
    assert.equal(read.largest, ARTIFACT_CHUNK_BYTES);
    assert.equal(statements.length, 11, "one query per chunk and one finding no more");
  });

  test("a zstd artifact of 2.5 MiB reads back as its text, inside a transaction too", async () => {
    // Hexadecimal compresses about two to one: 5 MB of text, 2.5 MiB stored, three chunks.
    const text = Buffer.from(randomBytes(2_600_000).toString("hex"));
    const stored = zstdCli(text, ["-1"]);
    assert.ok(stored.length > 2 * ARTIFACT_CHUNK_BYTES && stored.length < 3 * ARTIFACT_CHUNK_BYTES);
    const id = await anArtifact("ZSTD", stored);
    await handle.db.transaction().execute(async (tx) => {
      await storeArtifactBytes(tx, id, stored);
      const { bytes } = await collect(artifactText(tx, { id, compression: "ZSTD" }, NO_CAP));
      assert.ok(bytes.equals(text));
    });
    await assertRefused(
      artifactText(handle.db, { id, compression: "ZSTD" }, text.length - 1),
      "TOO_LARGE",
      /ASSAY_ARTIFACT_MAX_BYTES/,
    );
  });

  test("a missing chunk is an error, not a shorter artifact", async () => {
    const bytes = randomBytes(3 * ARTIFACT_CHUNK_BYTES);
    const id = await anArtifact("NONE", bytes);
    await storeArtifactBytes(handle.db, id, bytes);
    await handle.db
      .deleteFrom("artifact_chunks")
      .where("artifact_id", "=", id)
      .where("seq", "=", 1)
      .execute();
    await assert.rejects(collect(storedArtifactBytes(handle.db, id)), /missing its chunk 1/);
  });

  test("an artifact without chunks reads as no bytes", async () => {
    const id = await anArtifact("NONE", Buffer.alloc(0));
    await storeArtifactBytes(handle.db, id, Buffer.alloc(0));
    assert.equal((await collect(storedArtifactBytes(handle.db, id))).bytes.length, 0);
  });
});
