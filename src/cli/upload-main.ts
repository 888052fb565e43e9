/**
 * `assay` of the standalone package (packages/cli, built by scripts/build-cli.ts into one file
 * with no dependencies): the `upload` command alone, for CI machines that have Node but not the
 * server's checkout. The administration commands need the database and stay in
 * `npm run assay -- <command>` (src/cli/assay.ts).
 *
 * Exit codes: 0 done (with `--wait`: the check passed), 1 refused or the check failed, 2 the
 * command line is wrong, 3 the outcome is unknown (server unreachable or failing, `--wait` out of
 * time).
 */
import {
  CliError,
  type CommandContext,
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
  formatCommandHelp,
  formatUsageLine,
  parseFlags,
  UsageError,
} from "./command.ts";
import { uploadCommand } from "./upload-command.ts";
import { CLI_VERSION } from "./upload-request.ts";

const print = (line: string) => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`${line}\n`);

function usageText(): string {
  return [
    `assay ${CLI_VERSION}: sends analyzer (SARIF, cppcheck or checkstyle XML, go vet, GCC, ShellCheck, pylint, Bandit or ESLint JSON) and coverage reports to an Assay server.`,
    "",
    `Usage: assay ${formatUsageLine(uploadCommand)}`,
    "",
    'Run "assay upload --help" for the flags.',
    "Exit codes: 0 done (with --wait: the check passed), 1 refused or the check failed,",
    "2 wrong command line, 3 outcome unknown (server unreachable or failing, --wait timed out).",
  ].join("\n");
}

/** Runs the command line `argv`; the exit code. */
async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    note(usageText());
    return EXIT_USAGE;
  }
  if (first === "help" || first === "--help" || first === "-h") {
    print(rest[0] === "upload" ? formatCommandHelp(uploadCommand) : usageText());
    return EXIT_OK;
  }
  if (first === "--version" || first === "version") {
    print(CLI_VERSION);
    return EXIT_OK;
  }
  if (first !== uploadCommand.name) {
    throw new UsageError(
      `unknown command "${first}": this package runs "upload"; the administration commands run in the server's checkout (npm run assay -- help)`,
    );
  }
  const flags = parseFlags(uploadCommand, rest);
  if (flags === "help") {
    print(formatCommandHelp(uploadCommand));
    return EXIT_OK;
  }
  const context: CommandContext = {
    get config(): never {
      throw new Error("upload reads no server configuration");
    },
    flags,
    database: () => Promise.reject(new Error("upload opens no database")),
    print,
    note,
  };
  await uploadCommand.run(context);
  return EXIT_OK;
}

/** Prints `error` as one line (no stack) and gives the exit code. */
function report(error: unknown): number {
  if (error instanceof UsageError) {
    note(`error: ${error.message}`);
    note(error.command ? `usage: assay ${formatUsageLine(error.command)}` : 'Run "assay help".');
    return EXIT_USAGE;
  }
  note(`error: ${error instanceof Error ? error.message : String(error)}`);
  return error instanceof CliError ? error.exitCode : EXIT_FAILED;
}

main(process.argv.slice(2))
  .catch(report)
  .then((code) => {
    process.exitCode = code;
  });
