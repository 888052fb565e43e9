import { type Kysely, sql } from "kysely";

/**
 * Where a pull request's head is (docs/vcs-events.md "Pull requests from forks"):
 *
 * - `pull_requests.is_cross_repository`: true when the provider said the head branch is in
 *   another repository than the base (a fork): GitHub's `head.repo` against `base.repo`, GitLab's
 *   `source_project_id` against `target_project_id`, Bitbucket's `source.repository` against
 *   `destination.repository`. A pull request stored before, or made by an upload, is taken to be
 *   of this repository until its provider's next event says otherwise.
 * - `pull_requests.head_repository`: that repository's full name (`owner/name`), when the
 *   provider gave it; null for a pull request of this repository, or a fork that was deleted.
 *
 * A run of a cross-repository pull request's head is on `<head_repository>:<branch>`, a name no
 * branch of this repository can have, so a fork's `main` is never the default branch.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE pull_requests
      ADD COLUMN is_cross_repository boolean NOT NULL DEFAULT false,
      ADD COLUMN head_repository text,
      ADD CONSTRAINT pull_requests_head_repository_cross CHECK (head_repository IS NULL OR is_cross_repository)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE pull_requests DROP CONSTRAINT IF EXISTS pull_requests_head_repository_cross,
      DROP COLUMN IF EXISTS head_repository, DROP COLUMN IF EXISTS is_cross_repository`.execute(db);
}
