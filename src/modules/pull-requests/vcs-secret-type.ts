import { builder } from "../../graphql/builder.ts";
import { alignRows, defineLoader } from "../../graphql/context.ts";
import { AccountRef } from "../accounts/account-type.ts";
import { RepositoryRef } from "../repositories/repository-type.ts";
import { findAccountVcsSecretTimes, findRepositoryVcsSecretTimes } from "./vcs-secret-store.ts";

/**
 * Whether a repository or an account has an incoming VCS webhook secret, and since when
 * (docs/vcs-events.md "The secret"). Readable by everyone who sees the repository or the account:
 * the answer carries nothing of the secret, and members need it to tell why pull requests do not
 * arrive. The secret itself is shown once, to the ADMIN who sets it.
 */

/** When a repository's own secret was last set, by repository id; null without one. */
const repositorySecretSetAt = defineLoader<string, Date | null>(
  "repositoryVcsSecretSetAt",
  async (ctx, ids) =>
    alignRows(ids, await findRepositoryVcsSecretTimes(ctx.db, ids), (row) => String(row.owner_id)).map(
      (row) => row?.updated_at ?? null,
    ),
);

/** When an account's secret was last set, by account id; null without one. */
const accountSecretSetAt = defineLoader<string, Date | null>("accountVcsSecretSetAt", async (ctx, ids) =>
  alignRows(ids, await findAccountVcsSecretTimes(ctx.db, ids), (row) => String(row.owner_id)).map(
    (row) => row?.updated_at ?? null,
  ),
);

builder.objectFields(RepositoryRef, (t) => ({
  hasVcsWebhookSecret: t.boolean({
    description:
      "True when the repository has a VCS webhook secret of its own (`setRepositoryVcsWebhookSecret`). Without one, deliveries for it are authenticated by its account's secret, if the account has one (`Account.hasVcsWebhookSecret`).",
    resolve: async (r, _args, ctx) => (await repositorySecretSetAt(ctx).load(r.id)) !== null,
  }),
  vcsWebhookSecretSetAt: t.field({
    type: "DateTime",
    nullable: true,
    description: "When the repository's own VCS webhook secret was last set; null when it has none.",
    resolve: (r, _args, ctx) => repositorySecretSetAt(ctx).load(r.id),
  }),
}));

builder.objectFields(AccountRef, (t) => ({
  hasVcsWebhookSecret: t.boolean({
    description:
      "True when the account has an account-wide VCS webhook secret (`setAccountVcsWebhookSecret`), which authenticates deliveries for its repositories without a secret of their own.",
    resolve: async (a, _args, ctx) => (await accountSecretSetAt(ctx).load(a.id)) !== null,
  }),
  vcsWebhookSecretSetAt: t.field({
    type: "DateTime",
    nullable: true,
    description: "When the account's VCS webhook secret was last set; null when it has none.",
    resolve: (a, _args, ctx) => accountSecretSetAt(ctx).load(a.id),
  }),
}));
