import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { AccountRow, Database } from "../db/types.ts";
import { newRowKey } from "../graphql/global-id.ts";
import {
  findAccountByLogin,
  findMembershipsOfUser,
  insertAccount,
  upsertMembership,
} from "../modules/accounts/account-store.ts";
import { hasPublicHost } from "../modules/accounts/vcs.ts";
import { insertRepository } from "../modules/repositories/repository-store.ts";
import { findUserByEmail, insertUser } from "../modules/users/user-store.ts";
import { CliError, type Command, isUniqueViolation } from "./command.ts";
import {
  parseAccountType,
  parseBranch,
  parseEmail,
  parseHttpUrl,
  parseLogin,
  parsePersonName,
  parseProvider,
  parseRepositoryName,
  parseRole,
  requireAccount,
  requireUser,
} from "./input.ts";

/** The commands that set up users, accounts, memberships and repositories. */

const providerFlag = {
  type: "string",
  placeholder: "PROVIDER",
  description: "GITHUB (default), GITLAB, BITBUCKET, BITBUCKET_DATACENTER, GITHUB_ENTERPRISE, GSR or ADS.",
} as const;

/** Runs `work` in one transaction, turning a unique violation into `duplicate`'s message. */
async function writeOnce<T>(
  db: Kysely<Database>,
  duplicate: string,
  work: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  try {
    return await db.transaction().execute(work);
  } catch (error) {
    // The checks inside `work` catch duplicates first; this covers a concurrent insert.
    if (isUniqueViolation(error)) throw new CliError(duplicate);
    throw error;
  }
}

/** `user create`: adds a user who can then be given accounts and tokens. */
export const userCreate: Command = {
  name: "user create",
  summary: "Create a user. The e-mail address identifies them in the other commands.",
  flags: {
    email: {
      type: "string",
      placeholder: "EMAIL",
      required: true,
      description: "The user's e-mail address.",
    },
    "first-name": { type: "string", placeholder: "NAME", description: "First name (default empty)." },
    "last-name": { type: "string", placeholder: "NAME", description: "Last name (default empty)." },
  },
  async run({ flags, database, print }) {
    const email = parseEmail(flags.required("email"), "--email");
    const firstName = parsePersonName(flags.optional("first-name"), "--first-name");
    const lastName = parsePersonName(flags.optional("last-name"), "--last-name");
    const { db } = await database();
    const duplicate = `a user with e-mail ${email} already exists`;
    const user = await writeOnce(db, duplicate, async (trx) => {
      if (await findUserByEmail(trx, email)) throw new CliError(duplicate);
      return insertUser(trx, {
        key: newRowKey(),
        email,
        first_name: firstName,
        last_name: lastName,
        analytics_id: randomUUID(),
      });
    });
    print(`Created user ${user.email} (id ${user.key}).`);
  },
};

/** `account create`: adds a team or individual account, optionally with its owner. */
export const accountCreate: Command = {
  name: "account create",
  summary:
    "Create an account. Self-hosted providers (BITBUCKET_DATACENTER, GITHUB_ENTERPRISE, GSR, ADS) need --vcs-url; an INDIVIDUAL account needs --owner.",
  flags: {
    login: { type: "string", placeholder: "LOGIN", required: true, description: "The account's login." },
    provider: providerFlag,
    type: { type: "string", placeholder: "TYPE", description: "TEAM (default) or INDIVIDUAL." },
    owner: { type: "string", placeholder: "EMAIL", description: "Make this user the account's ADMIN owner." },
    "vcs-url": { type: "string", placeholder: "URL", description: "The account's page on its provider." },
  },
  async run({ flags, database, print }) {
    const login = parseLogin(flags.required("login"));
    const provider = parseProvider(flags.optional("provider"));
    const type = parseAccountType(flags.optional("type"));
    const ownerEmail = flags.optional("owner");
    const vcsUrlFlag = flags.optional("vcs-url");
    const vcsUrl = vcsUrlFlag === undefined ? null : parseHttpUrl(vcsUrlFlag, "--vcs-url");
    if (vcsUrl === null && !hasPublicHost(provider)) {
      throw new CliError(`--vcs-url is required for ${provider} accounts: ${provider} has no public host`);
    }
    if (type === "INDIVIDUAL" && ownerEmail === undefined) {
      throw new CliError("--owner is required for an INDIVIDUAL account: it is someone's personal account");
    }
    const { db } = await database();
    const duplicate = `a ${provider} account with login ${login} already exists`;
    const account = await writeOnce(db, duplicate, async (trx) => {
      const owner = ownerEmail === undefined ? undefined : await requireUser(trx, ownerEmail, "--owner");
      if (await findAccountByLogin(trx, login, provider)) throw new CliError(duplicate);
      const created = await insertAccount(trx, {
        key: newRowKey(),
        login,
        vcs_provider: provider,
        type,
        vcs_url: vcsUrl,
      });
      if (owner) {
        await upsertMembership(trx, {
          key: newRowKey(),
          accountId: created.id,
          userId: owner.id,
          role: "ADMIN",
          isOwner: true,
        });
      }
      return created;
    });
    const ownedBy = ownerEmail === undefined ? "" : `, owned by ${ownerEmail}`;
    print(`Created ${type} account ${account.login} on ${provider} (id ${account.key})${ownedBy}.`);
  },
};

