/**
 * Assay as the benchmark runs it: the real `startApp` with the configuration parsed from the
 * environment bench/run.ts sets (PORT=0, LOG_LEVEL, RATE_LIMIT_PER_HOUR, ASSAY_GRAPHQL_JIT, the
 * database and Redis). The same as `npm start` minus the demo seeding and banner, which the
 * benchmark does itself, plus an IPC handshake so the parent learns the port.
 *
 * Sends `{ type: "ready", url }` once listening (or `{ type: "error", message }`), and stops
 * gracefully on `{ type: "stop" }`, SIGTERM/SIGINT, or when the parent goes away.
 */
import { startApp } from "../src/app.ts";
import { parseConfig } from "../src/config.ts";
import { createLogger, flushLogger } from "../src/logger.ts";

async function main(): Promise<void> {
  const config = parseConfig();
  const logger = createLogger(config.logLevel);
  const app = await startApp(config, logger);

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    try {
      await app.stop();
    } finally {
      await flushLogger(logger);
      process.exit(0);
    }
  };
  process.on("message", (message: { type?: string }) => {
    if (message?.type === "stop") void stop();
  });
  process.on("disconnect", () => void stop());
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
  process.send?.({ type: "ready", url: `${app.url}/graphql/` });
}

main().catch((error: unknown) => {
  process.send?.({ type: "error", message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
