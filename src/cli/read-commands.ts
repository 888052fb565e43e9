import { listAccounts } from "../modules/accounts/account-store.ts";
import { repositoryDsn } from "../modules/repositories/dsn.ts";
import { findRepositoryOfAccount, listRepositories } from "../modules/repositories/repository-store.ts";
import { listUsers } from "../modules/users/user-store.ts";
import { CliError, type Command, type CommandContext, DEVELOPMENT_PEPPER_WARNING } from "./command.ts";
import { parseProvider, requireAccount } from "./input.ts";
import { formatTable, formatTime } from "./table.ts";

/**
 * The commands that show what the other commands made: users, accounts and repositories (a table,
 * or JSON with --json), and a repository's DSN. They read only; none of them writes.
 */

const jsonFlag = { type: "boolean", description: "Print a JSON array instead of a table." } as const;

/** Prints `items` as JSON with --json, else `table()`'s lines, else `empty` when there are none. */
function printList<T>(
  { flags, print }: Pick<CommandContext, "flags" | "print">,
  items: T[],
  empty: string,
  table: () => string[],
): void {
  if (flags.isSet("json")) print(JSON.stringify(items, null, 2));
  else if (items.length === 0) print(empty);
  else for (const line of table()) print(line);
}

/** `user list`: every user with their number of accounts. */
export const userList: Command = {
  name: "user list",
  summary: "List every user: id, e-mail address, name, number of accounts and when they were created.",
  flags: { json: jsonFlag },
  async run(context) {
    const { db } = await context.database();
    const users = (await listUsers(db)).map((u) => ({
      id: u.key,
      email: u.email,
      firstName: u.first_name,
      lastName: u.last_name,
      accounts: u.accounts,
      createdAt: u.created_at,
    }));
    printList(context, users, "There are no users yet.", () =>
      formatTable(
        ["ID", "EMAIL", "NAME", "ACCOUNTS", "CREATED"],
        users.map((u) => [
          u.id,
          u.email,
          `${u.firstName} ${u.lastName}`.trim(),
          String(u.accounts),
          formatTime(u.createdAt, ""),
        ]),
      ),
    );
  },
};

/** `account list`: every account with its owner, members and repositories. */
export const accountList: Command = {
  name: "account list",
  summary:
    "List every account (of one provider with --provider): id, login, provider, type, owner, members and repositories.",
  flags: {
    provider: { type: "string", placeholder: "PROVIDER", description: "Only accounts of this provider." },
    json: jsonFlag,
  },
  async run(context) {
    const given = context.flags.optional("provider");
    const provider = given === undefined ? undefined : parseProvider(given);
    const { db } = await context.database();
    const accounts = (await listAccounts(db, provider)).map((a) => ({
      id: a.key,
      login: a.login,
      provider: a.vcs_provider,
      type: a.type,
      owner: a.owner,
      members: a.members,
      repositories: a.repositories,
      createdAt: a.created_at,
    }));
    printList(context, accounts, "There are no accounts yet.", () =>
      formatTable(
        ["ID", "LOGIN", "PROVIDER", "TYPE", "OWNER", "MEMBERS", "REPOSITORIES", "CREATED"],
        accounts.map((a) => [
          a.id,
          a.login,
          a.provider,
          a.type,
          a.owner ?? "-",
          String(a.members),
          String(a.repositories),
          formatTime(a.createdAt, ""),
        ]),
      ),
    );
  },
};

/** `repository list`: every repository, or one account's. */
export const repositoryList: Command = {
  name: "repository list",
  summary:
    "List repositories (of one account with --account): id, account, name, default branch, visibility and whether analysis is on.",
  flags: {
    account: { type: "string", placeholder: "LOGIN", description: "Only this account's repositories." },
    provider: {
      type: "string",
      placeholder: "PROVIDER",
      description: "The account's provider (default GITHUB with --account); alone, only this provider's.",
    },
    json: jsonFlag,
  },
  async run(context) {
    const login = context.flags.optional("account");
    const given = context.flags.optional("provider");
    const { db } = await context.database();
    const filter =
      login === undefined
        ? { provider: given === undefined ? undefined : parseProvider(given) }
        : { accountId: (await requireAccount(db, login, parseProvider(given))).id };
    const repositories = (await listRepositories(db, filter)).map((r) => ({
      id: r.key,
      account: r.login,
      provider: r.vcs_provider,
      name: r.name,
      defaultBranch: r.default_branch,
      isPrivate: r.is_private,
      isActivated: r.is_activated,
      createdAt: r.created_at,
    }));
    const empty = login === undefined ? "There are no repositories yet." : `${login} has no repositories.`;
    printList(context, repositories, empty, () =>
      formatTable(
        ["ID", "ACCOUNT", "PROVIDER", "NAME", "BRANCH", "VISIBILITY", "ANALYSIS", "CREATED"],
        repositories.map((r) => [
          r.id,
          r.account,
          r.provider,
          r.name,
          r.defaultBranch ?? "-",
          r.isPrivate ? "private" : "public",
          r.isActivated ? "on" : "off",
          formatTime(r.createdAt, ""),
        ]),
      ),
    );
  },
};

/** `repository dsn`: the DSN CI uploads with, printed alone on stdout. */
export const repositoryDsnCommand: Command = {
  name: "repository dsn",
  summary:
    "Print a repository's DSN (DEEPSOURCE_DSN for CI uploads) alone on stdout. It is a credential: keep it in CI secrets. regenerateRepositoryDSN replaces it.",
  flags: {
    account: { type: "string", placeholder: "LOGIN", required: true, description: "The account's login." },
    provider: {
      type: "string",
      placeholder: "PROVIDER",
      description: "The account's provider (default GITHUB).",
    },
    name: { type: "string", placeholder: "NAME", required: true, description: "The repository's name." },
  },
  async run({ flags, database, print, note, config }) {
    const login = flags.required("account");
    const provider = parseProvider(flags.optional("provider"));
    const name = flags.required("name");
    const { db } = await database();
    const account = await requireAccount(db, login, provider);
    const repository = await findRepositoryOfAccount(db, account.id, name);
    if (!repository) throw new CliError(`${login} (${provider}) has no repository named ${name}`);
    print(repositoryDsn(repository, config.tokenPepper, config.publicUrl));
    if (config.tokenPepperIsDefault) note(DEVELOPMENT_PEPPER_WARNING);
    note(`The DSN of ${login}/${name} points at ${config.publicUrl} (ASSAY_PUBLIC_URL).`);
  },
};
