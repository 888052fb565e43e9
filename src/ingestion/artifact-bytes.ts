import type { Hash } from "node:crypto";
import { pipeline, Readable } from "node:stream";
import { promisify } from "node:util";
import { createGunzip, gzip } from "node:zlib";
import { Decompress } from "fzstd";
import type { Kysely } from "kysely";
import type { Database } from "../db/types.ts";
import type { ArtifactCompression, ArtifactRow } from "../db/types-ingestion.ts";
import {
  type ArtifactChunk,
  findArtifactChunkFrom,
  insertArtifactChunks,
} from "../modules/artifacts/artifact-chunk-store.ts";
import { UploadError } from "./errors.ts";

/**
 * An artifact's bytes (docs/ingestion.md): decoded from the upload's `data`, stored as received in
 * 1 MiB chunks, and read back as the report's text through the decompressor, with the size cap
 * counted after decompression. Everything streams, so a 200 MB artifact never sits in memory whole.
 */

/** Size of one stored chunk (`artifact_chunks.data`) and of the slices a buffer is streamed in. */
export const ARTIFACT_CHUNK_BYTES = 1024 * 1024;

/** Chunks written per INSERT: 4 MiB of parameters, well under what either backend takes at once. */
const CHUNKS_PER_INSERT = 4;

/**
 * The largest zstd window decoded: the zstd command line's own default limit (`--memory=128MB`,
 * window log 27). The decoder allocates the window up front, so a forged header could otherwise
 * ask for 2 GB.
 */
const ZSTD_MAX_WINDOW_BYTES = 128 * 1024 * 1024;

/** The largest zstd block, compressed or not (RFC 8878 §3.1.1.2.4). */
const ZSTD_MAX_BLOCK_BYTES = 128 * 1024;

/**
 * The bytes an upload's `data` stands for: the text itself (NONE), or the decoded base64 of the
 * compressed text (ZSTD, GZIP). Refuses empty data and anything but standard base64.
 */
export function decodeUploadData(data: string, compression: ArtifactCompression): Buffer {
  if (compression === "NONE") {
    if (data.length === 0) throw new UploadError("INVALID_INPUT", "data is empty");
    return Buffer.from(data, "utf8");
  }
  const problem = base64Problem(data);
  if (problem === "empty") throw new UploadError("INVALID_INPUT", "data is empty");
  if (problem !== null) {
    throw new UploadError(
      "INVALID_ENCODING",
      `data is not valid base64 (compression ${compression} needs base64 of the compressed report): ${problem}`,
    );
  }
  return Buffer.from(data, "base64");
}

// Char code → 1 for the standard base64 alphabet, 2 for whitespace, 0 otherwise.
const BASE64_CLASS = new Uint8Array(128);
for (const char of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") {
  BASE64_CLASS[char.charCodeAt(0)] = 1;
}
for (const char of " \t\n\r") BASE64_CLASS[char.charCodeAt(0)] = 2;
const EQUALS = 61;

/**
 * Why `data` is not strict base64, "empty" when it holds no base64 character, or null when it is
 * fine. One pass over the character codes: no regular expression (no backtracking on a huge
 * string) and no copy.
 */
function base64Problem(data: string): string | null {
  let symbols = 0;
  let padding = 0;
  for (let i = 0; i < data.length; i++) {
    const code = data.charCodeAt(i);
    const kind = code < 128 ? BASE64_CLASS[code] : 0;
    if (kind === 2) continue;
    if (kind === 1 && padding === 0) {
      symbols++;
    } else if (code === EQUALS && padding < 2) {
      padding++;
    } else {
      const what = code === EQUALS || kind === 1 ? "after the padding" : "";
      return `unexpected character ${describeChar(data, i)} at offset ${i}${what ? ` ${what}` : ""}`;
    }
  }
  if (symbols === 0 && padding === 0) return "empty";
  const fits = padding > 0 ? (symbols + padding) % 4 === 0 : symbols % 4 !== 1;
  return fits ? null : `${symbols} base64 characters and ${padding} "=" cannot be whole bytes (truncated?)`;
}

