import { UnexpectedByteError } from "./json-lexing.ts";
import type { UriBase } from "./paths.ts";
import {
  Interest,
  isValueToken,
  JsonScanner,
  type ScanListener,
  Token,
  type TokenDescription,
} from "./scanner.ts";
import { type SarifEvent, SarifFormatError } from "./types.ts";
import {
  checkVersion,
  isObject,
  listedFileOf,
  type NotificationArray,
  type RunState,
  resultOf,
  toolErrorOf,
  toolNoticeOf,
  toolOf,
} from "./values.ts";

/**
 * A streaming SARIF 2.1.0 reader. The document's bytes go through a JSON scanner (scanner.ts) that
 * checks all of them but builds only what this reader selects: `version`, each run's `tool` and
 * `originalUriBaseIds`, each result and each invocation notification, one value at a time, by
 * `JSON.parse` of its text. Neither `results` nor the arrays ingestion does not use (artifacts,
 * invocations, ...) grow in memory; the selector below notes the document's shape on the way.
 * With `listedFiles`, each element of a run's `artifacts` is watched, and only its `location`,
 * `roles` and `parentIndex` are built (never its `contents`), one element at a time.
 *
 * Order: SARIF writers put `tool` before `results`, but JSON does not promise key order (tools that
 * sort keys put `results` first). Results met before their run's `tool` are buffered until it
 * arrives, so such a file costs memory in proportion to its results; with `tool` first, memory is
 * bounded by the largest single result. `version` is checked when it arrives; when it comes after
 * the runs, a wrong version fails the iteration at that point, after results were yielded, so a
 * consumer must treat the whole iteration as one unit (all or nothing).
 */

/** Options of {@link readSarif}. */
export interface ReadSarifOptions {
  /** The checkout directory on the CI machine (the upload's `metadata.workDir`), if known. */
  workDir?: string | null;
  /**
   * The repository-relative directory each run's tool ran in, by run index, when it is a
   * subdirectory of `workDir` (`findWorkingDirectories`): a path no base makes absolute is read
   * against it.
   */
  workingDirectories?: ReadonlyMap<number, string>;
  /**
   * The repository-relative directory the report was made in, when not the root
   * (src/formats/report-placement.ts): read like a run's working directory, for the runs whose
   * invocations name none.
   */
  directory?: string | null;
  /**
   * Also yield the files each run lists among its `artifacts` (`listedFile`) and the notifications
   * below level `error` that name a repository file (`toolNotice`), which say which of those the
   * tool did not analyze after all (types.ts).
   */
  listedFiles?: boolean;
}

/** A chunk of the document: bytes (UTF-8) or text. */
export type SarifChunk = Uint8Array | string;

/** The notification arrays of an invocation whose `error` entries are the tool's own errors. */
const NOTIFICATION_KEYS = new Set(["toolExecutionNotifications", "toolConfigurationNotifications"]);

// The containers the selector watches on the way to the values it reads.
const DOCUMENT = 0;
/** The root object. */
const LOG = 1;
/** `$.runs`, an array. */
const RUNS = 2;
/** `$.runs[i]`, an object. */
const RUN = 3;
/** `$.runs[i].results`, an array. */
const RESULTS = 4;
/** `$.runs[i].invocations`, an array (or an object: any of its values is read as an invocation). */
const INVOCATIONS = 5;
/** `$.runs[i].invocations[j]`, an object. */
const INVOCATION = 6;
/** `$.runs[i].invocations[j].toolExecutionNotifications` or `.toolConfigurationNotifications`. */
const NOTIFICATIONS = 7;
/** `$.runs[i].artifacts`, an array (watched with `listedFiles` only). */
const ARTIFACTS = 8;
/** `$.runs[i].artifacts[j]`, an object. */
const ARTIFACT = 9;

/** A watched container: which one, its run, the key of its current member, its next element's index. */
export interface Frame {
  kind: number;
  run: number;
  key: string | null;
  next: number;
}

// What a captured value is.
const VERSION = 1;
const TOOL = 2;
const URI_BASES = 3;
const RESULT = 4;
const NOTIFICATION = 5;
/** A member of an artifact: its `location`, `roles` or `parentIndex`. */
const ARTIFACT_MEMBER = 6;

/** The members read of the artifact being watched (undefined: not met). */
interface ArtifactEntry {
  location: unknown;
  roles: unknown;
  parentIndex: unknown;
}
const ARTIFACT_MEMBERS = new Set(["location", "roles", "parentIndex"]);

function anArtifactEntry(): ArtifactEntry {
  return { location: undefined, roles: undefined, parentIndex: undefined };
}

