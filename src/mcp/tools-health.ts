import { z } from "zod";
import { compareVersions, type OsvEcosystem, parseVersion } from "../formats/osv/versions.ts";
import {
  type Connection,
  connectionSelection,
  countText,
  found,
  pageInfoOutput,
  pageInput,
  pageOf,
  repositoryInput,
  repositoryVariables,
  runOperation,
  type ToolBackend,
  VCS_PROVIDERS,
} from "./tool-kit.ts";
import { defineTool } from "./tool-registry.ts";
import { emptyConnection } from "./tools-repositories.ts";

/** The tools about a repository's health: metrics, vulnerable dependencies, compliance reports. */

/** The API's `MetricShortcode` and `MetricKey` enums. */
export const METRIC_SHORTCODES = [
  "BCV",
  "CCV",
  "CPCV",
  "DCV",
  "DDP",
  "LCV",
  "NBCV",
  "NCCV",
  "NCPCV",
  "NLCV",
] as const;
export const METRIC_KEYS = [
  "AGGREGATE",
  "CSHARP",
  "C_AND_CPP",
  "GO",
  "JAVA",
  "JAVASCRIPT",
  "KOTLIN",
  "PHP",
  "PYTHON",
  "RUBY",
  "RUST",
  "SCALA",
  "SWIFT",
] as const;

/**
 * What each metric shortcode measures, for the tools' descriptions: each metric by the name the
 * API's `Metric.name` gives it (migrations 0002 and 0012; test/mcp.test.ts compares them), so a
 * client told what a value means is told what it is. DDP counts packages, it is no percentage.
 */
export const METRIC_SHORTCODE_HELP =
  "Metrics: LCV line coverage, BCV branch coverage, CCV condition coverage, CPCV composite coverage, NLCV new line coverage, NBCV new branch coverage, NCCV new condition coverage, NCPCV new composite coverage (the same on the changed lines), DCV documentation coverage, all in per cent, higher is better; DDP external dependencies, a count of the third-party packages the code depends on, lower is better.";

const METRICS_QUERY = `query McpMetrics($login: String!, $name: String!, $vcsProvider: VCSProvider!,
  $shortcodeIn: [MetricShortcode]) {
  repository(login: $login, name: $name, vcsProvider: $vcsProvider) {
    metrics(shortcodeIn: $shortcodeIn) {
      shortcode name unit positiveDirection isReported isThresholdEnforced minValueAllowed maxValueAllowed
      items { key threshold latestValue latestValueDisplay thresholdStatus }
    }
  }
}`;

interface MetricNode {
  shortcode: (typeof METRIC_SHORTCODES)[number];
  name: string;
  unit: string | null;
  positiveDirection: "UPWARD" | "DOWNWARD";
  isReported: boolean;
  isThresholdEnforced: boolean;
  minValueAllowed: number | null;
  maxValueAllowed: number | null;
  items: Array<{
    key: (typeof METRIC_KEYS)[number];
    threshold: number | null;
    latestValue: number | null;
    latestValueDisplay: string | null;
    thresholdStatus: "PASSING" | "FAILING" | null;
  }>;
}

const metricsOutput = z.strictObject({
  metrics: z.array(
    z.strictObject({
      shortcode: z.enum(METRIC_SHORTCODES),
      name: z.string(),
      unit: z.string().nullable(),
      positiveDirection: z.enum(["UPWARD", "DOWNWARD"]).describe("Which way is better."),
      isReported: z.boolean().describe("Whether the repository reports the metric."),
      isThresholdEnforced: z.boolean().describe("Whether missing a threshold fails the check."),
      minValueAllowed: z.number().int().nullable().describe("The lowest threshold allowed."),
      maxValueAllowed: z.number().int().nullable().describe("The highest threshold allowed."),
      items: z.array(
        z.strictObject({
          key: z.enum(METRIC_KEYS).describe("The language, or AGGREGATE for the whole repository."),
          latestValue: z.number().nullable(),
          latestValueDisplay: z.string().nullable(),
          threshold: z.number().int().nullable(),
          thresholdStatus: z
            .enum(["PASSING", "FAILING"])
            .nullable()
            .describe("Null when there is no threshold or value."),
        }),
      ),
    }),
  ),
});

