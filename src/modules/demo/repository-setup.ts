import { FORMATTERS } from "../catalog/catalog-data.ts";
import { type FindingFactory, TEST_GLOBS } from "./findings.ts";
import type { PlannedIgnoreRule, PlannedSettings, RepositorySpec } from "./plan-types.ts";
import type { Random } from "./random.ts";

/** What a repository has before its first run: settings, ignore rules, configuration, addresses. */

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The repository's history, in epoch milliseconds: its first run and its last possible one. */
export interface Span {
  start: number;
  end: number;
}

/** Issue category and priority settings: most repositories keep the defaults (no rows). */
export function planSettings(r: Random): PlannedSettings {
  const categories: PlannedSettings["categories"] = [];
  if (r.chance(0.4)) categories.push({ category: "STYLE", isReported: true, canFailCheck: false });
  if (r.chance(0.25)) categories.push({ category: "DOCUMENTATION", isReported: false, canFailCheck: false });
  if (r.chance(0.15)) categories.push({ category: "PERFORMANCE", isReported: true, canFailCheck: false });
  const priorities: PlannedSettings["priorities"] = [];
  if (r.chance(0.3)) priorities.push({ priority: "LOW", isReported: true, canFailCheck: false });
  if (r.chance(0.1)) priorities.push({ priority: "HIGH", isReported: true, canFailCheck: true });
  return { metrics: [], categories, priorities };
}

/**
 * Up to three ignore rules on the primary analyzer's likeliest issues, created early in the
 * history by a member: repository-wide, for test files, for a directory, or for one file.
 */
export function planIgnoreRules(
  r: Random,
  spec: RepositorySpec,
  factory: FindingFactory | undefined,
  span: Span,
  nextKey: () => string,
): PlannedIgnoreRule[] {
  if (!factory) return [];
  const rules: PlannedIgnoreRule[] = [];
  const testGlob = TEST_GLOBS[spec.profile.primary];
  for (let i = r.int(spec.openBranches.length > 0 ? 1 : 0, 3); i > 0; i--) {
    const issue = r.pick(factory.likelyIssues().slice(0, 6));
    const file = r.pick(factory.sourceFiles);
    const roll = r.next();
    const rule = {
      key: nextKey(),
      issue: `${factory.analyzer}:${issue.shortcode}`,
      createdByKey: spec.memberKeys.length > 0 ? r.pick(spec.memberKeys) : null,
      createdAt: new Date(span.start + r.between(0.1, 0.7) * (span.end - span.start)),
    };
    if (roll < 0.35) {
      rules.push({ ...rule, level: "REPOSITORY", type: "FOREVER", filePath: null, globPattern: null });
    } else if (roll < 0.6 && testGlob) {
      rules.push({
        ...rule,
        level: "REPOSITORY",
        type: "TEST_PATTERN",
        filePath: null,
        globPattern: testGlob,
      });
    } else if (roll < 0.75) {
      const glob = `${file.path.split("/")[0]}/**`;
      rules.push({ ...rule, level: "REPOSITORY", type: "PATTERN", filePath: null, globPattern: glob });
    } else {
      rules.push({ ...rule, level: "FILE", type: "FOREVER", filePath: file.path, globPattern: null });
    }
  }
  return rules;
}

/** The repository's `.deepsource.toml`, as the JSON the repositories table keeps. */
export function configJson(spec: RepositorySpec): string {
  const formatter = FORMATTERS.find((f) => f.analyzer === spec.profile.primary);
  const testGlob = TEST_GLOBS[spec.profile.primary];
  return JSON.stringify({
    version: 1,
    ...(testGlob && { test_patterns: [testGlob] }),
    exclude_patterns: ["vendor/**", "**/node_modules/**"],
    analyzers: spec.analyzers.filter((a) => a !== "test-coverage").map((name) => ({ name, enabled: true })),
    ...(formatter && { transformers: [{ name: formatter.shortcode, enabled: true }] }),
  });
}

const HOSTS = {
  GITHUB: "https://github.com",
  GITLAB: "https://gitlab.com",
  BITBUCKET: "https://bitbucket.org",
};

/** The repository's address on its provider. */
export function repositoryUrl(spec: Pick<RepositorySpec, "provider" | "accountLogin" | "name">): string {
  const host = HOSTS[spec.provider as keyof typeof HOSTS] ?? "https://github.com";
  return `${host}/${spec.accountLogin}/${spec.name}`;
}

/** A pull request's (or merge request's) address on its provider. */
export function pullRequestUrl(spec: RepositorySpec, number: number): string {
  const base = repositoryUrl(spec);
  if (spec.provider === "GITLAB") return `${base}/-/merge_requests/${number}`;
  if (spec.provider === "BITBUCKET") return `${base}/pull-requests/${number}`;
  return `${base}/pull/${number}`;
}
