import { type Connection, PAGE_INFO } from "./paging.ts";

/**
 * What the consistency checks (consistency-findings.ts, consistency-measures.ts) read with: a
 * GraphQL query that answers its data or fails the test, and the repositories to look at.
 */

/** Sends `text` (with `variables`) and answers its `data`, failing on errors. */
export type Query = <T = Record<string, unknown>>(
  text: string,
  variables?: Record<string, unknown>,
) => Promise<T>;

/** A repository as `repository(login:, name:, vcsProvider:)` finds it. */
export interface RepositoryRef {
  login: string;
  name: string;
  vcsProvider: string;
}

/** `login/name`, for messages. */
export const labelOf = (repository: RepositoryRef): string => `${repository.login}/${repository.name}`;

/** A query document selecting `selection` in `repository`. */
export function inRepository(repository: RepositoryRef, selection: string): string {
  const { login, name, vcsProvider } = repository;
  return `{ repository(login: ${JSON.stringify(login)}, name: ${JSON.stringify(name)}, vcsProvider: ${vcsProvider}) { ${selection} } }`;
}

/** Every node of a repository's connection `field` (with `args`, e.g. `analyzerIn: ["x"]`), paged with `first`/`after`. */
export async function everyNode<N>(
  query: Query,
  repository: RepositoryRef,
  field: string,
  selection: string,
  args = "",
): Promise<N[]> {
  const nodes: N[] = [];
  let after: string | null = null;
  for (;;) {
    const page: Connection<N> = (
      await query<{ repository: Record<string, Connection<N>> }>(
        inRepository(
          repository,
          `${field}(first: 100${after ? `, after: ${JSON.stringify(after)}` : ""}${args ? `, ${args}` : ""}) { ${PAGE_INFO} edges { cursor node { ${selection} } } }`,
        ),
      )
    ).repository[field] as Connection<N>;
    nodes.push(...page.edges.map((edge) => edge.node));
    if (!page.pageInfo.hasNextPage) return nodes;
    after = page.pageInfo.endCursor;
  }
}

/** Every repository of every account the viewer belongs to. */
export async function viewerRepositories(query: Query): Promise<RepositoryRef[]> {
  const { viewer } = await query<{
    viewer: {
      accounts: {
        edges: Array<{
          node: { login: string; repositories: { edges: Array<{ node: Omit<RepositoryRef, "login"> }> } };
        }>;
      };
    };
  }>(`{ viewer { accounts(first: 100) { edges { node { login
        repositories(first: 100) { edges { node { name vcsProvider } } } } } } } }`);
  return viewer.accounts.edges.flatMap(({ node: account }) =>
    account.repositories.edges.map(({ node }) => ({ ...node, login: account.login })),
  );
}

/** Every finding a check lists: those `issues` lists and the silenced ones, `issues(isSuppressed: true)`. */
export const listedOf = (check: Pick<CheckRow, "issues" | "suppressed">): number =>
  check.issues.totalCount + check.suppressed.totalCount;

export const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

/** Counts by key, keys with 0 left out. */
export function tally(entries: ReadonlyArray<readonly [string, number]>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [key, value] of entries) counts[key] = (counts[key] ?? 0) + value;
  return Object.fromEntries(
    Object.entries(counts)
      .filter(([, value]) => value !== 0)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

export interface MetricRow {
  shortcode: string;
  items: Array<{ key: string; latestValue: number | null }>;
}

export interface CheckRow {
  analyzer: { shortcode: string };
  status: string;
  summary: { occurrencesIntroduced: number; occurrencesResolved: number; occurrencesSuppressed: number };
  /** The findings that need attention: `issues` leaves silenced ones out. */
  issues: { totalCount: number };
  /** The silenced findings, `issues(isSuppressed: true)`. */
  suppressed: { totalCount: number };
  metrics: MetricRow[];
}

export interface RunRow {
  runUid: string;
  commitOid: string;
  branchName: string | null;
  baseOid: string | null;
  status: string;
  createdAt: string;
  checks: { edges: Array<{ node: CheckRow }> };
}

/** The selection of a repository's metrics. */
export const METRICS = "metrics { shortcode items { key latestValue } }";
const CHECK = `analyzer { shortcode } status
  summary { occurrencesIntroduced occurrencesResolved occurrencesSuppressed } issues(first: 1) { totalCount }
  suppressed: issues(first: 1, isSuppressed: true) { totalCount } ${METRICS}`;
/** The statuses of a run or check that analysed the code. */
export const ANALYSED: readonly string[] = ["SUCCESS", "FAILURE"];

/** `SHORTCODE KEY` → value, of the metrics as the API lists them. */
export function valuesOf(metrics: readonly MetricRow[]): Map<string, number | null> {
  return new Map(
    metrics.flatMap((m) => m.items.map((i) => [`${m.shortcode} ${i.key}`, i.latestValue] as const)),
  );
}

/** Every run of `repository`, newest first, with its checks (and `selection`). */
export async function runsOf(query: Query, repository: RepositoryRef, selection = ""): Promise<RunRow[]> {
  return everyNode<RunRow>(
    query,
    repository,
    "analysisRuns",
    `runUid commitOid branchName baseOid status createdAt ${selection} checks(first: 100) { edges { node { ${CHECK} } } }`,
  );
}
