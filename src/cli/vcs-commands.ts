import { setRepositoryVcsSecret } from "../modules/pull-requests/vcs-event-service.ts";
import { deleteVcsSecret } from "../modules/pull-requests/vcs-event-store.ts";
import { secretProblem } from "../modules/pull-requests/vcs-secrets.ts";
import { CliError, type Command } from "./command.ts";
import { parseProvider, requireAccount } from "./input.ts";

/** `repository vcs-secret`: sets (or removes) the secret of a repository's incoming VCS webhooks. */
export const repositoryVcsSecret: Command = {
  name: "repository vcs-secret",
  summary:
    "Set the secret authenticating a repository's GitHub/GitLab webhook deliveries (docs/vcs-events.md) and print it once; --remove takes it away.",
  flags: {
    account: { type: "string", placeholder: "LOGIN", required: true, description: "The account's login." },
    provider: {
      type: "string",
      placeholder: "PROVIDER",
      description: "GITHUB (default), GITHUB_ENTERPRISE or GITLAB: the provider sending the webhooks.",
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
    const chosen = flags.optional("secret") ?? null;
    const remove = flags.isSet("remove");
    if (remove && chosen !== null) throw new CliError("--remove and --secret cannot be used together");
    const problem = chosen === null ? undefined : secretProblem(chosen);
    if (problem) throw new CliError(`--secret ${problem}`);
    const pepper = config.tokenPepper;
    const { db } = await database();
    const outcome = await db.transaction().execute(async (tx) => {
      const account = await requireAccount(tx, login, provider);
      const repository = await tx
        .selectFrom("repositories")
        .select(["id", "key"])
        .where("account_id", "=", account.id)
        .where("name", "=", name)
        .forNoKeyUpdate()
        .executeTakeFirst();
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