/** `get_quality_metrics`: a repository's metrics with their thresholds and status. */
export const getQualityMetrics = defineTool({
  name: "get_quality_metrics",
  title: "Quality metrics and thresholds",
  description: `Shows a repository's quality metrics (coverage, documentation, external dependencies): per metric whether it is reported and enforced, and per item (language or AGGREGATE) the latest value, the threshold and whether it passes. ${METRIC_SHORTCODE_HELP}`,
  inputSchema: {
    ...repositoryInput,
    metrics: z.array(z.enum(METRIC_SHORTCODES)).optional().describe("Only these metrics; all when left out."),
  },
  outputSchema: metricsOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async answer(backend, args) {
    const data = await runOperation<{ repository: { metrics: MetricNode[] } | null }>(
      backend,
      METRICS_QUERY,
      {
        ...repositoryVariables(args),
        shortcodeIn: args.metrics ?? null,
      },
    );
    const repository = found(data.repository, `Repository ${args.login}/${args.name}`);
    const metrics = repository.metrics.map((m) => ({
      shortcode: m.shortcode,
      name: m.name,
      unit: m.unit,
      positiveDirection: m.positiveDirection,
      isReported: m.isReported,
      isThresholdEnforced: m.isThresholdEnforced,
      minValueAllowed: m.minValueAllowed,
      maxValueAllowed: m.maxValueAllowed,
      items: m.items.map((item) => ({
        key: item.key,
        latestValue: item.latestValue,
        latestValueDisplay: item.latestValueDisplay,
        threshold: item.threshold,
        thresholdStatus: item.thresholdStatus,
      })),
    }));
    const lines = metrics.flatMap((m) =>
      m.items.map(
        (i) =>
          `${m.shortcode} ${i.key}: ${i.latestValueDisplay ?? "no value"}${i.threshold === null ? "" : `, threshold ${i.threshold} (${i.thresholdStatus ?? "no status"})`}${m.isThresholdEnforced ? ", enforced" : ""}`,
      ),
    );
    return {
      structured: { metrics },
      text: [`${metrics.length} metrics of ${args.login}/${args.name}.`, ...lines].join("\n"),
    };
  },
});

const ECOSYSTEMS = ["CRATES_IO", "GO", "MAVEN", "NPM", "NUGET", "PACKAGIST", "PYPI", "RUBYGEMS"] as const;
const VULNERABILITY_SEVERITIES = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "NONE"] as const;
const FIXABILITIES = [
  "AUTO_FIXABLE",
  "ERROR",
  "GENERATING_FIX",
  "MANUALLY_FIXABLE",
  "POSSIBLY_FIXABLE",
  "UNFIXABLE",
] as const;
const REACHABILITIES = ["REACHABLE", "UNKNOWN", "UNREACHABLE"] as const;

const VULNERABILITIES_QUERY = `query McpVulnerabilities($login: String!, $name: String!, $vcsProvider: VCSProvider!,
  $first: Int!, $after: String) {
  repository(login: $login, name: $name, vcsProvider: $vcsProvider) {
    dependencyVulnerabilityOccurrences(first: $first, after: $after) {
      ${connectionSelection(`reachability fixability
        package { ecosystem name } packageVersion { version }
        vulnerability { identifier aliases severity cvssV3BaseScore summary fixedVersions }`)}
    }
  }
}`;

interface VulnerabilityNode {
  reachability: (typeof REACHABILITIES)[number];
  fixability: (typeof FIXABILITIES)[number];
  package: { ecosystem: (typeof ECOSYSTEMS)[number]; name: string };
  packageVersion: { version: string };
  vulnerability: {
    identifier: string;
    aliases: string[];
    severity: (typeof VULNERABILITY_SEVERITIES)[number] | null;
    cvssV3BaseScore: number | null;
    summary: string | null;
    fixedVersions: Array<string | null>;
  };
}