/**
 * Follows the scanner through the log to the values the reader reads (`$.version`,
 * `$.runs[*].tool`, `$.runs[*].originalUriBaseIds`, `$.runs[*].results[*]`,
 * `$.runs[*].invocations[*].tool{Execution,Configuration}Notifications[*]`, and with
 * `listedFiles` `$.runs[*].artifacts[*].{location,roles,parentIndex}`) and turns them into
 * events. It also notes what the skipped parts tell: whether the root is an object, whether it
 * has a `runs` array, and how many runs that holds, including runs from which nothing was read. A
 * run's `results` that is neither an array nor null fails at once: there would be no result in
 * it to read, and the report would pass for one without findings.
 */
class SarifSelector implements ScanListener {
  /** The events of the values read so far, for the reader to yield. */
  readonly events: SarifEvent[] = [];
  rootIsObject: boolean | null = null;
  /** Whether the last `runs` member of the log was an array. */
  hasRuns = false;
  /** The elements of every `runs` array so far (runs[1] of a second `runs` counts on). */
  runCount = 0;
  versionSeen = false;
  readonly runs = new Map<number, RunState>();
  private readonly frames: Frame[] = [{ kind: DOCUMENT, run: -1, key: null, next: 0 }];
  // What the value being captured is: VERSION ... NOTIFICATION, its run and its index there.
  private captureKind = 0;
  private captureRun = -1;
  private captureIndex = -1;
  /** The array the notification being captured is in. */
  private captureArray: NotificationArray = "toolExecutionNotifications";
  /** The artifact being watched, with the members read of it so far. */
  private artifact = anArtifactEntry();

  constructor(
    private readonly workDir: string | null,
    private readonly workingDirectories: ReadonlyMap<number, string>,
    private readonly directory: string | null,
    private readonly listedFiles: boolean,
  ) {}

  begin(token: Token): Interest {
    const frame = this.frames[this.frames.length - 1]!;
    switch (frame.kind) {
      case DOCUMENT:
        this.rootIsObject ??= token === Token.BEGIN_OBJECT;
        return token === Token.BEGIN_OBJECT ? this.enter(LOG, -1) : Interest.SKIP;
      case LOG:
        return this.beginLogMember(frame, token);
      case RUNS: {
        if (!isValueToken(token)) return Interest.SKIP;
        this.runCount += 1;
        const index = frame.next++;
        return token === Token.BEGIN_OBJECT ? this.enter(RUN, index) : Interest.SKIP;
      }
      case RUN:
        return this.beginRunMember(frame, token);
      case INVOCATIONS:
        return token === Token.BEGIN_OBJECT ? this.enter(INVOCATION, frame.run) : Interest.SKIP;
      case INVOCATION:
        return token === Token.BEGIN_ARRAY && NOTIFICATION_KEYS.has(frame.key ?? "")
          ? this.enter(NOTIFICATIONS, frame.run)
          : Interest.SKIP;
      case ARTIFACTS:
        if (token !== Token.BEGIN_OBJECT) return Interest.SKIP;
        this.artifact = anArtifactEntry();
        return this.enter(ARTIFACT, frame.run);
      case ARTIFACT:
        // Its location, roles and parent are read, the rest (its contents, hashes ...) skipped.
        return ARTIFACT_MEMBERS.has(frame.key ?? "")
          ? this.select(ARTIFACT_MEMBER, frame.run, -1)
          : Interest.SKIP;
      default:
        // RESULTS, NOTIFICATIONS: each element is read.
        if (!isValueToken(token)) return Interest.SKIP;
        if (frame.kind === NOTIFICATIONS) this.captureArray = this.notificationArray();
        return this.select(frame.kind === RESULTS ? RESULT : NOTIFICATION, frame.run, frame.next++);
    }
  }

  /** The invocation's member the notifications being read are in. */
  private notificationArray(): NotificationArray {
    const invocation = this.frames[this.frames.length - 2];
    return invocation?.key === "toolConfigurationNotifications"
      ? "toolConfigurationNotifications"
      : "toolExecutionNotifications";
  }

  key(name: string): void {
    this.frames[this.frames.length - 1]!.key = name;
  }

  leave(): void {
    const frame = this.frames.pop();
    if (frame?.kind !== ARTIFACT) return;
    const { location, roles, parentIndex } = this.artifact;
    const file = listedFileOf(location, roles, parentIndex, this.runState(frame.run));
    if (file !== null) this.events.push({ type: "listedFile", file });
  }

