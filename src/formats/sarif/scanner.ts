import { isUtf8 } from "node:buffer";
import {
  containerEnd,
  InvalidUtf8Error,
  NumberLexer,
  PLAIN,
  QUOTE,
  StringLexer,
  UnexpectedByteError,
} from "./json-lexing.ts";

/**
 * A JSON scanner over UTF-8 bytes, for the SARIF reader. It reads a document chunk by chunk and
 * checks every byte as @streamparser/json's tokenizer and token parser did before it (RFC 8259's
 * grammar; a refusal at the same byte, with the same token, in the same chunk), but builds
 * nothing except what its listener selects: the exact text of a selected value goes to
 * `JSON.parse` once the value is complete. The rest is only checked, at a comparison or two a
 * byte, and a skipped value costs no memory however large it is. A selected container that ends
 * in the chunk where it begins is not even checked byte by byte: its end is found by counting
 * brackets outside strings, and `JSON.parse` (with isUtf8) checks it; only when that refuses it
 * is it read like the rest, so that the error is named as always.
 *
 * The listener watches a chain of containers from the root (for SARIF: the log, `runs`, a run,
 * its `results` ...). In the innermost watched container the scanner hands it each key, and each
 * value as it begins, and the listener answers whether to skip that value, watch it (a container
 * on the way to selected values) or capture it (a selected value). A container begins at its
 * bracket; a string, number or literal when it is complete (a number at the byte after it), which
 * is when the old tokenizer emitted its token.
 */

/** The tokens of JSON (RFC 8259 §2), as the scanner names them to its listener. */
export const Token = {
  BEGIN_OBJECT: 1,
  BEGIN_ARRAY: 2,
  STRING: 3,
  NUMBER: 4,
  TRUE: 5,
  FALSE: 6,
  NULL: 7,
  END_OBJECT: 8,
  END_ARRAY: 9,
  COLON: 10,
  COMMA: 11,
} as const;
export type Token = (typeof Token)[keyof typeof Token];

/** Whether `token` may begin a value (the rest are punctuation). */
export function isValueToken(token: Token): boolean {
  return token <= Token.NULL;
}

/** What the listener wants done with a value that begins in the innermost watched container. */
export const Interest = { SKIP: 0, WATCH: 1, CAPTURE: 2 } as const;
export type Interest = (typeof Interest)[keyof typeof Interest];

/** The scanner's reader: told about the watched part of the document only. */
export interface ScanListener {
  /**
   * A value begins in the innermost watched container. Also called with a punctuation token met
   * where a value is due, just before the scanner refuses it, as the old token watcher saw every
   * token before the parser judged it.
   */
  begin(token: Token): Interest;
  /** The key of the next member of the innermost watched object. */
  key(name: string): void;
  /** The value captured last is complete: here it is, as `JSON.parse` gives it. */
  captured(value: unknown): void;
  /** The innermost watched container closes. */
  leave(): void;
}

/** A well-formed token where the grammar allows none: the scanner's last token is that one. */
export class UnexpectedTokenError extends Error {
  constructor() {
    super("Unexpected token");
  }
}

/** The document ends inside a token or a container. */
export class UnexpectedEndError extends Error {
  constructor() {
    super("Unexpected end of the document");
  }
}

/** The last token read, as an error message shows it: where it begins, and what it is. */
export interface TokenDescription {
  offset: number;
  description: string;
}

const OBJECT = 1;
const ARRAY = 2;

// What may come next (the old token parser's states).
/** A value: after ":", after "," in an array, or at the start of the document. */
const G_VALUE = 0;
/** A value or "]", after "[". */
const G_VALUE_OR_CLOSE = 1;
/** A key, after "," in an object. */
const G_KEY = 2;
/** A key or "}", after "{". */
const G_KEY_OR_CLOSE = 3;
/** ":" after a key. */
const G_COLON = 4;
/** "," or the container's close, after a value. */
const G_NEXT = 5;
/** Only whitespace: the document's value is complete. */
const G_ENDED = 6;

