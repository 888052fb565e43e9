import type { IgnoreRuleRow } from "../../db/types.ts";
import { type AssayError, badUserInput } from "../../graphql/errors.ts";
import { compileGlob, relativePathProblem } from "./glob.ts";
import type { IssueWithAnalyzer } from "./suppression-store.ts";

/**
 * Validation of `createIgnoreRule`'s input, before anything is read or written. Each refusal is
 * BAD_USER_INPUT naming the input field to fix.
 *
 * The rule shapes accepted are the four the product offers: REPOSITORY + FOREVER (the issue is
 * ignored everywhere), REPOSITORY + PATTERN (in paths matching a glob), REPOSITORY + TEST_PATTERN
 * (in test files: those the configuration's `test_patterns` name, or those a glob of the rule's
 * own names) and FILE + FOREVER (in one file). A FILE rule with a glob would only repeat its own
 * path, so it is refused rather than stored with a meaning nobody asked for.
 */

/** The shape fields of `createIgnoreRule`'s input. */
export interface IgnoreRuleShapeInput {
  level: IgnoreRuleRow["level"];
  type: IgnoreRuleRow["type"];
  filePath?: string | null;
  globPattern?: string | null;
}

/** A validated rule shape, as stored. */
export interface IgnoreRuleShape {
  level: IgnoreRuleRow["level"];
  type: IgnoreRuleRow["type"];
  filePath: string | null;
  globPattern: string | null;
}

/** The rule shape `input` describes, or BAD_USER_INPUT naming the field that is wrong. */
export function checkIgnoreRuleShape(input: IgnoreRuleShapeInput): IgnoreRuleShape {
  const filePath = input.filePath ?? null;
  const globPattern = input.globPattern ?? null;
  if (input.level === "FILE") {
    if (filePath === null) throw badUserInput("filePath is required for a FILE-level rule.", "filePath");
    const problem = relativePathProblem(filePath);
    if (problem) throw badUserInput(`filePath ${problem}.`, "filePath");
    if (input.type !== "FOREVER") {
      throw badUserInput(
        "A FILE-level rule applies to its one file, so its type must be FOREVER; to ignore by a glob, make a REPOSITORY-level rule.",
        "type",
      );
    }
  } else if (filePath !== null) {
    throw badUserInput(
      "Only FILE-level rules take a filePath; leave it out for a REPOSITORY-level rule.",
      "filePath",
    );
  }
  if (input.type === "FOREVER") {
    if (globPattern !== null) {
      throw badUserInput("A FOREVER rule takes no globPattern; leave it out, or use PATTERN.", "globPattern");
    }
  } else if (globPattern === null) {
    if (input.type === "PATTERN") {
      throw badUserInput("globPattern is required for a PATTERN rule.", "globPattern");
    }
  } else {
    const compiled = compileGlob(globPattern);
    if (!compiled.ok) throw badUserInput(`globPattern ${compiled.problem}.`, "globPattern");
  }
  return { level: input.level, type: input.type, filePath, globPattern };
}

/**
 * The refusal of a shortcode that no issue an account may name has (`account` names it in words:
 * `the account "acme"`). A rule the shared catalog does not have (any rule of a COMMUNITY
 * analyzer) is known to an account only from the first of its uploads that reports it, so the
 * message says how it becomes known rather than only that it is not (docs/decisions.md "A rule
 * not uploaded yet is refused, not made up").
 */
export function unknownIssueShortcode(shortcode: string, account: string): AssayError {
  return badUserInput(
    `No issue has the shortcode "${shortcode}" for ${account} yet: a rule of Assay's catalog is known from the start, any other (such as a COMMUNITY analyzer's) once an upload of the account reports it.`,
    "issueShortcode",
  );
}

/**
 * The one issue named by `issueShortcode` (and `analyzerShortcode`, needed only when several
 * analyzers have an issue with that shortcode), among `candidates`: every issue with that
 * shortcode that the repository's account may name (the shared catalog's and its own).
 */
export function pickIssue(
  candidates: readonly IssueWithAnalyzer[],
  issueShortcode: string,
  analyzerShortcode: string | null | undefined,
): IssueWithAnalyzer {
  if (candidates.length === 0) {
    throw unknownIssueShortcode(issueShortcode, "this repository's account");
  }
  if (analyzerShortcode != null) {
    const issue = candidates.find((c) => c.analyzer_shortcode === analyzerShortcode);
    if (!issue) {
      throw badUserInput(
        `The analyzer "${analyzerShortcode}" has no issue "${issueShortcode}"; ${analyzersOf(candidates)} ${candidates.length === 1 ? "has" : "have"} it.`,
        "analyzerShortcode",
      );
    }
    return issue;
  }
  if (candidates.length > 1) {
    throw badUserInput(
      `Several analyzers (${analyzersOf(candidates)}) have an issue "${issueShortcode}"; name one in analyzerShortcode.`,
      "analyzerShortcode",
    );
  }
  return candidates[0]!;
}

function analyzersOf(candidates: readonly IssueWithAnalyzer[]): string {
  return candidates.map((c) => `"${c.analyzer_shortcode}"`).join(", ");
}
