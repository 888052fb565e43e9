import type { CheckStatus, MetricKey, MetricShortcode } from "../../db/types.ts";
import { coveragePercent } from "../metrics/metric-format.ts";
import { type CoverageSourceFile, coverageSourceFiles, planCoverageFiles } from "./coverage-files.ts";
import type {
  CoverageCounts,
  PlannedCoverageReport,
  PlannedMetricItem,
  PlannedMetricValue,
  PlannedSettings,
} from "./plan-types.ts";
import type { Random } from "./random.ts";
import type { SourceFile } from "./vocabulary.ts";

/**
 * Coverage reports and metric histories of one repository. Coverage drifts along a per-language
 * trend with noise; line, branch and condition percentages are computed from the report's counts,
 * so a metric value always agrees with its check's coverage report, and each report's counts are
 * split over the language's files (coverage-files.ts). Every coverage check records its metric
 * values, as a real upload does; those of pull-request runs are marked off the default branch, so
 * the repository's history leaves them out. A check fails when one of its values misses an
 * enforced threshold, as the real gate decides.
 */

/** The metric key of each language analyzer. */
export const LANGUAGE_KEY: Record<string, MetricKey> = {
  python: "PYTHON",
  javascript: "JAVASCRIPT",
  go: "GO",
  java: "JAVA",
  ruby: "RUBY",
  rust: "RUST",
  php: "PHP",
  csharp: "CSHARP",
  cxx: "C_AND_CPP",
  scala: "SCALA",
  kotlin: "KOTLIN",
  swift: "SWIFT",
};

const ANALYZER_OF_KEY = new Map(Object.entries(LANGUAGE_KEY).map(([analyzer, key]) => [key, analyzer]));

/** Languages whose coverage tools report condition coverage. */
const HAS_CONDITIONS = new Set<MetricKey>(["JAVA", "CSHARP", "C_AND_CPP"]);

interface LanguageCoverage {
  key: MetricKey;
  lines: number;
  growth: number;
  ratio: number;
  trend: number;
  branchShare: number;
  branchGap: number;
}

interface Threshold {
  early: number;
  late: number;
  changeAt: number;
  enforced: boolean;
}

type Counts = CoverageCounts;

/** Where a repository's coverage files come from (see {@link coverageSourceFiles}). */
export interface CoverageFileSources {
  /** A stream of its own, so the files change no other draw. */
  rand: Random;
  project: string;
  /** The files an analyzer's findings name. */
  named: (analyzer: string) => readonly SourceFile[];
}

const round2 = (value: number) => Math.round(value * 100) / 100;
const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));
// Rounded as the real coverage processing rounds (a half up, on the counts).
const percent = (covered: number, total: number) => coveragePercent(covered, total) ?? 0;

export class CoveragePlanner {
  readonly items: PlannedMetricItem[] = [];
  readonly values: PlannedMetricValue[] = [];
  readonly reports: PlannedCoverageReport[] = [];
  private readonly itemKeys = new Map<string, string>();
  private readonly languages: LanguageCoverage[];
  private readonly thresholds = new Map<string, Threshold>();
  private readonly docs: { key: MetricKey; value: number; trend: number } | null;
  private readonly files = new Map<MetricKey, CoverageSourceFile[]>();
  private readonly fileRand: Random;

