import assert from "node:assert/strict";
import type { AccountRow, RepositoryRow, TeamMemberRole, UserRow } from "../../src/db/types.ts";
import { encodeGlobalId } from "../../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./builders.ts";
import { waitFor } from "./instance.ts";
import { dataOf, gql, type TestServer } from "./server.ts";

/**
 * Uploads of COMMUNITY analyzers' reports through `uploadArtifact`, by users of accounts of their
 * own: what the tests of an account's own issues (docs/ingestion-sarif.md "An account's issues are
 * its own") start from.
 */

/** A user who uploads to a repository of an account of theirs. */
export interface Uploader {
  user: UserRow;
  account: AccountRow;
  repository: RepositoryRow;
  token: string;
}

const UPLOAD = `mutation Upload($input: UploadArtifactInput!) {
  uploadArtifact(input: $input) { ok error }
}`;

const RUN_STATUS = `query Run($commit: String!) {
  run(commitOid: $commit) { status checks { edges { node { id } } } }
}`;

/** A user, its own account (in which it has `role`) and a repository of it. */
export async function anUploader(server: TestServer, role: TeamMemberRole = "MEMBER"): Promise<Uploader> {
  const user = await aUser(server.db);
  const account = await anAccount(server.db, {}, [{ user, role }]);
  const repository = await aRepository(server.db, account);
  return { user, account, repository, token: await aToken(server.db, server.config.tokenPepper, user) };
}

/** Uploads `report` for `commit` as the community analyzer `analyzer`'s SARIF. */
export async function uploadCommunityReport(
  server: TestServer,
  who: Uploader,
  commit: string,
  analyzer: string,
  report: string,
  workDir: string,
): Promise<void> {
  const answer = dataOf(
    await gql(server.endpoint, who.token, UPLOAD, {
      input: {
        repositoryId: encodeGlobalId("Repository", who.repository.key),
        commitOid: commit,
        branch: who.repository.default_branch,
        analyzer,
        analyzerType: "community",
        data: report,
        workDir,
      },
    }),
  );
  assert.deepEqual(answer.uploadArtifact, { ok: true, error: "" });
}

/** Waits until the run of `commit` has settled (no longer PENDING) with its check in place. */
export async function runSettled(server: TestServer, who: Uploader, commit: string): Promise<void> {
  await waitFor(
    `the run of ${commit} to settle`,
    async () => {
      const response = await gql<{
        run: { status: string; checks: { edges: unknown[] } } | null;
      }>(server.endpoint, who.token, RUN_STATUS, { commit });
      const run = response.body.data?.run;
      return run != null && run.status !== "PENDING" && run.checks.edges.length > 0;
    },
    30_000,
  );
}
