import { alignRows, defineLoader } from "../../graphql/context.ts";
import { type ArtifactView, findVisibleArtifactsByKeys } from "./artifact-store.ts";

/** Artifacts by key, limited to repositories the viewer can see. */
export const visibleArtifactByKey = defineLoader<string, ArtifactView | null>(
  "visibleArtifactByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleArtifactsByKeys(ctx.db, ctx.viewer.userId, keys), (a) => a.key),
);
