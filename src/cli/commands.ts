import { advisoriesImport, advisoriesImportEpss } from "./advisory-commands.ts";
import { advisoriesSources, advisoriesSync } from "./advisory-sync-commands.ts";
import { type Command, formatUsageLine, UsageError } from "./command.ts";
import { accountCreate, memberAdd, repositoryCreate, userCreate } from "./directory-commands.ts";
import { mcpCommand } from "./mcp-command.ts";
import { accountList, repositoryDsnCommand, repositoryList, userList } from "./read-commands.ts";
import { demoSeed, migrate, showConfig } from "./setup-commands.ts";
import { tokenCreate, tokenList, tokenRevoke } from "./token-commands.ts";
import { uploadCommand } from "./upload-command.ts";
import { accountVcsSecret, repositoryVcsSecret } from "./vcs-commands.ts";
import { workerCommand } from "./worker-command.ts";

/** Every admin command, in the order `assay help` lists them: the one list to extend. */
export const COMMANDS: readonly Command[] = [
  migrate,
  userCreate,
  userList,
  accountCreate,
  accountList,
  memberAdd,
  repositoryCreate,
  repositoryList,
  repositoryDsnCommand,
  repositoryVcsSecret,
  accountVcsSecret,
  tokenCreate,
  tokenList,
  tokenRevoke,
  demoSeed,
  showConfig,
  workerCommand,
  uploadCommand,
  mcpCommand,
  advisoriesImport,
  advisoriesImportEpss,
  advisoriesSync,
  advisoriesSources,
];

/** The first word of a two-word command: `user` of `user create`. */
export function groupOf(command: Command): string | undefined {
  const space = command.name.indexOf(" ");
  return space === -1 ? undefined : command.name.slice(0, space);
}

/** The commands of group `word` (`user` → `user create`, `user list`); empty when it is no group. */
export function commandsOfGroup(word: string): Command[] {
  return COMMANDS.filter((command) => groupOf(command) === word);
}

/** What `assay help user` and `assay user --help` print: the group's commands and their summaries. */
export function formatGroupHelp(word: string): string {
  const lines = [`Commands of "${word}":`, ""];
  for (const command of commandsOfGroup(word))
    lines.push(`  ${formatUsageLine(command)}`, `      ${command.summary}`);
  lines.push("", `Run "npm run assay -- help ${word} <command>" for a command's flags.`);
  return lines.join("\n");
}

/**
 * The command `argv` names (one or two words) and the arguments after it; "group" when it names
 * a group alone followed by nothing but --help/-h.
 */
export function findCommand(
  argv: readonly string[],
): { command: Command; args: string[] } | { group: string } {
  const [first = "", second] = argv;
  const twoWords = COMMANDS.find((c) => c.name === `${first} ${second}`);
  if (twoWords) return { command: twoWords, args: argv.slice(2) };
  const oneWord = COMMANDS.find((c) => c.name === first);
  if (oneWord) return { command: oneWord, args: argv.slice(1) };
  const group = commandsOfGroup(first).map((c) => c.name.split(" ")[1]);
  if (group.length > 0) {
    if (argv.length === 2 && (second === "--help" || second === "-h")) return { group: first };
    const problem = second === undefined || second.startsWith("-") ? "needs" : `has no "${second}"; it needs`;
    throw new UsageError(`"${first}" ${problem} one of: ${group.join(", ")}`);
  }
  throw new UsageError(`unknown command "${first}"`);
}