// A token cut by the end of a chunk, continued by the next one.
const L_NONE = 0;
const L_BOM = 1;
const L_STRING = 2;
const L_NUMBER = 3;
const L_LITERAL = 4;

const BYTE_ORDER_MARK = [0xef, 0xbb, 0xbf];

const WORDS: Record<number, Uint8Array> = {
  [Token.TRUE]: Buffer.from("true"),
  [Token.FALSE]: Buffer.from("false"),
  [Token.NULL]: Buffer.from("null"),
};
const LITERALS: Record<number, boolean | null> = {
  [Token.TRUE]: true,
  [Token.FALSE]: false,
  [Token.NULL]: null,
};

const PUNCTUATION: Record<number, string> = {
  [Token.BEGIN_OBJECT]: "{",
  [Token.BEGIN_ARRAY]: "[",
  [Token.END_OBJECT]: "}",
  [Token.END_ARRAY]: "]",
  [Token.COLON]: ":",
  [Token.COMMA]: ",",
};

/** Whether `word` is spelled at `at` (its first letter is known to be). */
function spells(bytes: Uint8Array, at: number, word: Uint8Array): boolean {
  if (at + word.length > bytes.length) return false;
  for (let k = 1; k < word.length; k += 1) if (bytes[at + k] !== word[k]) return false;
  return true;
}

function concatenated(parts: Uint8Array[], last: Uint8Array): Buffer {
  return Buffer.concat([...parts, last]);
}

/** A JSON document read chunk by chunk; see the module comment. */
export class JsonScanner {
  /** The document's offset of the current chunk's first byte. */
  private base = 0;
  /** Buffer view of the current chunk, for decoding. */
  private view: Buffer = Buffer.alloc(0);
  /**
   * Whether a byte order mark may still come. The old tokenizer skipped one wherever it waited
   * for a token until the first string, number or literal began, not only at the very start.
   */
  private markAllowed = true;
  /** Where a skipped byte order mark ends: its 3 bytes did not count in later tokens' offsets. */
  private markEnd = Number.POSITIVE_INFINITY;
  private lex = L_NONE;
  private grammar = G_VALUE;
  private depth = 0;
  /** OBJECT or ARRAY for each open container, by depth from 1. */
  private kinds = new Uint8Array(64);
  /** Open containers the listener watches: those at depths 1 to this one. */
  private watchDepth = 0;
  /** Depth of the container being captured, 0 when none is. */
  private captureDepth = 0;
  /** Where the captured value begins in the current chunk (0 when in an earlier one). */
  private captureFrom = 0;
  /** The captured value's bytes in earlier chunks. */
  private captureParts: Uint8Array[] = [];

  // A token cut by the end of a chunk.
  /** The document's offset of its first byte. */
  private tokenStart = 0;
  /** Where it begins in the current chunk (0 when in an earlier one). */
  private tokenFrom = 0;
  /** Its bytes in earlier chunks: kept for numbers and for strings in a watched container. */
  private tokenParts: Uint8Array[] = [];
  private readonly strings = new StringLexer();
  private readonly numbers = new NumberLexer();
  private literal: Token = Token.NULL;
  /** The next letter's index in a literal, or the next byte's in a byte order mark. */
  private sub = 0;

  // The last token read, for error messages.
  private lastToken: Token | 0 = 0;
  private lastStart = 0;
  private lastEnd = 0;
  /** A string's length in UTF-16 units. */
  private lastLength = 0;
  /** A number's text, once its chunk is gone (until then, `lastStart` to `lastEnd` of it). */
  private lastText: string | null = null;

  constructor(private readonly listener: ScanListener) {}