  captured(value: unknown): void {
    const kind = this.captureKind;
    const runIndex = this.captureRun;
    const index = this.captureIndex;
    if (kind === VERSION) {
      checkVersion(value);
      this.versionSeen = true;
      return;
    }
    if (kind === ARTIFACT_MEMBER) {
      // The artifact's frame is still the innermost, its key the member's.
      const member = this.frames[this.frames.length - 1]!.key as keyof ArtifactEntry;
      this.artifact[member] = value;
      return;
    }
    const run = this.runState(runIndex);
    if (kind === NOTIFICATION) {
      const error = toolErrorOf(value, run, this.captureArray);
      if (error !== null) this.events.push({ type: "toolError", error });
      const notice = this.listedFiles ? toolNoticeOf(value, run, this.captureArray) : null;
      if (notice !== null) this.events.push({ type: "toolNotice", notice });
    } else if (kind === RESULT) {
      if (run.tool === null) run.pending.push({ raw: value, index });
      else this.events.push({ type: "result", result: resultOf(value, index, run, run.tool) });
    } else if (kind === TOOL) {
      const tool = toolOf(value, runIndex);
      run.tool = tool;
      this.events.push({ type: "run", run: { index: runIndex, tool } });
      for (const pending of run.pending)
        this.events.push({ type: "result", result: resultOf(pending.raw, pending.index, run, tool) });
      run.pending = [];
    } else if (isObject(value)) {
      run.context = { ...run.context, originalUriBaseIds: value as Record<string, UriBase> };
    }
  }

  /** The checks only the whole document can pass, once it has been read. */
  checkComplete(): void {
    if (this.rootIsObject !== true) {
      throw new SarifFormatError("INVALID_STRUCTURE", "The SARIF log is not a JSON object.");
    }
    if (!this.versionSeen) {
      throw new SarifFormatError("MISSING_VERSION", 'The SARIF log has no "version" (expected "2.1.0").');
    }
    if (!this.hasRuns) throw new SarifFormatError("MISSING_RUNS", 'The SARIF log has no "runs" array.');
    for (let index = 0; index < this.runCount; index += 1) {
      if (this.runs.get(index)?.tool == null)
        throw new SarifFormatError("MISSING_TOOL", `runs[${index}] has no "tool".`);
    }
  }

  private beginLogMember(frame: Frame, token: Token): Interest {
    if (frame.key === "version") return this.select(VERSION, -1, -1);
    if (frame.key !== "runs") return Interest.SKIP;
    if (token === Token.BEGIN_ARRAY) {
      this.hasRuns = true;
      return this.enter(RUNS, -1);
    }
    if (token === Token.BEGIN_OBJECT) this.hasRuns = false;
    return Interest.SKIP;
  }

  private beginRunMember(frame: Frame, token: Token): Interest {
    switch (frame.key) {
      case "results":
        if (token === Token.BEGIN_ARRAY) return this.enter(RESULTS, frame.run);
        if (token === Token.NULL) return Interest.SKIP;
        throw new SarifFormatError(
          "INVALID_STRUCTURE",
          `runs[${this.runCount - 1}].results is not an array.`,
        );
      case "tool":
        return this.select(TOOL, frame.run, -1);
      case "originalUriBaseIds":
        return this.select(URI_BASES, frame.run, -1);
      case "invocations":
        return token === Token.BEGIN_ARRAY || token === Token.BEGIN_OBJECT
          ? this.enter(INVOCATIONS, frame.run)
          : Interest.SKIP;
      case "artifacts":
        return this.listedFiles && token === Token.BEGIN_ARRAY
          ? this.enter(ARTIFACTS, frame.run)
          : Interest.SKIP;
      default:
        return Interest.SKIP;
    }
  }

  private enter(kind: number, run: number): Interest {
    this.frames.push({ kind, run, key: null, next: 0 });
    return Interest.WATCH;
  }

  private select(kind: number, run: number, index: number): Interest {
    this.captureKind = kind;
    this.captureRun = run;
    this.captureIndex = index;
    return Interest.CAPTURE;
  }

  private runState(index: number): RunState {
    let run = this.runs.get(index);
    if (run === undefined) {
      const workingDirectory = this.workingDirectories.get(index) ?? this.directory;
      const context = { workDir: this.workDir, originalUriBaseIds: {}, workingDirectory };
      run = { index, tool: null, context, pending: [] };
      this.runs.set(index, run);
    }
    return run;
  }
}

/**
 * How much of a chunk the scanner takes at once (bytes, or UTF-16 units of text). Between pieces
 * the reader gives the event loop a turn; a piece is well under a millisecond of scanning.
 */
const PIECE_SIZE = 64 * 1024;