  constructor(
    private readonly rand: Random,
    private readonly keys: { item: () => string; value: () => string },
    coverage: MetricKey[],
    primary: string,
    span: { start: number; end: number },
    sources: CoverageFileSources,
  ) {
    const r = rand;
    this.languages = coverage.map((key) => ({
      key,
      lines: r.int(1_500, 40_000),
      growth: r.between(0, 0.4),
      ratio: r.between(0.45, 0.88),
      trend: r.between(-0.08, 0.12),
      branchShare: r.between(0.18, 0.35),
      branchGap: r.between(0.03, 0.15),
    }));
    this.fileRand = sources.rand;
    for (const language of this.languages) {
      const analyzer = ANALYZER_OF_KEY.get(language.key)!;
      const lines = language.lines * (1 + language.growth);
      this.files.set(
        language.key,
        coverageSourceFiles(sources.rand, analyzer, sources.project, sources.named(analyzer), lines),
      );
    }
    const docKey = LANGUAGE_KEY[primary];
    this.docs = docKey ? { key: docKey, value: r.between(20, 80), trend: r.between(-5, 15) } : null;
    // Two draws that once planned the dependency count, kept so the rest of the stream stays put.
    r.between(12, 160);
    r.between(-10, 40);
    const threshold = (id: string, chance: number, options: number[]) => {
      if (!r.chance(chance)) return;
      const late = r.pick(options);
      this.thresholds.set(id, {
        late,
        early: r.chance(0.3) ? late - 5 : late,
        changeAt: r.between(span.start, span.end),
        enforced: r.chance(0.6),
      });
    };
    if (this.languages.length > 0) {
      threshold("LCV:AGGREGATE", 0.6, [60, 70, 75, 80]);
      threshold("BCV:AGGREGATE", 0.3, [50, 60, 65]);
      threshold("NLCV:AGGREGATE", 0.2, [70, 80]);
    }
    threshold("DDP:AGGREGATE", 0.3, [80, 120, 200]);
    if (this.docs) threshold(`DCV:${this.docs.key}`, 0.2, [40, 50, 60]);
    const ddp = this.thresholds.get("DDP:AGGREGATE");
    // The DDP item carries its threshold before the first SBOM's value lands on it.
    if (ddp) {
      const key = this.keys.item();
      this.itemKeys.set("DDP:AGGREGATE", key);
      this.items.push({ key, metric: "DDP", metricKey: "AGGREGATE", threshold: ddp.late });
    }
  }

  /** The metric settings rows: one per metric with a threshold, and some unreported metrics. */
  settings(): PlannedSettings["metrics"] {
    const rows: PlannedSettings["metrics"] = [];
    for (const [id, threshold] of this.thresholds) {
      const metric = id.split(":")[0] as MetricShortcode;
      if (!rows.some((row) => row.metric === metric)) {
        rows.push({ metric, isReported: true, isThresholdEnforced: threshold.enforced });
      }
    }
    if (!this.thresholds.has("DDP:AGGREGATE") && this.rand.chance(0.15)) {
      rows.push({ metric: "DDP", isReported: false, isThresholdEnforced: false });
    }
    return rows;
  }

  private thresholdAt(id: string, time: number): number | null {
    const t = this.thresholds.get(id);
    if (!t) return null;
    return time < t.changeAt ? t.early : t.late;
  }

  /**
   * Records `value` of the check at `at`. Answers whether it misses the threshold in force then, of
   * a metric the repository enforces: the gate that fails a coverage check
   * (src/ingestion/coverage/metrics.ts; every metric recorded here is UPWARD).
   */
  private record(
    metric: MetricShortcode,
    key: MetricKey,
    value: number,
    at: Moment,
    onDefaultBranch = true,
  ): boolean {
    const id = `${metric}:${key}`;
    let itemKey = this.itemKeys.get(id);
    if (!itemKey) {
      itemKey = this.keys.item();
      this.itemKeys.set(id, itemKey);
      this.items.push({
        key: itemKey,
        metric,
        metricKey: key,
        threshold: this.thresholds.get(id)?.late ?? null,
      });
    }
    const threshold = this.thresholdAt(id, at.time.getTime());
    this.values.push({
      key: this.keys.value(),
      itemKey,
      checkKey: at.checkKey,
      commitOid: at.commitOid,
      value,
      threshold,
      onDefaultBranch,
      createdAt: at.time,
    });
    return threshold !== null && this.thresholds.get(id)!.enforced && value < threshold;
  }

  /** Counts of one language at `progress` (0 = first run, 1 = now) for a change of `changed` lines. */
  private counts(language: LanguageCoverage, progress: number, changed: number) {
    const r = this.rand;
    const lines = Math.round(language.lines * (1 + language.growth * progress));
    const ratio = clamp(language.ratio + language.trend * progress + r.normal() * 0.01, 0.05, 0.98);
    const branches = Math.round(lines * language.branchShare);
    const branchRatio = clamp(ratio - language.branchGap + r.normal() * 0.01, 0.02, 0.97);
    const newRatio = clamp(ratio + r.normal() * 0.12, 0, 1);
    const newBranches = Math.round(changed * language.branchShare);
    const result: { lines: Counts; branches: Counts; conditions: Counts | null } = {
      lines: [lines, Math.round(lines * ratio), changed, Math.round(changed * newRatio)],
      branches: [
        branches,
        Math.round(branches * branchRatio),
        newBranches,
        Math.round(newBranches * newRatio * 0.9),
      ],
      conditions: null,
    };
    // Every format that reports conditions counts each line's condition outcomes as its branch
    // outcomes (docs/ingestion-coverage.md "What is stored").
    if (HAS_CONDITIONS.has(language.key)) result.conditions = [...result.branches];
    return result;
  }

