import { JSONParser, type ParsedElementInfo, TokenizerError } from "@streamparser/json";
import { SbomFormatError } from "./types.ts";

/**
 * Feeds a JSON SBOM through @streamparser/json, handing each value at the given paths to
 * `onValue` and dropping it afterwards (`keepStack: false`), so a large SBOM is never held as one
 * tree. Errors name the byte where reading stopped, and a document that ends early says so.
 */
export async function streamJson(
  what: string,
  source: AsyncIterable<Uint8Array | string>,
  paths: string[],
  onValue: (info: ParsedElementInfo) => void,
): Promise<void> {
  const parser = new JSONParser({ paths, keepStack: false });
  parser.onValue = onValue;
  let bytes = 0;
  for await (const chunk of source) {
    try {
      parser.write(chunk);
    } catch (error) {
      if (error instanceof SbomFormatError) throw error;
      throw new SbomFormatError(`${what}: invalid JSON ${positionOf(error, bytes)}`);
    }
    bytes += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength;
  }
  if (bytes === 0) throw new SbomFormatError(`${what}: the document is empty`);
  try {
    if (!parser.isEnded) parser.end();
  } catch (error) {
    if (error instanceof SbomFormatError) throw error;
    throw new SbomFormatError(
      `${what}: the document ends at byte ${bytes} before its value is complete (is the file cut short?)`,
    );
  }
}

function positionOf(error: unknown, chunkStart: number): string {
  const found = error instanceof TokenizerError ? /absolute position "(\d+)"/.exec(error.message) : null;
  if (found) return `at byte ${found[1]}`;
  return `after byte ${chunkStart}`;
}

/** `value` as a plain object, or undefined. */
export function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** `value` when it is a non-empty string, else null. */
export function stringOf(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}
