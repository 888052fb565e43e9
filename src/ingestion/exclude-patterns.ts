import { compileGlob } from "../modules/settings/glob.ts";

/**
 * A configuration's `exclude_patterns` (docs/ingestion.md "The repository's configuration"):
 * DeepSource reports no finding in a file they match. They are globs relative to the repository
 * root, read by the ignore rules' matcher (src/modules/settings/glob.ts: `*` and `?` inside one
 * segment, `**` as a whole segment for any number of segments), with the one form DeepSource
 * documents that the matcher does not take: a trailing `/` names a directory, so `**` + `/node_modules/`
 * is everything under any `node_modules` (read as `**` + `/node_modules/**`).
 */

/** Why a pattern excludes nothing: the pattern as written and the matcher's complaint. */
export interface RefusedPattern {
  pattern: string;
  problem: string;
}

/** A configuration's `exclude_patterns`, compiled once for one artifact. */
export class ExcludePatterns {
  private constructor(
    private readonly compiled: ReadonlyArray<{ pattern: string; regExp: RegExp }>,
    /** Patterns the matcher cannot read: they exclude nothing, and a warning names the first. */
    readonly refused: readonly RefusedPattern[],
  ) {}

  /** The patterns of `config` (a configuration as JSON; anything else has none). */
  static of(config: unknown): ExcludePatterns {
    const compiled: Array<{ pattern: string; regExp: RegExp }> = [];
    const refused: RefusedPattern[] = [];
    for (const pattern of excludePatternsOf(config)) {
      const glob = compileGlob(pattern.endsWith("/") ? `${pattern}**` : pattern);
      if (glob.ok) compiled.push({ pattern, regExp: glob.regExp });
      else refused.push({ pattern, problem: glob.problem });
    }
    return new ExcludePatterns(compiled, refused);
  }

  /** True when no pattern can match, so no path needs testing. */
  get isEmpty(): boolean {
    return this.compiled.length === 0;
  }

  /** The first pattern (as written) matching the repository-relative `path`, or null. */
  excluding(path: string): string | null {
    return this.compiled.find((p) => p.regExp.test(path))?.pattern ?? null;
  }
}

/** The strings of a configuration's `exclude_patterns` (the reader refused any other shape). */
function excludePatternsOf(config: unknown): string[] {
  if (typeof config !== "object" || config === null || Array.isArray(config)) return [];
  const patterns = (config as Record<string, unknown>).exclude_patterns;
  return Array.isArray(patterns) ? patterns.filter((p): p is string => typeof p === "string") : [];
}

/**
 * The configuration whose `exclude_patterns` apply to a run's findings: the run's own (the
 * `.deepsource.toml` of its commit), else the repository's.
 */
export function excludingConfigOf(
  run: { config_json: unknown },
  repository: { config_json: unknown },
): { config: unknown; whose: "run" | "repository" } {
  return run.config_json !== null && run.config_json !== undefined
    ? { config: run.config_json, whose: "run" }
    : { config: repository.config_json, whose: "repository" };
}
