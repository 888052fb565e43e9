/**
 * Giving the memory a process freed back to the operating system.
 *
 * glibc's malloc returns the free top of a heap to the operating system, but it keeps the free
 * pages that lie between blocks still in use, in every arena, for as long as the process lives.
 * The embedded database's process frees most of what it allocated at its start (V8 compiling
 * PGlite's WebAssembly on several threads) and after each burst of queries, between blocks it
 * keeps: 30-40 MB of its idle resident memory was such pages (docs/benchmarks.md "malloc_trim
 * every 10 s"). glibc's `malloc_trim(0)` gives them back; node does not call it and cannot call
 * a C function by itself, so `malloc-trim.c` is a Node-API addon of that one function, compiled
 * by the install (scripts/embedded-template.ts) with the machine's C compiler.
 *
 * The server, the embedded database's process and `assay worker` call it every 10 s
 * ({@link trimFreedMemoryEvery}). It is an optimization only: where it could not be built (no C
 * compiler, no Node headers, a C library other than glibc, an install without scripts)
 * {@link loadMallocTrim} answers null and the processes run as before, holding that memory.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** The addon's source. */
const SOURCE = path.join(import.meta.dirname, "malloc-trim.c");

/** Where the install keeps the built addon: node_modules/.cache, as for the compiled server. */
export const NATIVE_DIRECTORY = path.resolve(
  import.meta.dirname,
  "..",
  "..",
  "node_modules",
  ".cache",
  "assay",
  "native",
);

/** The compiler's options: a shared object of position-independent code, every warning an error. */
const COMPILER_FLAGS = ["-O2", "-shared", "-fPIC", "-std=c11", "-Wall", "-Wextra", "-Werror"];

/** The addon's file for this source, platform and architecture, in `directory`. */
export function mallocTrimAddonPath(directory: string = NATIVE_DIRECTORY): string {
  const hash = createHash("sha256")
    .update(fs.readFileSync(SOURCE))
    .update(`\0${process.platform}\0${process.arch}\0${COMPILER_FLAGS.join(" ")}`)
    .digest("hex")
    .slice(0, 16);
  return path.join(directory, `malloc-trim-${hash}.node`);
}

/** Node's C headers for addons, beside the node binary as its releases and Debian install them. */
export function nodeHeadersDirectory(nodeBinary: string = process.execPath): string {
  return path.join(path.dirname(nodeBinary), "..", "include", "node");
}

/** Raised when the addon cannot be built here; the message says why. */
export class MallocTrimBuildError extends Error {}

/**
 * Builds the addon into `directory` with the C compiler `cc` (unless it is there already), loads
 * it once to prove the C library has `malloc_trim`, and answers its path. Throws
 * {@link MallocTrimBuildError} naming what is missing.
 */
export function buildMallocTrim(options: { cc: string; directory?: string; headers?: string }): {
  file: string;
  built: boolean;
} {
  const file = mallocTrimAddonPath(options.directory);
  if (fs.existsSync(file)) return { file, built: false };
  if (process.platform !== "linux") {
    throw new MallocTrimBuildError(`malloc_trim is glibc's, and this platform is ${process.platform}`);
  }
  const headers = options.headers ?? nodeHeadersDirectory();
  if (!fs.existsSync(path.join(headers, "node_api.h"))) {
    throw new MallocTrimBuildError(`Node's C headers are not in ${headers}`);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    const compiled = spawnSync(options.cc, [...COMPILER_FLAGS, "-I", headers, SOURCE, "-o", temporary], {
      encoding: "utf8",
    });
    if (compiled.error) {
      throw new MallocTrimBuildError(
        `the C compiler ${options.cc} could not be run (${compiled.error.message})`,
      );
    }
    if (compiled.status !== 0) {
      const output = `${compiled.stderr}${compiled.stdout}`.trim().split("\n").slice(0, 5).join("\n");
      const said = output ? `: ${output}` : "";
      throw new MallocTrimBuildError(
        `${options.cc} failed (exit ${compiled.status ?? compiled.signal})${said}`,
      );
    }
    try {
      requireAddon(temporary);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new MallocTrimBuildError(`the built addon does not load (${reason})`);
    }
    fs.renameSync(temporary, file);
    return { file, built: true };
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

interface MallocTrimAddon {
  trim(): boolean;
}

function requireAddon(file: string): MallocTrimAddon {
  const module = { exports: {} as MallocTrimAddon };
  process.dlopen(module, file);
  if (typeof module.exports.trim !== "function") throw new Error(`${file} has no trim function`);
  return module.exports;
}

/**
 * `malloc_trim(0)` from the addon the install built (true when memory went back to the operating
 * system), or null where there is none.
 */
export function loadMallocTrim(directory?: string): (() => boolean) | null {
  const file = mallocTrimAddonPath(directory);
  if (!fs.existsSync(file)) return null;
  try {
    return requireAddon(file).trim;
  } catch {
    return null;
  }
}

/** How often the server, the embedded database's process and `assay worker` give freed memory back. */
export const TRIM_INTERVAL_MS = 10_000;

/**
 * Gives the memory the process freed back to the operating system every `intervalMs`, for as
 * long as it runs, when the install built the addon. Neither process it serves is idle for long
 * (the server's job worker polls the database every second), and a call costs about 0.1 ms when
 * there is nothing to give back, a few ms for tens of MB. The timer never keeps a process alive.
 * Answers the function that stops it, or null without the addon.
 */
export function trimFreedMemoryEvery(
  intervalMs: number = TRIM_INTERVAL_MS,
  trim: (() => boolean) | null = loadMallocTrim(),
): (() => void) | null {
  if (!trim) return null;
  const timer = setInterval(trim, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
