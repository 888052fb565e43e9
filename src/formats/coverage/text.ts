import { isUtf8 } from "node:buffer";

/** A coverage report's (or changed lines') text, and the lines that were not UTF-8. */
export interface DecodedReportText {
  text: string;
  /** 1-based numbers of the lines read as Latin-1 because their bytes are not UTF-8, in order. */
  latin1Lines: number[];
}

const NEWLINE = 0x0a;

/**
 * Decodes a text report line by line: a line whose bytes are UTF-8 is read as UTF-8, any other
 * line as Latin-1 (ISO 8859-1, where every byte is a character). lcov 1.x (geninfo, a Perl
 * program) prints a path whose characters all lie in Latin-1 (`src/données/`) in Latin-1, and a
 * path with a character beyond it in UTF-8, so each of its lines is one or the other; decoding
 * the whole text as UTF-8 would turn `é` into U+FFFD and the file into one that exists nowhere.
 */
export function decodeReportText(bytes: Uint8Array): DecodedReportText {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isUtf8(buffer)) return { text: buffer.toString("utf8"), latin1Lines: [] };
  const pieces: string[] = [];
  const latin1Lines: number[] = [];
  let start = 0;
  let line = 1;
  while (start <= buffer.length) {
    const newline = buffer.indexOf(NEWLINE, start);
    const end = newline === -1 ? buffer.length : newline;
    const piece = buffer.subarray(start, end);
    if (isUtf8(piece)) {
      pieces.push(piece.toString("utf8"));
    } else {
      pieces.push(piece.toString("latin1"));
      latin1Lines.push(line);
    }
    if (newline === -1) break;
    pieces.push("\n");
    start = newline + 1;
    line += 1;
  }
  return { text: pieces.join(""), latin1Lines };
}

/**
 * The warning for a report some of whose lines were read as Latin-1, or null when every line was
 * UTF-8.
 */
export function latin1Warning(latin1Lines: readonly number[]): string | null {
  if (latin1Lines.length === 0) return null;
  return (
    `${latin1Lines.length} line(s) of the report are not UTF-8 and were read as Latin-1 ` +
    `(first: line ${latin1Lines[0]}), as lcov 1.x writes a path whose characters are all Latin-1 ` +
    "(src/données/); a report in another encoding should be converted to UTF-8 before upload."
  );
}
