import { readCppcheckXml } from "./cppcheck/reader.ts";
import { readGccJson } from "./gcc/reader.ts";
import { readGoVetJson } from "./govet/reader.ts";
import { readSarif, type SarifChunk } from "./sarif/reader.ts";
import type { SarifEvent } from "./sarif/types.ts";

/**
 * The reports an analyzer's findings arrive in: SARIF 2.1.0, cppcheck's XML (cppcheck before
 * 2.16 writes no SARIF), `go vet -json`'s output (vet writes no SARIF) and GCC's JSON diagnostics
 * (GCC before 13 writes no SARIF). All are read into the SARIF reader's events, so everything
 * after the reader is one path. Which one a report is follows from its first character: `<` is
 * XML, `#` the go command's package line that starts vet's output, `[` GCC's list of
 * diagnostics, anything else is read as SARIF (whose reader names the problem when it is not
 * JSON either).
 */

export type FindingsFormat = "sarif" | "cppcheck-xml" | "go-vet-json" | "gcc-json";

/** The name recorded on the artifact (`Artifact.format`) for each format. */
export const FINDINGS_FORMAT_NAMES: Readonly<Record<FindingsFormat, string>> = {
  sarif: "SARIF 2.1.0",
  "cppcheck-xml": "cppcheck XML 2",
  "go-vet-json": "go vet JSON",
  "gcc-json": "GCC JSON",
};

export interface FindingsReadOptions {
  /** The directory the tool ran in, which absolute paths are made relative to. */
  workDir: string | null;
  /** SARIF only: the directory each run's tool ran in, in `workDir` (`readSarif`'s option). */
  workingDirectories?: ReadonlyMap<number, string>;
  /**
   * The repository-relative directory the report was made in, when not the root
   * (src/formats/report-placement.ts): relative paths are read from it.
   */
  directory?: string | null;
  /** Told the report's format once it is known, before the first event. */
  onFormat?: (format: FindingsFormat) => void;
}

/** The formats other than SARIF, by the first character of their text. */
const FORMAT_OF_FIRST_BYTE: ReadonlyMap<number, FindingsFormat> = new Map([
  [0x3c, "cppcheck-xml"], // <
  [0x23, "go-vet-json"], // #
  [0x5b, "gcc-json"], // [
]);

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const BOM = [0xef, 0xbb, 0xbf];

/** The first byte of `bytes` that is neither a byte order mark nor whitespace, or undefined. */
function firstSignificantByte(bytes: Uint8Array, skippedBom: boolean): number | undefined {
  let at = 0;
  if (!skippedBom && BOM.every((byte, i) => bytes[i] === byte)) at = BOM.length;
  for (; at < bytes.length; at++) if (!WHITESPACE.has(bytes[at]!)) return bytes[at];
  return undefined;
}

async function* bytesOf(
  source: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) yield typeof chunk === "string" ? Buffer.from(chunk) : chunk;
}

/** Reads a findings report of either format, telling `onFormat` which it is. */
export async function* readFindings(
  source: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
  options: FindingsReadOptions,
): AsyncGenerator<SarifEvent> {
  const iterator = bytesOf(source);
  const head: Uint8Array[] = [];
  let first: number | undefined;
  while (first === undefined) {
    const next = await iterator.next();
    if (next.done) break;
    head.push(next.value);
    first = firstSignificantByte(next.value, head.length > 1);
  }
  async function* replayed(): AsyncGenerator<Uint8Array> {
    yield* head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  const format = FORMAT_OF_FIRST_BYTE.get(first ?? -1) ?? "sarif";
  options.onFormat?.(format);
  const readerOptions = { workDir: options.workDir, directory: options.directory ?? null };
  if (format === "cppcheck-xml") yield* readCppcheckXml(replayed(), readerOptions);
  else if (format === "go-vet-json") yield* readGoVetJson(replayed(), readerOptions);
  else if (format === "gcc-json") yield* readGccJson(replayed(), readerOptions);
  else yield* readSarif(replayed(), { ...readerOptions, workingDirectories: options.workingDirectories });
}
