import assert from "node:assert/strict";
import { test } from "node:test";
import type {
  AccountRow,
  AnalysisRunRow,
  AnalyzerRow,
  CheckRow,
  IssueRow,
  OccurrenceRow,
  RepositoryRow,
} from "../../db/types.ts";
import { encodeGlobalId } from "../../graphql/global-id.ts";
import type { OccurrenceSummary } from "../checks/summary.ts";
import { unixSeconds } from "../events/outbox.ts";
import {
  analysisRunStartedEvent,
  analysisRunUpdatedEvent,
  type CheckForEvent,
  repositoryIssueIntroducedEvent,
  repositoryIssueResolvedEvent,
  webhookEnvelope,
} from "./payloads.ts";

const at = new Date("2026-01-13T10:00:00.900Z");
const later = new Date("2026-01-13T10:05:00.000Z");

const account = {
  id: "1",
  key: "acc0000001",
  login: "acme",
  vcs_provider: "GITHUB",
  type: "TEAM",
  avatar_url: null,
  vcs_url: null,
} as AccountRow;
const repository = {
  id: "2",
  key: "rep0000001",
  account_id: "1",
  name: "api",
  vcs_url: null,
  default_branch: "main",
  latest_commit_oid: "abc123",
  is_private: true,
  is_activated: true,
} as RepositoryRow;
const python = {
  id: "3",
  key: "ana0000001",
  shortcode: "python",
  name: "Python",
  logo_url: "https://x/py.svg",
} as AnalyzerRow;
const docker = {
  id: "4",
  key: "ana0000002",
  shortcode: "docker",
  name: "Docker",
  logo_url: null,
} as AnalyzerRow;
const run = {
  id: "5",
  key: "run0000001",
  run_uid: "75d0dd35-d12c-4f8d-a7f1-494b9c1abcde",
  repository_id: "2",
  branch_name: "main",
  base_oid: "base",
  commit_oid: "head",
  status: "PENDING",
  created_at: at,
  updated_at: later,
  finished_at: null,
} as AnalysisRunRow;
const check = (key: string, sequence: number, finishedAt: Date | null): CheckRow =>
  ({
    id: key,
    key,
    run_id: "5",
    analyzer_id: "3",
    sequence,
    status: finishedAt ? "FAILURE" : "PENDING",
    created_at: at,
    updated_at: later,
    finished_at: finishedAt,
  }) as CheckRow;
const summary = (introduced: number, byAnalyzer: OccurrenceSummary["byAnalyzer"]): OccurrenceSummary => ({
  introduced,
  resolved: 1,
  suppressed: 0,
  byCategory: introduced > 0 ? [{ category: "BUG_RISK", introduced }] : [],
  bySeverity: introduced > 0 ? [{ severity: "MAJOR", introduced }] : [],
  byAnalyzer,
});

test("the envelope carries the delivery id as a string and the time in UNIX seconds", () => {
  assert.deepEqual(webhookEnvelope("42", "test.event", at, { test: true }), {
    id: "42",
    type: "test.event",
    createdAt: 1768298400,
    data: { test: true },
  });
  assert.equal(unixSeconds(null), null);
  assert.equal(unixSeconds("2026-01-13T10:00:00.999Z"), 1768298400);
});

test("analysis_run.updated: the run with its repository, summary and checks, the reporting check last", () => {
  const checks: CheckForEvent[] = [
    { check: check("chk0000002", 2, null), analyzer: docker, summary: summary(0, []) },
    {
      check: check("chk0000001", 1, later),
      analyzer: python,
      summary: summary(3, [{ analyzerShortcode: "python", introduced: 3 }]),
    },
  ];
  const event = analysisRunUpdatedEvent({
    run,
    repository,
    account,
    latestCommitOid: "abc123",
    summary: summary(3, [{ analyzerShortcode: "python", introduced: 3 }]),
    checks,
  });
  assert.equal(event.accountId, "1");
  assert.equal(event.type, "analysis_run.updated");
  const object = event.data.object as Record<string, unknown>;
  assert.deepEqual(Object.keys(object), [
    "id",
    "object",
    "runUid",
    "status",
    "branchName",
    "baseOid",
    "commitOid",
    "createdAt",
    "updatedAt",
    "repository",
    "summary",
    "checks",
  ]);
  assert.equal(object.id, encodeGlobalId("AnalysisRun", "run0000001"));
  assert.equal(object.object, "AnalysisRun");
  assert.equal(object.createdAt, 1768298400);
  assert.deepEqual(object.summary, {
    object: "AnalysisRunSummary",
    occurrencesIntroduced: 3,
    occurrencesResolved: 1,
    occurrenceDistributionByAnalyzer: [
      { object: "OccurrenceDistributionByAnalyzer", analyzerShortcode: "docker", introduced: 0 },
      { object: "OccurrenceDistributionByAnalyzer", analyzerShortcode: "python", introduced: 3 },
    ],
    occurrenceDistributionByCategory: [
      { object: "OccurrenceDistributionByCategory", category: "BUG_RISK", introduced: 3 },
    ],
  });
  const [first, last] = object.checks as Array<Record<string, unknown>>;
  assert.equal(first!.finishedAt, null);
  assert.deepEqual(last, {
    id: encodeGlobalId("Check", "chk0000001"),
    object: "Check",
    sequence: 1,
    status: "FAILURE",
    analyzer: {
      id: encodeGlobalId("Analyzer", "ana0000001"),
      object: "Analyzer",
      shortcode: "python",
      name: "Python",
      logoUrl: "https://x/py.svg",
    },
    createdAt: 1768298400,
    updatedAt: 1768298700,
    finishedAt: 1768298700,
    summary: {
      object: "CheckSummary",
      occurrencesIntroduced: 3,
      occurrencesResolved: 1,
      occurrenceDistributionByCategory: [
        { object: "OccurrenceDistributionByCategory", category: "BUG_RISK", introduced: 3 },
      ],
    },
  });
  const repo = object.repository as Record<string, unknown>;
  assert.equal(repo.object, "Repository");
  assert.equal(repo.vcsUrl, "https://github.com/acme/api");
  assert.deepEqual((repo.account as Record<string, unknown>).avatarUrl, "https://github.com/acme.png");
});

