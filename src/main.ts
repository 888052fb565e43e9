/**
 * `npm start`: runs the server. On the embedded database (no DATABASE_URL) it migrates, and on
 * the first start of an empty database it seeds demo data and prints a demo token.
 */
import fs from "node:fs";
import path from "node:path";
import type { Kysely } from "kysely";
import { type Config, ConfigError, parseConfig } from "./config.ts";
import { startEmbeddedForServer } from "./db/database.ts";
import type { Database } from "./db/types.ts";
import { createLogger, flushLogger, type Logger } from "./logger.ts";

function readConfig(): Config {
  try {
    return parseConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

async function seedEmbeddedDemo(
  config: Config,
  db: Kysely<Database>,
  logger: Logger,
): Promise<string | undefined> {
  const { countUsers } = await import("./modules/users/user-store.ts");
  const { hasDemoData, seedDemo } = await import("./modules/demo/demo-seed.ts");
  const { ingestRunSbom } = await import("./ingestion/sca/sbom-upload.ts");
  if ((await countUsers(db)) > 0 || (await hasDemoData(db))) return undefined;
  const { token, email } = await seedDemo(db, { pepper: config.tokenPepper, uploadSbom: ingestRunSbom });
  const file = path.join(config.dataDir, "demo-token");
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  logger.info({ user: email, tokenFile: file }, "seeded demo data");
  return token;
}

/**
 * What to tell whoever started the server. The demo token itself is shown only on a terminal:
 * where stderr is not one (a container, a service manager, a pipe), it is a log, and no token may
 * reach a log line; the file holds it either way.
 */
function banner(url: string, token: string | undefined, config: Config, onTerminal: boolean): string {
  const tokenFile = path.join(config.dataDir, "demo-token");
  const tokenLine = token
    ? onTerminal
      ? `Demo token (shown once; also saved to ${tokenFile}):\n    ${token}\n`
      : `Demo token: saved to ${tokenFile} (not printed: this output is not a terminal)\n`
    : fs.existsSync(tokenFile)
      ? `Demo token: in ${tokenFile}\n`
      : "Create a token with: npm run assay -- token create --user <email> --name <name> --expires-in 30\n";
  return [
    "",
    `Assay is listening on ${url}/graphql/ (${config.databaseUrl ? "PostgreSQL" : `embedded database in ${config.dataDir}`})`,
    tokenLine,
    "Try it:",
    `    curl -s ${url}/graphql/ -H "Authorization: Bearer $(cat ${tokenFile})" \\`,
    `      -H 'Content-Type: application/json' -d '{"query":"{ viewer { email accounts { edges { node { login } } } } }"}'`,
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(config.logLevel);
  if (config.tokenPepperIsDefault) {
    logger.warn("ASSAY_TOKEN_PEPPER is not set: using the development pepper. Set it before real use.");
  }
  // Seed before listening, so nothing can call the server before the demo token exists.
  let token: string | undefined;
  // The embedded database's process starts while the server's modules load: each takes seconds.
  const embedded = config.databaseUrl ? undefined : startEmbeddedForServer(config.dataDir);
  // Settled by openDatabase; until then a failure must not count as unhandled.
  embedded?.catch(() => {});
  const { startApp } = await import("./app.ts");
  const app = await startApp(config, logger, {
    database: { embedded },
    beforeListen: async (database) => {
      if (database.kind === "embedded") token = await seedEmbeddedDemo(config, database.db, logger);
    },
  });
  logger.info({ url: app.url, database: app.database.kind }, "listening");
  process.stderr.write(banner(app.url, token, config, process.stderr.isTTY === true));

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    try {
      await app.stop();
      logger.info("stopped");
      await flushLogger(logger);
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, "shutdown failed");
      await flushLogger(logger);
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  process.stderr.write(`Assay failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
