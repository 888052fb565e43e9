import { workingDirectoryIn } from "./paths.ts";
import { type Frame, piecesOf, type SarifChunk, yieldToEventLoop } from "./reader.ts";
import { Interest, isValueToken, JsonScanner, type ScanListener, Token } from "./scanner.ts";
import { isObject } from "./values.ts";

/**
 * The directory each run's tool ran in, read before the results (docs/ingestion-sarif.md
 * "Paths"). A tool run in a subdirectory (`cd backend && staticcheck -f sarif ./...`) writes its
 * paths relative to it against an undefined `%SRCROOT%` and names the directory only in
 * `runs[].invocations[].workingDirectory`, which Staticcheck writes after the results. Rather than
 * hold every result until its run's invocations are read, the stored report is read once more
 * before it: a search for the key's bytes first (a report that never names a working directory,
 * the common case, costs no more than that), and only when it is there a pass of the byte scanner
 * that builds nothing but each `workingDirectory` object.
 */

/** The key, as every writer spells it (an escaped spelling is not looked for). */
const NEEDLE = Buffer.from('"workingDirectory"');

// The containers the listener watches on the way to the working directories.
const DOCUMENT = 0;
const LOG = 1;
const RUNS = 2;
const RUN = 3;
const INVOCATIONS = 4;
const INVOCATION = 5;

/**
 * Follows the scanner to `$.runs[*].invocations[*].workingDirectory` (an `invocations` object's
 * values count as invocations, as the reader reads them) and notes, per run, the directory its
 * invocations name inside `workDir`: a run whose invocations disagree (or one of which names the
 * root, an outside directory or none) keeps the root.
 */
class WorkingDirectorySelector implements ScanListener {
  /** By run index: the directory, or null once the run's invocations named no single one. */
  readonly found = new Map<number, string | null>();
  private readonly frames: Frame[] = [{ kind: DOCUMENT, run: -1, key: null, next: 0 }];
  private captureRun = -1;

  constructor(private readonly workDir: string) {}

  begin(token: Token): Interest {
    const frame = this.frames[this.frames.length - 1]!;
    switch (frame.kind) {
      case DOCUMENT:
        return token === Token.BEGIN_OBJECT ? this.enter(LOG, -1) : Interest.SKIP;
      case LOG:
        return frame.key === "runs" && token === Token.BEGIN_ARRAY ? this.enter(RUNS, -1) : Interest.SKIP;
      case RUNS: {
        if (!isValueToken(token)) return Interest.SKIP;
        const index = frame.next++;
        return token === Token.BEGIN_OBJECT ? this.enter(RUN, index) : Interest.SKIP;
      }
      case RUN:
        return frame.key === "invocations" && (token === Token.BEGIN_ARRAY || token === Token.BEGIN_OBJECT)
          ? this.enter(INVOCATIONS, frame.run)
          : Interest.SKIP;
      case INVOCATIONS:
        return token === Token.BEGIN_OBJECT ? this.enter(INVOCATION, frame.run) : Interest.SKIP;
      default:
        if (frame.key !== "workingDirectory" || !isValueToken(token)) return Interest.SKIP;
        this.captureRun = frame.run;
        return Interest.CAPTURE;
    }
  }

  key(name: string): void {
    this.frames[this.frames.length - 1]!.key = name;
  }

  leave(): void {
    this.frames.pop();
  }

  captured(value: unknown): void {
    const uri = isObject(value) && typeof value.uri === "string" ? value.uri : null;
    const directory = uri === null ? null : workingDirectoryIn(uri, this.workDir);
    const run = this.captureRun;
    const before = this.found.get(run);
    this.found.set(run, before === undefined || before === directory ? directory : null);
  }

  private enter(kind: number, run: number): Interest {
    this.frames.push({ kind, run, key: null, next: 0 });
    return Interest.WATCH;
  }
}

function bytesOf(chunk: SarifChunk): Buffer {
  if (typeof chunk === "string") return Buffer.from(chunk);
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** Whether the document's bytes hold `"workingDirectory"` anywhere (a chunk's end may cut it). */
async function mentionsWorkingDirectory(
  source: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
): Promise<boolean> {
  let tail = Buffer.alloc(0);
  for await (const chunk of source) {
    const bytes = bytesOf(chunk);
    const across = Buffer.concat([tail, bytes.subarray(0, NEEDLE.length - 1)]);
    if (across.includes(NEEDLE) || bytes.includes(NEEDLE)) return true;
    // The last bytes of the document so far, which the next chunk's first bytes may complete.
    const kept = bytes.length >= NEEDLE.length - 1 ? bytes : Buffer.concat([tail, bytes]);
    tail = Buffer.from(kept.subarray(Math.max(0, kept.length - (NEEDLE.length - 1))));
  }
  return false;
}

/**
 * The repository-relative directory each run's tool ran in, by run index, for the runs whose
 * invocations name one directory inside `workDir` other than the root (`readSarif`'s
 * `workingDirectories`). Reads the document from `open()` once for the key's bytes and, when they
 * are there, once more with the scanner; an empty map when `workDir` is unknown. A document that
 * is not JSON (another findings format, or a broken report) answers what was found before the
 * error: the reader that follows reports it. Errors of the source itself are thrown.
 */
export async function findWorkingDirectories(
  open: () => AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
  workDir: string | null,
): Promise<ReadonlyMap<number, string>> {
  const directories = new Map<number, string>();
  if (workDir === null || !(await mentionsWorkingDirectory(open()))) return directories;
  const selector = new WorkingDirectorySelector(workDir);
  await scanDocument(open(), new JsonScanner(selector));
  for (const [run, directory] of selector.found) if (directory !== null) directories.set(run, directory);
  return directories;
}

/**
 * Feeds the document to `scanner` in the reader's pieces, up to its end, its first error, or the
 * first piece after which `finished()` is true (the rest of the source is then not read). Errors
 * of the source itself are thrown.
 */
export async function scanDocument(
  source: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
  scanner: JsonScanner,
  finished: () => boolean = () => false,
): Promise<void> {
  for await (const chunk of source) {
    for (const piece of piecesOf(bytesOf(chunk))) {
      try {
        scanner.write(piece);
      } catch {
        return;
      }
      if (finished()) return;
      await yieldToEventLoop();
    }
  }
}
