import type { InstallationRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { defineLoader } from "../../graphql/context.ts";
import { registerNodeType } from "../../graphql/node.ts";
import { globalIdField, NodeInterface } from "../../graphql/relay.ts";
import { findInstallation } from "./installation-store.ts";

const installation = defineLoader<"the", InstallationRow | null>("installation", async (ctx, keys) => {
  const row = (await findInstallation(ctx.db)) ?? null;
  return keys.map(() => row);
});

const InstallationRef = builder.objectRef<InstallationRow>("Installation").implement({
  description: "This Assay deployment.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("Installation")),
    name: t.string({
      description: "The installation's name (ASSAY_INSTALLATION_NAME).",
      resolve: (i) => i.name,
    }),
    logo: t.string({
      description: "URL of the installation's logo (ASSAY_INSTALLATION_LOGO_URL).",
      resolve: (i) => i.logo_url,
    }),
  }),
});

builder.queryField("installation", (t) =>
  t.field({
    type: InstallationRef,
    nullable: true,
    description: "This Assay deployment: its name and logo.",
    resolve: (_root, _args, ctx) => installation(ctx).load("the"),
  }),
);

registerNodeType("Installation", async (ctx, key) => {
  const row = await installation(ctx).load("the");
  return row && row.key === key ? row : null;
});
