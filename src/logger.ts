import pino, { type DestinationStream, type Logger } from "pino";
import type { LogLevel } from "./config.ts";

/**
 * The process logger: one JSON object per line on stdout, written asynchronously so logging never
 * stalls a request. Call {@link flushLogger} before exiting. `destination` replaces stdout (tests
 * read the lines from memory) and keeps every other option, redaction included.
 */
export function createLogger(
  level: LogLevel,
  destination: DestinationStream = pino.destination({ dest: 1, sync: false, minLength: 0 }),
): Logger {
  return pino(
    {
      level,
      base: { service: "assay" },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Belt and braces: nothing we log carries credentials, and these paths would be redacted if it did.
      redact: {
        paths: ["req.headers.authorization", "authorization", "token", "*.token"],
        censor: "[redacted]",
      },
    },
    destination,
  );
}

/** Writes out anything buffered. */
export function flushLogger(logger: Logger): Promise<void> {
  return new Promise((resolve) => logger.flush(() => resolve()));
}

export type { Logger };
