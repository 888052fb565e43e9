import { z } from "zod";
import {
  found,
  type RepositoryVariables,
  repositoryInput,
  repositoryVariables,
  runOperation,
  type ToolBackend,
  ToolFailure,
} from "./tool-kit.ts";
import { defineTool } from "./tool-registry.ts";
import { METRIC_KEYS, METRIC_SHORTCODE_HELP, METRIC_SHORTCODES } from "./tools-health.ts";

/**
 * The tools that change a repository's settings, through the API's own mutations: the same
 * permission checks (ADMIN or MEMBER in the repository's account; FORBIDDEN for CONTRIBUTOR,
 * NOT_FOUND for a repository the caller cannot see) and the same validation.
 */

const REPOSITORY_QUERY = `query McpRepositoryForAction($login: String!, $name: String!, $vcsProvider: VCSProvider!,
  $shortcodeIn: [MetricShortcode]) {
  repository(login: $login, name: $name, vcsProvider: $vcsProvider) {
    id
    metrics(shortcodeIn: $shortcodeIn) { shortcode isReported isThresholdEnforced }
  }
}`;

interface RepositoryForAction {
  id: string;
  metrics: Array<{ shortcode: string; isReported: boolean; isThresholdEnforced: boolean }>;
}

/** The repository an action is for, with the current setting of `metric` when one is named. */
async function repositoryForAction(
  backend: ToolBackend,
  args: RepositoryVariables,
  metric?: string,
): Promise<RepositoryForAction> {
  const data = await runOperation<{ repository: RepositoryForAction | null }>(backend, REPOSITORY_QUERY, {
    ...repositoryVariables(args),
    shortcodeIn: metric === undefined ? [] : [metric],
  });
  return found(data.repository, `Repository ${args.login}/${args.name}`);
}

/** The `ok` of a mutation payload; a payload saying no is a failure in the API's words. */
function requireOk(payload: { ok: boolean | null } | null, what: string): void {
  if (payload?.ok !== true) throw new ToolFailure("INTERNAL_SERVER_ERROR", `${what} was not applied.`);
}

const setThresholdOutput = z.strictObject({
  repository: z.string().describe("`login/name`."),
  metric: z.enum(METRIC_SHORTCODES),
  key: z.enum(METRIC_KEYS),
  threshold: z.number().int().nullable().describe("The threshold now; null when it was removed."),
});

/** `set_metric_threshold`: sets or removes a metric item's threshold. */
export const setMetricThreshold = defineTool({
  name: "set_metric_threshold",
  title: "Set a metric threshold",
  description: `Sets (or, with threshold null, removes) the threshold of one metric item of a repository, e.g. line coverage (LCV) of AGGREGATE at 80. Replaces the previous threshold. Needs the ADMIN or MEMBER role in the repository's account. ${METRIC_SHORTCODE_HELP}`,
  inputSchema: {
    ...repositoryInput,
    metric: z.enum(METRIC_SHORTCODES).describe("The metric."),
    key: z
      .enum(METRIC_KEYS)
      .default("AGGREGATE")
      .describe("The language, or AGGREGATE (the default) for the whole repository."),
    threshold: z
      .number()
      .int()
      .nullable()
      .describe(
        "The new threshold (within the metric's allowed range, e.g. 0 to 100 for coverage); null removes it.",
      ),
  },
  outputSchema: setThresholdOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async answer(backend, args) {
    const repository = await repositoryForAction(backend, args);
    const data = await runOperation<{ setRepositoryMetricThreshold: { ok: boolean | null } | null }>(
      backend,
      `mutation McpSetMetricThreshold($input: SetRepositoryMetricThresholdInput!) {
        setRepositoryMetricThreshold(input: $input) { ok } }`,
      {
        input: {
          repositoryId: repository.id,
          metricShortcode: args.metric,
          metricKey: args.key,
          thresholdValue: args.threshold,
        },
      },
    );
    requireOk(data.setRepositoryMetricThreshold, "The threshold");
    const name = `${args.login}/${args.name}`;
    return {
      structured: { repository: name, metric: args.metric, key: args.key, threshold: args.threshold },
      text:
        args.threshold === null
          ? `Removed the ${args.metric} ${args.key} threshold of ${name}.`
          : `Set the ${args.metric} ${args.key} threshold of ${name} to ${args.threshold}.`,
    };
  },
});

const metricSettingOutput = z.strictObject({
  repository: z.string().describe("`login/name`."),
  metric: z.enum(METRIC_SHORTCODES),
  isReported: z.boolean(),
  isThresholdEnforced: z.boolean(),
});

