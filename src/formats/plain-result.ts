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
