import { createReadStream } from "node:fs";
import { mkdtemp, open, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Kysely } from "kysely";
import type { Config } from "../config.ts";
import type { Database } from "../db/types.ts";
import { readZipJsonEntries, ZipReadError } from "../formats/osv/zip.ts";
import type { Logger } from "../logger.ts";
import {
  type ImportSummary,
  importAdvisories,
  type RecordSource,
} from "../modules/dependencies/advisory-import.ts";
import {
  findAdvisorySource,
  recordSourceFailed,
  recordSourceImported,
  recordSourceNotModified,
} from "../modules/dependencies/advisory-store.ts";
import { DownloadError, downloadExport } from "./download.ts";
import { displayUrl } from "./source-url.ts";

/**
 * `advisories sync` (docs/advisories.md "Sync"): for each configured OSV export URL, a
 * conditional download, then the import every `advisories import` does (idempotent upserts,
 * withdrawals, re-matching of the latest runs' SCA checks), then a record in `advisory_sources`
 * of how it ended. The scheduled job and the CLI command both run {@link syncAdvisorySources}.
 */

/** What a sync needs from the configuration. */
export interface SyncSettings {
  urls: readonly string[];
  maxBytes: number;
  allowPrivateNetworks: boolean;
}

/** The sync settings of `config`. */
export function syncSettings(config: Config): SyncSettings {
  return {
    urls: config.advisorySyncUrls,
    maxBytes: config.advisorySyncMaxBytes,
    allowPrivateNetworks: config.advisorySyncAllowPrivateNetworks,
  };
}

/** How the sync of one URL ended. */
export type SourceOutcome =
  | { url: string; status: "NOT_MODIFIED" }
  | { url: string; status: "IMPORTED"; bytes: number; summary: ImportSummary }
  | { url: string; status: "FAILED"; error: string };

/** What a sync run may be given. */
export interface SyncOptions {
  /** Aborts the sync (the worker stops): the error propagates and nothing more is recorded. */
  signal?: AbortSignal;
  logger?: Logger;
  onProgress?: (line: string) => void;
}

/** An export that downloaded but cannot be imported. */
class ExportError extends Error {}

/** A JSON export is parsed whole; beyond this size it must come as a ZIP. */
const MAX_JSON_BYTES = 64 * 1024 * 1024;

/** Syncs every URL of `settings`, one after the other; one failing does not stop the others. */
export async function syncAdvisorySources(
  db: Kysely<Database>,
  settings: SyncSettings,
  options: SyncOptions = {},
): Promise<SourceOutcome[]> {
  const outcomes: SourceOutcome[] = [];
  for (const url of settings.urls) outcomes.push(await syncSource(db, url, settings, options));
  return outcomes;
}

async function syncSource(
  db: Kysely<Database>,
  url: string,
  settings: SyncSettings,
  options: SyncOptions,
): Promise<SourceOutcome> {
  const known = await findAdvisorySource(db, url);
  const dir = await mkdtemp(path.join(os.tmpdir(), "assay-advisories-"));
  try {
    const file = path.join(dir, "export");
    const result = await downloadExport({
      url,
      etag: known?.etag ?? null,
      lastModified: known?.last_modified ?? null,
      maxBytes: settings.maxBytes,
      allowPrivateNetworks: settings.allowPrivateNetworks,
      file,
      signal: options.signal,
    });
    if (result.status === "not-modified") {
      await recordSourceNotModified(db, url, result);
      return { url, status: "NOT_MODIFIED" };
    }
    const records = await recordsOf(file, url, result.contentType, options.signal);
    const summary = await importAdvisories(db, records, { onProgress: options.onProgress });
    if (summary.read === 0) throw new ExportError("the export holds no OSV record");
    if (summary.imported + summary.unchanged === 0) {
      throw new ExportError(
        `the export holds no valid OSV record (${summary.problems[0] ?? "none readable"})`,
      );
    }
    await recordSourceImported(db, url, {
      etag: result.etag,
      lastModified: result.lastModified,
      bytes: result.bytes,
      summary,
    });
    return { url, status: "IMPORTED", bytes: result.bytes, summary };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const message = failureMessage(error, options.logger, url);
    await recordSourceFailed(db, url, message);
    return { url, status: "FAILED", error: message };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The sentence recorded for a failure: ours for known ones; unexpected errors are logged whole. */
function failureMessage(error: unknown, logger: Logger | undefined, url: string): string {
  if (error instanceof DownloadError || error instanceof ExportError) return error.message;
  if (error instanceof ZipReadError) return `the ZIP archive cannot be read: ${error.message}`;
  logger?.error({ err: error, url: displayUrl(url) }, "advisory sync failed unexpectedly");
  return `unexpected error: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500);
}

/** The records of the downloaded export: a ZIP by its signature, else one JSON record or an array. */
async function recordsOf(
  file: string,
  url: string,
  contentType: string | null,
  signal: AbortSignal | undefined,
): Promise<AsyncIterable<RecordSource> | RecordSource[]> {
  const name = path.posix.basename(new URL(url).pathname) || "export";
  const head = await firstBytes(file, 4096);
  if (head[0] === 0x50 && head[1] === 0x4b) return zipRecords(file, name, signal);
  const text = head
    .toString("utf8")
    .replace(/^\uFEFF/, "")
    .trimStart();
  if (!text.startsWith("{") && !text.startsWith("[")) {
    throw new ExportError(
      `the export is neither a ZIP archive nor JSON (content type ${contentType ?? "not given"})`,
    );
  }
  if ((await stat(file)).size > MAX_JSON_BYTES) {
    throw new ExportError(`a JSON export over ${MAX_JSON_BYTES} bytes is not read; use the ZIP export`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse((await readFile(file, "utf8")).replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new ExportError(`the export is not valid JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(parsed)) return [{ name, text: JSON.stringify(parsed) }];
  return parsed.map((record, i) => ({ name: `${name}[${i}]`, text: JSON.stringify(record) }));
}

async function firstBytes(file: string, count: number): Promise<Buffer> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(count);
    const { bytesRead } = await handle.read(buffer, 0, count, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function* zipRecords(
  file: string,
  name: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<RecordSource> {
  for await (const entry of readZipJsonEntries(createReadStream(file))) {
    signal?.throwIfAborted();
    yield { name: `${name}:${entry.name}`, text: entry.text };
  }
}

/** One line saying what an import did, for logs and the CLI. */
export function describeImport(summary: ImportSummary): string {
  const parts = [
    `${summary.imported} records imported (${summary.withdrawn} withdrawn)`,
    `${summary.unchanged} unchanged`,
    `${summary.invalid} invalid`,
    `${summary.rematchedChecks} SCA checks matched again (+${summary.occurrencesAdded} / -${summary.occurrencesRemoved} occurrences)`,
  ];
  return `${summary.read} read: ${parts.join(", ")}`;
}

/** One line saying how the sync of a URL ended. */
export function describeOutcome(outcome: SourceOutcome): string {
  const url = displayUrl(outcome.url);
  if (outcome.status === "NOT_MODIFIED") return `${url}: not modified`;
  if (outcome.status === "FAILED") return `${url}: failed: ${outcome.error}`;
  return `${url}: imported ${outcome.bytes} bytes; ${describeImport(outcome.summary)}`;
}
