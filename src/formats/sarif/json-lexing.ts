/**
 * The byte-level parts of the JSON scanner (scanner.ts): strings and numbers read byte by byte, so
 * that a chunk may cut them anywhere; UTF-8 checked as the old tokenizer's fatal TextDecoder
 * checked it, character by character; and the quick search for where a captured container ends.
 */

/** A byte no JSON can have at this place; `position` counts the document's bytes from 0. */
export class UnexpectedByteError extends Error {
  constructor(readonly position: number) {
    super(`Unexpected byte at position ${position}`);
  }
}

/** A string holds bytes that are not UTF-8 (with the message TextDecoder's fatal mode gives). */
export class InvalidUtf8Error extends TypeError {
  constructor() {
    super("The encoded data was not valid for encoding utf-8");
  }
}

export const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** 1 for the bytes a string holds as they are: printable ASCII but `"` and `\`. */
export const PLAIN = new Uint8Array(256);
for (let byte = 0x20; byte < 0x80; byte += 1) PLAIN[byte] = 1;
PLAIN[QUOTE] = 0;
PLAIN[BACKSLASH] = 0;

/** 1 for the bytes after `\` that make a one-character escape (RFC 8259 §7), `u` aside. */
const ESCAPED = new Uint8Array(256);
for (const char of '"\\/bfnrt') ESCAPED[char.charCodeAt(0)] = 1;

const HEX = new Uint8Array(256);
for (const char of "0123456789abcdefABCDEF") HEX[char.charCodeAt(0)] = 1;

/**
 * Where the container that opens at `start` ends (the index after its last bracket), found by
 * counting brackets outside strings: right for any valid value, and -1 when the chunk ends first.
 * Whether the bytes between are JSON is for `JSON.parse` to say, and whether they are UTF-8 for
 * isUtf8: the answer is negative (-2 - end) when a string holds a byte outside ASCII.
 */
export function containerEnd(bytes: Uint8Array, start: number): number {
  const to = bytes.length;
  let depth = 0;
  let high = 0;
  for (let i = start; i < to; i += 1) {
    const byte = bytes[i]!;
    if (byte === QUOTE) {
      for (i += 1; i < to; i += 1) {
        const inString = bytes[i]!;
        high |= inString;
        if (inString === QUOTE) break;
        if (inString === BACKSLASH) i += 1;
      }
    } else if (byte === 0x7b || byte === 0x5b) {
      depth += 1;
    } else if (byte === 0x7d || byte === 0x5d) {
      depth -= 1;
      if (depth === 0) return high < 0x80 ? i + 1 : -2 - (i + 1);
    }
  }
  return -1;
}

/**
 * How many bytes the character that `lead` begins takes, as the old tokenizer counted them to
 * find a character cut by the end of a chunk: an invalid lead byte counts 3 or 4, and the bytes
 * so taken are then refused as a whole.
 */
function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  return lead <= 0xef ? 3 : 4;
}

/** Whether the `length` bytes at `at` are one well-formed UTF-8 character (WHATWG Encoding, §4.1.1). */
function isUtf8Character(bytes: Uint8Array, at: number, length: number): boolean {
  const lead = bytes[at]!;
  const second = bytes[at + 1]!;
  if (length === 2) return lead >= 0xc2 && lead <= 0xdf && second >= 0x80 && second <= 0xbf;
  const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
  const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
  if (second < low || second > high || (bytes[at + 2]! & 0xc0) !== 0x80) return false;
  if (length === 3) return lead >= 0xe0 && lead <= 0xef;
  return lead >= 0xf0 && lead <= 0xf4 && (bytes[at + 3]! & 0xc0) === 0x80;
}

// Where a string is: among its characters, after `\`, among the 4 digits of `\u`, inside a
// multi-byte character that a chunk's end cut.
const PLAIN_TEXT = 0;
const ESCAPE = 1;
const HEX_DIGITS = 2;
const CUT_CHARACTER = 3;

/** The inside of a JSON string (RFC 8259 §7), read byte by byte across chunks. */
export class StringLexer {
  /** How many UTF-16 units the string has fewer than its bytes between the quotes, so far. */
  unitsSaved = 0;
  private state = PLAIN_TEXT;
  private hexLeft = 0;
  private readonly character = new Uint8Array(4);
  private have = 0;
  private need = 0;

  /** Starts a string. */
  reset(): void {
    this.state = PLAIN_TEXT;
    this.unitsSaved = 0;
  }

  /**
   * Reads from `j` of the chunk: answers the index of the closing quote, or -1 when the chunk ends
   * first (the next chunk goes on from the same state). `base` is the chunk's offset in the
   * document, for the position an {@link UnexpectedByteError} names.
   */
  read(bytes: Uint8Array, j: number, base: number): number {
    const to = bytes.length;
    let state = this.state;
    while (j < to) {
      const byte = bytes[j]!;
      if (state === PLAIN_TEXT) {
        if (PLAIN[byte] === 1) {
          j += 1;
        } else if (byte === QUOTE) {
          return j;
        } else if (byte === BACKSLASH) {
          state = ESCAPE;
          j += 1;
        } else if (byte < 0x20) {
          throw new UnexpectedByteError(base + j);
        } else {
          const length = sequenceLength(byte);
          if (j + length > to) {
            this.character.set(bytes.subarray(j, to));
            this.have = to - j;
            this.need = length;
            state = CUT_CHARACTER;
            j = to;
          } else {
            if (!isUtf8Character(bytes, j, length)) throw new InvalidUtf8Error();
            this.unitsSaved += length === 4 ? 2 : length - 1;
            j += length;
          }
        }
      } else if (state === ESCAPE) {
        if (ESCAPED[byte] === 1) {
          this.unitsSaved += 1;
          state = PLAIN_TEXT;
        } else if (byte === 0x75) {
          this.unitsSaved += 5;
          this.hexLeft = 4;
          state = HEX_DIGITS;
        } else {
          throw new UnexpectedByteError(base + j);
        }
        j += 1;
      } else if (state === HEX_DIGITS) {
        if (HEX[byte] !== 1) throw new UnexpectedByteError(base + j);
        this.hexLeft -= 1;
        if (this.hexLeft === 0) state = PLAIN_TEXT;
        j += 1;
      } else {
        // The old tokenizer took the bytes a cut character needs as they came, then decoded them.
        this.character[this.have] = byte;
        this.have += 1;
        j += 1;
        if (this.have === this.need) {
          if (!isUtf8Character(this.character, 0, this.need)) throw new InvalidUtf8Error();
          this.unitsSaved += this.need === 4 ? 2 : this.need - 1;
          state = PLAIN_TEXT;
        }
      }
    }
    this.state = state;
    return -1;
  }
}

// Where a number is, after: "-"; "0"; other digits; "."; the fraction's digits; "e"; "e" and a
// sign; the exponent's digits. It is complete after "0" or any digits but the sign's.
const MINUS = 0;
const ZERO = 1;
const INTEGER = 2;
const POINT = 3;
const FRACTION = 4;
const E = 5;
const E_SIGN = 6;
const EXPONENT = 7;

/** A JSON number (RFC 8259 §6), read byte by byte across chunks. */
export class NumberLexer {
  private state = INTEGER;

  /** Starts a number at its first byte, "-" or a digit. */
  start(first: number): void {
    this.state = first === 0x2d ? MINUS : first === 0x30 ? ZERO : INTEGER;
  }

  /** Whether the bytes so far make a number (so the document may end here). */
  get isComplete(): boolean {
    const state = this.state;
    return state === ZERO || state === INTEGER || state === FRACTION || state === EXPONENT;
  }

  /**
   * Reads from `j` of the chunk: answers the index of the first byte after the number (which the
   * old tokenizer only then knew complete), or -1 when the chunk ends first. `base` as for
   * {@link StringLexer.read}.
   */
  read(bytes: Uint8Array, j: number, base: number): number {
    const to = bytes.length;
    let state = this.state;
    for (; j < to; j += 1) {
      const byte = bytes[j]!;
      const digit = byte >= 0x30 && byte <= 0x39;
      if (state === INTEGER || state === FRACTION || state === EXPONENT) {
        if (digit) continue;
        if (byte === 0x2e && state === INTEGER) state = POINT;
        else if ((byte === 0x65 || byte === 0x45) && state !== EXPONENT) state = E;
        else return j;
      } else if (state === ZERO) {
        if (byte === 0x2e) state = POINT;
        else if (byte === 0x65 || byte === 0x45) state = E;
        else return j;
      } else if (state === E && (byte === 0x2b || byte === 0x2d)) {
        state = E_SIGN;
      } else {
        // After "-", ".", "e" or its sign a digit must come.
        if (!digit) throw new UnexpectedByteError(base + j);
        state = state === MINUS ? (byte === 0x30 ? ZERO : INTEGER) : state === POINT ? FRACTION : EXPONENT;
      }
    }
    this.state = state;
    return -1;
  }
}
