import { pipeline, Readable } from "node:stream";
import { createGzip } from "node:zlib";

/**
 * The body of `assay upload`'s request, streamed: the report is read, gzipped, base64-encoded and
 * written into the JSON document as it goes, so a report of any size costs a few megabytes of
 * memory.
 */

/** The mutation sent; `data` is the base64 of the gzipped report. */
export const UPLOAD_MUTATION =
  "mutation Upload($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok message error artifact { id } run { id runUid status } } }";

/** The input fields of `uploadArtifact` other than `data` and `compression`. */
export interface UploadFields {
  repositoryId: string;
  commitOid: string;
  branch: string | null;
  /**
   * The pull request and the branch it merges into, left out when unknown (so a run outside a
   * pull request sends what servers without these fields accept).
   */
  pullRequestNumber?: number;
  baseBranch?: string;
  /** Where the commit meets the base branch (`git merge-base`), left out when not known. */
  mergeBaseOid?: string;
  /** The commit's first-parent ancestors, nearest first, left out when git cannot list them. */
  ancestorOids?: string[];
  /**
   * With the changes of a branch build, the first parent its diff of renamed files was made
   * against; left out otherwise (servers before it accept that).
   */
  renamesBaseOid?: string;
  analyzer: string;
  analyzerType: string | null;
  key: string | null;
  workDir: string;
  /**
   * The checkout's root, when `workDir` is a subdirectory of it: the server reads the report's
   * relative paths from that subdirectory. Left out otherwise (servers before it accept that).
   */
  repositoryRoot?: string;
  reporter: string;
  reporterVersion: string;
  /** The repository's `.deepsource.toml`, left out when none is sent (servers before it accept that). */
  configToml?: string;
  /** The lockfiles git tracks at the commit, with an SBOM; left out when none are listed. */
  lockfilePaths?: string[];
  /** With a Go profile, the checkout's Go modules and their directories; left out when none are found. */
  goModules?: Array<{ modulePath: string; directory: string }>;
}

/** Hooks of {@link uploadBody}: the file's bytes read so far, and the body's size when it is all out. */
export interface BodyHooks {
  onRead?(bytesRead: number): void;
  onEnd?(bodyBytes: number): void;
}

/**
 * The request body, streamed: `{"query": ..., "variables": {"input": {...fields, "compression":
 * "GZIP", "data": "<base64 of the gzipped report>"}}}`. Reads `report` only as fast as the body
 * is consumed.
 */
export async function* uploadBody(
  report: AsyncIterable<Uint8Array>,
  fields: UploadFields,
  hooks: BodyHooks = {},
): AsyncGenerator<Uint8Array> {
  const input = JSON.stringify({ ...fields, compression: "GZIP" });
  const head = `{"query":${JSON.stringify(UPLOAD_MUTATION)},"variables":{"input":${input.slice(0, -1)},"data":"`;
  let sent = 0;
  const out = (text: string) => {
    sent += text.length;
    return Buffer.from(text, "latin1");
  };
  yield out(head);
  for await (const text of base64Of(gzipOf(counted(report, hooks.onRead)))) yield out(text);
  yield out(`"}}}`);
  hooks.onEnd?.(sent);
}

async function* counted(
  chunks: AsyncIterable<Uint8Array>,
  onRead: ((bytesRead: number) => void) | undefined,
): AsyncGenerator<Uint8Array> {
  let read = 0;
  for await (const chunk of chunks) {
    read += chunk.length;
    onRead?.(read);
    yield chunk;
  }
}

async function* gzipOf(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  // Errors reach the iteration below; the callback only keeps `pipeline` from throwing them again.
  const gzip = pipeline(Readable.from(chunks, { objectMode: false }), createGzip(), () => {});
  try {
    for await (const chunk of gzip) yield chunk as Buffer;
  } finally {
    gzip.destroy();
  }
}

/** Base64 of the concatenated chunks, piece by piece: bytes past a multiple of 3 wait for the next. */
export async function* base64Of(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  let carry = Buffer.alloc(0);
  for await (const chunk of chunks) {
    const bytes = Buffer.concat([carry, chunk]);
    const whole = bytes.length - (bytes.length % 3);
    if (whole > 0) yield bytes.subarray(0, whole).toString("base64");
    carry = Buffer.from(bytes.subarray(whole));
  }
  if (carry.length > 0) yield carry.toString("base64");
}

/**
 * The first `bytes` of a stream (fewer when it is shorter), and the whole stream again: the
 * chunks read to see the head are replayed before the rest, so stdin can be looked at before it
 * is sent.
 */
export async function peekHead(
  chunks: AsyncIterable<Uint8Array>,
  bytes: number,
): Promise<{ head: Buffer; chunks: AsyncIterable<Uint8Array> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const seen: Uint8Array[] = [];
  let length = 0;
  let done = false;
  while (length < bytes) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    seen.push(next.value);
    length += next.value.length;
  }
  async function* replay(): AsyncGenerator<Uint8Array> {
    yield* seen;
    if (done) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { head: Buffer.concat(seen).subarray(0, bytes), chunks: replay() };
}