test("analysis_run.started: every count is zero, each check's analyzer listed", () => {
  const event = analysisRunStartedEvent({
    run,
    repository,
    account,
    latestCommitOid: "abc123",
    summary: summary(5, [{ analyzerShortcode: "python", introduced: 5 }]),
    checks: [{ check: check("chk0000001", 1, null), analyzer: python, summary: summary(5, []) }],
  });
  assert.equal(event.type, "analysis_run.started");
  const object = event.data.object as unknown as { summary: unknown; checks: Array<{ summary: unknown }> };
  assert.deepEqual(object.summary, {
    object: "AnalysisRunSummary",
    occurrencesIntroduced: 0,
    occurrencesResolved: 0,
    occurrenceDistributionByAnalyzer: [
      { object: "OccurrenceDistributionByAnalyzer", analyzerShortcode: "python", introduced: 0 },
    ],
    occurrenceDistributionByCategory: [],
  });
  assert.deepEqual(object.checks[0]!.summary, {
    object: "CheckSummary",
    occurrencesIntroduced: 0,
    occurrencesResolved: 0,
    occurrenceDistributionByCategory: [],
  });
});

test("repository_issue.introduced and .resolved: the issue with its new occurrences, and the counts", () => {
  const issue = {
    id: "9",
    key: "iss0000001",
    analyzer_id: "3",
    shortcode: "PYL-W0611",
    title: "Unused import",
    short_description: "An import is never used.",
    category: "ANTI_PATTERN",
    autofix_available: true,
    is_recommended: false,
  } as IssueRow;
  const occurrence = {
    id: "10",
    key: "occ0000001",
    title: "`os` imported but unused",
    path: "app/main.py",
    begin_line: 3,
    begin_column: 1,
    end_line: 3,
    end_column: 10,
  } as OccurrenceRow;
  const input = { repository, account, latestCommitOid: "abc123", issue, analyzer: python };
  const introduced = repositoryIssueIntroducedEvent(input, [
    occurrence,
    { ...occurrence, key: "occ0000002" },
  ]);
  assert.equal(introduced.type, "repository_issue.introduced");
  assert.deepEqual(Object.keys(introduced.data), ["object", "issueOccurrencesIntroduced"]);
  assert.equal(introduced.data.issueOccurrencesIntroduced, 2);
  const object = introduced.data.object as Record<string, unknown>;
  assert.equal(object.id, encodeGlobalId("RepositoryIssue", "rep0000001iss0000001"));
  assert.deepEqual(object.issue, {
    id: encodeGlobalId("Issue", "iss0000001"),
    object: "Issue",
    shortcode: "PYL-W0611",
    title: "Unused import",
    shortDescription: "An import is never used.",
    category: "ANTI_PATTERN",
    autofixAvailable: true,
    isRecommended: false,
    analyzer: {
      id: encodeGlobalId("Analyzer", "ana0000001"),
      object: "Analyzer",
      shortcode: "python",
      name: "Python",
      logoUrl: "https://x/py.svg",
    },
  });
  assert.deepEqual((object.occurrences as unknown[])[0], {
    id: encodeGlobalId("Occurrence", "occ0000001"),
    object: "Occurrence",
    title: "`os` imported but unused",
    path: "app/main.py",
    beginLine: 3,
    beginColumn: 1,
    endLine: 3,
    endColumn: 10,
  });
  const resolved = repositoryIssueResolvedEvent(input, 4);
  assert.equal(resolved.type, "repository_issue.resolved");
  assert.deepEqual(Object.keys(resolved.data), ["object", "issueOccurrencesResolved"]);
  assert.equal(resolved.data.issueOccurrencesResolved, 4);
  assert.deepEqual((resolved.data.object as unknown as { occurrences: unknown[] }).occurrences, []);
});
