import fs from "node:fs";
import path from "node:path";

/**
 * The documented example operations (docs/examples) as the tests send them: the query, its
 * variables file, and the variables the tests derive from the demo data filled in by name.
 */

export const EXAMPLES_DIR = path.resolve(import.meta.dirname, "..", "..", "docs", "examples");

/** What the tests ask the demo data for the variables they derive. */
export const DERIVED_VARIABLES_QUERY = `{ repository(login: "acme-labs", name: "api-gateway", vcsProvider: GITHUB) {
    id analysisRuns(first: 1) { edges { node { runUid } } } } }`;

/** The derived variables (`id`, `runUid`) from the answer's `data` to {@link DERIVED_VARIABLES_QUERY}. */
export function derivedVariables(data: unknown): Record<string, unknown> {
  const { repository } = data as {
    repository: { id: string; analysisRuns: { edges: Array<{ node: { runUid: string } }> } };
  };
  return { id: repository.id, runUid: repository.analysisRuns.edges[0]?.node.runUid };
}

/** Example `name`'s query and variables, each derived variable the query uses filled in. */
export function exampleOperation(
  name: string,
  derived: Record<string, unknown>,
): { query: string; variables: Record<string, unknown> } {
  const query = fs.readFileSync(path.join(EXAMPLES_DIR, `${name}.graphql`), "utf8");
  const file = path.join(EXAMPLES_DIR, `${name}.variables.json`);
  const variables = fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>)
    : {};
  for (const [variable, value] of Object.entries(derived)) {
    if (new RegExp(`\\$${variable}\\b`).test(query)) variables[variable] = value;
  }
  return { query, variables };
}