/**
 * The lowest of `fixedVersions` above `current` in the ecosystem's own order (a fix below the
 * version in use is another branch's); null when there is none or a version cannot be read.
 */
export function smallestFixAbove(
  ecosystem: OsvEcosystem,
  current: string,
  fixedVersions: ReadonlyArray<string | null>,
): string | null {
  if (!parseVersion(ecosystem, current)) return null;
  let best: string | null = null;
  for (const fixed of fixedVersions) {
    if (fixed === null || !parseVersion(ecosystem, fixed)) continue;
    if (compareVersions(ecosystem, fixed, current) <= 0) continue;
    if (best === null || compareVersions(ecosystem, fixed, best) < 0) best = fixed;
  }
  return best;
}

/**
 * The smallest upgrade that reaches every vulnerability's first fix: the highest of their
 * smallest fixes; null when one of them has no fix above the version in use.
 */
export function smallestFixingUpgrade(
  ecosystem: OsvEcosystem,
  fixes: ReadonlyArray<string | null>,
): string | null {
  let upgrade: string | null = null;
  for (const fix of fixes) {
    if (fix === null) return null;
    if (upgrade === null || compareVersions(ecosystem, fix, upgrade) > 0) upgrade = fix;
  }
  return upgrade;
}

const vulnerabilitiesOutput = z.strictObject({
  vulnerabilities: z.array(
    z.strictObject({
      ecosystem: z.enum(ECOSYSTEMS),
      package: z.string().describe("The package's name."),
      version: z.string().describe("The version in use."),
      advisory: z.string().describe("The advisory's identifier (GHSA-…, CVE-…)."),
      aliases: z.array(z.string()),
      severity: z.enum(VULNERABILITY_SEVERITIES).nullable(),
      cvssV3BaseScore: z.number().nullable(),
      summary: z.string().nullable(),
      reachability: z.enum(REACHABILITIES).describe("Whether the vulnerable code is reachable from yours."),
      fixability: z.enum(FIXABILITIES).describe("How the occurrence can be fixed."),
      fixedVersions: z.array(z.string()).describe("The versions that fix it; empty when no fix is released."),
      smallestFix: z
        .string()
        .nullable()
        .describe("The lowest fixed version above the one in use; null when none."),
    }),
  ),
  upgrades: z
    .array(
      z.strictObject({
        ecosystem: z.enum(ECOSYSTEMS),
        package: z.string(),
        version: z.string().describe("The version in use."),
        vulnerabilities: z.number().int().describe("How many of this page's vulnerabilities it has."),
        smallestFixingUpgrade: z
          .string()
          .nullable()
          .describe(
            "The lowest version at or above every one of their first fixes; null when one has no fix.",
          ),
      }),
    )
    .describe(
      "Per vulnerable package version on this page: the smallest upgrade that fixes all its vulnerabilities.",
    ),
  page: pageInfoOutput,
});

