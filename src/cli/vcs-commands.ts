import { setAccountVcsSecret, setRepositoryVcsSecret } from "../modules/pull-requests/vcs-secret-service.ts";
import { deleteAccountVcsSecret, deleteVcsSecret } from "../modules/pull-requests/vcs-secret-store.ts";
import { secretProblem } from "../modules/pull-requests/vcs-secrets.ts";
import { lockRepositoryOfAccount } from "../modules/repositories/repository-store.ts";
import { CliError, type Command } from "./command.ts";
import { parseProvider, requireAccount } from "./input.ts";

/** `repository vcs-secret`: sets (or removes) the secret of a repository's incoming VCS webhooks. */
export const repositoryVcsSecret: Command = {
  name: "repository vcs-secret",
  summary:
    "Set the secret authenticating a repository's GitHub/GitLab/Bitbucket webhook deliveries (docs/vcs-events.md) and print it once; --remove takes it away.",
  flags: {
    account: { type: "string", placeholder: "LOGIN", required: true, description: "The account's login." },
    provider: {
      type: "string",
      placeholder: "PROVIDER",
      description:
        "GITHUB (default), GITHUB_ENTERPRISE, GITLAB or BITBUCKET: the provider sending the webhooks.",
    },
    name: { type: "string", placeholder: "NAME", required: true, description: "The repository's name." },
    secret: {
      type: "string",
      placeholder: "SECRET",
      description: "Use this secret (16 to 256 printable characters) instead of a generated one.",
    },
    remove: { type: "boolean", description: "Remove the secret: deliveries are refused from then on." },
  },
  async run({ flags, database, print, note, config }) {
    const login = flags.required("account");
    const provider = parseProvider(flags.optional("provider"));
    const name = flags.required("name");
    const { chosen, remove } = secretFlags(flags);
    const pepper = config.tokenPepper;
    const { db } = await database();
    const outcome = await db.transaction().execute(async (tx) => {
      const account = await requireAccount(tx, login, provider);
      const repository = await lockRepositoryOfAccount(tx, account.id, name);
      if (!repository) throw new CliError(`${login} (${provider}) has no repository named ${name}`);
      if (remove) return { removed: await deleteVcsSecret(tx, repository.id) };
      return { secret: await setRepositoryVcsSecret(tx, repository, pepper, chosen) };
    });
    if ("removed" in outcome) {
      note(
        outcome.removed
          ? `Removed the VCS webhook secret of ${login}/${name}.`
          : `${login}/${name} had no VCS webhook secret.`,
      );
      return;
    }
    note(`Set the VCS webhook secret of ${login}/${name}; it is shown only now:`);
    print(outcome.secret);
  },
};

/** Reads `--secret` and `--remove`, refusing both together and a secret of the wrong shape. */
function secretFlags(flags: { optional(name: string): string | undefined; isSet(name: string): boolean }) {
  const chosen = flags.optional("secret") ?? null;
  const remove = flags.isSet("remove");
  if (remove && chosen !== null) throw new CliError("--remove and --secret cannot be used together");
  const problem = chosen === null ? undefined : secretProblem(chosen);
  if (problem) throw new CliError(`--secret ${problem}`);
  return { chosen, remove };
}

/**
 * `account vcs-secret`: sets (or removes) an account's webhook secret, which covers every
 * repository of the account without a secret of its own (a GitHub App's one secret).
 */
export const accountVcsSecret: Command = {
  name: "account vcs-secret",
  summary:
    "Set the account-wide secret authenticating webhook deliveries for every repository of the account without a secret of its own (a GitHub App's secret; docs/vcs-events.md) and print it once; --remove takes it away.",
  flags: {
    account: { type: "string", placeholder: "LOGIN", required: true, description: "The account's login." },
    provider: {
      type: "string",
      placeholder: "PROVIDER",
      description:
        "GITHUB (default), GITHUB_ENTERPRISE, GITLAB or BITBUCKET: the provider sending the webhooks.",
    },
    secret: {
      type: "string",
      placeholder: "SECRET",
      description: "Use this secret (16 to 256 printable characters) instead of a generated one.",
    },
    remove: {
      type: "boolean",
      description: "Remove the secret: deliveries relying on it are refused from then on.",
    },
  },
  async run({ flags, database, print, note, config }) {
    const login = flags.required("account");
    const provider = parseProvider(flags.optional("provider"));
    const { chosen, remove } = secretFlags(flags);
    const pepper = config.tokenPepper;
    const { db } = await database();
    const outcome = await db.transaction().execute(async (tx) => {
      const account = await requireAccount(tx, login, provider);
      if (remove) return { removed: await deleteAccountVcsSecret(tx, account.id) };
      return { secret: await setAccountVcsSecret(tx, account, pepper, chosen) };
    });
    if ("removed" in outcome) {
      note(
        outcome.removed
          ? `Removed the VCS webhook secret of account ${login} (${provider}).`
          : `Account ${login} (${provider}) had no VCS webhook secret.`,
      );
      return;
    }
    note(`Set the VCS webhook secret of account ${login} (${provider}); it is shown only now:`);
    print(outcome.secret);
  },
};
