import { JSONParser, type ParsedTokenInfo, TokenizerError, TokenType } from "@streamparser/json";
import { type PathContext, resolveArtifactPath, type UriBase } from "./paths.ts";
import {
  type SarifEvent,
  SarifFormatError,
  type SarifKind,
  type SarifLevel,
  type SarifLocation,
  type SarifProperties,
  type SarifRegion,
  type SarifResult,
  type SarifRule,
  type SarifSuppression,
  type SarifTaxonRef,
  type SarifTool,
  type SarifToolError,
} from "./types.ts";

/**
 * A streaming SARIF 2.1.0 reader. The document is tokenised chunk by chunk (@streamparser/json);
 * only `version`, each run's `tool` and `originalUriBaseIds`, and one result at a time are ever
 * built as objects. With `keepStack: false` every finished value is dropped from its parent (unless
 * an enclosing value is selected), so neither `results` nor the arrays ingestion does not use
 * (artifacts, invocations, ...) grow; a token watcher (`DocumentShape`) notes the document's shape.
 *
 * Order: SARIF writers put `tool` before `results`, but JSON does not promise key order (tools that
 * sort keys put `results` first). Results met before their run's `tool` are buffered until it
 * arrives, so such a file costs memory in proportion to its results; with `tool` first, memory is
 * bounded by the largest single result. `version` is checked when it arrives; when it comes after
 * the runs, a wrong version fails the iteration at that point, after results were yielded, so a
 * consumer must treat the whole iteration as one unit (all or nothing).
 */

/** Options of {@link readSarif}. */
export interface ReadSarifOptions {
  /** The checkout directory on the CI machine (the upload's `metadata.workDir`), if known. */
  workDir?: string | null;
}

const SELECTORS = [
  "$.version",
  "$.runs.*.tool",
  "$.runs.*.originalUriBaseIds",
  "$.runs.*.results.*",
  "$.runs.*.invocations.*.toolExecutionNotifications.*",
  "$.runs.*.invocations.*.toolConfigurationNotifications.*",
];

/** The notification arrays of an invocation whose `error` entries are the tool's own errors. */
const NOTIFICATION_KEYS = new Set(["toolExecutionNotifications", "toolConfigurationNotifications"]);

/**
 * Watches the token stream for what the value callbacks cannot tell (with `keepStack: false`
 * nothing unselected is kept): whether the root is an object, whether it has a `runs` array, and
 * how many runs that array holds, including runs from which nothing was selected. A run's
 * `results` that is neither an array nor null fails at once: the result selector would find
 * nothing in it, and the report would pass for one without findings.
 */
class DocumentShape {
  rootIsObject: boolean | null = null;
  hasRuns = false;
  runCount = 0;
  private depth = 0;
  private inRuns = false;
  private previous: ParsedTokenInfo | null = null;
  private rootKey: unknown = null;
  private runKey: unknown = null;

  /** The last token seen: the one the parser refused, when it refuses one. */
  get lastToken(): ParsedTokenInfo | null {
    return this.previous;
  }

  observe(token: ParsedTokenInfo): void {
    if (this.rootIsObject === null) this.rootIsObject = token.token === TokenType.LEFT_BRACE;
    if (this.depth === 1 && token.token === TokenType.COLON) this.rootKey = this.previous?.value;
    if (this.depth === 3 && this.inRuns) this.checkRunMember(token);
    if (token.token === TokenType.LEFT_BRACE || token.token === TokenType.LEFT_BRACKET) {
      if (this.depth === 1 && this.rootKey === "runs" && this.previous?.token === TokenType.COLON) {
        this.inRuns = token.token === TokenType.LEFT_BRACKET;
        this.hasRuns = this.inRuns;
      } else if (this.depth === 2 && this.inRuns) {
        this.runCount += 1;
      }
      this.depth += 1;
    } else if (token.token === TokenType.RIGHT_BRACE || token.token === TokenType.RIGHT_BRACKET) {
      this.depth -= 1;
      if (this.depth === 1) this.inRuns = false;
    } else if (this.depth === 2 && this.inRuns && token.token !== TokenType.COMMA) {
      // A scalar where a run object should be; counted so the run is reported as having no tool.
      this.runCount += 1;
    }
    this.previous = token;
  }

