import { builder } from "../../graphql/builder.ts";
import { inTransaction } from "../../graphql/mutations.ts";

/** The contract's `RevokePAT` payload. */
const RevokePatRef = builder.objectRef<{ ok: boolean }>("RevokePAT").implement({
  description: "The answer of `revokePat`.",
  fields: (t) => ({
    ok: t.boolean({
      nullable: true,
      description: "True when the calling token is now revoked.",
      resolve: (p) => p.ok,
    }),
  }),
});

builder.mutationField("revokePat", (t) =>
  t.field({
    type: RevokePatRef,
    nullable: true,
    description:
      "Revokes the personal access token this request is authenticated with. It stops working at once, on every instance.",
    resolve: (_root, _args, ctx) =>
      inTransaction(ctx, async (tx) => {
        const revoked = await tx
          .updateTable("personal_access_tokens")
          .set({ revoked_at: new Date() })
          .where("id", "=", ctx.viewer.tokenId)
          .where("revoked_at", "is", null)
          .executeTakeFirst();
        return { ok: revoked.numUpdatedRows === 1n };
      }),
  }),
);