/** A character for an error message: quoted when printable, else its code point. */
function describeChar(text: string, index: number): string {
  const code = text.codePointAt(index) ?? 0;
  return code > 32 && code < 127
    ? JSON.stringify(String.fromCodePoint(code))
    : `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * The report's text, decompressed as it streams: zstd by `fzstd`, gzip by node:zlib, NONE as is.
 * Throws TOO_LARGE as soon as more than `maxBytes` of text came out (the rest is never
 * decompressed, so a zip bomb costs nothing), and INVALID_ENCODING for corrupt compressed data.
 */
export async function* textChunks(
  bytes: Uint8Array | AsyncIterable<Uint8Array>,
  compression: ArtifactCompression,
  maxBytes: number,
): AsyncGenerator<Uint8Array> {
  const source = bytes instanceof Uint8Array ? slices(bytes) : bytes;
  const text =
    compression === "ZSTD" ? zstdText(source, maxBytes) : compression === "GZIP" ? gzipText(source) : source;
  let total = 0;
  for await (const chunk of text) {
    total += chunk.length;
    if (total > maxBytes) throw tooLarge(maxBytes);
    yield chunk;
  }
}

function tooLarge(maxBytes: number): UploadError {
  return new UploadError(
    "TOO_LARGE",
    `the report is larger than the limit of ${maxBytes} bytes (ASSAY_ARTIFACT_MAX_BYTES)`,
  );
}

/** A buffer as consecutive views of at most {@link ARTIFACT_CHUNK_BYTES} (no copying). */
async function* slices(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  for (let start = 0; start < bytes.length; start += ARTIFACT_CHUNK_BYTES) {
    yield bytes.subarray(start, start + ARTIFACT_CHUNK_BYTES);
  }
}

/**
 * zstd text. `fzstd` calls back synchronously with every block a push completes, so the input is
 * cut at block ends ({@link ZstdFrameGuard}): each push then yields at most one block (128 KiB)
 * before the consumer, and the size cap, see it.
 */
async function* zstdText(source: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<Uint8Array> {
  const guard = new ZstdFrameGuard(maxBytes);
  let ready: Uint8Array[] = [];
  const decompressor = new Decompress((chunk) => {
    if (chunk.length > 0) ready.push(chunk);
  });
  const push = (segment: Uint8Array, final: boolean) => {
    try {
      decompressor.push(segment, final);
    } catch (error) {
      throw invalidZstd(error instanceof Error ? error.message : String(error));
    }
    const out = ready;
    ready = [];
    return out;
  };
  for await (const chunk of source) {
    for (let start = 0; start < chunk.length; start += ARTIFACT_CHUNK_BYTES) {
      for (const segment of guard.segments(chunk.subarray(start, start + ARTIFACT_CHUNK_BYTES))) {
        yield* push(segment, false);
      }
    }
  }
  guard.finish();
  yield* push(new Uint8Array(0), true);
}

function invalidZstd(reason: string): UploadError {
  return new UploadError("INVALID_ENCODING", `data is not valid zstd: ${reason}`);
}

type ZstdStage = "magic" | "descriptor" | "frame-header" | "skippable-size" | "block-header" | "checksum";

/**
 * Walks the zstd frame format (RFC 8878) alongside the decoder, reading only headers: refuses a
 * frame whose declared size passes the cap or whose window is too large before the decoder
 * allocates it, and cuts the input at block ends so each decoder push completes at most one block.
 */
class ZstdFrameGuard {
  private stage: ZstdStage = "magic";
  /** Header bytes of the current stage, until `want` of them arrived. */
  private header: number[] = [];
  private want = 4;
  /** Payload bytes to pass over before the next header (a block's body, a skippable frame). */
  private skip = 0;
  private skipEndsBlock = false;
  private descriptor = 0;
  private declaredBytes = 0;
  private frames = 0;

  constructor(private readonly maxBytes: number) {}

  /** `chunk` cut after every block end (views, no copies). */
  *segments(chunk: Uint8Array): Generator<Uint8Array> {
    let start = 0;
    let i = 0;
    while (i < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - i);
        i += n;
        this.skip -= n;
      } else {
        this.header.push(chunk[i]!);
        i++;
        if (this.header.length < this.want) continue;
        this.readHeader();
      }
      if (this.skip === 0 && this.skipEndsBlock) {
        this.skipEndsBlock = false;
        yield chunk.subarray(start, i);
        start = i;
      }
    }
    if (start < chunk.length) yield chunk.subarray(start);
  }

  /** Checks that the data ended between frames, after at least one. */
  finish(): void {
    if (this.stage !== "magic" || this.header.length > 0 || this.skip > 0) {
      throw invalidZstd("the data ends in the middle of a frame (truncated?)");
    }
    if (this.frames === 0) throw invalidZstd("it holds no zstd frame");
  }

  private readHeader(): void {
    const bytes = this.header;
    this.header = [];
    if (this.stage === "magic") this.readMagic(littleEndian(bytes));
    else if (this.stage === "descriptor") this.readDescriptor(bytes[0]!);
    else if (this.stage === "frame-header") this.readFrameHeader(bytes);
    else if (this.stage === "skippable-size") this.passOver(littleEndian(bytes), false, "magic");
    else if (this.stage === "block-header") this.readBlockHeader(littleEndian(bytes));
    else this.expect("magic", 4); // the checksum, which the decoder verifies
  }

  private readMagic(magic: number): void {
    if (magic === 0xfd2fb528) {
      this.frames++;
      this.expect("descriptor", 1);
    } else if (magic >>> 4 === 0x184d2a5) {
      this.expect("skippable-size", 4);
    } else {
      throw invalidZstd(
        this.frames === 0 ? "it does not start with a zstd frame" : "unexpected bytes after a frame",
      );
    }
  }

  private readDescriptor(descriptor: number): void {
    if (descriptor & 0x08) throw invalidZstd("a frame header sets a reserved bit");
    this.descriptor = descriptor;
    const singleSegment = (descriptor >> 5) & 1;
    const dictionaryBytes = [0, 1, 2, 4][descriptor & 3]!;
    const sizeBytes = [singleSegment, 2, 4, 8][descriptor >> 6]!;
    this.expect("frame-header", 1 - singleSegment + dictionaryBytes + sizeBytes);
  }

  private readFrameHeader(bytes: number[]): void {
    const singleSegment = (this.descriptor >> 5) & 1;
    const sizeBytes = [singleSegment, 2, 4, 8][this.descriptor >> 6]!;
    const declared =
      sizeBytes === 0 ? null : littleEndian(bytes.slice(-sizeBytes)) + (sizeBytes === 2 ? 256 : 0);
    if (declared !== null) {
      this.declaredBytes += declared;
      if (this.declaredBytes > this.maxBytes) throw tooLarge(this.maxBytes);
    }
    const window = singleSegment ? (declared ?? 0) : windowSize(bytes[0]!);
    if (window > ZSTD_MAX_WINDOW_BYTES) {
      throw invalidZstd(
        `a frame needs a ${window}-byte window, more than the ${ZSTD_MAX_WINDOW_BYTES} decoded here (compress without --long)`,
      );
    }
    this.expect("block-header", 3);
  }

  private readBlockHeader(header: number): void {
    const last = header & 1;
    const type = (header >> 1) & 3;
    const size = header >>> 3;
    if (type === 3) throw invalidZstd("a block has the reserved type");
    if (size > ZSTD_MAX_BLOCK_BYTES) throw invalidZstd("a block is larger than 128 KiB");
    const checksum = (this.descriptor >> 2) & 1;
    const next: ZstdStage = !last ? "block-header" : checksum ? "checksum" : "magic";
    this.passOver(type === 1 ? 1 : size, true, next);
  }

  private passOver(bytes: number, endsBlock: boolean, next: ZstdStage): void {
    this.skip = bytes;
    this.skipEndsBlock = endsBlock;
    this.expect(next, next === "block-header" ? 3 : 4);
  }

  private expect(stage: ZstdStage, bytes: number): void {
    this.stage = stage;
    this.want = bytes;
  }
}

/** A frame's window size from its window descriptor byte (RFC 8878 §3.1.1.1.2). */
function windowSize(descriptor: number): number {
  const base = 2 ** (10 + (descriptor >> 3));
  return base + (base / 8) * (descriptor & 7);
}

/** An unsigned little-endian integer of up to 8 bytes (exact up to 2^53, enough to compare). */
function littleEndian(bytes: number[]): number {
  let value = 0;
  for (let i = bytes.length - 1; i >= 0; i--) value = value * 256 + bytes[i]!;
  return value;
}

/** gzip text through node:zlib, which stops decompressing while the consumer does not read. */
async function* gzipText(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  // Errors reach the iteration below; the callback only keeps `pipeline` from throwing them again.
  const gunzip = pipeline(Readable.from(source, { objectMode: false }), createGunzip(), () => {});
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } catch (error) {
    throw isZlibError(error)
      ? new UploadError("INVALID_ENCODING", `data is not valid gzip: ${error.message}`)
      : error;
  } finally {
    gunzip.destroy();
  }
}

/** node:zlib's errors carry a `Z_...` code (Z_DATA_ERROR, Z_BUF_ERROR for a truncated stream). */
function isZlibError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === "string" && code.startsWith("Z_");
}

/**
 * The first `length` bytes of the report's text (decompressed), as text: what the format
 * sniffer looks at when a report does not parse as its analyzer expects.
 */
export async function reportHead(
  bytes: Uint8Array,
  compression: ArtifactCompression,
  maxBytes: number,
  length: number,
): Promise<string> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of textChunks(bytes, compression, maxBytes)) {
    parts.push(chunk);
    total += chunk.length;
    if (total >= length) break;
  }
  return Buffer.concat(parts).subarray(0, length).toString("utf8");
}

/** Passes `chunks` through, feeding each to `hash` on the way (e.g. the sha256 of the text). */
export async function* sha256Of(chunks: AsyncIterable<Uint8Array>, hash: Hash): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    hash.update(chunk);
    yield chunk;
  }
}

/**
 * Stores an artifact's bytes as rows of `artifact_chunks` (seq 0, 1, ...), several per INSERT.
 * Runs in the caller's transaction; the rows are views of `bytes`, not copies.
 */
const gzipBytes = promisify(gzip);

/**
 * The bytes an upload is stored as: a plain-text report larger than one chunk is gzip-compressed
 * first (on libuv's thread pool, at the fastest level), so the transaction that stores it writes
 * a fraction of the bytes — on the embedded database every API request waits while it runs. A
 * compressed upload is stored as received. Reading decompresses either ({@link artifactText}).
 */
export async function storedForm(
  bytes: Buffer,
  compression: ArtifactCompression,
): Promise<{ bytes: Buffer; compression: ArtifactCompression }> {
  if (compression !== "NONE" || bytes.length <= ARTIFACT_CHUNK_BYTES) return { bytes, compression };
  return { bytes: await gzipBytes(bytes, { level: 1 }), compression: "GZIP" };
}

export async function storeArtifactBytes(
  tx: Kysely<Database>,
  artifactId: string,
  bytes: Buffer,
): Promise<void> {
  const count = Math.ceil(bytes.length / ARTIFACT_CHUNK_BYTES);
  for (let first = 0; first < count; first += CHUNKS_PER_INSERT) {
    const rows: ArtifactChunk[] = [];
    for (let seq = first; seq < Math.min(count, first + CHUNKS_PER_INSERT); seq++) {
      const data = bytes.subarray(seq * ARTIFACT_CHUNK_BYTES, (seq + 1) * ARTIFACT_CHUNK_BYTES);
      rows.push({ artifact_id: artifactId, seq, data });
    }
    await insertArtifactChunks(tx, rows);
  }
}

/**
 * An artifact's stored bytes, one chunk per query in seq order, so at most one chunk is held
 * here however large the artifact. Throws when a chunk is missing (the stored artifact is broken).
 */
export async function* storedArtifactBytes(
  db: Kysely<Database>,
  artifactId: string,
): AsyncGenerator<Uint8Array> {
  for (let seq = 0; ; seq++) {
    const row = await findArtifactChunkFrom(db, artifactId, seq);
    if (!row) return;
    if (row.seq !== seq) throw new Error(`artifact ${artifactId} is missing its chunk ${seq}`);
    yield row.data;
  }
}

/** A stored artifact's report text, decompressed and capped (see {@link textChunks}). */
export function artifactText(
  db: Kysely<Database>,
  artifact: Pick<ArtifactRow, "id" | "compression">,
  maxBytes: number,
): AsyncIterable<Uint8Array> {
  return textChunks(storedArtifactBytes(db, artifact.id), artifact.compression, maxBytes);
}
