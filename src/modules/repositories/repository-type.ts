import type { RepositoryRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { notFound } from "../../graphql/errors.ts";
import { registerNodeType } from "../../graphql/node.ts";
import {
  connectionArgs,
  connectionType,
  globalIdField,
  NodeInterface,
  pageArgs,
} from "../../graphql/relay.ts";
import { accountById, viewerMembershipByAccountId } from "../accounts/account-loaders.ts";
import { AccountRef, VcsProviderEnum } from "../accounts/account-type.ts";
import { accountVcsUrl, repositoryPageUrl } from "../accounts/vcs.ts";
import { repositoryDsn } from "./dsn.ts";
import { visibleRepositoryByKey } from "./repository-loaders.ts";
import { findVisibleRepositoryByName, repositoriesOfAccount } from "./repository-store.ts";

/** Real clients match this exact text to tell "no such repository" apart from other errors. */
export const REPOSITORY_NOT_FOUND = "Repository matching query does not exist";

/** A repository under an account. */
export const RepositoryRef = builder.objectRef<RepositoryRow>("Repository").implement({
  description: "A source repository whose analysis results Assay stores.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("Repository")),
    name: t.string({ description: "The repository's name within its account.", resolve: (r) => r.name }),
    account: t.field({
      type: AccountRef,
      description: "The account that owns the repository.",
      resolve: async (r, _args, ctx) => (await accountById(ctx).load(r.account_id))!,
    }),
    vcsProvider: t.field({
      type: VcsProviderEnum,
      description: "Where the repository is hosted (its account's provider).",
      resolve: async (r, _args, ctx) => (await accountById(ctx).load(r.account_id))!.vcs_provider,
    }),
    vcsUrl: t.string({
      description: "The repository's page on its provider.",
      resolve: async (r, _args, ctx) => {
        if (r.vcs_url) return r.vcs_url;
        const account = (await accountById(ctx).load(r.account_id))!;
        const base = accountVcsUrl(account);
        return base ? repositoryPageUrl(base, r.name) : "";
      },
    }),
    isPrivate: t.boolean({
      description: "True when the repository is private on its provider.",
      resolve: (r) => r.is_private,
    }),
    isActivated: t.boolean({
      description: "True when analysis is switched on.",
      resolve: (r) => r.is_activated,
    }),
    defaultBranch: t.string({
      nullable: true,
      description: "The branch treated as the default.",
      resolve: (r) => r.default_branch,
    }),
    configJson: t.field({
      type: "JSON",
      nullable: true,
      description:
        "The repository's analysis configuration (its `.deepsource.toml` as JSON), if any: the one the default branch's newest upload carried (`uploadArtifact`'s `configToml`).",
      resolve: (r) => r.config_json,
    }),
    dsn: t.string({
      nullable: true,
      description:
        "The DSN CI uses to upload artifacts. Null for CONTRIBUTOR members, who may read results but not report them.",
      resolve: async (r, _args, ctx) => {
        const membership = await viewerMembershipByAccountId(ctx).load(r.account_id);
        if (!membership || membership.role === "CONTRIBUTOR") return null;
        return repositoryDsn(r, ctx.config.tokenPepper, ctx.config.publicUrl);
      },
    }),
    allowAutofixAi: t.boolean({
      description: "True when AI Autofix may run on the repository.",
      resolve: (r) => r.allow_autofix_ai,
    }),
    useLegacyAutofix: t.boolean({
      description: "True when the legacy Autofix engine is used.",
      resolve: (r) => r.use_legacy_autofix,
    }),
  }),
});

/** `XConnection` of repositories, for `Account.repositories`. */
export const RepositoryConnection = connectionType("Repository", RepositoryRef, "repository");

builder.objectField(AccountRef, "repositories", (t) =>
  t.field({
    type: RepositoryConnection,
    description: "The account's repositories, ordered by name.",
    args: connectionArgs(t.arg),
    resolve: (a, args, ctx) =>
      ctx.loaders.connections.load<RepositoryRow>(repositoriesOfAccount, a.id, pageArgs(args)),
  }),
);

builder.queryField("repository", (t) =>
  t.field({
    type: RepositoryRef,
    nullable: true,
    description: `A repository by name, owner login and provider. A missing or hidden repository answers null with the error "${REPOSITORY_NOT_FOUND}".`,
    args: {
      name: t.arg.string({ required: true, description: "The repository's name." }),
      login: t.arg.string({ required: true, description: "The owning account's login." }),
      vcsProvider: t.arg({ type: VcsProviderEnum, required: true, description: "The account's provider." }),
    },
    resolve: async (_root, args, ctx) => {
      const repository = await findVisibleRepositoryByName(ctx.db, ctx.viewer.userId, args);
      if (!repository) throw notFound(REPOSITORY_NOT_FOUND);
      return repository;
    },
  }),
);

registerNodeType("Repository", (ctx, key) => visibleRepositoryByKey(ctx).load(key));
