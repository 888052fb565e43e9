import { JSONParser, type ParsedTokenInfo, TokenizerError, TokenType } from "@streamparser/json";
import type { UriBase } from "./paths.ts";
import type { ReadSarifOptions, SarifChunk } from "./reader.ts";
import { type SarifEvent, SarifFormatError } from "./types.ts";
import { checkVersion, isObject, type RunState, resultOf, toolErrorOf, toolOf } from "./values.ts";

/**
 * Tests only: `readSarif` as it was before the byte scanner (scanner.ts), kept unchanged but for
 * its name and the value builders it now shares (values.ts). It tokenises the document with
 * @streamparser/json, selects values with its JSONPath selectors (`keepStack: false` drops every
 * other finished value) and watches the tokens for the document's shape (`DocumentShape`).
 * reader-differential.test.ts compares the two readers on random documents, cuts and corruptions:
 * the events, and the errors to the letter.
 */

const SELECTORS = [
  "$.version",
  "$.runs.*.tool",
  "$.runs.*.originalUriBaseIds",
  "$.runs.*.results.*",
  "$.runs.*.invocations.*.toolExecutionNotifications.*",
  "$.runs.*.invocations.*.toolConfigurationNotifications.*",
];

/** The notification arrays of an invocation whose `error` entries are the tool's own errors. */
const NOTIFICATION_KEYS = new Set(["toolExecutionNotifications", "toolConfigurationNotifications"]);

/**
 * Watches the token stream for what the value callbacks cannot tell (with `keepStack: false`
 * nothing unselected is kept): whether the root is an object, whether it has a `runs` array, and
 * how many runs that array holds, including runs from which nothing was selected. A run's
 * `results` that is neither an array nor null fails at once: the result selector would find
 * nothing in it, and the report would pass for one without findings.
 */
class DocumentShape {
  rootIsObject: boolean | null = null;
  hasRuns = false;
  runCount = 0;
  private depth = 0;
  private inRuns = false;
  private previous: ParsedTokenInfo | null = null;
  private rootKey: unknown = null;
  private runKey: unknown = null;

  /** The last token seen: the one the parser refused, when it refuses one. */
  get lastToken(): ParsedTokenInfo | null {
    return this.previous;
  }

  observe(token: ParsedTokenInfo): void {
    if (this.rootIsObject === null) this.rootIsObject = token.token === TokenType.LEFT_BRACE;
    if (this.depth === 1 && token.token === TokenType.COLON) this.rootKey = this.previous?.value;
    if (this.depth === 3 && this.inRuns) this.checkRunMember(token);
    if (token.token === TokenType.LEFT_BRACE || token.token === TokenType.LEFT_BRACKET) {
      if (this.depth === 1 && this.rootKey === "runs" && this.previous?.token === TokenType.COLON) {
        this.inRuns = token.token === TokenType.LEFT_BRACKET;
        this.hasRuns = this.inRuns;
      } else if (this.depth === 2 && this.inRuns) {
        this.runCount += 1;
      }
      this.depth += 1;
    } else if (token.token === TokenType.RIGHT_BRACE || token.token === TokenType.RIGHT_BRACKET) {
      this.depth -= 1;
      if (this.depth === 1) this.inRuns = false;
    } else if (this.depth === 2 && this.inRuns && token.token !== TokenType.COMMA) {
      // A scalar where a run object should be; counted so the run is reported as having no tool.
      this.runCount += 1;
    }
    this.previous = token;
  }

  /** Notes the key of a run's member and refuses a `results` that is not an array (null aside). */
  private checkRunMember(token: ParsedTokenInfo): void {
    if (token.token === TokenType.COLON) {
      this.runKey = this.previous?.value;
      return;
    }
    const isValue = this.previous?.token === TokenType.COLON;
    if (!isValue || this.runKey !== "results") return;
    if (token.token === TokenType.LEFT_BRACKET || token.token === TokenType.NULL) return;
    throw new SarifFormatError("INVALID_STRUCTURE", `runs[${this.runCount - 1}].results is not an array.`);
  }
}

/**
 * How much of a chunk the parser takes at once (bytes, or UTF-16 units of text). Between pieces
 * the reader gives the event loop a turn; a piece is a few milliseconds of parsing.
 */
const PIECE_SIZE = 64 * 1024;

/**
 * `chunk` in pieces of at most {@link PIECE_SIZE}. Any cut will do: the tokenizer joins a UTF-8
 * sequence or a surrogate pair split across two writes.
 */
function* piecesOf(chunk: SarifChunk): Generator<SarifChunk> {
  for (let start = 0; start < chunk.length; start += PIECE_SIZE) {
    yield typeof chunk === "string"
      ? chunk.slice(start, start + PIECE_SIZE)
      : chunk.subarray(start, start + PIECE_SIZE);
  }
}

/** Resolves on the event loop's next turn, after pending I/O callbacks (unlike a microtask). */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** What the tokenizer writes after the absolute byte offset of a character it cannot read. */
const TOKENIZER_POSITION = /absolute position "(\d+)"/;

/** A byte of the document as a message shows it: the character, or its code when unprintable. */
function describeByte(byte: number | undefined): string {
  if (byte === undefined) return "a character";
  return byte >= 0x21 && byte <= 0x7e
    ? `"${String.fromCharCode(byte)}"`
    : `byte 0x${byte.toString(16).padStart(2, "0")}`;
}

