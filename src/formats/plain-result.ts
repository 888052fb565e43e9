import type {
  SarifLevel,
  SarifLocation,
  SarifProperties,
  SarifResult,
  SarifRule,
  SarifTaxonRef,
} from "./sarif/types.ts";

/**
 * What a reader of a format other than SARIF (GCC's JSON, go vet's, cppcheck's and checkstyle
 * XML, ShellCheck's, pylint's, Bandit's) knows of one finding. Such formats have no result kinds,
 * suppressions, baselines or fingerprints of their own, so everything else of the result is
 * SARIF's default.
 */
export interface PlainFinding {
  /** The result's run; 0 unless the format holds several (checkstyle XML of several files). */
  runIndex?: number;
  index: number;
  ruleId: string;
  /** The rule as the reader describes it, when the format says more than its id. */
  rule?: SarifRule | null;
  level: SarifLevel;
  /** The level the tool wrote, null when the reader inferred `level`. */
  ownLevel: SarifLevel | null;
  message: string;
  locations: SarifLocation[];
  relatedLocations?: SarifLocation[];
  taxa?: SarifTaxonRef[];
  /** The property bag's values the format gives; the others are empty. */
  properties?: Partial<SarifProperties>;
}

/** A SARIF result of one finding read from another format (see {@link PlainFinding}). */
export function plainResult(finding: PlainFinding): SarifResult {
  return {
    runIndex: finding.runIndex ?? 0,
    index: finding.index,
    ruleId: finding.ruleId,
    rule: finding.rule ?? null,
    level: finding.level,
    ownLevel: finding.ownLevel,
    kind: "fail",
    properties: {
      tags: [],
      securitySeverity: null,
      precision: null,
      problemSeverity: null,
      strings: {},
      ...finding.properties,
    },
    taxa: finding.taxa ?? [],
    message: finding.message,
    locations: finding.locations,
    relatedLocations: finding.relatedLocations ?? [],
    suppressions: [],
    isSuppressed: false,
    baselineState: null,
    partialFingerprints: {},
    fingerprints: {},
  };
}

/**
 * What a reader of another format knows of a rule: its id and, where the format says them, a name,
 * a description, a help page, a level, its own strings (pylint's type, ESLint's `meta.type`) and
 * taxa. Everything else of the rule is SARIF's default.
 */
export interface PlainRule {
  id: string;
  /** Its place among the run's rules; -1 (the default) for a rule the run does not list. */
  index?: number;
  name?: string | null;
  shortDescription?: string | null;
  helpUri?: string | null;
  defaultLevel?: SarifLevel | null;
  strings?: Record<string, string>;
  taxa?: SarifTaxonRef[];
}

/** A SARIF rule described by another format (see {@link PlainRule}). */
export function plainRule(rule: PlainRule): SarifRule {
  return {
    id: rule.id,
    index: rule.index ?? -1,
    name: rule.name ?? null,
    shortDescription: rule.shortDescription ?? null,
    fullDescription: null,
    help: null,
    helpUri: rule.helpUri ?? null,
    defaultLevel: rule.defaultLevel ?? null,
    properties: {
      tags: [],
      securitySeverity: null,
      precision: null,
      problemSeverity: null,
      strings: rule.strings ?? {},
    },
    taxa: rule.taxa ?? [],
    messageStrings: {},
  };
}
