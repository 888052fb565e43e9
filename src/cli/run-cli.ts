/**
 * What `npm run assay -- <command>` runs (src/cli/assay.ts is the process around it): the admin CLI. Sets up users, accounts, memberships, repositories
 * and tokens, applies migrations and seeds the demo, on the database the configuration selects
 * (PostgreSQL, or the embedded one, reached through the running server when there is one).
 *
 * Results go to stdout, messages to stderr. Exit codes: 0 done, 1 bad input or failure (one line
 * naming the problem), 2 the command line itself is wrong, 3 (`upload` only) the outcome cannot be
 * told: the server was unreachable or failing, or `--wait` ran out of time.
 */
import { type Config, ConfigError, parseConfig } from "../config.ts";
import { type DatabaseHandle, migrateToLatest, openDatabase, pendingMigrations } from "../db/database.ts";
import { DataDirectoryInUseError } from "../db/embedded.ts";
import {
  CliError,
  type CommandContext,
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
  formatCommandHelp,
  formatUsageLine,
  isUniqueViolation,
  parseFlags,
  UsageError,
} from "./command.ts";
import { COMMANDS, commandsOfGroup, findCommand, formatGroupHelp } from "./commands.ts";

/** The CLI needs one connection at a time; two leaves room for a transaction's look-ups. */
const CLI_POOL_SIZE = 2;

/** Where the CLI writes: results (stdout) and messages (stderr), a line at a time. */
export interface CliOutput {
  print(line: string): void;
  note(line: string): void;
}

const PROCESS_OUTPUT: CliOutput = {
  print: (line) => process.stdout.write(`${line}\n`),
  note: (line) => process.stderr.write(`${line}\n`),
};

function usageText(): string {
  const lines = ["Usage: npm run assay -- <command> [flags]", "", "Commands:"];
  for (const command of COMMANDS) {
    lines.push(`  ${formatUsageLine(command)}`, ...wrap(command.summary, 94).map((line) => `      ${line}`));
  }
  lines.push(
    "",
    'Run "npm run assay -- <command> --help" for a command\'s flags, and "npm run assay -- config" for',
    "the environment variables that select the database. Exit codes: 0 done, 1 failed, 2 usage error,",
    "3 (upload) outcome unknown: server unreachable or failing, or --wait timed out.",
  );
  return lines.join("\n");
}

/** Splits `text` at spaces into lines of at most `width` characters (longer words stay whole). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  return line === "" ? lines : [...lines, line];
}

/** Opens the configured database and makes sure its schema is the one this code expects. */
async function prepareDatabase(
  handle: DatabaseHandle,
  mode: "ready" | "raw",
  note: (line: string) => void,
): Promise<void> {
  if (mode === "raw") return;
  if (handle.kind === "embedded") {
    // As the server does on start, so the CLI works on a data directory the server never opened.
    const applied = await migrateToLatest(handle.db);
    if (applied.length > 0) note(`Migrated the embedded database: ${applied.join(", ")}`);
    return;
  }
  const pending = await pendingMigrations(handle.db);
  if (pending.length > 0) {
    throw new CliError(
      `the database has ${pending.length} pending migration(s) (${pending.join(", ")}); run "npm run migrate" first`,
    );
  }
}

/** What `assay help <words>` prints: a command's help, or a group's list of commands. */
function helpOf(words: string[]): string {
  const [word = ""] = words;
  if (words.length === 1 && commandsOfGroup(word).length > 0) return formatGroupHelp(word);
  const found = findCommand(words);
  return "group" in found ? formatGroupHelp(found.group) : formatCommandHelp(found.command);
}

async function dispatch(argv: string[], { print, note }: CliOutput): Promise<number> {
  const [first] = argv;
  if (first === undefined) {
    note(usageText());
    return EXIT_USAGE;
  }
  if (first === "help" || first === "--help" || first === "-h") {
    print(argv.length > 1 ? helpOf(argv.slice(1)) : usageText());
    return EXIT_OK;
  }
  const found = findCommand(argv);
  if ("group" in found) {
    print(formatGroupHelp(found.group));
    return EXIT_OK;
  }
  const { command, args } = found;
  const flags = parseFlags(command, args);
  if (flags === "help") {
    print(formatCommandHelp(command));
    return EXIT_OK;
  }
  // Read on first use: a client command such as `upload` runs in CI environments whose variables
  // (a production NODE_ENV, a DATABASE_URL of another kind) are not a server's configuration.
  let config: Config | undefined;
  let handle: DatabaseHandle | undefined;
  const context: CommandContext = {
    get config() {
      config ??= parseConfig();
      return config;
    },
    flags,
    async database(mode = "ready") {
      if (!handle) {
        handle = await openDatabase({
          ...context.config,
          databasePoolSize: Math.min(CLI_POOL_SIZE, context.config.databasePoolSize),
        });
        await prepareDatabase(handle, mode, note);
      }
      return handle;
    },
    print,
    note,
  };
  try {
    await command.run(context);
  } finally {
    // Stops the embedded database's process when this CLI started it.
    await handle?.close();
  }
  return EXIT_OK;
}

/** Prints `error` as the operator should see it (one line, no stack) and gives the exit code. */
function report(error: unknown, argv: string[], note: (line: string) => void): number {
  if (error instanceof UsageError) {
    note(`error: ${error.message}`);
    const { command } = error;
    note(
      command ? `usage: assay ${formatUsageLine(command)}` : `Run "npm run assay -- help" for the commands.`,
    );
    return EXIT_USAGE;
  }
  if (error instanceof ConfigError) {
    note(error.message);
    return EXIT_FAILED;
  }
  if (error instanceof CliError) {
    note(`error: ${error.message}`);
    return error.exitCode;
  }
  if (error instanceof DataDirectoryInUseError) {
    note(`error: ${error.message}`);
    return EXIT_FAILED;
  }
  if (isUniqueViolation(error)) {
    const { constraint } = error as { constraint?: string };
    note(
      `error: ${argv.slice(0, 2).join(" ")} conflicts with existing data (${constraint ?? "unique constraint"})`,
    );
    return EXIT_FAILED;
  }
  const { code } = (typeof error === "object" && error !== null ? error : {}) as { code?: unknown };
  const message =
    (error instanceof Error && error.message) || (typeof code === "string" ? code : String(error));
  note(isConnectionError(code) ? `error: cannot connect to the database: ${message}` : `error: ${message}`);
  return EXIT_FAILED;
}

/** Node's network errors (ECONNREFUSED ...) and PostgreSQL's connection and login SQLSTATEs. */
function isConnectionError(code: unknown): boolean {
  return typeof code === "string" && (/^E[A-Z]+$/.test(code) || /^(08|28|3D)/.test(code) || code === "57P03");
}

/**
 * Runs the command `argv` names and gives its exit code; every failure is reported on `output`
 * (one line, no stack) rather than thrown.
 */
export function runCli(argv: string[], output: CliOutput = PROCESS_OUTPUT): Promise<number> {
  return dispatch(argv, output).catch((error: unknown) => report(error, argv, output.note));
}
