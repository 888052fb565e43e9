import type { OccurrenceRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
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
import { visibleRepositoryIssueByKey } from "./checks-loaders.ts";
import { occurrenceFilter, occurrencesOfIssueInCheck, occurrencesOfRepository } from "./occurrence-store.ts";
import { analyzerInArg, isSuppressedArg, OccurrenceConnection } from "./occurrence-type.ts";
import {
  type RepositoryIssueRow,
  repositoryIssueFilter,
  repositoryIssuesOfRepository,
} from "./repository-issue-store.ts";

/** An issue present in a repository's current code. */
export const RepositoryIssueRef = builder.objectRef<RepositoryIssueRow>("RepositoryIssue").implement({
  description:
    "An issue present in a repository: one its current findings on the default branch hold (per analyzer, the newest report that could be read and placed; an analyzer whose newer report failed, placed nothing or was not sent keeps its earlier findings), with the occurrences of that report.",
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
        "Where the issue occurs in the repository's current findings (RESOLVED findings left out, silenced ones unless `isSuppressed: true`), by path, then line, then key. Not narrowed by the `path` or `isSuppressed` filter of `Repository.issues`: an issue listed by `issues(isSuppressed: true)` shows its silenced findings here with `isSuppressed: true` too.",
      args: {
        ...connectionArgs(t.arg),
        analyzerIn: analyzerInArg(t.arg, "occurrences"),
        isSuppressed: isSuppressedArg(t.arg),
      },
      resolve: (r, args, ctx) =>
        ctx.loaders.connections.load<OccurrenceRow>(
          occurrencesOfIssueInCheck,
          `${r.check_id}:${r.issue_id}`,
          pageArgs(args),
          occurrenceFilter(args),
        ),
    }),
  }),
});

const RepositoryIssueConnection = connectionType("RepositoryIssue", RepositoryIssueRef, "repository issue");

builder.objectField(RepositoryRef, "issues", (t) =>
  t.field({
    type: RepositoryIssueConnection,
    nullable: true,
    description:
      "The distinct issues in the repository's current findings on its default branch: per analyzer, those of its newest check that says what the code holds (finished SUCCESS or FAILURE with no report that failed to process, in a run that finished SUCCESS or FAILURE), so an analyzer whose newer report failed, placed nothing or was not sent keeps its earlier findings. When the repository's configuration lists its analyzers, only those it turns on count. By issue code, then key. Empty before the first such check.",
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
      isSuppressed: t.arg.boolean({
        required: false,
        description:
          "Only issues with silenced findings (true) or only issues with findings that are not silenced (false); an issue with both kinds is in both lists, and `path` looks at the findings of the kind asked for. Left out or null means false: a list shows what needs attention, as DeepSource's do, and its total counts the same. An Assay extension.",
      }),
    },
    resolve: (repository, args, ctx) =>
      ctx.loaders.connections.load<RepositoryIssueRow>(
        repositoryIssuesOfRepository,
        repository.id,
        pageArgs(args),
        repositoryIssueFilter(args),
      ),
  }),
);

builder.objectField(RepositoryRef, "issueOccurrences", (t) =>
  t.field({
    type: OccurrenceConnection,
    nullable: true,
    description:
      "Every occurrence in the repository's current findings on its default branch, the findings `issues` reads (RESOLVED ones left out, silenced ones unless `isSuppressed: true`), by path, then line, then key.",
    args: {
      ...connectionArgs(t.arg),
      analyzerIn: analyzerInArg(t.arg, "occurrences"),
      isSuppressed: isSuppressedArg(t.arg),
    },
    resolve: (repository, args, ctx) =>
      ctx.loaders.connections.load<OccurrenceRow>(
        occurrencesOfRepository,
        repository.id,
        pageArgs(args),
        occurrenceFilter(args),
      ),
  }),
);

registerNodeType("RepositoryIssue", (ctx, key) => visibleRepositoryIssueByKey(ctx).load(key));
