import assert from "node:assert/strict";
import { test } from "node:test";
import { derivePullRequestVcsUrl } from "./pull-request-vcs.ts";

test("a GitHub pull request's page is the repository's page plus /pull/<number>", () => {
  assert.equal(
    derivePullRequestVcsUrl("GITHUB", "https://github.com/acme/api", 7),
    "https://github.com/acme/api/pull/7",
  );
  assert.equal(
    derivePullRequestVcsUrl("GITHUB_ENTERPRISE", "https://git.acme.test/acme/api", 7),
    "https://git.acme.test/acme/api/pull/7",
  );
});

test("GitLab links merge requests and Bitbucket links pull-requests", () => {
  assert.equal(
    derivePullRequestVcsUrl("GITLAB", "https://gitlab.com/acme/api", 12),
    "https://gitlab.com/acme/api/-/merge_requests/12",
  );
  assert.equal(
    derivePullRequestVcsUrl("BITBUCKET", "https://bitbucket.org/acme/api/", 3),
    "https://bitbucket.org/acme/api/pull-requests/3",
  );
});

test("no link is derived without a repository URL or for a provider without pull requests", () => {
  assert.equal(derivePullRequestVcsUrl("GITHUB", null, 1), null);
  assert.equal(derivePullRequestVcsUrl("GITHUB", "", 1), null);
  assert.equal(derivePullRequestVcsUrl("GSR", "https://source.cloud.google.com/p/r", 1), null);
});
