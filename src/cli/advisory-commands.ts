import { createReadStream } from "node:fs";
import { open, readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import { readZipJsonEntries, ZipReadError } from "../formats/osv/zip.ts";
import {
  EpssFormatError,
  type ImportSummary,
  importAdvisories,
  importEpss,
  type RecordSource,
} from "../modules/dependencies/advisory-import.ts";
import { CliError, type Command } from "./command.ts";

/** `advisories import` and `advisories import-epss` (docs/advisories.md). */

async function startsWith(file: string, bytes: number[]): Promise<boolean> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(bytes.length);
    const { bytesRead } = await handle.read(buffer, 0, bytes.length, 0);
    return bytesRead === bytes.length && bytes.every((b, i) => buffer[i] === b);
  } finally {
    await handle.close();
  }
}

async function* jsonFilesUnder(dir: string): AsyncGenerator<RecordSource> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* jsonFilesUnder(full);
    else if (entry.isFile() && entry.name.endsWith(".json")) {
      yield { name: full, text: await readFile(full, "utf8") };
    }
  }
}

async function* zipRecords(file: string): AsyncGenerator<RecordSource> {
  try {
    for await (const entry of readZipJsonEntries(createReadStream(file))) {
      yield { name: `${path.basename(file)}:${entry.name}`, text: entry.text };
    }
  } catch (error) {
    if (error instanceof ZipReadError) throw new CliError(`${file}: ${error.message}`);
    throw error;
  }
}

/** The records at `input`: a ZIP export, a directory of .json files, or one .json file. */
async function recordsAt(input: string): Promise<AsyncIterable<RecordSource> | RecordSource[]> {
  const info = await stat(input).catch(() => {
    throw new CliError(`${input}: no such file or directory`);
  });
  if (info.isDirectory()) return jsonFilesUnder(input);
  if (!info.isFile()) throw new CliError(`${input}: not a file or directory`);
  if (await startsWith(input, [0x50, 0x4b])) return zipRecords(input);
  const text = await readFile(input, "utf8");
  // One record, or a JSON array of records.
  const trimmed = text.trimStart();
  if (trimmed.startsWith("[")) {
    let list: unknown;
    try {
      list = JSON.parse(text);
    } catch (error) {
      throw new CliError(`${input}: not JSON (${(error as Error).message})`);
    }
    return (list as unknown[]).map((record, i) => ({ name: `${input}[${i}]`, text: JSON.stringify(record) }));
  }
  return [{ name: input, text }];
}

function printSummary(print: (line: string) => void, summary: ImportSummary): void {
  print(
    `${summary.read} records read: ${summary.imported} imported (${summary.withdrawn} withdrawn), ${summary.unchanged} unchanged, ${summary.invalid} invalid`,
  );
  if (summary.skippedAffected > 0) {
    print(`${summary.skippedAffected} affected packages of ecosystems Assay does not match were left out`);
  }
  print(
    `${summary.rematchedChecks} SCA checks matched again: ${summary.occurrencesAdded} occurrences raised, ${summary.occurrencesRemoved} removed`,
  );
}

export const advisoriesImport: Command = {
  name: "advisories import",
  summary:
    "Import OSV advisories: an export as OSV publishes it per ecosystem (a ZIP of records, e.g. npm/all.zip), a directory of .json records, or one .json record. Idempotent; then re-matches the latest runs' SCA checks.",
  flags: {
    path: { type: "string", placeholder: "PATH", required: true, description: "The ZIP, directory or file." },
  },
  positional: { placeholder: "PATH", flag: "path" },
  async run({ flags, database, print, note }) {
    const input = flags.required("path");
    const records = await recordsAt(input);
    const { db } = await database();
    const summary = await importAdvisories(db, records, { onProgress: note });
    if (summary.read === 0) throw new CliError(`${input}: no OSV records found`);
    for (const problem of summary.problems) note(`skipped ${problem}`);
    printSummary(print, summary);
    if (summary.imported + summary.unchanged === 0) throw new CliError(`${input}: no valid OSV record`);
  },
};

export const advisoriesImportEpss: Command = {
  name: "advisories import-epss",
  summary:
    "Import EPSS scores from FIRST's daily CSV (epss_scores-YYYY-MM-DD.csv, gzipped or not) onto the advisories known by each CVE.",
  flags: {
    file: { type: "string", placeholder: "FILE", required: true, description: "The CSV or .csv.gz file." },
  },
  positional: { placeholder: "FILE", flag: "file" },
  async run({ flags, database, print }) {
    const file = flags.required("file");
    const info = await stat(file).catch(() => {
      throw new CliError(`${file}: no such file`);
    });
    if (!info.isFile()) throw new CliError(`${file}: not a file`);
    const gzipped = await startsWith(file, [0x1f, 0x8b]);
    const { db } = await database();
    // Opened only now: readline starts reading at once, and lines read before anyone iterates are lost.
    const raw = createReadStream(file);
    const stream = gzipped ? raw.pipe(createGunzip()) : raw;
    try {
      const summary = await importEpss(
        db,
        createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }),
      );
      print(
        `${summary.rows} EPSS scores${summary.scoreDate ? ` of ${summary.scoreDate}` : ""}: ${summary.updated} advisories updated, ${summary.unknown} CVEs without an advisory`,
      );
    } catch (error) {
      if (error instanceof EpssFormatError) throw new CliError(`${file}: ${error.message}`);
      if ((error as { code?: string }).code === "Z_DATA_ERROR")
        throw new CliError(`${file}: damaged gzip data`);
      throw error;
    }
  },
};
