import { type PathContext, type ResolvedPath, resolveArtifactPath } from "./paths.ts";
import {
  SarifFormatError,
  type SarifKind,
  type SarifLevel,
  type SarifListedFile,
  type SarifLocation,
  type SarifProperties,
  type SarifRegion,
  type SarifResult,
  type SarifRule,
  type SarifSuppression,
  type SarifTaxonRef,
  type SarifTool,
  type SarifToolError,
  type SarifToolNotice,
} from "./types.ts";

/**
 * The values the SARIF reader yields, built from the plain JSON it selected: a run's tool with its
 * rules, a result with its rule, locations and properties, an invocation's notification as the
 * tool's own error. Pure functions; each failure is a {@link SarifFormatError} naming the place.
 */

type Json = Record<string, unknown>;

/** Whether `value` is a JSON object (not an array, not null). */
export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringOf(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function textOf(message: unknown): string | null {
  return isObject(message) ? (stringOf(message.text) ?? stringOf(message.markdown)) : null;
}

function levelOf(value: unknown): SarifLevel | null {
  return value === "error" || value === "warning" || value === "note" || value === "none" ? value : null;
}

function positiveInteger(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 ? value : null;
}

function stringRecord(value: unknown): Record<string, string> {
  if (!isObject(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

/** One run's state while its bytes stream past. */
export interface RunState {
  index: number;
  tool: SarifTool | null;
  context: PathContext;
  /** Raw results met before the run's `tool` (see reader.ts on key order). */
  pending: Array<{ raw: unknown; index: number }>;
}

/** Longer string properties are not kept: classification reads short words, not texts. */
const MAX_PROPERTY_LENGTH = 200;

/** The properties {@link SarifProperties} has fields for, left out of its `strings`. */
const NAMED_PROPERTIES = new Set(["tags", "security-severity", "precision", "problem.severity"]);

/** The property bag (§3.8) as classification reads it; empty values when there is none. */
function propertiesOf(raw: unknown): SarifProperties {
  const bag = isObject(raw) ? raw : {};
  const score = bag["security-severity"];
  const severity =
    typeof score === "number" || (typeof score === "string" && score.trim() !== "") ? Number(score) : NaN;
  const strings: Record<string, string> = {};
  for (const [name, value] of Object.entries(bag)) {
    if (typeof value === "string" && value.length <= MAX_PROPERTY_LENGTH && !NAMED_PROPERTIES.has(name))
      strings[name] = value;
  }
  return {
    tags: Array.isArray(bag.tags) ? bag.tags.filter((tag) => typeof tag === "string") : [],
    securitySeverity: Number.isFinite(severity) ? severity : null,
    precision: stringOf(bag.precision),
    problemSeverity: stringOf(bag["problem.severity"]),
    strings,
  };
}

/** A taxon reference (`reportingDescriptorReference`, §3.53): its id and its taxonomy's name. */
function taxonOf(raw: unknown): SarifTaxonRef | null {
  if (!isObject(raw)) return null;
  const id = typeof raw.id === "number" ? String(raw.id) : stringOf(raw.id);
  if (id === null) return null;
  const component = isObject(raw.toolComponent) ? stringOf(raw.toolComponent.name) : null;
  return { id, taxonomy: component };
}

/** The targets of a rule's `relationships` (§3.52). */
function relationshipTaxaOf(raw: unknown): SarifTaxonRef[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((relationship) => {
    const taxon = isObject(relationship) ? taxonOf(relationship.target) : null;
    return taxon === null ? [] : [taxon];
  });
}

function kindOf(value: unknown): SarifKind {
  return value === "pass" ||
    value === "notApplicable" ||
    value === "review" ||
    value === "open" ||
    value === "informational"
    ? value
    : "fail";
}

function ruleOf(raw: unknown, index: number, where: string): SarifRule {
  if (!isObject(raw) || typeof raw.id !== "string") {
    throw new SarifFormatError("INVALID_STRUCTURE", `${where}.rules[${index}] has no string "id".`);
  }
  const help = isObject(raw.help) ? (stringOf(raw.help.markdown) ?? stringOf(raw.help.text)) : null;
  const messageStrings = isObject(raw.messageStrings)
    ? Object.fromEntries(
        Object.entries(raw.messageStrings).flatMap(([id, text]) => {
          const value = textOf(text);
          return value === null ? [] : [[id, value]];
        }),
      )
    : {};
  return {
    id: raw.id,
    index,
    name: stringOf(raw.name),
    shortDescription: textOf(raw.shortDescription),
    fullDescription: textOf(raw.fullDescription) ?? (isObject(raw.help) ? stringOf(raw.help.text) : null),
    help,
    helpUri: stringOf(raw.helpUri),
    defaultLevel: isObject(raw.defaultConfiguration) ? levelOf(raw.defaultConfiguration.level) : null,
    properties: propertiesOf(raw.properties),
    taxa: relationshipTaxaOf(raw.relationships),
    messageStrings,
  };
}

/** A tool component's `rules` (absent: none); `where` names the component. */
function rulesOf(component: Record<string, unknown>, where: string): SarifRule[] {
  const rules = component.rules === undefined ? [] : component.rules;
  if (!Array.isArray(rules))
    throw new SarifFormatError("INVALID_STRUCTURE", `${where}.rules is not an array.`);
  return rules.map((rule, index) => ruleOf(rule, index, where));
}

/** A run's `tool` (§3.18) with its driver's and extensions' rules; MISSING_TOOL without a named driver. */
export function toolOf(raw: unknown, runIndex: number): SarifTool {
  const where = `runs[${runIndex}].tool.driver`;
  const driver = isObject(raw) ? raw.driver : undefined;
  if (!isObject(driver) || typeof driver.name !== "string") {
    throw new SarifFormatError("MISSING_TOOL", `${where} is missing or has no string "name".`);
  }
  const extensions = isObject(raw) && raw.extensions !== undefined ? raw.extensions : [];
  if (!Array.isArray(extensions))
    throw new SarifFormatError("INVALID_STRUCTURE", `runs[${runIndex}].tool.extensions is not an array.`);
  return {
    name: driver.name,
    version: stringOf(driver.version) ?? stringOf(driver.semanticVersion),
    informationUri: stringOf(driver.informationUri),
    rules: rulesOf(driver, where),
    extensions: extensions.map((extension, index) => {
      const at = `runs[${runIndex}].tool.extensions[${index}]`;
      if (!isObject(extension)) throw new SarifFormatError("INVALID_STRUCTURE", `${at} is not an object.`);
      return { name: stringOf(extension.name) ?? at, rules: rulesOf(extension, at) };
    }),
  };
}

/**
 * The component whose rules a result's `rule.toolComponent` names (SARIF §3.52.7, §3.54): the
 * extension at its `index`, or of its `name`; the driver when it names none.
 */
function componentOf(
  reference: unknown,
  tool: SarifTool,
  where: string,
): { label: string; rules: SarifRule[] } {
  const driver = { label: "the driver", rules: tool.rules };
  if (!isObject(reference)) return driver;
  if (typeof reference.index === "number") {
    const extension = tool.extensions[reference.index];
    if (extension === undefined) {
      throw new SarifFormatError(
        "MISSING_RULE",
        `${where} refers to tool extension ${reference.index}, but the tool has ${tool.extensions.length} extensions.`,
      );
    }
    return { label: `extension ${reference.index}`, rules: extension.rules };
  }
  const name = stringOf(reference.name);
  const named = name === null ? undefined : tool.extensions.find((extension) => extension.name === name);
  return named ? { label: `extension "${named.name}"`, rules: named.rules } : driver;
}

function regionOf(raw: unknown): SarifRegion | null {
  if (!isObject(raw)) return null;
  const startLine = positiveInteger(raw.startLine);
  if (startLine === null) return null;
  return {
    startLine,
    startColumn: positiveInteger(raw.startColumn),
    endLine: positiveInteger(raw.endLine) ?? startLine,
    endColumn: positiveInteger(raw.endColumn),
    snippet: isObject(raw.snippet) ? stringOf(raw.snippet.text) : null,
  };
}

/** Beyond this many entries a run's cache of resolved paths starts again (a bound on its memory). */
const MAX_CACHED_PATHS = 1_000;

/**
 * Resolved paths by base id and URI, per run context: a report names the same files over and
 * over, and resolving a path is a good part of reading a result. A context never changes (a run's
 * `originalUriBaseIds` gives it a new one), so its entries never go stale.
 */
const resolvedPaths = new WeakMap<PathContext, Map<string, ResolvedPath>>();

/** {@link resolveArtifactPath}, through the context's cache. */
function resolvedPathOf(uri: string, uriBaseId: string | null, context: PathContext): ResolvedPath {
  let cache = resolvedPaths.get(context);
  if (cache === undefined || cache.size >= MAX_CACHED_PATHS) {
    cache = new Map();
    resolvedPaths.set(context, cache);
  }
  // The base id's length first, so that no other base id and URI make the same key.
  const key = uriBaseId === null ? `-${uri}` : `${uriBaseId.length}:${uriBaseId}${uri}`;
  let resolved = cache.get(key);
  if (resolved === undefined) {
    resolved = resolveArtifactPath(uri, uriBaseId ?? undefined, context);
    cache.set(key, resolved);
  }
  return resolved;
}

function locationOf(raw: unknown, context: PathContext): SarifLocation {
  const physical = isObject(raw) ? raw.physicalLocation : undefined;
  const artifact = isObject(physical) ? physical.artifactLocation : undefined;
  const uri = isObject(artifact) ? stringOf(artifact.uri) : null;
  const uriBaseId = isObject(artifact) ? stringOf(artifact.uriBaseId) : null;
  const resolved = uri === null ? null : resolvedPathOf(uri, uriBaseId, context);
  return {
    path: resolved?.path ?? null,
    outsideRepository: resolved?.outsideRepository ?? false,
    uri,
    uriBaseId,
    region: isObject(physical) ? regionOf(physical.region) : null,
    message: isObject(raw) ? textOf(raw.message) : null,
    id: isObject(raw) && typeof raw.id === "number" ? raw.id : null,
  };
}

/** The locations of `raw` (absent or null: none); `where` names it when it is not an array. */
function locationsOf(raw: unknown, context: PathContext, where: string): SarifLocation[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new SarifFormatError("INVALID_STRUCTURE", `${where} is not an array.`);
  return raw.map((location) => locationOf(location, context));
}

function suppressionsOf(raw: unknown): SarifSuppression[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isObject).map((suppression) => ({
    kind: suppression.kind === "external" ? "external" : "inSource",
    status:
      suppression.status === "accepted" ||
      suppression.status === "underReview" ||
      suppression.status === "rejected"
        ? suppression.status
        : null,
    justification: stringOf(suppression.justification),
  }));
}

/** An embedded link `[text](target)` (SARIF §3.11.6), or an escaped bracket. */
const LINK_OR_ESCAPE = /\\([[\]])|\[((?:[^[\]\\]|\\.)*)\]\((\d+|[a-z][a-z0-9+.-]*:[^()\s]*)\)/gi;
const LINK = /\[(?:[^[\]\\]|\\.)*\]\((?:\d+|[a-z][a-z0-9+.-]*:[^()\s]*)\)/i;

/**
 * A plain-text message as a reader sees it (SARIF §3.11.6): an embedded link
 * `[text](target)`, whose target is a related location's id or an absolute URI, becomes its text,
 * and `\[` / `\]` become brackets. Staticcheck writes
 * `possible nil pointer dereference\n\t[this check suggests that the pointer can be nil](1)`.
 * Brackets that are no such link are left as written. A message with no link is left whole, its
 * backslashes too: a tool that writes links escapes its brackets, but ESLint's formatter writes
 * messages as ESLint prints them (`Unnecessary escape character: \[.`), where the backslash is
 * the point.
 */
export function plainMessage(text: string): string {
  if (!text.includes("[") || !LINK.test(text)) return text;
  return text.replace(
    LINK_OR_ESCAPE,
    (_whole, escaped: string | undefined, label: string | undefined) =>
      escaped ?? (label ?? "").replace(/\\([[\]])/g, "$1"),
  );
}

/** `message.text`, or the rule's `messageStrings[message.id]` with `{0}`-style arguments filled in (§3.11.5). */
function messageOf(raw: unknown, rule: SarifRule | null): string {
  const text = textOf(raw);
  if (text !== null || !isObject(raw)) return text ?? "";
  const template = typeof raw.id === "string" ? rule?.messageStrings[raw.id] : undefined;
  if (template === undefined) return "";
  const args = Array.isArray(raw.arguments) ? raw.arguments : [];
  return template.replace(/\{(\d+)\}/g, (whole, n: string) => {
    const arg = args[Number(n)];
    return typeof arg === "string" ? arg : whole;
  });
}

/** An invocation's notification (SARIF §3.58) as the tool's own error, or null below level `error`. */
export function toolErrorOf(raw: unknown, run: RunState, array: NotificationArray): SarifToolError | null {
  if (!isObject(raw) || levelOf(raw.level) !== "error") return null;
  const located = Array.isArray(raw.locations) ? raw.locations.find(isObject) : undefined;
  const location = located === undefined ? null : locationOf(located, run.context);
  const message = textOf(raw.message) ?? "(no message)";
  const error: SarifToolError = {
    runIndex: run.index,
    message,
    path: location?.outsideRepository === false ? location.path : (location?.uri ?? null),
    line: location?.region?.startLine ?? null,
  };
  if (isConfigurationNotice(array, message, run.tool)) error.configuration = true;
  else if (location?.outsideRepository === false && location.path) error.unanalyzedPath = location.path;
  return error;
}

/**
 * A notification below level `error` (SARIF's default level for one is `warning`, §3.58.6) that
 * names a repository file and is not about the tool's configuration, or null: ESLint's "File
 * ignored because no matching configuration was supplied." for a file it was given and lists.
 */
export function toolNoticeOf(raw: unknown, run: RunState, array: NotificationArray): SarifToolNotice | null {
  if (!isObject(raw) || levelOf(raw.level) === "error") return null;
  const located = Array.isArray(raw.locations) ? raw.locations.find(isObject) : undefined;
  const location = located === undefined ? null : locationOf(located, run.context);
  if (location?.path == null || location.outsideRepository) return null;
  if (isConfigurationNotice(array, textOf(raw.message) ?? "", run.tool)) return null;
  return { runIndex: run.index, path: location.path };
}

/** The roles (SARIF §3.24.6) of an artifact its tool looked at: it analyzed it, or found results in it. */
const ANALYZED_ROLES = new Set(["analysisTarget", "resultFile"]);

/**
 * The repository file an element of a run's `artifacts` (SARIF §3.24) lists as one its tool looked
 * at, or null: an artifact nested in another (`parentIndex`: a file in an archive), one whose
 * roles say it was something else (a configuration file, a directory), or one whose `location`
 * names no file of the repository. Its URI is resolved as a result's is.
 */
export function listedFileOf(
  location: unknown,
  roles: unknown,
  parentIndex: unknown,
  run: RunState,
): SarifListedFile | null {
  // -1, the default, is no parent.
  if (typeof parentIndex === "number" && parentIndex >= 0) return null;
  if (Array.isArray(roles) && roles.length > 0) {
    if (roles.includes("directory") || !roles.some((role) => ANALYZED_ROLES.has(role))) return null;
  }
  if (!isObject(location)) return null;
  const uri = stringOf(location.uri);
  if (uri === null) return null;
  const resolved = resolvedPathOf(uri, stringOf(location.uriBaseId), run.context);
  if (resolved.outsideRepository || !resolved.path) return null;
  return { runIndex: run.index, path: resolved.path };
}

/** The invocation's array a notification (SARIF §3.58) was in (§3.20). */
export type NotificationArray = "toolExecutionNotifications" | "toolConfigurationNotifications";

/** ESLint's problems with its directives, which its SARIF formatter files with its parsing errors. */
const ESLINT_DIRECTIVE_NOTICE = /^Unused (eslint-disable directive|eslint-enable directive|inline config)\b/;

/**
 * Whether a message of ESLint without a rule is about its directives (an unused
 * `eslint-disable`): about how it was directed, not about a file it could not lint.
 */
export function isEslintDirectiveNotice(message: string): boolean {
  return ESLINT_DIRECTIVE_NOTICE.test(message);
}

/**
 * True when a notification is about the tool's configuration, not its execution: SARIF puts
 * those in `toolConfigurationNotifications` ("conditions relevant to the tool's configuration"),
 * and what the run met, a file it could not read, in `toolExecutionNotifications` ("runtime
 * conditions detected by the tool during the analysis"; SARIF 2.1.0 §3.20). ESLint's formatter
 * (@microsoft/eslint-formatter-sarif) files every message without a rule there, its parsing
 * errors too, so of ESLint's only the directive problems ("Unused eslint-disable directive …")
 * are about configuration; the rest are what it could not analyze.
 */
function isConfigurationNotice(array: NotificationArray, message: string, tool: SarifTool | null): boolean {
  if (array !== "toolConfigurationNotifications") return false;
  if (tool?.name.toLowerCase() !== "eslint") return true;
  return isEslintDirectiveNotice(message);
}

/** Result `index` of `run` (§3.27) with its rule among `tool`'s, or the error naming what it lacks. */
export function resultOf(raw: unknown, index: number, run: RunState, tool: SarifTool): SarifResult {
  const where = `runs[${run.index}].results[${index}]`;
  if (!isObject(raw)) throw new SarifFormatError("INVALID_STRUCTURE", `${where} is not an object.`);
  const reference = isObject(raw.rule) ? raw.rule : {};
  const ruleIndex = typeof raw.ruleIndex === "number" ? raw.ruleIndex : reference.index;
  const ruleId = stringOf(raw.ruleId) ?? stringOf(reference.id);
  const component = componentOf(reference.toolComponent, tool, where);
  let rule: SarifRule | null = null;
  if (typeof ruleIndex === "number" && ruleIndex >= 0) {
    rule = component.rules[ruleIndex] ?? null;
    if (rule === null) {
      throw new SarifFormatError(
        "MISSING_RULE",
        `${where} refers to rule index ${ruleIndex}, but ${component.label} has ${component.rules.length} rules.`,
      );
    }
  } else if (ruleId !== null) {
    rule = component.rules.find((candidate) => candidate.id === ruleId) ?? null;
  }
  const id = ruleId ?? rule?.id;
  if (id === undefined)
    throw new SarifFormatError("MISSING_RULE", `${where} has neither "ruleId" nor "rule".`);
  const suppressions = suppressionsOf(raw.suppressions);
  const kind = kindOf(raw.kind);
  const ownLevel = levelOf(raw.level);
  const baseline = raw.baselineState;
  return {
    runIndex: run.index,
    index,
    ruleId: id,
    rule,
    level: ownLevel ?? (kind !== "fail" ? "none" : (rule?.defaultLevel ?? "warning")),
    ownLevel,
    kind,
    properties: propertiesOf(raw.properties),
    taxa: Array.isArray(raw.taxa) ? raw.taxa.flatMap((taxon) => taxonOf(taxon) ?? []) : [],
    message: messageOf(raw.message, rule),
    locations: locationsOf(raw.locations, run.context, `${where}.locations`),
    relatedLocations: locationsOf(raw.relatedLocations, run.context, `${where}.relatedLocations`),
    suppressions,
    isSuppressed:
      suppressions.some((s) => s.status === null || s.status === "accepted") &&
      !suppressions.some((s) => s.status === "underReview"),
    baselineState:
      baseline === "new" || baseline === "unchanged" || baseline === "updated" || baseline === "absent"
        ? baseline
        : null,
    partialFingerprints: stringRecord(raw.partialFingerprints),
    fingerprints: stringRecord(raw.fingerprints),
  };
}

/**
 * A `version` as an error shows it: quoted when it looks like a version number, else only its kind,
 * so a message never repeats arbitrary text of a report.
 */
function describeVersion(version: unknown): string {
  if (typeof version === "string" && /^\d{1,4}(\.\d{1,4}){0,3}(-[0-9A-Za-z.]{1,16})?$/.test(version)) {
    return JSON.stringify(version);
  }
  if (version === undefined) return "(none given)";
  return typeof version === "string" ? `(a string of ${version.length} characters)` : `(a ${typeof version})`;
}

/** Refuses a `version` (§3.13.2) other than "2.1.0", naming it when it looks like one. */
export function checkVersion(version: unknown): void {
  if (version !== "2.1.0") {
    throw new SarifFormatError(
      "UNSUPPORTED_VERSION",
      `Unsupported SARIF version ${describeVersion(version)}: only "2.1.0" is accepted.`,
    );
  }
}
