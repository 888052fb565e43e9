import type { Kysely } from "kysely";
import type { AccountRow, AccountType, Database, TeamMemberRole, UserRow, VcsProvider } from "../db/types.ts";
import { findAccountByLogin } from "../modules/accounts/account-store.ts";
import { VCS_PROVIDERS } from "../modules/accounts/vcs.ts";
import { MAX_TOKEN_DAYS } from "../modules/auth/token-service.ts";
import { findUserByEmail } from "../modules/users/user-store.ts";
import { CliError } from "./command.ts";

/**
 * Checks on what an operator typed, each raising a one-line {@link CliError} that names the flag
 * and the value, and look-ups that name what was not found.
 */

const ROLES: readonly TeamMemberRole[] = ["ADMIN", "MEMBER", "CONTRIBUTOR"];
const ACCOUNT_TYPES: readonly AccountType[] = ["TEAM", "INDIVIDUAL"];

// Deliberately loose (something@domain.tld, no spaces): the address is an identifier here, and
// stricter patterns reject real addresses.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
// The characters every supported provider allows in user, organisation and workspace names.
const LOGIN_PATTERN = /^[A-Za-z0-9._-]{1,100}$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it rejects.
const CONTROL_PATTERN = /[\u0000-\u001f\u007f]/;

/** A syntactically plausible e-mail address of at most 254 characters. */
export function parseEmail(value: string, flag: string): string {
  if (value.length > 254 || !EMAIL_PATTERN.test(value)) {
    throw new CliError(`${flag}: "${value}" is not a valid e-mail address`);
  }
  return value;
}

/** A person's first or last name: up to 100 characters, no control characters. */
export function parsePersonName(value: string | undefined, flag: string): string {
  if (value === undefined) return "";
  if (value.length > 100 || CONTROL_PATTERN.test(value)) {
    throw new CliError(`${flag} must be at most 100 printable characters`);
  }
  return value;
}

/** One of the contract's VCS providers, case-insensitively; GITHUB when not given. */
export function parseProvider(value: string | undefined): VcsProvider {
  return parseChoice("--provider", value ?? "GITHUB", VCS_PROVIDERS);
}

/** A team member role, case-insensitively. */
export function parseRole(value: string): TeamMemberRole {
  return parseChoice("--role", value, ROLES);
}

/** An account type, case-insensitively; TEAM when not given. */
export function parseAccountType(value: string | undefined): AccountType {
  return parseChoice("--type", value ?? "TEAM", ACCOUNT_TYPES);
}

function parseChoice<T extends string>(flag: string, value: string, choices: readonly T[]): T {
  const upper = value.toUpperCase();
  const match = choices.find((choice) => choice === upper);
  if (match === undefined) throw new CliError(`${flag} must be one of ${choices.join(", ")}, got "${value}"`);
  return match;
}

/** An account login: 1 to 100 letters, digits, dots, underscores or hyphens. */
export function parseLogin(value: string): string {
  if (!LOGIN_PATTERN.test(value)) {
    throw new CliError(`--login must be 1 to 100 letters, digits, ".", "_" or "-", got "${value}"`);
  }
  return value;
}

/**
 * A repository name: 1 to 100 characters, no backslashes or control characters, and no slashes
 * except on GitLab, where a project inside subgroups is named by its path below the account's
 * top-level group (`sub/project` in account `group`; docs/vcs-events.md "GitLab subgroups").
 */
export function parseRepositoryName(value: string, provider: VcsProvider): string {
  const segments = value.split("/");
  const badSegment = segments.some((segment) => segment === "" || segment === "." || segment === "..");
  if (value.length > 100 || /\\/.test(value) || CONTROL_PATTERN.test(value) || badSegment) {
    throw new CliError(
      `--name must be 1 to 100 characters without backslashes, control characters or empty, "." or ".." segments, got "${value}"`,
    );
  }
  if (segments.length > 1 && provider !== "GITLAB") {
    throw new CliError(
      `--name must not contain "/" on ${provider} (only GitLab projects in subgroups do), got "${value}"`,
    );
  }
  return value;
}

/** A branch name git would accept (the common rules of `git check-ref-format`). */
export function parseBranch(value: string): string {
  const invalid =
    value.length > 255 ||
    /[\s~^:?*[\\]/.test(value) ||
    CONTROL_PATTERN.test(value) ||
    value.includes("..") ||
    value.includes("@{") ||
    value.startsWith("-") ||
    value.startsWith("/") ||
    value.endsWith("/") ||
    value.endsWith(".lock") ||
    value.endsWith(".");
  if (invalid) throw new CliError(`--default-branch: "${value}" is not a valid branch name`);
  return value;
}

/** An absolute http(s) URL. */
export function parseHttpUrl(value: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`${flag}: "${value}" is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CliError(`${flag} must be an http or https URL, got "${value}"`);
  }
  return value;
}

/** A token lifetime: whole days from 1 to {@link MAX_TOKEN_DAYS}, or `never` (null). */
export function parseExpiry(value: string): number | null {
  if (value.toLowerCase() === "never") return null;
  const days = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(days >= 1 && days <= MAX_TOKEN_DAYS)) {
    throw new CliError(
      `--expires-in must be a number of days from 1 to ${MAX_TOKEN_DAYS}, or never, got "${value}"`,
    );
  }
  return days;
}

/** A token name: 1 to 100 characters, as `createToken` requires. */
export function parseTokenName(value: string): string {
  if (value.length > 100 || CONTROL_PATTERN.test(value)) {
    throw new CliError("--name must be 1 to 100 printable characters");
  }
  return value;
}

/** The user with this e-mail address, or a {@link CliError} saying there is none. */
export async function requireUser(db: Kysely<Database>, email: string, flag: string): Promise<UserRow> {
  const user = await findUserByEmail(db, parseEmail(email, flag));
  if (!user) throw new CliError(`no user with e-mail ${email} (create one with "assay user create")`);
  return user;
}

/** The account with this login on this provider, or a {@link CliError} saying there is none. */
export async function requireAccount(
  db: Kysely<Database>,
  login: string,
  provider: VcsProvider,
): Promise<AccountRow> {
  const account = await findAccountByLogin(db, login, provider);
  if (!account) throw new CliError(`no ${provider} account with login ${login}`);
  return account;
}
