import type { AnalysisRunStatus, CheckStatus, FindingState, IssueCategory } from "../../db/types.ts";
import { CoveragePlanner } from "./coverage-plan.ts";
import { DependencyPlanner, type Pins } from "./dependency-plan.ts";
import { type Finding, FindingFactory, ruleSilences } from "./findings.ts";
import type {
  HistoryParameters,
  PlannedCheck,
  PlannedIgnoreRule,
  PlannedOccurrence,
  PlannedPullRequest,
  PlannedRun,
  PlannedSettings,
  RepositoryPlan,
  RepositorySpec,
} from "./plan-types.ts";
import { type PullRequestTimeline, planPullRequests, type Snapshot } from "./pull-request-plan.ts";
import { type KeySpace, Random, sha1Hex } from "./random.ts";
import {
  configJson,
  DAY,
  HOUR,
  MINUTE,
  planIgnoreRules,
  planSettings,
  repositoryUrl,
} from "./repository-setup.ts";
import { sourceFiles } from "./vocabulary.ts";

/**
 * The history of one repository: runs on the default branch over months, pull requests with their
 * runs, a check per analyzer per run, and the occurrences of each check with their state against
 * the run's base. See docs/read-model.md ("Generated data") for the rules this follows.
 */

type HistoryEvent =
  | { time: number; main: AnalysisRunStatus | "ANALYZED" }
  | { time: number; pr: PullRequestTimeline };

/** Plans everything generated for `spec`. Pure: the same inputs give the same plan. */
export function planRepository(
  spec: RepositorySpec,
  params: HistoryParameters,
  seed: number,
  now: Date,
  keys: KeySpace,
): RepositoryPlan {
  return new RepositoryHistory(spec, params, seed, now, keys).build();
}

class RepositoryHistory {
  private readonly rand: Random;
  private readonly key: (table: string) => () => string;
  private readonly next: Record<string, () => string>;
  private readonly start: number;
  private readonly end: number;
  private readonly factories = new Map<string, FindingFactory>();
  private readonly targetSize = new Map<string, number>();
  private readonly resolveRate: number;
  private readonly trend: number;
  private readonly settings: PlannedSettings;
  private readonly ignoreRules: PlannedIgnoreRule[];
  private readonly coverage: CoveragePlanner;
  private readonly dependencies: DependencyPlanner;
  private readonly plan: RepositoryPlan;
  private commits = 0;
  private lastAnalyzed: Snapshot | undefined;
  private readonly analyzed: Array<{ time: number; snapshot: Snapshot }> = [];

  constructor(
    private readonly spec: RepositorySpec,
    private readonly params: HistoryParameters,
    private readonly seed: number,
    private readonly now: Date,
    keys: KeySpace,
  ) {
    const namespace = spec.index + 1;
    this.rand = Random.derive(seed, "repository", spec.index);
    this.key = (table) => keys.counter(table, namespace);
    this.next = Object.fromEntries(
      [
        "pull_requests",
        "analysis_runs",
        "checks",
        "occurrences",
        "repository_metric_items",
        "metric_values",
        "ignore_rules",
      ].map((table) => [table, this.key(table)]),
    );
    const r = this.rand;
    this.end = now.getTime() - 20 * MINUTE;
    this.start = this.end - Math.round(params.historyDays * DAY * r.between(0.55, 1));
    this.resolveRate = r.between(0.04, 0.12);
    this.trend = r.between(0.6, 1.4);
    this.createFactories();
    this.settings = planSettings(r);
    this.ignoreRules = planIgnoreRules(
      r,
      spec,
      this.factories.get(spec.profile.primary),
      { start: this.start, end: this.end },
      this.next.ignore_rules!,
    );
    const createdAt = new Date(this.start - r.int(1, 30) * DAY);
    this.coverage = new CoveragePlanner(
      Random.derive(seed, "coverage", spec.index),
      { item: this.next.repository_metric_items!, value: this.next.metric_values! },
      spec.analyzers.includes("test-coverage") ? spec.profile.coverage : [],
      spec.profile.primary,
      { start: this.start, end: this.end },
      {
        rand: Random.derive(seed, "coverage-files", spec.index),
        project: spec.name,
        named: (analyzer) => this.factories.get(analyzer)?.sourceFiles ?? [],
      },
    );
    this.dependencies = new DependencyPlanner(Random.derive(seed, "dependencies", spec.index), spec);
    this.settings.metrics = this.coverage.settings();
    this.plan = {
      repository: {
        key: this.key("repositories")(),
        accountKey: spec.accountKey,
        provider: spec.provider,
        fullName: `${spec.accountLogin}/${spec.name}`,
        name: spec.name,
        vcsUrl: repositoryUrl(spec),
        isPrivate: spec.isPrivate,
        defaultBranch: spec.defaultBranch,
        latestCommitOid: null,
        configJson: configJson(spec),
        createdAt,
        updatedAt: createdAt,
      },
      pullRequests: [],
      runs: [],
      checks: [],
      occurrences: [],
      metricItems: this.coverage.items,
      metricValues: this.coverage.values,
      coverageReports: this.coverage.reports,
      settings: this.settings,
      ignoreRules: this.ignoreRules,
      sboms: this.dependencies.sboms,
    };
  }

