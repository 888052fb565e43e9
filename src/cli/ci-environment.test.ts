import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { fakeGit } from "../../test/helpers/fake-git.ts";
import {
  detectBranch,
  detectCommit,
  detectPullRequest,
  type Env,
  githubPullRequestHead,
} from "./ci-environment.ts";

const NO_GIT = fakeGit({});

describe("commit and branch detection", () => {
  const allCommits: Env = {
    CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: "0".repeat(40),
    GITHUB_SHA: "a".repeat(40),
    CI_COMMIT_SHA: "b".repeat(40),
    BITBUCKET_COMMIT: "c".repeat(40),
    BUILDKITE_COMMIT: "d".repeat(40),
    CIRCLE_SHA1: "e".repeat(40),
    GIT_COMMIT: "f".repeat(40),
  };

  test("the commit comes from the first CI variable set, in a fixed order, then git", () => {
    const git = fakeGit({ "rev-parse HEAD": "9".repeat(40) });
    const order = Object.keys(allCommits);
    for (let i = 0; i < order.length; i++) {
      const env = Object.fromEntries(order.slice(i).map((name) => [name, allCommits[name]]));
      assert.equal(detectCommit(env, git), allCommits[order[i]!], `with ${order.slice(i).join(", ")}`);
    }
    assert.deepEqual(git.asked, [], "git is not asked while a variable answers");
    assert.equal(detectCommit({ GITHUB_SHA: "", CI_COMMIT_SHA: "  " }, git), "9".repeat(40));
    assert.equal(detectCommit({}, NO_GIT), null);
  });

  test("the branch prefers a pull request's head ref, then the CI's branch, then git unless detached", () => {
    const env: Env = {
      GITHUB_HEAD_REF: "feature/login",
      CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: "gitlab-source-branch",
      GITHUB_REF_NAME: "42/merge",
      CI_COMMIT_REF_NAME: "gitlab-branch",
      BITBUCKET_BRANCH: "bitbucket-branch",
      BUILDKITE_BRANCH: "buildkite-branch",
      CIRCLE_BRANCH: "circle-branch",
      GIT_BRANCH: "origin/jenkins-branch",
    };
    const git = fakeGit({ "rev-parse --abbrev-ref HEAD": "local-branch" });
    assert.equal(detectBranch(env, git), "feature/login");
    // On a push GitHub sets GITHUB_HEAD_REF to the empty string.
    assert.equal(detectBranch({ ...env, GITHUB_HEAD_REF: "" }, git), "gitlab-source-branch");
    assert.equal(
      detectBranch({ ...env, GITHUB_HEAD_REF: "", CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: undefined }, git),
      "42/merge",
    );
    const rest = {
      ...env,
      GITHUB_HEAD_REF: undefined,
      CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: undefined,
      GITHUB_REF_NAME: undefined,
    };
    assert.equal(detectBranch(rest, git), "gitlab-branch");
    assert.equal(detectBranch({ ...rest, CI_COMMIT_REF_NAME: undefined }, git), "bitbucket-branch");
    assert.equal(detectBranch({ BUILDKITE_BRANCH: "b", CIRCLE_BRANCH: "c", GIT_BRANCH: "g" }, git), "b");
    assert.equal(detectBranch({ CIRCLE_BRANCH: "c", GIT_BRANCH: "g" }, git), "c");
    assert.equal(
      detectBranch({ GIT_BRANCH: "origin/release" }, git),
      "release",
      "Jenkins' remote prefix dropped",
    );
    assert.equal(detectBranch({}, git), "local-branch");
    assert.equal(detectBranch({}, fakeGit({ "rev-parse --abbrev-ref HEAD": "HEAD" })), null);
    assert.equal(detectBranch({}, NO_GIT), null);
  });

  // The variables and payload GitHub Actions gives a job of a `pull_request` event: GITHUB_SHA is
  // the merge commit of refs/pull/7/merge, the payload names the head.
  const pullRequestEnv: Env = {
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: "/home/runner/work/_temp/_github_workflow/event.json",
    GITHUB_SHA: "a".repeat(40),
    GITHUB_REF_NAME: "7/merge",
    GITHUB_HEAD_REF: "feature/login",
  };
  const payload = JSON.stringify({
    action: "synchronize",
    number: 7,
    pull_request: { head: { sha: "b".repeat(40), ref: "feature/login" }, base: { sha: "c".repeat(40) } },
  });
  const readEvent = (file: string) => (file === pullRequestEnv.GITHUB_EVENT_PATH ? payload : null);

  test("on a GitHub pull request the commit is the head the pull request shows, not the merge commit", () => {
    assert.deepEqual(githubPullRequestHead(pullRequestEnv, readEvent), {
      sha: "b".repeat(40),
      branch: "feature/login",
    });
    assert.equal(detectCommit(pullRequestEnv, NO_GIT, readEvent), "b".repeat(40));
    assert.equal(detectBranch(pullRequestEnv, NO_GIT, readEvent), "feature/login");
    // pull_request_target runs on the base branch's head; the payload still names the pull request's.
    const target = {
      ...pullRequestEnv,
      GITHUB_EVENT_NAME: "pull_request_target",
      GITHUB_SHA: "c".repeat(40),
    };
    assert.equal(detectCommit(target, NO_GIT, readEvent), "b".repeat(40));
    // A review event has no GITHUB_HEAD_REF: the branch comes from the payload too.
    const review = { ...pullRequestEnv, GITHUB_EVENT_NAME: "pull_request_review", GITHUB_HEAD_REF: "" };
    assert.equal(detectBranch(review, NO_GIT, readEvent), "feature/login");
  });

  test("outside a pull request, or without a readable payload, GitHub's variables answer", () => {
    const push = {
      ...pullRequestEnv,
      GITHUB_EVENT_NAME: "push",
      GITHUB_HEAD_REF: "",
      GITHUB_REF_NAME: "main",
    };
    assert.equal(detectCommit(push, NO_GIT, readEvent), "a".repeat(40));
    assert.equal(detectBranch(push, NO_GIT, readEvent), "main");
    assert.equal(
      githubPullRequestHead(pullRequestEnv, () => null),
      null,
    );
    assert.equal(
      githubPullRequestHead(pullRequestEnv, () => "{not json"),
      null,
    );
    assert.equal(
      githubPullRequestHead(pullRequestEnv, () => '{"pull_request":{"head":{}}}'),
      null,
    );
    assert.equal(
      detectCommit(pullRequestEnv, NO_GIT, () => null),
      "a".repeat(40),
    );
    assert.equal(
      githubPullRequestHead({ ...pullRequestEnv, GITHUB_ACTIONS: undefined }, readEvent),
      null,
      "only inside GitHub Actions",
    );
  });

  test("a GitLab merged-results pipeline names the source branch's head, not GitLab's merge commit", () => {
    // Merge request pipeline: CI_COMMIT_SHA is the head, the source SHA is empty.
    const mergeRequest: Env = {
      GITLAB_CI: "true",
      CI_COMMIT_SHA: "d".repeat(40),
      CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: "",
      CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: "feature/login",
      CI_COMMIT_REF_NAME: "feature/login",
    };
    assert.equal(detectCommit(mergeRequest, NO_GIT), "d".repeat(40));
    assert.equal(detectBranch(mergeRequest, NO_GIT), "feature/login");
    const mergedResults = {
      ...mergeRequest,
      CI_COMMIT_SHA: "e".repeat(40),
      CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: "d".repeat(40),
    };
    assert.equal(detectCommit(mergedResults, NO_GIT), "d".repeat(40));
  });
});