  /**
   * Coverage of one run: a report and metric values for `checkKey`. Returns the coverage check's
   * status (ARTIFACT_TIMEOUT when the report "never arrived").
   */
  coverageRun(at: Moment, progress: number, onDefaultBranch: boolean): CheckStatus {
    if (this.languages.length === 0 || this.rand.chance(0.05)) return "ARTIFACT_TIMEOUT";
    const changed = this.rand.int(8, onDefaultBranch ? 400 : 250);
    const perLanguage = this.languages.map((language) => ({
      key: language.key,
      ...this.counts(language, progress, Math.round(changed / this.languages.length)),
    }));
    const sum = (pick: (c: (typeof perLanguage)[number]) => Counts | null): Counts | null => {
      const present = perLanguage.map(pick).filter((c): c is Counts => c !== null);
      if (present.length === 0) return null;
      return present.reduce((a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]]);
    };
    const total = {
      key: "AGGREGATE" as MetricKey,
      lines: sum((c) => c.lines)!,
      branches: sum((c) => c.branches)!,
      conditions: sum((c) => c.conditions),
    };
    this.reports.push({
      checkKey: at.checkKey!,
      lines: total.lines,
      branches: total.branches,
      conditions: total.conditions,
      files: perLanguage.flatMap((c) => planCoverageFiles(this.fileRand, this.files.get(c.key)!, c)),
    });
    const misses = [total, ...perLanguage].flatMap((c) => this.recordCoverage(c, at, onDefaultBranch));
    return misses.some(Boolean) ? "FAILURE" : "SUCCESS";
  }

  /**
   * The metric values of one coverage check, for one key (a language or AGGREGATE), as the real
   * processing records them: CPCV and NCPCV count lines and branch outcomes, leaving out
   * conditions, which are the branch outcomes again. Answers, for each value, whether it misses an
   * enforced threshold.
   */
  private recordCoverage(
    c: { key: MetricKey; lines: Counts; branches: Counts; conditions: Counts | null },
    at: Moment,
    onDefaultBranch: boolean,
  ): boolean[] {
    const record = (metric: MetricShortcode, value: number) =>
      this.record(metric, c.key, value, at, onDefaultBranch);
    const recorded = [
      record("LCV", percent(c.lines[1], c.lines[0])),
      record("BCV", percent(c.branches[1], c.branches[0])),
    ];
    if (c.conditions) recorded.push(record("CCV", percent(c.conditions[1], c.conditions[0])));
    recorded.push(record("CPCV", percent(c.lines[1] + c.branches[1], c.lines[0] + c.branches[0])));
    if (c.lines[2] > 0) {
      recorded.push(
        record("NLCV", percent(c.lines[3], c.lines[2])),
        record("NCPCV", percent(c.lines[3] + c.branches[3], c.lines[2] + c.branches[2])),
      );
    }
    if (c.branches[2] > 0) recorded.push(record("NBCV", percent(c.branches[3], c.branches[2])));
    if (c.conditions && c.conditions[2] > 0) {
      recorded.push(record("NCCV", percent(c.conditions[3], c.conditions[2])));
    }
    return recorded;
  }

  /**
   * Documentation coverage of a default-branch run, from its primary analyzer's check. (The
   * dependency count, DDP, is written by the SBOM processing of the run's `sca` check.)
   */
  codeMetrics(at: Moment, progress: number): void {
    const r = this.rand;
    if (this.docs) {
      this.record(
        "DCV",
        this.docs.key,
        round2(clamp(this.docs.value + this.docs.trend * progress + r.normal(), 0, 100)),
        at,
      );
    }
    r.normal();
  }
}

/** Where a metric value or report belongs: a check of a run at a time. */
export interface Moment {
  checkKey: string | null;
  commitOid: string;
  time: Date;
}