/** `member add`: adds a user to a team with a role, or changes the role of a member. */
export const memberAdd: Command = {
  name: "member add",
  summary: "Add a user to a team account with a role, or change the role of someone already in it.",
  flags: {
    account: { type: "string", placeholder: "LOGIN", required: true, description: "The account's login." },
    provider: providerFlag,
    user: { type: "string", placeholder: "EMAIL", required: true, description: "The user's e-mail address." },
    role: {
      type: "string",
      placeholder: "ROLE",
      required: true,
      description: "ADMIN, MEMBER or CONTRIBUTOR.",
    },
  },
  async run({ flags, database, print }) {
    const login = flags.required("account");
    const provider = parseProvider(flags.optional("provider"));
    const email = parseEmail(flags.required("user"), "--user");
    const role = parseRole(flags.required("role"));
    const { db } = await database();
    const outcome = await db.transaction().execute(async (trx) => {
      const account = await requireAccount(trx, login, provider);
      const user = await requireUser(trx, email, "--user");
      const [existing] = await findMembershipsOfUser(trx, user.id, [account.id]);
      checkMembershipChange(account, user.email, existing?.is_owner ?? false, role);
      await upsertMembership(trx, { key: newRowKey(), accountId: account.id, userId: user.id, role });
      return { account, previous: existing?.role };
    });
    const where = `${outcome.account.login} (${provider})`;
    if (outcome.previous === undefined) print(`Added ${email} to ${where} as ${role}.`);
    else if (outcome.previous === role) print(`${email} already is ${role} in ${where}; nothing changed.`);
    else print(`Changed the role of ${email} in ${where} from ${outcome.previous} to ${role}.`);
  },
};

/** Individual accounts belong to their owner alone, and an owner stays an administrator. */
function checkMembershipChange(account: AccountRow, email: string, isOwner: boolean, role: string): void {
  if (account.type === "INDIVIDUAL" && !isOwner) {
    throw new CliError(`${account.login} is an INDIVIDUAL account: only its owner belongs to it`);
  }
  if (isOwner && role !== "ADMIN") {
    throw new CliError(`${email} owns ${account.login}: an owner's role stays ADMIN`);
  }
}

/** `repository create`: adds a repository to an account, ahead of any analysis. */
export const repositoryCreate: Command = {
  name: "repository create",
  summary: "Create a repository in an account (private unless --public), activated for analysis.",
  flags: {
    account: { type: "string", placeholder: "LOGIN", required: true, description: "The account's login." },
    provider: providerFlag,
    name: {
      type: "string",
      placeholder: "NAME",
      required: true,
      description:
        "The repository's name; on GITLAB, a project in subgroups is named by its path below the top-level group (sub/project).",
    },
    "default-branch": {
      type: "string",
      placeholder: "BRANCH",
      description: "Default branch (default main).",
    },
    public: { type: "boolean", description: "Make the repository public." },
  },
  async run({ flags, database, print }) {
    const login = flags.required("account");
    const provider = parseProvider(flags.optional("provider"));
    const name = parseRepositoryName(flags.required("name"), provider);
    const branch = parseBranch(flags.optional("default-branch") ?? "main");
    const isPrivate = !flags.isSet("public");
    const { db } = await database();
    const duplicate = `${login} (${provider}) already has a repository named ${name}`;
    const repository = await writeOnce(db, duplicate, async (trx) => {
      const account = await requireAccount(trx, login, provider);
      return insertRepository(trx, {
        key: newRowKey(),
        account_id: account.id,
        name,
        default_branch: branch,
        is_private: isPrivate,
        is_activated: true,
      });
    });
    const visibility = isPrivate ? "private" : "public";
    print(
      `Created ${visibility} repository ${login}/${repository.name} on ${provider} (id ${repository.key}).`,
    );
  },
};