describe("pull request detection", () => {
  test("each CI service's variables give the number and the branch merged into", () => {
    const cases: Array<[string, Env, { number: number; baseBranch: string | null } | null]> = [
      [
        "GitLab",
        { CI_MERGE_REQUEST_IID: "17", CI_MERGE_REQUEST_TARGET_BRANCH_NAME: "main" },
        { number: 17, baseBranch: "main" },
      ],
      [
        "Bitbucket",
        { BITBUCKET_PR_ID: "5", BITBUCKET_PR_DESTINATION_BRANCH: "develop" },
        { number: 5, baseBranch: "develop" },
      ],
      [
        "Azure Repos",
        { SYSTEM_PULLREQUEST_PULLREQUESTID: "88", SYSTEM_PULLREQUEST_TARGETBRANCH: "refs/heads/release/2.0" },
        { number: 88, baseBranch: "release/2.0" },
      ],
      [
        "Azure on a GitHub repository",
        {
          SYSTEM_PULLREQUEST_PULLREQUESTID: "987654321",
          SYSTEM_PULLREQUEST_PULLREQUESTNUMBER: "12",
          SYSTEM_PULLREQUEST_TARGETBRANCH: "main",
        },
        { number: 12, baseBranch: "main" },
      ],
      ["Jenkins", { CHANGE_ID: "301", CHANGE_TARGET: "master" }, { number: 301, baseBranch: "master" }],
      [
        "Buildkite",
        { BUILDKITE_PULL_REQUEST: "44", BUILDKITE_PULL_REQUEST_BASE_BRANCH: "main" },
        { number: 44, baseBranch: "main" },
      ],
      ["Buildkite outside a pull request", { BUILDKITE_PULL_REQUEST: "false" }, null],
      [
        "CircleCI",
        { CIRCLE_PULL_REQUEST: "https://github.com/acme/api/pull/123" },
        { number: 123, baseBranch: null },
      ],
      ["no CI", {}, null],
      ["a number that is not one", { CI_MERGE_REQUEST_IID: "0" }, null],
    ];
    for (const [name, env, expected] of cases) assert.deepEqual(detectPullRequest(env), expected, name);
  });

  test("GitHub Actions reads the event payload's pull request number and base ref", () => {
    const event = JSON.stringify({
      action: "synchronize",
      number: 9,
      pull_request: {
        number: 9,
        head: { ref: "feature", sha: "a".repeat(40) },
        base: { ref: "main", sha: "b".repeat(40) },
      },
    });
    const env: Env = {
      GITHUB_ACTIONS: "true",
      GITHUB_EVENT_NAME: "pull_request",
      GITHUB_EVENT_PATH: "/github/workflow/event.json",
      GITHUB_BASE_REF: "ignored-when-the-payload-says",
      CI_MERGE_REQUEST_IID: "77",
    };
    const read = (path: string) => (path === "/github/workflow/event.json" ? event : null);
    assert.deepEqual(detectPullRequest(env, read), { number: 9, baseBranch: "main" });
    assert.deepEqual(detectPullRequest({ ...env, GITHUB_EVENT_NAME: "push" }, read), {
      number: 77,
      baseBranch: null,
    });
    assert.equal(
      detectPullRequest({ ...env, CI_MERGE_REQUEST_IID: undefined }, () => null),
      null,
    );
  });
});
