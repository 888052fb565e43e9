/**
 * `npm run assay -- <command>`: the admin CLI's process. What it does is in run-cli.ts; this file
 * only connects it to the process's arguments, output and exit code.
 */
import { runCli } from "./run-cli.ts";

// `assay token list | head` closes the pipe early; that is the reader's choice, not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

runCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