/** A token the parser did not expect here, in words. */
function describeToken(token: ParsedTokenInfo): string {
  switch (token.token) {
    case TokenType.STRING:
      // Its length, not its text: the string is part of the report.
      return `a string of ${String(token.value).length} characters`;
    case TokenType.NUMBER:
      return `number ${String(token.value)}`;
    case TokenType.TRUE:
    case TokenType.FALSE:
    case TokenType.NULL:
      return String(token.value);
    default:
      return `"${String(token.value)}"`;
  }
}

/**
 * The INVALID_JSON message for a parser error, naming the byte of the document (0-based, counted
 * over every chunk) where reading stopped: the unreadable character for a tokenizer error, the
 * start of the refused token for a parser error, the end of the document when it ends too early.
 */
function invalidJsonMessage(
  error: unknown,
  chunk: SarifChunk | null,
  chunkStart: number,
  lastToken: ParsedTokenInfo | null,
): string {
  if (chunk === null) {
    return `Invalid JSON: the document ends at byte ${chunkStart} before its value is complete (is the file cut short?).`;
  }
  if (error instanceof TokenizerError) {
    const found = TOKENIZER_POSITION.exec(error.message);
    const position = found ? Number(found[1]) : (lastToken?.offset ?? chunkStart);
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    return `Invalid JSON at byte ${position}: unexpected ${describeByte(bytes[position - chunkStart])}.`;
  }
  if (lastToken !== null) {
    return `Invalid JSON at byte ${lastToken.offset}: unexpected ${describeToken(lastToken)}.`;
  }
  const detail = error instanceof Error ? error.message : String(error);
  return `Invalid JSON at byte ${chunkStart}: ${detail}`;
}

/** `readSarif` as it was, on @streamparser/json: the reference of reader-differential.test.ts. */
export async function* readSarifWithStreamparser(
  source: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
  options: ReadSarifOptions = {},
): AsyncGenerator<SarifEvent> {
  const workDir = options.workDir ?? null;
  const parser = new JSONParser({ paths: SELECTORS, keepStack: false });
  const queue: SarifEvent[] = [];
  const runs = new Map<number, RunState>();
  const shape = new DocumentShape();
  parser.onToken = (token) => shape.observe(token);
  let versionSeen = false;
  let bytesRead = 0;

  const runState = (index: number): RunState => {
    let run = runs.get(index);
    if (run === undefined) {
      run = { index, tool: null, context: { workDir, originalUriBaseIds: {} }, pending: [] };
      runs.set(index, run);
    }
    return run;
  };

  parser.onValue = ({ value, key, stack }) => {
    if (stack.length === 1) {
      if (key === "version") {
        checkVersion(value);
        versionSeen = true;
      }
      return;
    }
    const runIndex = stack[2]?.key;
    if (typeof runIndex !== "number") return;
    const run = runState(runIndex);
    if (stack.length === 6 && NOTIFICATION_KEYS.has(String(stack[5]?.key)) && typeof key === "number") {
      const array =
        stack[5]?.key === "toolConfigurationNotifications"
          ? "toolConfigurationNotifications"
          : "toolExecutionNotifications";
      const error = toolErrorOf(value, run, array);
      if (error !== null) queue.push({ type: "toolError", error });
    } else if (stack.length === 4 && stack[3]?.key === "results" && typeof key === "number") {
      if (run.tool === null) run.pending.push({ raw: value, index: key });
      else queue.push({ type: "result", result: resultOf(value, key, run, run.tool) });
    } else if (stack.length === 3 && key === "tool") {
      const tool = toolOf(value, runIndex);
      run.tool = tool;
      queue.push({ type: "run", run: { index: runIndex, tool } });
      for (const { raw, index } of run.pending)
        queue.push({ type: "result", result: resultOf(raw, index, run, tool) });
      run.pending = [];
    } else if (stack.length === 3 && key === "originalUriBaseIds" && isObject(value)) {
      run.context = { workDir, originalUriBaseIds: value as Record<string, UriBase> };
    }
  };

  const feed = (chunk: SarifChunk | null): void => {
    const size = chunk === null ? 0 : typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength;
    try {
      if (chunk === null) {
        if (!parser.isEnded) parser.end();
      } else parser.write(chunk);
    } catch (error) {
      if (error instanceof SarifFormatError) throw error;
      throw new SarifFormatError(
        "INVALID_JSON",
        invalidJsonMessage(error, chunk, bytesRead, shape.lastToken),
      );
    }
    bytesRead += size;
  };

  for await (const chunk of source) {
    for (const piece of piecesOf(chunk)) {
      feed(piece);
      yield* queue.splice(0);
      // Parsing is synchronous and the consumer's work per result mostly is: without a turn of
      // the event loop here, a large chunk would hold off every request of this process.
      await yieldToEventLoop();
    }
  }
  if (bytesRead === 0) throw new SarifFormatError("INVALID_JSON", "Invalid JSON: the document is empty.");
  feed(null);
  yield* queue.splice(0);

  if (shape.rootIsObject !== true) {
    throw new SarifFormatError("INVALID_STRUCTURE", "The SARIF log is not a JSON object.");
  }
  if (!versionSeen) {
    throw new SarifFormatError("MISSING_VERSION", 'The SARIF log has no "version" (expected "2.1.0").');
  }
  if (!shape.hasRuns) throw new SarifFormatError("MISSING_RUNS", 'The SARIF log has no "runs" array.');
  for (let index = 0; index < shape.runCount; index += 1) {
    if (runs.get(index)?.tool == null)
      throw new SarifFormatError("MISSING_TOOL", `runs[${index}] has no "tool".`);
  }
}