/** `chunk` in pieces of at most {@link PIECE_SIZE}. Any cut will do: the scanner continues a cut token. */
export function* piecesOf<Chunk extends SarifChunk>(chunk: Chunk): Generator<Chunk> {
  for (let start = 0; start < chunk.length; start += PIECE_SIZE) {
    yield (
      typeof chunk === "string"
        ? chunk.slice(start, start + PIECE_SIZE)
        : chunk.subarray(start, start + PIECE_SIZE)
    ) as Chunk;
  }
}

const encoder = new TextEncoder();

/**
 * Text pieces as UTF-8, as the old tokenizer encoded them: a high surrogate that ends a piece
 * waits for the next text piece, which may begin with its low half; any other lone surrogate
 * becomes U+FFFD.
 */
class TextPieces {
  private pending = "";

  encode(piece: string): Uint8Array {
    let text = this.pending + piece;
    this.pending = "";
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.pending = text.slice(-1);
      text = text.slice(0, -1);
    }
    return encoder.encode(text);
  }
}

/** Resolves on the event loop's next turn, after pending I/O callbacks (unlike a microtask). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A byte of the document as a message shows it: the character, or its code when unprintable. */
function describeByte(byte: number | undefined): string {
  if (byte === undefined) return "a character";
  return byte >= 0x21 && byte <= 0x7e
    ? `"${String.fromCharCode(byte)}"`
    : `byte 0x${byte.toString(16).padStart(2, "0")}`;
}

/**
 * The INVALID_JSON message for an error of the piece that starts at byte `pieceStart`, naming the
 * byte of the document (0-based, counted over every chunk) where reading stopped: the byte no JSON
 * can have there, or else the start of the last token read (one out of place, or the one before a
 * string that is not UTF-8).
 */
function invalidJsonMessage(
  error: unknown,
  piece: SarifChunk,
  pieceStart: number,
  lastToken: TokenDescription | null,
): string {
  if (error instanceof UnexpectedByteError) {
    // The byte as the piece's own UTF-8 holds it, as the reader always looked it up.
    const bytes = typeof piece === "string" ? Buffer.from(piece) : piece;
    return `Invalid JSON at byte ${error.position}: unexpected ${describeByte(bytes[error.position - pieceStart])}.`;
  }
  if (lastToken !== null)
    return `Invalid JSON at byte ${lastToken.offset}: unexpected ${lastToken.description}.`;
  const detail = error instanceof Error ? error.message : String(error);
  return `Invalid JSON at byte ${pieceStart}: ${detail}`;
}

/**
 * Reads a SARIF 2.1.0 log from a stream of chunks (a file read stream, an HTTP body, a
 * decompressor's output ...), yielding each run's header and then its results one by one.
 * Throws {@link SarifFormatError} naming the problem: invalid JSON (with the byte position), a
 * version other than 2.1.0 or none, no `runs` array, a run without `tool.driver`, a result
 * without a rule.
 */
export async function* readSarif(
  source: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
  options: ReadSarifOptions = {},
): AsyncGenerator<SarifEvent> {
  const selector = new SarifSelector(
    options.workDir ?? null,
    options.workingDirectories ?? new Map(),
    options.directory ?? null,
    options.listedFiles === true,
  );
  const scanner = new JsonScanner(selector);
  const text = new TextPieces();
  let bytesRead = 0;

  for await (const chunk of source) {
    for (const piece of piecesOf(chunk)) {
      try {
        scanner.write(typeof piece === "string" ? text.encode(piece) : piece);
      } catch (error) {
        if (error instanceof SarifFormatError) throw error;
        const message = invalidJsonMessage(error, piece, bytesRead, scanner.describeLastToken());
        throw new SarifFormatError("INVALID_JSON", message);
      }
      // A text piece counts as the reader always counted it, alone: a surrogate pair its end cuts
      // counts 3 + 3 bytes, not 4 (only messages that name a byte see it).
      bytesRead += typeof piece === "string" ? Buffer.byteLength(piece) : piece.byteLength;
      for (const event of selector.events.splice(0)) yield event;
      // Scanning is synchronous and the consumer's work per result mostly is: without a turn of
      // the event loop here, a large chunk would hold off every request of this process.
      await yieldToEventLoop();
    }
  }
  if (bytesRead === 0) throw new SarifFormatError("INVALID_JSON", "Invalid JSON: the document is empty.");
  try {
    scanner.end();
  } catch (error) {
    if (error instanceof SarifFormatError) throw error;
    throw new SarifFormatError(
      "INVALID_JSON",
      `Invalid JSON: the document ends at byte ${bytesRead} before its value is complete (is the file cut short?).`,
    );
  }
  for (const event of selector.events.splice(0)) yield event;
  selector.checkComplete();
}