/** `list_dependency_vulnerabilities`: vulnerable dependencies with fixability and upgrades. */
export const listDependencyVulnerabilities = defineTool({
  name: "list_dependency_vulnerabilities",
  title: "Dependency vulnerabilities",
  description:
    "Lists the known vulnerabilities in a repository's dependencies now (each target's newest scan on the default branch), most severe first: package and version, advisory, severity, reachability, fixability and the smallest fixed version; plus, per vulnerable package, the smallest upgrade that fixes all its listed vulnerabilities.",
  inputSchema: { ...repositoryInput, ...pageInput },
  outputSchema: vulnerabilitiesOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async answer(backend, args) {
    const data = await runOperation<{
      repository: { dependencyVulnerabilityOccurrences: Connection<VulnerabilityNode> | null } | null;
    }>(backend, VULNERABILITIES_QUERY, {
      ...repositoryVariables(args),
      first: args.first,
      after: args.after ?? null,
    });
    const repository = found(data.repository, `Repository ${args.login}/${args.name}`);
    const connection = repository.dependencyVulnerabilityOccurrences ?? emptyConnection<VulnerabilityNode>();
    const vulnerabilities = connection.edges.map(({ node }) => ({
      ecosystem: node.package.ecosystem,
      package: node.package.name,
      version: node.packageVersion.version,
      advisory: node.vulnerability.identifier,
      aliases: node.vulnerability.aliases,
      severity: node.vulnerability.severity,
      cvssV3BaseScore: node.vulnerability.cvssV3BaseScore,
      summary: node.vulnerability.summary,
      reachability: node.reachability,
      fixability: node.fixability,
      fixedVersions: node.vulnerability.fixedVersions.filter((v): v is string => v !== null),
      smallestFix: smallestFixAbove(
        node.package.ecosystem,
        node.packageVersion.version,
        node.vulnerability.fixedVersions,
      ),
    }));
    const byPackage = new Map<string, (typeof vulnerabilities)[number][]>();
    for (const v of vulnerabilities) {
      const key = JSON.stringify([v.ecosystem, v.package, v.version]);
      byPackage.set(key, [...(byPackage.get(key) ?? []), v]);
    }
    const upgrades = [...byPackage.values()].map((group) => {
      const first = group[0] as (typeof vulnerabilities)[number];
      return {
        ecosystem: first.ecosystem,
        package: first.package,
        version: first.version,
        vulnerabilities: group.length,
        smallestFixingUpgrade: smallestFixingUpgrade(
          first.ecosystem,
          group.map((v) => v.smallestFix),
        ),
      };
    });
    return {
      structured: { vulnerabilities, upgrades, page: pageOf(connection) },
      text: [
        `${countText(vulnerabilities.length, connection.totalCount, "vulnerabilities")} in ${args.login}/${args.name}.`,
        ...vulnerabilities.map(
          (v) =>
            `${v.advisory} [${v.severity ?? "unrated"}] ${v.package}@${v.version}: ${v.fixability}${v.smallestFix ? `, fixed in ${v.smallestFix}` : ", no fix above this version"}`,
        ),
        ...upgrades.map(
          (u) =>
            `Upgrade ${u.package} ${u.version} → ${u.smallestFixingUpgrade ?? "(no single fixing upgrade)"} fixes ${u.vulnerabilities}.`,
        ),
      ].join("\n"),
    };
  },
});

const COMPLIANCE_REPORTS = {
  OWASP_TOP_10: "owaspTop10",
  SANS_TOP_25: "sansTop25",
  MISRA_C: "misraC",
} as const;
const REPORT_FIELDS = `key title status currentValue
  trends { label value changePercentage }
  securityIssueStats { key title occurrence { critical major minor total } }`;

interface ReportNode {
  key: keyof typeof COMPLIANCE_REPORTS;
  title: string;
  status: "PASSING" | "FAILING" | "NOOP";
  currentValue: number | null;
  trends: Array<{ label: string | null; value: number | null; changePercentage: number | null }>;
  securityIssueStats: Array<{
    key: string;
    title: string;
    occurrence: { critical: number | null; major: number | null; minor: number | null; total: number | null };
  }>;
}

/** The report `field` of the account `login`, or of its repository `name` when given. */
async function readReport(
  backend: ToolBackend,
  args: { login: string; name?: string | undefined; vcsProvider: string },
  field: (typeof COMPLIANCE_REPORTS)[keyof typeof COMPLIANCE_REPORTS],
): Promise<ReportNode> {
  if (args.name === undefined) {
    const data = await runOperation<{ account: { reports: Record<string, ReportNode> } | null }>(
      backend,
      `query McpAccountReport($login: String!, $vcsProvider: VCSProvider!) {
        account(login: $login, vcsProvider: $vcsProvider) { reports { ${field} { ${REPORT_FIELDS} } } } }`,
      { login: args.login, vcsProvider: args.vcsProvider },
    );
    return found(found(data.account, `Account ${args.login}`).reports[field], `Report ${field}`);
  }
  const data = await runOperation<{ repository: { reports: Record<string, ReportNode> } | null }>(
    backend,
    `query McpRepositoryReport($login: String!, $name: String!, $vcsProvider: VCSProvider!) {
      repository(login: $login, name: $name, vcsProvider: $vcsProvider) { reports { ${field} { ${REPORT_FIELDS} } } } }`,
    { login: args.login, name: args.name, vcsProvider: args.vcsProvider },
  );
  return found(
    found(data.repository, `Repository ${args.login}/${args.name}`).reports[field],
    `Report ${field}`,
  );
}