  /** One finding factory per analyzer that reports issues, with its files and typical load. */
  private createFactories(): void {
    const { spec, rand: r } = this;
    const scale = this.params.findingsScale;
    for (const analyzer of spec.analyzers) {
      if (analyzer === "test-coverage") continue;
      const primary = analyzer === spec.profile.primary;
      const [files, size] =
        analyzer === "docker"
          ? [r.int(1, 3), r.int(1, 5)]
          : analyzer === "shell"
            ? [r.int(2, 8), r.int(2, 9)]
            : analyzer === "sql"
              ? [r.int(3, 15), r.int(2, 8)]
              : analyzer === "secrets"
                ? [r.int(2, 6), r.int(0, 3)]
                : primary
                  ? [r.int(25, 120), Math.round(r.int(18, 80) * scale)]
                  : [r.int(8, 40), Math.round(r.int(5, 25) * scale)];
      const factory = new FindingFactory(
        Random.derive(this.seed, "findings", spec.index, analyzer),
        `${this.seed}:${spec.index}`,
        analyzer,
        sourceFiles(Random.derive(this.seed, "files", spec.index, analyzer), analyzer, spec.name, files),
      );
      if (!factory.usable) continue;
      this.factories.set(analyzer, factory);
      this.targetSize.set(analyzer, Math.max(analyzer === "secrets" ? 0 : 1, size));
    }
  }

  private canFail(category: IssueCategory): boolean {
    return this.settings.categories.find((c) => c.category === category)?.canFailCheck ?? true;
  }

  build(): RepositoryPlan {
    const mainEvents = this.mainEvents();
    const { timelines, pullRequests } = planPullRequests(
      this.rand,
      this.spec,
      this.params,
      { start: this.start, end: this.end },
      this.next.pull_requests!,
    );
    this.plan.pullRequests = pullRequests;
    const events: HistoryEvent[] = [
      ...mainEvents,
      ...timelines.flatMap((pr) => pr.runTimes.map((time) => ({ time, pr }))),
    ];
    events.sort((a, b) => a.time - b.time || ("main" in a ? -1 : 1));
    for (const event of events) {
      if ("main" in event) this.mainRun(event.time, event.main);
      else this.pullRequestRun(event.time, event.pr);
    }
    const repository = this.plan.repository;
    const mainRuns = this.plan.runs.filter(
      (run) => run.pullRequestKey === null && run.branch === this.spec.defaultBranch,
    );
    repository.latestCommitOid = mainRuns.at(-1)?.commitOid ?? null;
    repository.updatedAt = this.plan.runs.at(-1)?.createdAt ?? repository.createdAt;
    return this.plan;
  }

  private mainEvents(): HistoryEvent[] {
    const r = this.rand;
    const count = Math.max(2, r.int(...this.params.mainRuns));
    const times = [this.start];
    for (let i = 1; i < count; i++) times.push(Math.round(r.between(this.start + HOUR, this.end)));
    times.sort((a, b) => a - b);
    const pending = r.chance(0.2);
    if (pending) times[count - 1] = this.now.getTime() - r.int(2, 15) * MINUTE;
    return times.map((time, i) => {
      if (i === 0) return { time, main: "ANALYZED" };
      if (i === count - 1) return { time, main: pending ? "PENDING" : "ANALYZED" };
      const roll = r.next();
      return { time, main: roll < 0.03 ? "TIMEOUT" : roll < 0.045 ? "CANCEL" : "ANALYZED" };
    });
  }

