import type { OccurrenceRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { registerNodeType } from "../../graphql/node.ts";
import {
  connectionArgs,
  connectionType,
  globalIdField,
  NodeInterface,
  pageArgs,
} from "../../graphql/relay.ts";
import { issueById } from "../catalog/catalog-loaders.ts";
import { IssueCategoryEnum, IssueRef, IssueSeverityEnum } from "../catalog/catalog-type.ts";
import { repositoryById } from "../repositories/repository-loaders.ts";
import { RepositoryRef } from "../repositories/repository-type.ts";
import { latestDefaultBranchRunByRepositoryId, visibleRepositoryIssueByKey } from "./checks-loaders.ts";
import { analyzerInFilter } from "./connection-filter-store.ts";
import { occurrencesOfIssueInCheck, occurrencesOfRun } from "./occurrence-store.ts";
import { analyzerInArg, OccurrenceConnection } from "./occurrence-type.ts";
import {
  type RepositoryIssueRow,
  repositoryIssueFilter,
  repositoryIssuesOfRun,
} from "./repository-issue-store.ts";

/** An issue present in a repository's current code. */
export const RepositoryIssueRef = builder.objectRef<RepositoryIssueRow>("RepositoryIssue").implement({
  description:
    "An issue present in a repository: one its latest finished analysis run on the default branch reported, with that run's occurrences of it.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("RepositoryIssue")),
    issue: t.field({
      type: IssueRef,
      description: "The issue (rule).",
      resolve: async (r, _args, ctx) => (await issueById(ctx).load(r.issue_id))!,
    }),
    repository: t.field({
      type: RepositoryRef,
      description: "The repository.",
      resolve: async (r, _args, ctx) => (await repositoryById(ctx).load(r.repository_id))!,
    }),
    occurrences: t.field({
      type: OccurrenceConnection,
      description:
        "Where the issue occurs in the run (RESOLVED findings left out), by path, then line, then key. Not narrowed by the `path` filter of `Repository.issues`.",
      args: { ...connectionArgs(t.arg), analyzerIn: analyzerInArg(t.arg, "occurrences") },
      resolve: (r, args, ctx) =>
        ctx.loaders.connections.load<OccurrenceRow>(
          occurrencesOfIssueInCheck,
          `${r.check_id}:${r.issue_id}`,
          pageArgs(args),
          analyzerInFilter(args.analyzerIn),
        ),
    }),
  }),
});

const RepositoryIssueConnection = connectionType("RepositoryIssue", RepositoryIssueRef, "repository issue");

/**
 * No row has id 0 (identity columns start at 1), so a repository without a finished
 * default-branch run pages over this parent and gets an empty connection, with the same argument
 * checks and batching as any other.
 */
const NO_RUN = "0";

/** A connection under the repository's latest finished default-branch run. */
async function underLatestRun<T>(
  ctx: GraphQLContext,
  repositoryId: string,
  load: (runId: string) => Promise<T>,
): Promise<T> {
  const run = await latestDefaultBranchRunByRepositoryId(ctx).load(repositoryId);
  return load(run?.id ?? NO_RUN);
}

builder.objectField(RepositoryRef, "issues", (t) =>
  t.field({
    type: RepositoryIssueConnection,
    nullable: true,
    description:
      "The distinct issues in the repository's latest analysed run on its default branch: the newest that finished SUCCESS or FAILURE, also while an artifact uploaded after it finished makes it PENDING again. By issue code, then key. Empty when there is no such run.",
    args: {
      path: t.arg.string({
        required: false,
        description:
          "Only issues with an occurrence in this file or anywhere under this directory (repository-relative; `src` matches `src` and `src/a.py`, not `srcs/a.py`).",
      }),
      ...connectionArgs(t.arg),
      tags: t.arg.stringList({
        required: { list: false, items: false },
        description:
          "Only issues carrying every one of these tags (e.g. `cwe-79`). Null or an empty list does not filter.",
      }),
      analyzerIn: analyzerInArg(t.arg, "issues"),
      category: t.arg({
        type: IssueCategoryEnum,
        required: false,
        description: "Only issues of this category. An Assay extension of the contract's arguments.",
      }),
      severity: t.arg({
        type: IssueSeverityEnum,
        required: false,
        description:
          "Only issues of this severity (the issue's own, as `Issue.severity` shows it). An Assay extension of the contract's arguments.",
      }),
    },
    resolve: (repository, args, ctx) =>
      underLatestRun(ctx, repository.id, (runId) =>
        ctx.loaders.connections.load<RepositoryIssueRow>(
          repositoryIssuesOfRun,
          runId,
          pageArgs(args),
          repositoryIssueFilter(args),
        ),
      ),
  }),
);

builder.objectField(RepositoryRef, "issueOccurrences", (t) =>
  t.field({
    type: OccurrenceConnection,
    nullable: true,
    description:
      "Every occurrence in the repository's latest analysed run on its default branch, the run `issues` reads (RESOLVED ones left out), by path, then line, then key.",
    args: { ...connectionArgs(t.arg), analyzerIn: analyzerInArg(t.arg, "occurrences") },
    resolve: (repository, args, ctx) =>
      underLatestRun(ctx, repository.id, (runId) =>
        ctx.loaders.connections.load<OccurrenceRow>(
          occurrencesOfRun,
          runId,
          pageArgs(args),
          analyzerInFilter(args.analyzerIn),
        ),
      ),
  }),
);

registerNodeType("RepositoryIssue", (ctx, key) => visibleRepositoryIssueByKey(ctx).load(key));