  /**
   * Reads the next chunk. Throws {@link UnexpectedByteError}, {@link UnexpectedTokenError} or
   * {@link InvalidUtf8Error} where the document stops being JSON, and whatever the listener
   * throws; the scanner is not to be used after a throw.
   */
  write(chunk: Uint8Array): void {
    this.view = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const from = this.lex === L_NONE ? 0 : this.resume(chunk);
    this.scan(chunk, from);
    this.finishChunk(chunk);
  }

  /**
   * The document has ended: completes a number at its very end, and throws
   * {@link UnexpectedEndError} when a token or a container is still open. A document of nothing
   * but whitespace passes, as it did the old parser.
   */
  end(): void {
    if (this.grammar === G_ENDED) return;
    if (this.lex === L_NUMBER && this.numbers.isComplete) {
      this.lex = L_NONE;
      this.numberToken(new Uint8Array(0), 0, this.tokenStart, 0);
    }
    if (this.lex !== L_NONE) throw new UnexpectedEndError();
    if (this.grammar !== G_ENDED && (this.depth > 0 || this.grammar !== G_VALUE))
      throw new UnexpectedEndError();
  }

  /** The last token read (the one refused, after an {@link UnexpectedTokenError}); null before any. */
  describeLastToken(): TokenDescription | null {
    if (this.lastToken === 0) return null;
    const offset = this.lastStart - (this.lastStart >= this.markEnd ? BYTE_ORDER_MARK.length : 0);
    switch (this.lastToken) {
      case Token.STRING:
        // Its length, not its text: the string is part of the report.
        return { offset, description: `a string of ${this.lastLength} characters` };
      case Token.NUMBER:
        return { offset, description: `number ${String(Number(this.lastNumberText()))}` };
      case Token.TRUE:
      case Token.FALSE:
      case Token.NULL:
        return { offset, description: String(LITERALS[this.lastToken]) };
      default:
        return { offset, description: `"${PUNCTUATION[this.lastToken]}"` };
    }
  }