  private newRun(
    time: number,
    branch: string,
    base: Snapshot | undefined,
    pr: PlannedPullRequest | null,
  ): PlannedRun {
    const run: PlannedRun = {
      key: this.next.analysis_runs!(),
      runUid: this.rand.uuid(),
      branch,
      baseRunKey: base?.run.key ?? null,
      baseOid: base?.run.commitOid ?? null,
      commitOid: sha1Hex(this.seed, this.spec.index, "commit", this.commits++),
      status: "PENDING",
      createdAt: new Date(time),
      updatedAt: new Date(time),
      finishedAt: null,
      pullRequestKey: pr?.key ?? null,
    };
    this.plan.runs.push(run);
    return run;
  }

  /** A check per analyzer, and the `sca` check its SBOM uploads open when there are targets. */
  private newChecks(run: PlannedRun): Map<string, PlannedCheck> {
    const checks = new Map<string, PlannedCheck>();
    const analyzers =
      this.dependencies.targets.length > 0 ? [...this.spec.analyzers, "sca"] : this.spec.analyzers;
    analyzers.forEach((analyzer, i) => {
      const created = new Date(run.createdAt.getTime() + (i + 1) * 3000);
      const check: PlannedCheck = {
        key: this.next.checks!(),
        runKey: run.key,
        analyzer,
        sequence: i + 1,
        status: "WAITING",
        createdAt: created,
        updatedAt: created,
        finishedAt: null,
      };
      checks.set(analyzer, check);
      this.plan.checks.push(check);
    });
    return checks;
  }

  /** A run that did not finish its analysis: its checks share its fate and report nothing. */
  private unfinishedRun(time: number, status: AnalysisRunStatus): void {
    const run = this.newRun(time, this.spec.defaultBranch, this.lastAnalyzed, null);
    run.status = status;
    const checks = [...this.newChecks(run).values()];
    if (status === "PENDING") {
      checks.forEach((check, i) => {
        check.status = i === 0 ? "PENDING" : "WAITING";
      });
      return;
    }
    const finished = new Date(time + (status === "TIMEOUT" ? 30 * MINUTE : this.rand.int(1, 5) * MINUTE));
    for (const check of checks) {
      check.status = status === "TIMEOUT" ? "TIMEOUT" : "CANCEL";
      check.finishedAt = finished;
      check.updatedAt = finished;
    }
    run.finishedAt = finished;
    run.updatedAt = finished;
  }

  private mainRun(time: number, kind: AnalysisRunStatus | "ANALYZED"): void {
    if (kind !== "ANALYZED") {
      this.unfinishedRun(time, kind);
      return;
    }
    const base = this.lastAnalyzed;
    const run = this.newRun(time, this.spec.defaultBranch, base, null);
    const checks = this.newChecks(run);
    const live = new Map<string, Finding[]>();
    for (const [analyzer, factory] of this.factories) {
      const check = checks.get(analyzer)!;
      const before = base?.live.get(analyzer) ?? [];
      const kept: Finding[] = [];
      for (const finding of before) {
        if (this.rand.chance(this.resolveRate)) this.emit(check, finding, "RESOLVED");
        else kept.push(this.rand.chance(0.08) ? factory.moved(finding) : finding);
      }
      const target = this.targetSize.get(analyzer)!;
      const count = base ? this.rand.poisson(target * this.resolveRate * this.trend) : target;
      const introduced = Array.from({ length: count }, () => factory.make());
      for (const finding of kept) this.emit(check, finding, "EXISTING");
      for (const finding of introduced) this.emit(check, finding, "INTRODUCED");
      live.set(analyzer, [...kept, ...introduced]);
    }
    const progress = (time - this.start) / (this.end - this.start || 1);
    const primary = checks.get(this.spec.profile.primary);
    if (primary)
      this.coverage.codeMetrics(
        { checkKey: primary.key, commitOid: run.commitOid, time: new Date(time) },
        progress,
      );
    const coverageStatus = this.coverageCheck(checks, run, progress, true);
    const pins = base ? this.dependencies.upgrade() : this.dependencies.pins;
    this.sbomUploads(run, checks, pins);
    this.finish(run, checks, coverageStatus);
    this.lastAnalyzed = { run, live, pins };
    this.analyzed.push({ time, snapshot: this.lastAnalyzed });
  }