const complianceOutput = z.strictObject({
  scope: z.string().describe("`login` for an account's report, `login/name` for a repository's."),
  report: z.enum(["OWASP_TOP_10", "SANS_TOP_25", "MISRA_C"]),
  title: z.string(),
  status: z.enum(["PASSING", "FAILING", "NOOP"]).describe("FAILING when anything in scope is open."),
  currentValue: z
    .number()
    .int()
    .nullable()
    .describe("Open issues in the report's categories now; null while nothing in scope has been analysed."),
  trends: z.array(
    z.strictObject({
      label: z.string().nullable().describe("The moment, e.g. `3 months ago`."),
      value: z.number().int().nullable(),
      changePercentage: z.number().nullable().describe("Change from then to now in per cent."),
    }),
  ),
  categories: z.array(
    z.strictObject({
      key: z.string().describe("The category: `A03`, `CWE-89` or a MISRA rule group."),
      title: z.string(),
      critical: z.number().int(),
      major: z.number().int(),
      minor: z.number().int(),
      total: z.number().int(),
    }),
  ),
});

/** `get_compliance_report`: an OWASP Top 10, SANS/CWE Top 25 or MISRA C report. */
export const getComplianceReport = defineTool({
  name: "get_compliance_report",
  title: "Compliance report",
  description:
    "Shows a compliance report (OWASP Top 10, SANS/CWE Top 25 or MISRA C) of an account or of one of its repositories: whether it passes, the open issues now and their trend, and the issues per category by severity.",
  inputSchema: {
    report: z.enum(["OWASP_TOP_10", "SANS_TOP_25", "MISRA_C"]).describe("Which report."),
    login: repositoryInput.login.describe("The account's login."),
    name: z
      .string()
      .min(1)
      .optional()
      .describe("A repository of the account; the whole account when left out."),
    vcsProvider: z
      .enum(VCS_PROVIDERS)
      .default("GITHUB")
      .describe("Where the account is hosted. Defaults to GITHUB."),
  },
  outputSchema: complianceOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async answer(backend, args) {
    const report = await readReport(backend, args, COMPLIANCE_REPORTS[args.report]);
    const scope = args.name === undefined ? args.login : `${args.login}/${args.name}`;
    const categories = report.securityIssueStats.map((stat) => ({
      key: stat.key,
      title: stat.title,
      critical: stat.occurrence.critical ?? 0,
      major: stat.occurrence.major ?? 0,
      minor: stat.occurrence.minor ?? 0,
      total: stat.occurrence.total ?? 0,
    }));
    return {
      structured: {
        scope,
        report: report.key,
        title: report.title,
        status: report.status,
        currentValue: report.currentValue,
        trends: report.trends.map((t) => ({
          label: t.label,
          value: t.value,
          changePercentage: t.changePercentage,
        })),
        categories,
      },
      text: [
        `${report.title} of ${scope}: ${report.status}, ${report.currentValue === null ? "nothing analysed yet" : `${report.currentValue} open`}.`,
        ...categories
          .filter((c) => c.total > 0)
          .map(
            (c) =>
              `${c.key} ${c.title}: ${c.total} (${c.critical} critical, ${c.major} major, ${c.minor} minor)`,
          ),
      ].join("\n"),
    };
  },
});
