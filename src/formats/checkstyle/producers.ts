/**
 * Which tool wrote an `<error>` of a checkstyle XML report, told from its `source` attribute, and
 * the rule it names in that tool's own words. Several linters write the format; each names its
 * rules its own way (docs/ingestion-checkstyle.md "Producers"):
 *
 *   ShellCheck              ShellCheck.SC2086                                   → shellcheck, SC2086
 *   ESLint                  eslint.rules.no-unused-vars                         → eslint, no-unused-vars
 *   Checkstyle              com.puppycrawl.tools.checkstyle.checks.naming.ConstantNameCheck
 *                                                                               → checkstyle, ConstantName
 *   PHP_CodeSniffer         PSR12.Files.FileHeader.SpacingAfterBlock            → phpcs, the same code
 *
 * A source of none of these forms keeps its text as the rule, under the tool `checkstyle-xml`. An
 * empty source names no rule: ESLint writes one for a problem of no rule (a parse error, an
 * unused `eslint-disable` directive), which is the tool's own error, not a finding.
 */

/** The tools told apart; `other` is any other producer. */
export type CheckstyleProducer = "shellcheck" | "eslint" | "checkstyle" | "phpcs" | "other";

/** What one `<error>`'s source says. */
export interface ProducedRule {
  producer: CheckstyleProducer;
  /** The rule id as the tool's own text output names it; null for the tool's own error (or no source). */
  ruleId: string | null;
  /** Facts the tool-family rows read (`properties.<name>`): Checkstyle's package, phpcs' sniff category. */
  properties: Record<string, string>;
}

/** The run's tool name of each producer (`tool.driver.name`, which the tool-family table reads). */
export const TOOL_OF_PRODUCER: Readonly<
  Record<CheckstyleProducer, { name: string; informationUri: string | null }>
> = {
  shellcheck: { name: "shellcheck", informationUri: "https://www.shellcheck.net" },
  eslint: { name: "eslint", informationUri: "https://eslint.org" },
  checkstyle: { name: "checkstyle", informationUri: "https://checkstyle.org" },
  phpcs: { name: "phpcs", informationUri: "https://github.com/PHPCSStandards/PHP_CodeSniffer" },
  other: { name: "checkstyle-xml", informationUri: null },
};

const SHELLCHECK = /^ShellCheck\.(SC\d+)$/;
const ESLINT = /^eslint\.rules\.(.+)$/;
/** A Java check class: `<package>.<Name>Check`, Checkstyle's own under com.puppycrawl.tools.checkstyle. */
const JAVA_CHECK = /^(?:[a-z_]\w*\.)+([A-Z]\w*?)Check$/;
const CHECKSTYLE_PACKAGE = /^com\.puppycrawl\.tools\.checkstyle\.checks\.(?:([a-z]\w*)\.)?[A-Z]\w*$/;
/** Checkstyle's own classes outside its checks (TreeWalker, Checker): they report failures, not findings. */
const CHECKSTYLE_ITSELF = /^com\.puppycrawl\.tools\.checkstyle\.(?!checks\.)/;
/** A phpcs sniff code: Standard.Category.Sniff.Code (three parts for a sniff's own name). */
const PHPCS = /^[A-Z]\w*\.([A-Z]\w*)\.[A-Z]\w*(?:\.\w+)?$/;

/** The producer and rule of an `<error>` with this `source` (absent: `undefined`). */
export function producedRuleOf(source: string | undefined): ProducedRule {
  const text = (source ?? "").trim();
  const shellcheck = SHELLCHECK.exec(text);
  if (shellcheck) return { producer: "shellcheck", ruleId: shellcheck[1]!, properties: {} };
  const eslint = ESLINT.exec(text);
  if (eslint) return { producer: "eslint", ruleId: eslint[1]!, properties: {} };
  const check = JAVA_CHECK.exec(text);
  if (check) {
    const checkPackage = CHECKSTYLE_PACKAGE.exec(text)?.[1];
    return {
      producer: "checkstyle",
      ruleId: check[1]!,
      properties: checkPackage === undefined ? {} : { checkPackage },
    };
  }
  if (CHECKSTYLE_ITSELF.test(text)) return { producer: "checkstyle", ruleId: null, properties: {} };
  if (text.startsWith("Internal.")) return { producer: "phpcs", ruleId: null, properties: {} };
  const sniff = PHPCS.exec(text);
  if (sniff) return { producer: "phpcs", ruleId: text, properties: { sniffCategory: sniff[1]! } };
  return { producer: "other", ruleId: text === "" ? null : text, properties: {} };
}
