import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import type { LogLevel } from "../../src/config.ts";
import { createLogger, type Logger } from "../../src/logger.ts";
import { WatchedText } from "./secret-leaks.ts";

/**
 * Loggers for tests. Every logger a test makes writes into a {@link MemoryLog}, whose lines the
 * secret check reads (test/helpers/secret-leaks.ts): a test never logs to nowhere, so no line
 * escapes the check. `TEST_LOG_LEVEL` also prints the lines, for debugging a test.
 */

let logs = 0;

/** Every line the logger wrote, kept in memory and parsed on demand. */
export class MemoryLog extends Writable {
  private readonly watched: WatchedText;

  constructor(source = "log") {
    super();
    logs += 1;
    this.watched = new WatchedText(`${source} #${logs}`);
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    const text = chunk.toString();
    this.watched.add(text);
    if (process.env.TEST_LOG_LEVEL) process.stdout.write(text);
    callback();
  }

  /** All lines written so far. */
  get text(): string {
    return this.watched.text;
  }

  /** The text the secret check reads. */
  get watchedText(): WatchedText {
    return this.watched;
  }

  /** Each line parsed; fails the test on a line that is not one JSON object. */
  entries(): Array<Record<string, unknown>> {
    return this.text
      .split("\n")
      .filter((line) => line.length > 0)
      .map((line) => {
        const parsed: unknown = JSON.parse(line);
        assert.ok(parsed !== null && typeof parsed === "object" && !Array.isArray(parsed), line);
        return parsed as Record<string, unknown>;
      });
  }

  /** The entries with `requestId`, once `count` of them are there (the line follows the response). */
  async forRequest(requestId: string | null, count = 1): Promise<Array<Record<string, unknown>>> {
    const deadline = Date.now() + 2000;
    for (;;) {
      const found = this.entries().filter((entry) => entry.requestId === requestId);
      if (found.length >= count || Date.now() > deadline) return found;
      await sleep(10);
    }
  }
}

/**
 * The level a test logger records at when the test does not choose one: debug, so the check sees
 * every line an operator could switch on (TEST_LOG_LEVEL overrides it).
 */
export function defaultTestLogLevel(): LogLevel {
  return (process.env.TEST_LOG_LEVEL as LogLevel | undefined) ?? "debug";
}

/** A logger (the app's, redaction included) whose lines go to a {@link MemoryLog} the check reads. */
export function testLogger(
  source: string,
  level: LogLevel = defaultTestLogLevel(),
): { logger: Logger; log: MemoryLog } {
  const log = new MemoryLog(source);
  return { logger: createLogger(level, log), log };
}