  /** Notes the key of a run's member and refuses a `results` that is not an array (null aside). */
  private checkRunMember(token: ParsedTokenInfo): void {
    if (token.token === TokenType.COLON) {
      this.runKey = this.previous?.value;
      return;
    }
    const isValue = this.previous?.token === TokenType.COLON;
    if (!isValue || this.runKey !== "results") return;
    if (token.token === TokenType.LEFT_BRACKET || token.token === TokenType.NULL) return;
    throw new SarifFormatError("INVALID_STRUCTURE", `runs[${this.runCount - 1}].results is not an array.`);
  }
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
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
interface RunState {
  index: number;
  tool: SarifTool | null;
  context: PathContext;
  /** Raw results met before the run's `tool` (see the module comment). */
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

function toolOf(raw: unknown, runIndex: number): SarifTool {
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

function locationOf(raw: unknown, context: PathContext): SarifLocation {
  const physical = isObject(raw) ? raw.physicalLocation : undefined;
  const artifact = isObject(physical) ? physical.artifactLocation : undefined;
  const uri = isObject(artifact) ? stringOf(artifact.uri) : null;
  const uriBaseId = isObject(artifact) ? stringOf(artifact.uriBaseId) : null;
  const resolved = uri === null ? null : resolveArtifactPath(uri, uriBaseId ?? undefined, context);
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
function toolErrorOf(raw: unknown, run: RunState): SarifToolError | null {
  if (!isObject(raw) || levelOf(raw.level) !== "error") return null;
  const located = Array.isArray(raw.locations) ? raw.locations.find(isObject) : undefined;
  const location = located === undefined ? null : locationOf(located, run.context);
  return {
    runIndex: run.index,
    message: textOf(raw.message) ?? "(no message)",
    path: location?.outsideRepository === false ? location.path : (location?.uri ?? null),
    line: location?.region?.startLine ?? null,
  };
}

function resultOf(raw: unknown, index: number, run: RunState, tool: SarifTool): SarifResult {
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

function checkVersion(version: unknown): void {
  if (version !== "2.1.0") {
    throw new SarifFormatError(
      "UNSUPPORTED_VERSION",
      `Unsupported SARIF version ${describeVersion(version)}: only "2.1.0" is accepted.`,
    );
  }
}

/** A chunk of the document: bytes (UTF-8) or text. */
export type SarifChunk = Uint8Array | string;

/**
 * How much of a chunk the parser takes at once (bytes, or UTF-16 units of text). Between pieces
 * the reader gives the event loop a turn; a piece is a few milliseconds of parsing.
 */
const PIECE_SIZE = 64 * 1024;

/**
 * `chunk` in pieces of at most {@link PIECE_SIZE}. Any cut will do: the tokenizer joins a UTF-8
 * sequence or a surrogate pair split across two writes.
 */
function* piecesOf(chunk: SarifChunk): Generator<SarifChunk> {
  for (let start = 0; start < chunk.length; start += PIECE_SIZE) {
    yield typeof chunk === "string"
      ? chunk.slice(start, start + PIECE_SIZE)
      : chunk.subarray(start, start + PIECE_SIZE);
  }
}

/** Resolves on the event loop's next turn, after pending I/O callbacks (unlike a microtask). */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** What the tokenizer writes after the absolute byte offset of a character it cannot read. */
const TOKENIZER_POSITION = /absolute position "(\d+)"/;

/** A byte of the document as a message shows it: the character, or its code when unprintable. */
function describeByte(byte: number | undefined): string {
  if (byte === undefined) return "a character";
  return byte >= 0x21 && byte <= 0x7e
    ? `"${String.fromCharCode(byte)}"`
    : `byte 0x${byte.toString(16).padStart(2, "0")}`;
}

/** A token the parser did not expect here, in words. */
function describeToken(token: ParsedTokenInfo): string {
  switch (token.token) {
    case TokenType.STRING:
      // Its length, not its text: the string is part of the report.
      return `a string of ${String(token.value).length} characters`;
    case TokenType.NUMBER:
      return `number ${String(token.value)}`;
    case TokenType.TRUE:
    case TokenType.FALSE:
    case TokenType.NULL:
      return String(token.value);
    default:
      return `"${String(token.value)}"`;
  }
}

/**
 * The INVALID_JSON message for a parser error, naming the byte of the document (0-based, counted
 * over every chunk) where reading stopped: the unreadable character for a tokenizer error, the
 * start of the refused token for a parser error, the end of the document when it ends too early.
 */
function invalidJsonMessage(
  error: unknown,
  chunk: SarifChunk | null,
  chunkStart: number,
  lastToken: ParsedTokenInfo | null,
): string {
  if (chunk === null) {
    return `Invalid JSON: the document ends at byte ${chunkStart} before its value is complete (is the file cut short?).`;
  }
  if (error instanceof TokenizerError) {
    const found = TOKENIZER_POSITION.exec(error.message);
    const position = found ? Number(found[1]) : (lastToken?.offset ?? chunkStart);
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    return `Invalid JSON at byte ${position}: unexpected ${describeByte(bytes[position - chunkStart])}.`;
  }
  if (lastToken !== null) {
    return `Invalid JSON at byte ${lastToken.offset}: unexpected ${describeToken(lastToken)}.`;
  }
  const detail = error instanceof Error ? error.message : String(error);
  return `Invalid JSON at byte ${chunkStart}: ${detail}`;
}

/**
 * Reads a SARIF 2.1.0 log from a stream of chunks (a file read stream, an HTTP body, a
 * decompressor's output ...), yielding each run's header and then its results one by one.
 * Throws {@link SarifFormatError} naming the problem: invalid JSON (with the byte position), a
 * version other than 2.1.0 or none, no `runs` array, a run without `tool.driver`, a result
 * without a rule.
 */
export async function* readSarif(
  source: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
  options: ReadSarifOptions = {},
): AsyncGenerator<SarifEvent> {
  const workDir = options.workDir ?? null;
  const parser = new JSONParser({ paths: SELECTORS, keepStack: false });
  const queue: SarifEvent[] = [];
  const runs = new Map<number, RunState>();
  const shape = new DocumentShape();
  parser.onToken = (token) => shape.observe(token);
  let versionSeen = false;
  let bytesRead = 0;

  const runState = (index: number): RunState => {
    let run = runs.get(index);
    if (run === undefined) {
      run = { index, tool: null, context: { workDir, originalUriBaseIds: {} }, pending: [] };
      runs.set(index, run);
    }
    return run;
  };

  parser.onValue = ({ value, key, stack }) => {
    if (stack.length === 1) {
      if (key === "version") {
        checkVersion(value);
        versionSeen = true;
      }
      return;
    }
    const runIndex = stack[2]?.key;
    if (typeof runIndex !== "number") return;
    const run = runState(runIndex);
    if (stack.length === 6 && NOTIFICATION_KEYS.has(String(stack[5]?.key)) && typeof key === "number") {
      const error = toolErrorOf(value, run);
      if (error !== null) queue.push({ type: "toolError", error });
    } else if (stack.length === 4 && stack[3]?.key === "results" && typeof key === "number") {
      if (run.tool === null) run.pending.push({ raw: value, index: key });
      else queue.push({ type: "result", result: resultOf(value, key, run, run.tool) });
    } else if (stack.length === 3 && key === "tool") {
      const tool = toolOf(value, runIndex);
      run.tool = tool;
      queue.push({ type: "run", run: { index: runIndex, tool } });
      for (const { raw, index } of run.pending)
        queue.push({ type: "result", result: resultOf(raw, index, run, tool) });
      run.pending = [];
    } else if (stack.length === 3 && key === "originalUriBaseIds" && isObject(value)) {
      run.context = { workDir, originalUriBaseIds: value as Record<string, UriBase> };
    }
  };

  const feed = (chunk: SarifChunk | null): void => {
    const size = chunk === null ? 0 : typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength;
    try {
      if (chunk === null) {
        if (!parser.isEnded) parser.end();
      } else parser.write(chunk);
    } catch (error) {
      if (error instanceof SarifFormatError) throw error;
      throw new SarifFormatError(
        "INVALID_JSON",
        invalidJsonMessage(error, chunk, bytesRead, shape.lastToken),
      );
    }
    bytesRead += size;
  };

  for await (const chunk of source) {
    for (const piece of piecesOf(chunk)) {
      feed(piece);
      yield* queue.splice(0);
      // Parsing is synchronous and the consumer's work per result mostly is: without a turn of
      // the event loop here, a large chunk would hold off every request of this process.
      await yieldToEventLoop();
    }
  }
  if (bytesRead === 0) throw new SarifFormatError("INVALID_JSON", "Invalid JSON: the document is empty.");
  feed(null);
  yield* queue.splice(0);

  if (shape.rootIsObject !== true) {
    throw new SarifFormatError("INVALID_STRUCTURE", "The SARIF log is not a JSON object.");
  }
  if (!versionSeen) {
    throw new SarifFormatError("MISSING_VERSION", 'The SARIF log has no "version" (expected "2.1.0").');
  }
  if (!shape.hasRuns) throw new SarifFormatError("MISSING_RUNS", 'The SARIF log has no "runs" array.');
  for (let index = 0; index < shape.runCount; index += 1) {
    if (runs.get(index)?.tool == null)
      throw new SarifFormatError("MISSING_TOOL", `runs[${index}] has no "tool".`);
  }
}