  /** The main loop, from `i` to the chunk's end: whitespace and punctuation here, tokens in their methods. */
  private scan(bytes: Uint8Array, i: number): void {
    const to = bytes.length;
    while (i < to) {
      const byte = bytes[i]!;
      if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) {
        i += 1;
        continue;
      }
      if (this.grammar === G_ENDED) throw new UnexpectedByteError(this.base + i);
      switch (byte) {
        case QUOTE:
          i = this.string(bytes, i);
          break;
        case 0x2c:
          this.comma(i);
          i += 1;
          break;
        case 0x3a:
          this.colon(i);
          i += 1;
          break;
        case 0x7b:
          i = this.open(OBJECT, Token.BEGIN_OBJECT, bytes, i);
          break;
        case 0x5b:
          i = this.open(ARRAY, Token.BEGIN_ARRAY, bytes, i);
          break;
        case 0x7d:
          this.close(OBJECT, Token.END_OBJECT, i);
          i += 1;
          break;
        case 0x5d:
          this.close(ARRAY, Token.END_ARRAY, i);
          i += 1;
          break;
        case 0x74:
          i = this.literalFrom(bytes, i, Token.TRUE);
          break;
        case 0x66:
          i = this.literalFrom(bytes, i, Token.FALSE);
          break;
        case 0x6e:
          i = this.literalFrom(bytes, i, Token.NULL);
          break;
        default:
          if (byte === BYTE_ORDER_MARK[0] && this.markAllowed) {
            this.sub = 0;
            i = this.byteOrderMark(bytes, i);
          } else {
            if (byte !== 0x2d && (byte < 0x30 || byte > 0x39)) throw new UnexpectedByteError(this.base + i);
            i = this.number(bytes, i);
          }
      }
    }
  }

  /** Continues what the previous chunk cut: the byte order mark, or a token. */
  private resume(bytes: Uint8Array): number {
    switch (this.lex) {
      case L_BOM:
        return this.byteOrderMark(bytes, 0);
      case L_STRING:
        return this.stringRest(bytes, 0, 0);
      case L_NUMBER:
        return this.numberRest(bytes, 0, 0);
      default:
        return this.literalRest(bytes, 0, 0);
    }
  }

  /** Skips a UTF-8 byte order mark from `i` (where its byte `sub` is due) as the old tokenizer did. */
  private byteOrderMark(bytes: Uint8Array, i: number): number {
    for (; i < bytes.length; i += 1) {
      if (bytes[i] !== BYTE_ORDER_MARK[this.sub]) throw new UnexpectedByteError(this.base + i);
      this.sub += 1;
      if (this.sub === BYTE_ORDER_MARK.length) {
        this.lex = L_NONE;
        this.markAllowed = false;
        this.markEnd = this.base + i + 1;
        return i + 1;
      }
    }
    this.lex = L_BOM;
    return i;
  }

  /** A string from its opening quote at `i`: printable ASCII here, the rest in {@link stringRest}. */
  private string(bytes: Uint8Array, i: number): number {
    this.markAllowed = false;
    const to = bytes.length;
    let j = i + 1;
    while (j < to && PLAIN[bytes[j]!] === 1) j += 1;
    if (j < to && bytes[j] === QUOTE) {
      this.stringToken(bytes, i, this.base + i, j, 0);
      return j + 1;
    }
    this.tokenStart = this.base + i;
    this.strings.reset();
    return this.stringRest(bytes, i, j);
  }

  /** The rest of a string from `j`; `from` is where the string's bytes in this chunk begin. */
  private stringRest(bytes: Uint8Array, from: number, j: number): number {
    const end = this.strings.read(bytes, j, this.base);
    if (end < 0) return this.cut(L_STRING, bytes, from);
    this.lex = L_NONE;
    this.stringToken(bytes, from, this.tokenStart, end, this.strings.unitsSaved);
    this.tokenParts.length = 0;
    return end + 1;
  }

  /** A complete string from `start` (the document's offset of its opening quote) to its closing quote at `end`. */
  private stringToken(bytes: Uint8Array, from: number, start: number, end: number, saved: number): void {
    this.lastToken = Token.STRING;
    this.lastStart = start;
    this.lastLength = this.base + end - start - 1 - saved;
    const grammar = this.grammar;
    if (grammar === G_KEY || grammar === G_KEY_OR_CLOSE) {
      if (this.depth === this.watchDepth) this.listener.key(JSON.parse(this.tokenText(bytes, from, end + 1)));
      this.grammar = G_COLON;
      return;
    }
    this.scalarToken(Token.STRING, bytes, from, end + 1);
  }

  /** Notes a string or number that the chunk's end cuts, from `from`; answers the chunk's length. */
  private cut(lex: number, bytes: Uint8Array, from: number): number {
    this.tokenFrom = from;
    this.lex = lex;
    return bytes.length;
  }

  /** A number from its first byte at `i`. */
  private number(bytes: Uint8Array, i: number): number {
    this.markAllowed = false;
    this.numbers.start(bytes[i]!);
    this.tokenStart = this.base + i;
    return this.numberRest(bytes, i, i + 1);
  }

  /**
   * The rest of a number from `j`, complete at the first byte that cannot continue it, which the
   * main loop then reads; `from` is where the number's bytes in this chunk begin.
   */
  private numberRest(bytes: Uint8Array, from: number, j: number): number {
    const end = this.numbers.read(bytes, j, this.base);
    if (end < 0) return this.cut(L_NUMBER, bytes, from);
    this.lex = L_NONE;
    this.numberToken(bytes, from, this.tokenStart, end);
    this.tokenParts.length = 0;
    return end;
  }

  private numberToken(bytes: Uint8Array, from: number, start: number, end: number): void {
    this.lastToken = Token.NUMBER;
    this.lastStart = start;
    this.lastEnd = this.base + end;
    this.lastText = this.tokenParts.length === 0 ? null : this.tokenText(bytes, from, end);
    this.scalarToken(Token.NUMBER, bytes, from, end);
  }

  /** `true`, `false` or `null` from its first letter at `i`. */
  private literalFrom(bytes: Uint8Array, i: number, literal: Token): number {
    this.markAllowed = false;
    const word = WORDS[literal]!;
    if (spells(bytes, i, word)) {
      const end = i + word.length;
      this.lastToken = literal;
      this.lastStart = this.base + i;
      this.scalarToken(literal, bytes, i, end);
      return end;
    }
    this.literal = literal;
    this.sub = 1;
    this.tokenStart = this.base + i;
    return this.literalRest(bytes, i, i + 1);
  }

  /** The rest of a literal from `j`, letter by letter: a wrong letter is refused where it is. */
  private literalRest(bytes: Uint8Array, from: number, j: number): number {
    const word = WORDS[this.literal]!;
    for (; j < bytes.length; j += 1) {
      if (bytes[j] !== word[this.sub]) throw new UnexpectedByteError(this.base + j);
      this.sub += 1;
      if (this.sub === word.length) {
        this.lex = L_NONE;
        this.lastToken = this.literal;
        this.lastStart = this.tokenStart;
        this.scalarToken(this.literal, bytes, from, j + 1);
        return j + 1;
      }
    }
    this.lex = L_LITERAL;
    return j;
  }

  /** A complete string, number or literal where a value is due (else refused). */
  private scalarToken(token: Token, bytes: Uint8Array, from: number, end: number): void {
    if (this.grammar !== G_VALUE && this.grammar !== G_VALUE_OR_CLOSE) throw new UnexpectedTokenError();
    if (this.depth === this.watchDepth && this.listener.begin(token) === Interest.CAPTURE) {
      const value =
        token === Token.STRING || token === Token.NUMBER
          ? JSON.parse(this.tokenText(bytes, from, end))
          : LITERALS[token];
      this.listener.captured(value);
    }
    this.grammar = this.depth === 0 ? G_ENDED : G_NEXT;
  }

  /** A container's opening bracket at `i`; answers where reading goes on. */
  private open(kind: number, token: Token, bytes: Uint8Array, i: number): number {
    this.lastToken = token;
    this.lastStart = this.base + i;
    if (this.grammar !== G_VALUE && this.grammar !== G_VALUE_OR_CLOSE) throw new UnexpectedTokenError();
    const interest = this.depth === this.watchDepth ? this.listener.begin(token) : Interest.SKIP;
    if (interest === Interest.CAPTURE) {
      const end = this.captureWhole(bytes, i);
      if (end > 0) return end;
    }
    const depth = this.depth + 1;
    if (depth === this.kinds.length) {
      const kinds = new Uint8Array(depth * 2);
      kinds.set(this.kinds);
      this.kinds = kinds;
    }
    this.kinds[depth] = kind;
    this.depth = depth;
    this.grammar = kind === OBJECT ? G_KEY_OR_CLOSE : G_VALUE_OR_CLOSE;
    if (interest === Interest.WATCH) {
      this.watchDepth = depth;
    } else if (interest === Interest.CAPTURE) {
      this.captureDepth = depth;
      this.captureFrom = i;
    }
    return i + 1;
  }

  /**
   * The fast way to a captured container that ends in this chunk: find its end by its brackets,
   * and let `JSON.parse` build it. Answers where reading goes on, or -1 when the value does not
   * end in this chunk or is not valid JSON: then the bytes are read one by one from `start` as
   * any others, which finds the error at the same place as always.
   */
  private captureWhole(bytes: Uint8Array, start: number): number {
    // While a byte order mark may come, the old tokenizer would skip one inside the value too.
    if (this.markAllowed) return -1;
    const found = containerEnd(bytes, start);
    if (found === -1) return -1;
    const ascii = found >= 0;
    const end = ascii ? found : -2 - found;
    if (!ascii && !isUtf8(bytes.subarray(start, end))) return -1;
    let value: unknown;
    try {
      value = JSON.parse(this.view.toString(ascii ? "latin1" : "utf8", start, end));
    } catch {
      return -1;
    }
    this.lastToken = bytes[end - 1] === 0x7d ? Token.END_OBJECT : Token.END_ARRAY;
    this.lastStart = this.base + end - 1;
    this.grammar = this.depth === 0 ? G_ENDED : G_NEXT;
    this.listener.captured(value);
    return end;
  }

  private close(kind: number, token: Token, i: number): void {
    this.lastToken = token;
    this.lastStart = this.base + i;
    const depth = this.depth;
    const grammar = this.grammar;
    const closes =
      grammar === G_NEXT
        ? this.kinds[depth] === kind
        : grammar === (kind === OBJECT ? G_KEY_OR_CLOSE : G_VALUE_OR_CLOSE);
    if (!closes) this.refuse(token);
    this.depth = depth - 1;
    this.grammar = depth === 1 ? G_ENDED : G_NEXT;
    if (depth === this.captureDepth) {
      this.captureDepth = 0;
      this.listener.captured(JSON.parse(this.capturedText(i + 1)));
    } else if (depth <= this.watchDepth) {
      this.watchDepth = depth - 1;
      this.listener.leave();
    }
  }

  private comma(i: number): void {
    this.lastToken = Token.COMMA;
    this.lastStart = this.base + i;
    if (this.grammar !== G_NEXT) this.refuse(Token.COMMA);
    this.grammar = this.kinds[this.depth] === OBJECT ? G_KEY : G_VALUE;
  }

  private colon(i: number): void {
    this.lastToken = Token.COLON;
    this.lastStart = this.base + i;
    if (this.grammar !== G_COLON) this.refuse(Token.COLON);
    this.grammar = G_VALUE;
  }

  /** Refuses punctuation out of place; where a value is due the listener sees it first. */
  private refuse(token: Token): never {
    const valueDue = this.grammar === G_VALUE || this.grammar === G_VALUE_OR_CLOSE;
    if (valueDue && this.depth === this.watchDepth) this.listener.begin(token);
    throw new UnexpectedTokenError();
  }

  /** The text of the token that ends at `end` of this chunk, with its bytes in earlier chunks. */
  private tokenText(bytes: Uint8Array, from: number, end: number): string {
    if (this.tokenParts.length === 0) return this.view.toString("utf8", from, end);
    return concatenated(this.tokenParts, bytes.subarray(from, end)).toString("utf8");
  }

  /** The captured value's text, which ends at `end` of this chunk. */
  private capturedText(end: number): string {
    if (this.captureParts.length === 0) return this.view.toString("utf8", this.captureFrom, end);
    const text = concatenated(this.captureParts, this.view.subarray(0, end)).toString("utf8");
    this.captureParts = [];
    return text;
  }

  private lastNumberText(): string {
    return (
      this.lastText ?? this.view.toString("latin1", this.lastStart - this.base, this.lastEnd - this.base)
    );
  }

  /** Keeps what the next chunk needs of this one: the open capture's bytes, the cut token's. */
  private finishChunk(bytes: Uint8Array): void {
    const to = bytes.length;
    if (this.captureDepth !== 0) {
      this.captureParts.push(new Uint8Array(bytes.subarray(this.captureFrom, to)));
      this.captureFrom = 0;
    }
    if (this.lex === L_NUMBER || (this.lex === L_STRING && this.depth === this.watchDepth)) {
      this.tokenParts.push(new Uint8Array(bytes.subarray(this.tokenFrom, to)));
    }
    this.tokenFrom = 0;
    if (this.lastToken === Token.NUMBER && this.lastText === null) this.lastText = this.lastNumberText();
    this.base += to;
  }
}
