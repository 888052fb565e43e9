import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/**
 * What every MCP tool is made of: a fixed GraphQL operation run through a {@link ToolBackend}
 * (in-process on the server, over HTTP for the stdio entry), a mapping of its data to the tool's
 * output schema, and one way to turn a failure into an MCP tool error carrying the API's code.
 */

/** One error of a GraphQL answer, as the API sends it. */
export interface OperationError {
  message: string;
  extensions?: { code?: unknown; [key: string]: unknown };
}

/** A GraphQL answer: `data` and `errors`, as on the wire. */
export interface OperationResult {
  data?: unknown;
  errors?: readonly OperationError[];
}

/**
 * Where the tools send their operations. Both backends run them as the caller, so every tool
 * sees and may change exactly what the caller's token could through the GraphQL API.
 */
export interface ToolBackend {
  /** Runs `query` with `variables` as the caller. Throws a {@link ToolFailure} when refused outright. */
  run(query: string, variables: Record<string, unknown>): Promise<OperationResult>;
  /** Told of an unexpected error (a bug), which the caller only sees as INTERNAL_SERVER_ERROR. */
  unexpected(error: unknown): string;
}

/** A failure the caller is told of, with the API's stable code (`NOT_FOUND`, `FORBIDDEN`, …). */
export class ToolFailure extends Error {
  override name = "ToolFailure";

  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The data of `query`, or a {@link ToolFailure} with the first error's code. A partial answer
 * counts as a failure: a tool answers whole or not at all, so its output always fits its schema.
 */
export async function runOperation<T>(
  backend: ToolBackend,
  query: string,
  variables: Record<string, unknown>,
): Promise<T> {
  const result = await backend.run(query, variables);
  const first = result.errors?.[0];
  if (first) {
    const code = typeof first.extensions?.code === "string" ? first.extensions.code : "INTERNAL_SERVER_ERROR";
    throw new ToolFailure(code, first.message);
  }
  if (result.data === undefined || result.data === null) {
    throw new ToolFailure("INTERNAL_SERVER_ERROR", "The API answered no data.");
  }
  return result.data as T;
}

/** Throws NOT_FOUND, in the API's words, when `value` is null: an object the caller cannot see. */
export function found<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined)
    throw new ToolFailure("NOT_FOUND", `${what} does not exist or is not visible to you.`);
  return value;
}

/** A tool's answer: structured content that fits its output schema, and a short text for people. */
export interface ToolAnswer<O> {
  structured: O;
  text: string;
}

/**
 * The MCP result of running `answer`: its structured content and text, or an error result
 * (`isError: true`) whose text starts with the API's code, also given as `_meta.code`. An
 * unexpected error says INTERNAL_SERVER_ERROR with the reference the backend logged it under,
 * never its message or stack.
 */
export async function toolResult<O extends Record<string, unknown>>(
  backend: ToolBackend,
  answer: () => Promise<ToolAnswer<O>>,
): Promise<CallToolResult> {
  try {
    const { structured, text } = await answer();
    return { structuredContent: structured, content: [{ type: "text", text }] };
  } catch (error) {
    const failure =
      error instanceof ToolFailure
        ? error
        : new ToolFailure("INTERNAL_SERVER_ERROR", backend.unexpected(error));
    return {
      isError: true,
      content: [{ type: "text", text: `${failure.code}: ${failure.message}` }],
      _meta: { code: failure.code },
    };
  }
}

/** The VCS providers, as the API's `VCSProvider` enum names them. */
export const VCS_PROVIDERS = [
  "GITHUB",
  "GITHUB_ENTERPRISE",
  "GITLAB",
  "BITBUCKET",
  "BITBUCKET_DATACENTER",
  "ADS",
] as const;

/** The input that names a repository, as `Query.repository` takes it. */
export const repositoryInput = {
  login: z
    .string()
    .min(1)
    .describe("The login of the account (team or user) that owns the repository, e.g. `acme-labs`."),
  name: z.string().min(1).describe("The repository's name, e.g. `api-gateway`."),
  vcsProvider: z
    .enum(VCS_PROVIDERS)
    .default("GITHUB")
    .describe("Where the repository is hosted. Defaults to GITHUB."),
};

/** The variables of {@link repositoryInput}. */
export interface RepositoryVariables {
  login: string;
  name: string;
  vcsProvider: string;
}

/** The repository variables of a tool's arguments. */
export function repositoryVariables(args: RepositoryVariables): RepositoryVariables {
  return { login: args.login, name: args.name, vcsProvider: args.vcsProvider };
}

/** Page size and cursor inputs of a listing tool. */
export const pageInput = {
  first: z
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .describe("How many items to return (1 to 100, default 20)."),
  after: z
    .string()
    .optional()
    .describe(
      "Continue after this cursor: the `endCursor` of the previous answer. Leave out for the first page.",
    ),
};

/** Where a page ends, for asking the next one. */
export const pageInfoOutput = z
  .strictObject({
    totalCount: z.number().int().describe("How many items match in all."),
    hasNextPage: z.boolean().describe("True when there are more items after this page."),
    endCursor: z.string().nullable().describe("Pass as `after` to get the next page; null on an empty page."),
  })
  .describe("Paging: the total and where this page ends.");

/** A connection's page as the API sends it. */
export interface Connection<N> {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  edges: Array<{ node: N }>;
}

/** The GraphQL selection of a connection's page, around `node`. */
export function connectionSelection(node: string): string {
  return `totalCount pageInfo { hasNextPage endCursor } edges { node { ${node} } }`;
}

/** {@link pageInfoOutput} of a connection. */
export function pageOf(connection: Connection<unknown>): z.infer<typeof pageInfoOutput> {
  return {
    totalCount: connection.totalCount,
    hasNextPage: connection.pageInfo.hasNextPage,
    endCursor: connection.pageInfo.endCursor,
  };
}

/** "3 of 12" style counts for the text renderings. */
export function countText(shown: number, total: number, noun: string): string {
  return shown === total ? `${total} ${noun}` : `${shown} of ${total} ${noun}`;
}
