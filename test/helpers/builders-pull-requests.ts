import { createHash, randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type {
  AnalysisRunRow,
  AnalysisRunStatus,
  Database,
  PullRequestRow,
  RepositoryRow,
} from "../../src/db/types.ts";
import { newRowKey } from "../../src/graphql/global-id.ts";
import { insertRun } from "../../src/modules/runs/run-store.ts";

/** Builders for pull requests and their runs. Repositories come from `builders.ts`. */

let lastNumber = 0;

/** What a test may set on a pull request; everything defaults (numbers count up). */
export interface PullRequestFields {
  number: number;
  title: string | null;
  branch: string | null;
  baseBranch: string | null;
  state: "OPEN" | "CLOSED" | "MERGED";
  vcsUrl: string | null;
  createdAt: Date;
}

/** Inserts a pull request of `repository`. */
export function aPullRequest(
  db: Kysely<Database>,
  repository: RepositoryRow,
  fields: Partial<PullRequestFields> = {},
): Promise<PullRequestRow> {
  const createdAt = fields.createdAt ?? new Date();
  const number = fields.number ?? ++lastNumber;
  return db
    .insertInto("pull_requests")
    .values({
      key: newRowKey(),
      repository_id: repository.id,
      number,
      title: fields.title === undefined ? `Change ${number}` : fields.title,
      branch: fields.branch === undefined ? `feature-${number}` : fields.branch,
      base_branch: fields.baseBranch === undefined ? "main" : fields.baseBranch,
      state: fields.state ?? "OPEN",
      vcs_url: fields.vcsUrl ?? null,
      created_at: createdAt,
      updated_at: createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Inserts an analysis run of `pullRequest` (on its source branch). */
export function aPullRequestRun(
  db: Kysely<Database>,
  repository: RepositoryRow,
  pullRequest: PullRequestRow,
  fields: Partial<{ status: AnalysisRunStatus; createdAt: Date }> = {},
): Promise<AnalysisRunRow> {
  const createdAt = fields.createdAt ?? new Date();
  return insertRun(db, {
    key: newRowKey(),
    run_uid: randomUUID(),
    repository_id: repository.id,
    pull_request_id: pullRequest.id,
    branch_name: pullRequest.branch,
    commit_oid: createHash("sha1").update(randomUUID()).digest("hex"),
    status: fields.status ?? "SUCCESS",
    created_at: createdAt,
    updated_at: createdAt,
  });
}
