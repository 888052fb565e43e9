import type { AnalyzerRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { connectionArgs, pageArgs } from "../../graphql/relay.ts";
import { AnalyzerConnection } from "../catalog/catalog-type.ts";
import { RepositoryRef } from "../repositories/repository-type.ts";
import { enabledAnalyzersOfRepository } from "./enabled-analyzers-store.ts";

builder.objectField(RepositoryRef, "enabledAnalyzers", (t) =>
  t.field({
    type: AnalyzerConnection,
    nullable: true,
    description:
      "The analyzers turned on for the repository, by name: those its configuration lists as enabled or, without an `analyzers` list in its configuration, those whose current findings the repository holds (the analyzers of `issues`: each one's newest report on the default branch that said what the code holds, whichever run it came from).",
    args: connectionArgs(t.arg),
    resolve: (repository, args, ctx) =>
      ctx.loaders.connections.load<AnalyzerRow>(enabledAnalyzersOfRepository, repository.id, pageArgs(args)),
  }),
);
