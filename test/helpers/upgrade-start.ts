import { type RunningApp, startApp } from "../../src/app.ts";
import { type Config, parseConfig } from "../../src/config.ts";
import { migrateToLatest, openDatabase } from "../../src/db/database.ts";
import { newRowKey } from "../../src/graphql/global-id.ts";
import { testLogger } from "./log-capture.ts";
import { recordedLevel } from "./server.ts";

/**
 * Upgrades a database an earlier version wrote and starts the app on it, as a user would:
 * `npm run migrate` first on PostgreSQL (`migrated` lists what it applied), the embedded database
 * migrating as it starts (`migrated` is then empty). The worker is off.
 */
export async function upgradeAndStart(
  database: { databaseUrl: string | undefined; dataDir: string },
  pepper: string,
): Promise<{ app: RunningApp; config: Config; migrated: string[] }> {
  const config = parseConfig({
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: database.databaseUrl,
    ASSAY_DATA_DIR: database.dataDir,
    ASSAY_TOKEN_PEPPER: pepper,
    ASSAY_SESSION_SECRET: "test-session-secret-0123456789abcdef",
    ASSAY_REDIS_KEY_PREFIX: `assay:test:upgrade:${newRowKey()}`,
    ASSAY_WORKER: "false",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
  });
  let migrated: string[] = [];
  if (config.databaseUrl) {
    const handle = await openDatabase(config);
    try {
      migrated = await migrateToLatest(handle.db);
    } finally {
      await handle.close();
    }
  }
  const app = await startApp(config, testLogger("upgraded app", recordedLevel(config)).logger);
  return { app, config, migrated };
}