  private pullRequestRun(time: number, timeline: PullRequestTimeline): void {
    if (!timeline.base) {
      const before = this.analyzed.filter((a) => a.time < timeline.created).at(-1) ?? this.analyzed[0]!;
      timeline.base = before.snapshot;
      timeline.bump = this.dependencies.pullRequestBump(before.snapshot.pins);
      if (timeline.pr) timeline.pr.mergeBaseOid = before.snapshot.run.commitOid;
    }
    // What the run is compared with is what the pull-request code will decide (docs/vcs-events.md):
    // the merge base's run where the provider reports the merge base (GitLab), else the base
    // branch's newest analysed run. A branch analysed without a pull request keeps its fork point.
    const base =
      timeline.pr && this.spec.provider !== "GITLAB" ? (this.lastAnalyzed ?? timeline.base) : timeline.base;
    const run = this.newRun(time, timeline.branch, base, timeline.pr);
    const checks = this.newChecks(run);
    for (const [analyzer, factory] of this.factories) {
      const check = checks.get(analyzer)!;
      const own = (timeline.introduced.get(analyzer) ?? []).filter(() => !this.rand.chance(0.25));
      const rate = analyzer === this.spec.profile.primary ? 1.2 : 0.2;
      for (let i = this.rand.poisson(rate); i > 0; i--) own.push(factory.make());
      timeline.introduced.set(analyzer, own);
      for (const finding of base.live.get(analyzer) ?? []) {
        if (!timeline.resolved.has(finding.fingerprint) && this.rand.chance(0.02)) {
          timeline.resolved.add(finding.fingerprint);
        }
        this.emit(check, finding, timeline.resolved.has(finding.fingerprint) ? "RESOLVED" : "EXISTING");
      }
      for (const finding of own) this.emit(check, finding, "INTRODUCED");
    }
    const progress = (time - this.start) / (this.end - this.start || 1);
    const coverageStatus = this.coverageCheck(checks, run, progress, false);
    this.sbomUploads(run, checks, DependencyPlanner.withBump(base.pins, timeline.bump ?? null));
    this.finish(run, checks, coverageStatus);
  }

  private sbomUploads(run: PlannedRun, checks: Map<string, PlannedCheck>, pins: Pins): void {
    const check = checks.get("sca");
    if (check) this.dependencies.analyze(run.key, check.key, run.createdAt, pins);
  }

  private coverageCheck(
    checks: Map<string, PlannedCheck>,
    run: PlannedRun,
    progress: number,
    onDefaultBranch: boolean,
  ): CheckStatus | undefined {
    const check = checks.get("test-coverage");
    if (!check) return undefined;
    return this.coverage.coverageRun(
      { checkKey: check.key, commitOid: run.commitOid, time: run.createdAt },
      progress,
      onDefaultBranch,
    );
  }

  private emit(check: PlannedCheck, finding: Finding, state: FindingState): void {
    const time = check.createdAt;
    const suppressed =
      finding.inlineSuppressed ||
      this.ignoreRules.some((rule) => ruleSilences(rule, finding, time)) ||
      this.spec.teamSuppressions.some((s) => s.issue === finding.ref && s.createdAt <= time);
    const occurrence: PlannedOccurrence = {
      key: this.next.occurrences!(),
      checkKey: check.key,
      issue: finding.ref,
      path: finding.path,
      beginLine: finding.beginLine,
      beginColumn: finding.beginColumn,
      endLine: finding.endLine,
      endColumn: finding.endColumn,
      title: finding.title,
      explanation: finding.explanation,
      source: finding.source,
      fingerprint: finding.fingerprint,
      state,
      isSuppressed: suppressed,
      createdAt: time,
    };
    this.plan.occurrences.push(occurrence);
    // A new, unsilenced critical finding fails its check, and so does a new major security one.
    const { severity, category } = finding.issue;
    const blocking =
      state === "INTRODUCED" &&
      !suppressed &&
      (severity === "CRITICAL" ||
        (severity === "MAJOR" && (category === "SECURITY" || category === "SECRETS"))) &&
      this.canFail(category);
    if (blocking) check.status = "FAILURE";
  }

  /** Settles the statuses and times of an analyzed run and its checks. */
  private finish(
    run: PlannedRun,
    checks: Map<string, PlannedCheck>,
    coverageStatus: CheckStatus | undefined,
  ): void {
    let last = run.createdAt.getTime();
    for (const [analyzer, check] of checks) {
      if (analyzer === "test-coverage") check.status = coverageStatus ?? "SUCCESS";
      else if (check.status !== "FAILURE") check.status = "SUCCESS";
      const finished = new Date(check.createdAt.getTime() + this.rand.int(20, 360) * 1000);
      check.finishedAt = finished;
      check.updatedAt = finished;
      last = Math.max(last, finished.getTime());
    }
    run.status = [...checks.values()].some((c) => c.status === "FAILURE") ? "FAILURE" : "SUCCESS";
    run.finishedAt = new Date(last + 10_000);
    run.updatedAt = run.finishedAt;
  }
}
