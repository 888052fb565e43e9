import { TextDecoder } from "node:util";
import type { SarifChunk } from "./sarif/reader.ts";
import type { SarifEvent } from "./sarif/types.ts";

/**
 * What the readers of tools' own JSON outputs (go vet's, GCC's) share: decoding the upload as
 * UTF-8 text chunk by chunk, handing it to a line-aware reader, and following JSON's nesting
 * beside the streaming parser to find where each value starts and ends.
 */

/** A reader fed the report's text piece by piece; `events` is emptied by the caller as it goes. */
export interface TextReportReader {
  readonly events: SarifEvent[];
  feed(text: string): void;
  /** The text has ended: throws when it is incomplete, yields what was held back. */
  end(): void;
}

/**
 * Decodes `chunks` as UTF-8 (a character split across chunks included) into `reader`, yielding
 * its events as they come. Text that is not UTF-8 throws `notUtf8()`.
 */
export async function* readTextReport(
  chunks: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
  reader: TextReportReader,
  notUtf8: () => Error,
): AsyncGenerator<SarifEvent> {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  const decode = (bytes: Uint8Array, last: boolean): string => {
    try {
      return decoder.decode(bytes, { stream: !last });
    } catch {
      throw notUtf8();
    }
  };
  for await (const chunk of chunks) {
    reader.feed(decode(typeof chunk === "string" ? Buffer.from(chunk) : chunk, false));
    yield* reader.events.splice(0);
  }
  reader.feed(decode(new Uint8Array(), true));
  reader.end();
  yield* reader.events.splice(0);
}

/**
 * Follows JSON text one character at a time: how deep in arrays and objects it is, and whether
 * inside a string. It does not validate (the parser does); it tells where a value ends.
 */
export class JsonNesting {
  depth = 0;
  private inString = false;
  private escaped = false;

  /** True between a value's first character and its last. */
  get open(): boolean {
    return this.depth > 0 || this.inString;
  }

  /**
   * Reads one character; returns it when it is outside strings and not whitespace (a bracket, a
   * brace, `:`, `,`, the quote that opens a string or a scalar's character), else null. The depth
   * is updated before returning.
   */
  step(char: string): string | null {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (char === "\\") this.escaped = true;
      else if (char === '"') this.inString = false;
      return null;
    }
    if (char === " " || char === "\t" || char === "\n" || char === "\r") return null;
    if (char === '"') this.inString = true;
    else if (char === "[" || char === "{") this.depth += 1;
    else if (char === "]" || char === "}") this.depth -= 1;
    return char;
  }
}

/** `value` as a plain object, or false. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