/** `update_metric_setting`: switches a metric's reporting and threshold enforcement. */
export const updateMetricSetting = defineTool({
  name: "update_metric_setting",
  title: "Turn a metric's reporting or enforcement on or off",
  description: `Switches whether a repository reports a metric and whether missing its threshold fails the check. Leave out a setting to keep it as it is. The two are independent: enforcement can be switched on for a metric that is not reported, and only fails a check once the metric has a value and a threshold. Needs the ADMIN or MEMBER role in the repository's account. ${METRIC_SHORTCODE_HELP}`,
  inputSchema: {
    ...repositoryInput,
    metric: z.enum(METRIC_SHORTCODES).describe("The metric."),
    isReported: z
      .boolean()
      .optional()
      .describe("Whether the repository reports the metric; unchanged when left out."),
    isThresholdEnforced: z
      .boolean()
      .optional()
      .describe("Whether missing the threshold fails the check; unchanged when left out."),
  },
  outputSchema: metricSettingOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async answer(backend, args) {
    const repository = await repositoryForAction(backend, args, args.metric);
    const current = found(repository.metrics[0], `Metric ${args.metric}`);
    const isReported = args.isReported ?? current.isReported;
    const isThresholdEnforced = args.isThresholdEnforced ?? current.isThresholdEnforced;
    const data = await runOperation<{ updateRepositoryMetricSetting: { ok: boolean } | null }>(
      backend,
      `mutation McpUpdateMetricSetting($input: UpdateRepositoryMetricSettingInput!) {
        updateRepositoryMetricSetting(input: $input) { ok } }`,
      {
        input: { repositoryId: repository.id, metricShortcode: args.metric, isReported, isThresholdEnforced },
      },
    );
    requireOk(data.updateRepositoryMetricSetting, "The metric setting");
    const name = `${args.login}/${args.name}`;
    return {
      structured: { repository: name, metric: args.metric, isReported, isThresholdEnforced },
      text: `${args.metric} of ${name}: ${isReported ? "reported" : "not reported"}, threshold ${isThresholdEnforced ? "enforced" : "not enforced"}.`,
    };
  },
});

const IGNORE_RULE_TYPES = ["FOREVER", "PATTERN", "TEST_PATTERN"] as const;
const IGNORE_RULE_LEVELS = ["REPOSITORY", "FILE"] as const;

const ignoreRuleOutput = z.strictObject({
  repository: z.string().describe("`login/name`."),
  ignoreRule: z.strictObject({
    id: z.string().describe("The rule's global id."),
    issue: z.string().describe("The ignored issue's shortcode."),
    type: z.enum(IGNORE_RULE_TYPES),
    level: z.enum(IGNORE_RULE_LEVELS),
    filePath: z.string().nullable(),
    globPattern: z.string().nullable(),
    createdAt: z.string(),
  }),
});

interface IgnoreRuleNode {
  id: string;
  issue: { shortcode: string };
  type: (typeof IGNORE_RULE_TYPES)[number];
  level: (typeof IGNORE_RULE_LEVELS)[number];
  filePath: string | null;
  globPattern: string | null;
  createdAt: string;
}

/** `add_ignore_rule`: makes a repository stop reporting one issue, everywhere or in some paths. */
export const addIgnoreRule = defineTool({
  name: "add_ignore_rule",
  title: "Add an ignore rule",
  description:
    "Makes a repository stop reporting one issue from its next run on: everywhere (type FOREVER, level REPOSITORY), in one file (level FILE with filePath), in paths matching a glob (type PATTERN with globPattern), or in test files (type TEST_PATTERN: those the repository's .deepsource.toml names in test_patterns, or those globPattern names when given). An identical existing rule is answered as is. Needs the ADMIN or MEMBER role in the repository's account.",
  inputSchema: {
    ...repositoryInput,
    issue: z
      .string()
      .min(1)
      .describe("The issue's shortcode, e.g. `PYL-W0611` (from list_repository_issues)."),
    type: z
      .enum(IGNORE_RULE_TYPES)
      .default("FOREVER")
      .describe(
        "FOREVER: everywhere in the level's scope. PATTERN: in paths matching globPattern. TEST_PATTERN: in test files, named by the configuration's test_patterns, or by globPattern when given.",
      ),
    level: z
      .enum(IGNORE_RULE_LEVELS)
      .default("REPOSITORY")
      .describe(
        "REPOSITORY for the whole repository, FILE for the one file in filePath (FILE rules are FOREVER).",
      ),
    filePath: z
      .string()
      .min(1)
      .optional()
      .describe("For level FILE: the repository-relative path, e.g. `src/app.py`."),
    globPattern: z
      .string()
      .min(1)
      .optional()
      .describe("For PATTERN (required) and TEST_PATTERN (optional): a glob such as `tests/**`."),
    analyzer: z
      .string()
      .min(1)
      .optional()
      .describe(
        "The analyzer's shortcode; needed only when several analyzers have an issue with that shortcode.",
      ),
  },
  outputSchema: ignoreRuleOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async answer(backend, args) {
    const repository = await repositoryForAction(backend, args);
    const data = await runOperation<{ createIgnoreRule: { ignoreRule: IgnoreRuleNode | null } | null }>(
      backend,
      `mutation McpCreateIgnoreRule($input: CreateIgnoreRuleInput!) {
        createIgnoreRule(input: $input) {
          ignoreRule { id issue { shortcode } type level filePath globPattern createdAt } } }`,
      {
        input: {
          repositoryId: repository.id,
          issueShortcode: args.issue,
          type: args.type,
          level: args.level,
          filePath: args.filePath ?? null,
          globPattern: args.globPattern ?? null,
          analyzerShortcode: args.analyzer ?? null,
        },
      },
    );
    const rule = found(data.createIgnoreRule?.ignoreRule, "The ignore rule");
    const name = `${args.login}/${args.name}`;
    const where =
      rule.filePath ??
      rule.globPattern ??
      (rule.type === "TEST_PATTERN"
        ? "the test files its .deepsource.toml names (test_patterns)"
        : "everywhere");
    return {
      structured: {
        repository: name,
        ignoreRule: {
          id: rule.id,
          issue: rule.issue.shortcode,
          type: rule.type,
          level: rule.level,
          filePath: rule.filePath,
          globPattern: rule.globPattern,
          createdAt: rule.createdAt,
        },
      },
      text: `${name} ignores ${rule.issue.shortcode} ${where === "everywhere" ? where : `in ${where}`} (${rule.type}, ${rule.level}) from its next run on.`,
    };
  },
});
