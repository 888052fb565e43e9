import type { AnalysisRunRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { connectionArgs, connectionType, pageArgs } from "../../graphql/relay.ts";
import { latestCommitOidByRepositoryId } from "../runs/run-loaders.ts";
import { runFilter, runsOfRepository } from "../runs/run-store.ts";
import { AnalysisRunRef } from "../runs/run-type.ts";
import { repositoryById } from "./repository-loaders.ts";
import { RepositoryRef } from "./repository-type.ts";

/**
 * Where repositories and their runs meet in the schema: a repository's runs and the commit its
 * newest analysed run saw, and a run's repository. Here, in the repositories module, so that the
 * runs module knows nothing of repositories and the repositories module may read runs (the
 * activation events carry the same `latestCommitOid` as the API: repository-mutations.ts).
 */

const AnalysisRunConnection = connectionType("AnalysisRun", AnalysisRunRef, "analysis run");

builder.objectField(RepositoryRef, "analysisRuns", (t) =>
  t.field({
    type: AnalysisRunConnection,
    nullable: true,
    description: "The repository's analysis runs, newest first.",
    args: {
      ...connectionArgs(t.arg),
      branch: t.arg.string({ required: false, description: "Only runs on this branch." }),
      commitOid: t.arg.string({
        required: false,
        description:
          "Only runs of this commit (its full SHA). An Assay extension: the root `run(commitOid:)` answers the newest run of a SHA in any repository you can see, this one stays in the repository.",
      }),
    },
    resolve: (repository, args, ctx) =>
      ctx.loaders.connections.load<AnalysisRunRow>(
        runsOfRepository,
        repository.id,
        pageArgs(args),
        runFilter(args.branch, args.commitOid),
      ),
  }),
);

builder.objectField(RepositoryRef, "latestCommitOid", (t) =>
  t.string({
    nullable: true,
    description: "The newest commit analysed on the default branch.",
    resolve: (repository, _args, ctx) => latestCommitOidByRepositoryId(ctx).load(repository.id),
  }),
);

builder.objectField(AnalysisRunRef, "repository", (t) =>
  t.field({
    type: RepositoryRef,
    description: "The repository analysed.",
    resolve: async (run, _args, ctx) => (await repositoryById(ctx).load(run.repository_id))!,
  }),
);
