import type { AnalysisRunRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { badUserInput, notFound } from "../../graphql/errors.ts";
import { registerNodeType } from "../../graphql/node.ts";
import { globalIdField, NodeInterface } from "../../graphql/relay.ts";
import { visibleRunByKey } from "./run-loaders.ts";
import { findVisibleRunByCommit, findVisibleRunByUid } from "./run-store.ts";

const AnalysisRunStatus = builder.enumType("AnalysisRunStatus", {
  description:
    "A run's state: PENDING while analysers report; SUCCESS or FAILURE by the quality gates; TIMEOUT when a check never reported; CANCEL when stopped; READY when results are in but not yet published; SKIPPED when analysis was not needed, or when every check judged nothing (each NEUTRAL: everything its reports held was skipped); a SKIPPED run never becomes the repository's current state or a base.",
  values: ["PENDING", "SUCCESS", "FAILURE", "TIMEOUT", "CANCEL", "READY", "SKIPPED"] as const,
});

/** One analysis of one commit of a repository. */
export const AnalysisRunRef = builder.objectRef<AnalysisRunRow>("AnalysisRun").implement({
  description: "One analysis of one commit of a repository, made of one check per analyzer.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("AnalysisRun")),
    runUid: t.field({ type: "UUID", description: "The run's UUID.", resolve: (r) => r.run_uid }),
    branchName: t.string({
      nullable: true,
      description: "The branch the commit was analysed on.",
      resolve: (r) => r.branch_name,
    }),
    commitOid: t.string({
      nullable: true,
      description: "SHA of the analysed commit.",
      resolve: (r) => r.commit_oid,
    }),
    baseOid: t.string({
      nullable: true,
      description: "SHA of the commit the run was compared against (null for a full analysis).",
      resolve: (r) => r.base_oid,
    }),
    status: t.field({ type: AnalysisRunStatus, description: "The run's state.", resolve: (r) => r.status }),
    createdAt: t.field({
      type: "DateTime",
      description: "When the run started.",
      resolve: (r) => r.created_at,
    }),
    updatedAt: t.field({
      type: "DateTime",
      description: "When the run last changed.",
      resolve: (r) => r.updated_at,
    }),
    finishedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the run finished; null while it is pending.",
      resolve: (r) => r.finished_at,
    }),
  }),
});

builder.queryField("run", (t) =>
  t.field({
    type: AnalysisRunRef,
    description:
      "An analysis run by its UID or by commit SHA (the newest run of that commit). Give exactly one of the two.",
    args: {
      runUid: t.arg({ type: "UUID", required: false, description: "The run's UUID." }),
      commitOid: t.arg.string({ required: false, description: "The SHA of the analysed commit." }),
    },
    resolve: async (_root, args, ctx) => {
      const { runUid, commitOid } = args;
      if ((runUid ? 1 : 0) + (commitOid ? 1 : 0) !== 1) {
        throw badUserInput("Give exactly one of `runUid` and `commitOid`.", runUid ? "commitOid" : "runUid");
      }
      const run = runUid
        ? await findVisibleRunByUid(ctx.db, ctx.viewer.userId, runUid)
        : await findVisibleRunByCommit(ctx.db, ctx.viewer.userId, commitOid!);
      if (!run) throw notFound("Analysis run matching query does not exist");
      return run;
    },
  }),
);

registerNodeType("AnalysisRun", (ctx, key) => visibleRunByKey(ctx).load(key));
