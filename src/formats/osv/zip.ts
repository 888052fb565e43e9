import { Unzip, UnzipInflate } from "fflate";

/**
 * Reads the JSON files of a ZIP archive as they stream past (an OSV export such as
 * `npm/all.zip`), with fflate's streaming unzip: one file's text in memory at a time, never the
 * whole archive. Files not ending in `.json` and directories are skipped.
 */

/** One file of the archive. */
export interface ZipEntry {
  name: string;
  text: string;
}

/** A ZIP archive that cannot be read. */
export class ZipReadError extends Error {}

const MAX_ENTRY_BYTES = 64 * 1024 * 1024;

/** The `.json` entries of the ZIP archive whose bytes `chunks` yields, in archive order. */
export async function* readZipJsonEntries(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ZipEntry> {
  const ready: ZipEntry[] = [];
  let failure: Error | null = null;
  const decoder = new TextDecoder();
  const unzip = new Unzip((file) => {
    if (!file.name.endsWith(".json")) return;
    const parts: Uint8Array[] = [];
    let size = 0;
    file.ondata = (error, data, final) => {
      if (failure) return;
      if (error) {
        failure = new ZipReadError(`${file.name}: ${error.message}`);
        return;
      }
      size += data.length;
      if (size > MAX_ENTRY_BYTES) {
        failure = new ZipReadError(`${file.name}: larger than ${MAX_ENTRY_BYTES} bytes`);
        return;
      }
      parts.push(data);
      if (final) {
        const all = new Uint8Array(size);
        let offset = 0;
        for (const part of parts) {
          all.set(part, offset);
          offset += part.length;
        }
        ready.push({ name: file.name, text: decoder.decode(all) });
      }
    };
    try {
      file.start();
    } catch (error) {
      failure = new ZipReadError(`${file.name}: ${(error as Error).message}`);
    }
  });
  unzip.register(UnzipInflate);
  let sawBytes = false;
  let first = true;
  for await (const chunk of chunks) {
    if (first && chunk.length >= 2) {
      first = false;
      if (chunk[0] !== 0x50 || chunk[1] !== 0x4b)
        throw new ZipReadError("not a ZIP archive (no PK signature)");
    }
    sawBytes ||= chunk.length > 0;
    try {
      unzip.push(chunk, false);
    } catch (error) {
      throw new ZipReadError(`the archive is damaged: ${(error as Error).message}`);
    }
    if (failure) throw failure;
    while (ready.length > 0) yield ready.shift()!;
  }
  if (!sawBytes) throw new ZipReadError("the archive is empty");
  try {
    unzip.push(new Uint8Array(0), true);
  } catch (error) {
    throw new ZipReadError(`the archive is damaged: ${(error as Error).message}`);
  }
  if (failure) throw failure;
  while (ready.length > 0) yield ready.shift()!;
}
