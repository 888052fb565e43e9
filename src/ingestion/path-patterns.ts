import { compileGlob } from "../modules/settings/glob.ts";

/**
 * A configuration's path patterns (docs/ingestion.md "The repository's configuration"):
 * `exclude_patterns`, the files DeepSource reports no finding in, and `test_patterns`, the files
 * that are tests (TEST_PATTERN ignore rules without a glob of their own ignore their issue there).
 * Both are globs relative to the repository root, read by the ignore rules' matcher
 * (src/modules/settings/glob.ts: `*` and `?` inside one segment, `**` as a whole segment for any
 * number of segments), with the one form DeepSource documents that the matcher does not take: a
 * trailing `/` names a directory, so `**` + `/node_modules/` is everything under any
 * `node_modules` (read as `**` + `/node_modules/**`).
 */

/** The configuration keys that hold path patterns. */
export type PatternKey = "exclude_patterns" | "test_patterns";

/** Why a pattern matches nothing: the pattern as written and the matcher's complaint. */
export interface RefusedPattern {
  pattern: string;
  problem: string;
}

/** One key's patterns of a configuration, compiled once for one artifact. */
export class PathPatterns {
  private constructor(
    private readonly compiled: ReadonlyArray<{ pattern: string; regExp: RegExp }>,
    /** Patterns the matcher cannot read: they match nothing, and a warning names the first. */
    readonly refused: readonly RefusedPattern[],
  ) {}

  /** The patterns under `key` of `config` (a configuration as JSON; anything else has none). */
  static of(config: unknown, key: PatternKey): PathPatterns {
    const compiled: Array<{ pattern: string; regExp: RegExp }> = [];
    const refused: RefusedPattern[] = [];
    for (const pattern of patternsOf(config, key)) {
      const glob = compileGlob(pattern.endsWith("/") ? `${pattern}**` : pattern);
      if (glob.ok) compiled.push({ pattern, regExp: glob.regExp });
      else refused.push({ pattern, problem: glob.problem });
    }
    return new PathPatterns(compiled, refused);
  }

  /** True when no pattern can match, so no path needs testing. */
  get isEmpty(): boolean {
    return this.compiled.length === 0;
  }

  /** The first pattern (as written) matching the repository-relative `path`, or null. */
  matching(path: string): string | null {
    return this.compiled.find((p) => p.regExp.test(path))?.pattern ?? null;
  }
}

/** The strings under `key` of a configuration (the reader refused any other shape). */
function patternsOf(config: unknown, key: PatternKey): string[] {
  if (typeof config !== "object" || config === null || Array.isArray(config)) return [];
  const patterns = (config as Record<string, unknown>)[key];
  return Array.isArray(patterns) ? patterns.filter((p): p is string => typeof p === "string") : [];
}

/**
 * The configuration that applies to a run's findings: the run's own (the `.deepsource.toml` of
 * its commit), else the repository's.
 */
export function applyingConfigOf(
  run: { config_json: unknown },
  repository: { config_json: unknown },
): { config: unknown; whose: "run" | "repository" } {
  return run.config_json !== null && run.config_json !== undefined
    ? { config: run.config_json, whose: "run" }
    : { config: repository.config_json, whose: "repository" };
}
