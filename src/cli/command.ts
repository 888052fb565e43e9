import { parseArgs } from "node:util";
import type { Config } from "../config.ts";
import type { DatabaseHandle } from "../db/database.ts";

/**
 * The shape every admin command shares: its name, its flags, and how it runs. The entry point
 * (`assay.ts`) parses the flags, reads the configuration, opens the database on demand and turns
 * the errors below into exit codes.
 */

/** Exit code of a command that did what it was asked (and, for `upload --wait`, whose check passed). */
export const EXIT_OK = 0;
/** Exit code of bad input or a failure the operator can act on; also `upload --wait`'s failed check. */
export const EXIT_FAILED = 1;
/** Exit code of a wrong command line. */
export const EXIT_USAGE = 2;
/**
 * Exit code of `assay upload` when it cannot tell how the upload ended: the server could not be
 * reached or answered with a server error, or `--wait` ran out of time. CI can treat it apart
 * from a failed check (e.g. allow it while the server is down).
 */
export const EXIT_UNKNOWN = 3;

/** Bad input the operator can fix (unknown user, bad role, duplicate login): exit code 1. */
export class CliError extends Error {
  override name = "CliError";
  /** The process's exit code when this error ends it. */
  readonly exitCode: number = EXIT_FAILED;
}

/**
 * The outcome cannot be told: the server was unreachable, overloaded or failing, or processing did
 * not finish in time. Exit code {@link EXIT_UNKNOWN}.
 */
export class OutcomeUnknownError extends CliError {
  override name = "OutcomeUnknownError";
  override readonly exitCode: number = EXIT_UNKNOWN;
}

/** The command line itself is wrong (unknown command or flag, missing flag): exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";

  /** `command` is the one whose usage line should follow the message, when known. */
  constructor(
    message: string,
    readonly command?: Command,
  ) {
    super(command ? `${command.name}: ${message}` : message);
  }
}

/** A flag a command accepts; every flag is long-form only. */
export interface FlagSpec {
  type: "string" | "boolean";
  /** Shown in the usage line, e.g. `EMAIL`; boolean flags have none. */
  placeholder?: string;
  required?: boolean;
  /** One line for `assay <command> --help`. */
  description: string;
}

/** What a command gets to work with. */
export interface CommandContext {
  config: Config;
  flags: Flags;
  /**
   * The configured database, opened on first call and closed by the entry point. `ready` (the
   * default) migrates the embedded database as the server would and refuses a PostgreSQL database
   * with pending migrations; `raw` does neither (for `migrate` itself).
   */
  database(mode?: "ready" | "raw"): Promise<DatabaseHandle>;
  /** Writes a line to stdout: the command's result. */
  print(line: string): void;
  /** Writes a line to stderr: messages for the human, never data a script would capture. */
  note(line: string): void;
}

/** One admin command, e.g. `token create`. */
export interface Command {
  name: string;
  summary: string;
  flags: Record<string, FlagSpec>;
  /** Name of the one positional argument accepted, if any (e.g. `KEY`), standing in for a flag. */
  positional?: { placeholder: string; flag: string };
  run(context: CommandContext): Promise<void>;
}

/** The parsed flags of one invocation, with accessors that raise {@link UsageError}s. */
export class Flags {
  constructor(
    /** The command these flags were given to (for usage lines in errors). */
    readonly command: Command,
    private readonly values: Record<string, string | boolean | undefined>,
  ) {}

  /** The value of a string flag, or undefined when it was not given. */
  optional(name: string): string | undefined {
    const value = this.values[name];
    if (typeof value !== "string") return undefined;
    const trimmed = value.trim();
    if (trimmed === "") throw new UsageError(`--${name} needs a value`, this.command);
    return trimmed;
  }

  /** The value of a string flag the command cannot do without. */
  required(name: string): string {
    const value = this.optional(name);
    if (value === undefined) {
      const placeholder = this.command.flags[name]?.placeholder ?? "VALUE";
      throw new UsageError(`missing --${name} ${placeholder}`, this.command);
    }
    return value;
  }

  /** True when a boolean flag was given. */
  isSet(name: string): boolean {
    return this.values[name] === true;
  }
}

/** Parses `args` against the command's flags; "help" when `--help` was asked for. */
export function parseFlags(command: Command, args: string[]): Flags | "help" {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {
    help: { type: "boolean", short: "h" },
  };
  for (const [name, spec] of Object.entries(command.flags)) options[name] = { type: spec.type };
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: command.positional !== undefined });
  } catch (error) {
    throw new UsageError(describeParseError(error), command);
  }
  if (parsed.values.help === true) return "help";
  const values = { ...parsed.values };
  const [positional, ...extra] = parsed.positionals;
  if (positional !== undefined && command.positional) {
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`, command);
    if (values[command.positional.flag] !== undefined) {
      throw new UsageError(
        `give ${command.positional.placeholder} or --${command.positional.flag}, not both`,
        command,
      );
    }
    values[command.positional.flag] = positional;
  }
  return new Flags(command, values);
}

/** The first sentence of `parseArgs`'s message, which goes on to explain `--` at length. */
function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const sentence = message.split(/\.\s/)[0] ?? message;
  return sentence.charAt(0).toLowerCase() + sentence.slice(1);
}

/** The usage line of a command: `token create --user EMAIL --name NAME ...`. */
export function formatUsageLine(command: Command): string {
  const parts = [command.name];
  if (command.positional) parts.push(`[${command.positional.placeholder}]`);
  for (const [name, spec] of Object.entries(command.flags)) {
    const flag = spec.placeholder ? `--${name} ${spec.placeholder}` : `--${name}`;
    parts.push(spec.required ? flag : `[${flag}]`);
  }
  return parts.join(" ");
}

/** The text `assay <command> --help` prints. */
export function formatCommandHelp(command: Command): string {
  const lines = [`Usage: assay ${formatUsageLine(command)}`, "", command.summary, ""];
  const width = Math.max(...Object.entries(command.flags).map(([n, s]) => flagLabel(n, s).length), 0);
  for (const [name, spec] of Object.entries(command.flags)) {
    lines.push(`  ${flagLabel(name, spec).padEnd(width)}  ${spec.description}`);
  }
  return lines.join("\n");
}

function flagLabel(name: string, spec: FlagSpec): string {
  return spec.placeholder ? `--${name} ${spec.placeholder}` : `--${name}`;
}

/** Said on stderr when a token is minted under the development pepper, which production refuses. */
export const DEVELOPMENT_PEPPER_WARNING =
  "warning: ASSAY_TOKEN_PEPPER is not set; tokens made now stop working once it is set.";

/** True when `error` is PostgreSQL's unique_violation (23505), on `constraint` when given. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, constraint: violated } = error as { code?: unknown; constraint?: unknown };
  return code === "23505" && (constraint === undefined || violated === constraint);
}
