/**
 * Assay as the benchmark runs it: the real `startApp` with the configuration parsed from the
 * environment bench/run.ts sets (PORT=0, LOG_LEVEL, RATE_LIMIT_PER_HOUR, ASSAY_GRAPHQL_JIT, the
 * database and Redis). The same as `npm start` minus the demo seeding and banner, which the
 * benchmark does itself, plus an IPC handshake so the parent learns the port.
 *
 * It speaks bench/child-protocol.ts with the parent.
 */
import { startApp } from "../src/app.ts";
import { parseConfig } from "../src/config.ts";
import { createLogger, flushLogger } from "../src/logger.ts";
import { runBenchChild } from "./child-protocol.ts";

runBenchChild(async () => {
  const config = parseConfig();
  const logger = createLogger(config.logLevel);
  const app = await startApp(config, logger);
  return {
    url: `${app.url}/graphql/`,
    async stop() {
      try {
        await app.stop();
      } finally {
        await flushLogger(logger);
      }
    },
  };
});
