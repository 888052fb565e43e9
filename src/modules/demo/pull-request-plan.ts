import type { Bump, Pins } from "./dependency-plan.ts";
import type { Finding } from "./findings.ts";
import type { HistoryParameters, PlannedPullRequest, PlannedRun, RepositorySpec } from "./plan-types.ts";
import type { Random } from "./random.ts";
import { DAY, HOUR, MINUTE, pullRequestUrl, type Span } from "./repository-setup.ts";
import { branchAndTitle, titleOfBranch } from "./vocabulary.ts";

/** An analyzed run and what it found: the base of later runs. */
export interface Snapshot {
  run: PlannedRun;
  live: Map<string, Finding[]>;
  pins: Pins;
}

/**
 * A feature branch: when it was opened and when it was analysed. The history fills in the rest
 * as it replays the runs: the base it forked from and what its commits changed.
 */
export interface PullRequestTimeline {
  /** Null for a branch analysed without a pull request. */
  pr: PlannedPullRequest | null;
  branch: string;
  created: number;
  runTimes: number[];
  /** The analyzed default-branch run the branch forked from: its merge base. */
  base?: Snapshot;
  /** Findings the branch added, per analyzer (some are fixed again in later pushes). */
  introduced: Map<string, Finding[]>;
  /** Fingerprints of base findings the branch fixed. */
  resolved: Set<string>;
  /** What the branch changes in its dependencies (decided at its first run). */
  bump?: Bump | null;
}

/**
 * The repository's feature branches: the spec's open ones (recent), then random ones over the
 * history, each with 1-3 analysed pushes. Old ones are mostly merged, recent ones mostly open.
 * Pull requests are numbered in creation order with gaps, as issues share the numbering.
 */
export function planPullRequests(
  r: Random,
  spec: RepositorySpec,
  params: HistoryParameters,
  span: Span,
  nextKey: () => string,
): { timelines: PullRequestTimeline[]; pullRequests: PlannedPullRequest[] } {
  const timelines: PullRequestTimeline[] = [];
  const branches = new Set<string>();
  const add = (branch: string, title: string, from: number, to: number, open: boolean) => {
    const created = Math.round(r.between(from, to));
    const runTimes: number[] = [];
    let time = created + r.between(10 * MINUTE, 6 * HOUR);
    for (let i = r.int(...params.runsPerPullRequest); i > 0 && time < span.end; i--) {
      runTimes.push(Math.round(time));
      time += r.between(HOUR, 2 * DAY);
    }
    if (runTimes.length === 0) runTimes.push(Math.round(r.between(created, span.end)));
    const last = runTimes.at(-1)!;
    const old = span.end - last > 14 * DAY;
    const state = open
      ? "OPEN"
      : old
        ? r.chance(0.75)
          ? "MERGED"
          : "CLOSED"
        : r.chance(0.7)
          ? "OPEN"
          : "MERGED";
    const pr: PlannedPullRequest | null =
      open || r.chance(0.92)
        ? {
            key: nextKey(),
            number: 0,
            title,
            branch,
            baseBranch: spec.defaultBranch,
            state,
            vcsUrl: "",
            mergeBaseOid: "",
            createdAt: new Date(created),
            updatedAt: new Date(
              state === "OPEN" ? last : Math.min(span.end, last + r.between(HOUR, 2 * DAY)),
            ),
          }
        : null;
    timelines.push({ pr, branch, created, runTimes, introduced: new Map(), resolved: new Set() });
  };
  for (const branch of spec.openBranches) {
    branches.add(branch);
    add(
      branch,
      titleOfBranch(branch),
      Math.max(span.start + HOUR, span.end - 9 * DAY),
      span.end - 2 * HOUR,
      true,
    );
  }
  for (let i = r.int(...params.pullRequests); i > 0; i--) {
    const picked = branchAndTitle(r);
    let branch = picked.branch;
    for (let n = 2; branches.has(branch); n++) branch = `${picked.branch}-${n}`;
    branches.add(branch);
    add(branch, picked.title, span.start + HOUR, span.end - HOUR, false);
  }
  const pullRequests: PlannedPullRequest[] = [];
  let number = 0;
  for (const timeline of [...timelines].sort((a, b) => a.created - b.created)) {
    number += r.int(1, 3);
    if (!timeline.pr) continue;
    timeline.pr.number = number;
    timeline.pr.vcsUrl = pullRequestUrl(spec, number);
    pullRequests.push(timeline.pr);
  }
  return { timelines, pullRequests };
}
