import { MAX_TOOL_ERROR, type SarifEvent, type SarifResult, type SarifToolError } from "./types.ts";

/**
 * Results that are their tool's own errors rather than findings: a tool that could not analyze a
 * file and says so as a result of a rule of its own, where SARIF has notifications for it
 * (§3.58). By the tool's driver name, the rule ids that mean it.
 *
 * - oxlint (checked with 1.94): `OXL0001` ("oxlint-diagnostic") is its parser's or semantic
 *   checker's error (`Unexpected token`, `Identifier \`x\` has already been declared`); the file
 *   it names gets no other result, its rules did not run on it.
 */
const OWN_ERROR_RULES: ReadonlyMap<string, ReadonlySet<string>> = new Map([["oxlint", new Set(["OXL0001"])]]);

/**
 * `events` with each result that is its tool's own error ({@link OWN_ERROR_RULES}) given as that
 * error instead, naming its file as unanalyzed (docs/ingestion.md "Status"), as a notification of
 * the same error would be.
 */
export async function* withOwnErrors(events: AsyncIterable<SarifEvent>): AsyncGenerator<SarifEvent> {
  /** By run index, the rule ids of its tool that are errors; absent for a tool that has none. */
  const errorRules = new Map<number, ReadonlySet<string>>();
  for await (const event of events) {
    if (event.type === "run") {
      const rules = OWN_ERROR_RULES.get(event.run.tool.name.trim().toLowerCase());
      if (rules !== undefined) errorRules.set(event.run.index, rules);
    } else if (event.type === "result" && errorRules.get(event.result.runIndex)?.has(event.result.ruleId)) {
      yield { type: "toolError", error: toolErrorOfResult(event.result) };
      continue;
    }
    yield event;
  }
}

function toolErrorOfResult(result: SarifResult): SarifToolError {
  const location = result.locations[0] ?? null;
  const error: SarifToolError = {
    runIndex: result.runIndex,
    message: `${result.message || "(no message)"} (${result.ruleId})`.slice(0, MAX_TOOL_ERROR),
    path: location === null ? null : location.outsideRepository ? location.uri : location.path,
    line: location?.region?.startLine ?? null,
  };
  if (location !== null && !location.outsideRepository && location.path) error.unanalyzedPath = location.path;
  return error;
}
