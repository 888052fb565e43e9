import fs from "node:fs";
import { CliError, OutcomeUnknownError } from "./command.ts";
import type { UploadOptions } from "./upload-options.ts";
import { formatBytes } from "./upload-progress.ts";

/**
 * The HTTP side of `assay upload` (src/cli/upload-command.ts): posting GraphQL requests, reading
 * `uploadArtifact`'s answer into a result or one clear error, and looking a repository up by
 * provider, login and name.
 */

/** Set by the standalone package's build (scripts/build-cli.ts), which has no package.json beside the source. */
declare const ASSAY_CLI_VERSION: string | undefined;

/** This program's version, sent as `reporterVersion` and in the user agent: the server's version. */
export const CLI_VERSION =
  typeof ASSAY_CLI_VERSION === "string"
    ? ASSAY_CLI_VERSION
    : (
        JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
          version: string;
        }
      ).version;

const REPOSITORY_QUERY =
  "query Repository($name: String!, $login: String!, $vcsProvider: VCSProvider!) { repository(name: $name, login: $login, vcsProvider: $vcsProvider) { id } }";

/** What `uploadArtifact` answered when it accepted the report. */
export interface UploadAnswer {
  /** The server's sentence, with its warnings (results outside the repository...). */
  message: string;
  /** The stored artifact's global id (`Artifact`, a node), to follow its processing. */
  artifactId: string | null;
  run: { id: string; runUid: string; status: string } | null;
}

/** One GraphQL answer as received. */
export interface HttpAnswer {
  status: number;
  text: string;
}

/**
 * POSTs a GraphQL request to `<url>/graphql/` with the token. A streamed body is sent as it is
 * produced (`duplex: "half"`). Network failures become an {@link OutcomeUnknownError} naming the
 * server: whether the upload arrived cannot be told.
 */
export async function postGraphql(
  url: string,
  token: string,
  body: string | AsyncIterable<Uint8Array>,
): Promise<HttpAnswer> {
  const endpoint = `${url}/graphql/`;
  try {
    const response = await fetch(endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        authorization: `Bearer ${token}`,
        "user-agent": `assay-cli/${CLI_VERSION}`,
      },
      body: typeof body === "string" ? body : streamOf(body),
      duplex: "half",
      // A streamed body cannot be sent twice, so a redirect could not be followed anyway; and
      // with redirects allowed, undici tees the body and keeps the whole upload in memory
      // (nodejs/undici#4058).
      redirect: "error",
    });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    const own = ownError(error);
    if (own) throw own;
    // A redirect is an answer, and a wrong --url to fix: not an outage.
    if (isRedirect(error)) {
      throw new CliError(
        `cannot reach ${endpoint}: the server answered with a redirect; give --url the address it redirects to`,
      );
    }
    throw new OutcomeUnknownError(`cannot reach ${endpoint}: ${describeNetworkError(error)}`);
  }
}

/** A pull-driven web stream over `chunks`: the next chunk is made only when fetch wants it. */
function streamOf(chunks: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** A CliError raised while the body was produced (e.g. the file could not be read), if that is what failed. */
function ownError(error: unknown): CliError | null {
  for (let e = error; e instanceof Error; e = e.cause) if (e instanceof CliError) return e;
  return null;
}

function causeOf(error: unknown): unknown {
  return error instanceof Error && error.cause instanceof Error ? error.cause : error;
}

function isRedirect(error: unknown): boolean {
  const cause = causeOf(error);
  return cause instanceof Error && cause.message === "unexpected redirect";
}

function describeNetworkError(error: unknown): string {
  const cause = causeOf(error);
  const code = (cause as { code?: unknown } | null)?.code;
  const message = cause instanceof Error ? cause.message : String(cause);
  return typeof code === "string" && !message.includes(code) ? `${code} ${message}` : message;
}

interface GraphqlDocument {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message?: string }>;
}

/**
 * The JSON document of an answer, after refusing HTTP errors with what they mean here. A server
 * error or a rate limit (5xx, 429) says nothing about the report: {@link OutcomeUnknownError}.
 */
function documentOf(answer: HttpAnswer, sentBytes: number | null): GraphqlDocument {
  let document: GraphqlDocument | null = null;
  try {
    document = JSON.parse(answer.text) as GraphqlDocument;
  } catch {
    document = null;
  }
  const firstError = document?.errors?.[0]?.message;
  if (answer.status === 413) {
    const size = sentBytes === null ? "" : ` (${formatBytes(sentBytes)} after gzip and base64)`;
    throw new CliError(
      `the server refused the upload with HTTP 413: the file exceeds the server's upload limit${size}, ASSAY_ARTIFACT_MAX_BODY_BYTES`,
    );
  }
  if (answer.status === 401) {
    throw new CliError(
      `the server refused the token (HTTP 401)${firstError ? `: ${firstError}` : ""}; set ASSAY_TOKEN to a valid personal access token`,
    );
  }
  if (answer.status < 200 || answer.status > 299 || document === null) {
    const detail = firstError ?? (answer.text.trim().slice(0, 200) || "no body");
    const message = `the server answered HTTP ${answer.status}: ${detail}`;
    throw answer.status >= 500 || answer.status === 429
      ? new OutcomeUnknownError(message)
      : new CliError(message);
  }
  if (firstError) throw new CliError(`the server answered with an error: ${firstError}`);
  return document;
}

/**
 * What `uploadArtifact` answered: the accepted upload, or a {@link CliError} saying why not (the
 * refusal's `error`, a GraphQL error, an HTTP status; 413 means the body limit).
 */
export function interpretUploadAnswer(answer: HttpAnswer, sentBytes: number | null): UploadAnswer {
  const document = documentOf(answer, sentBytes);
  const payload = document.data?.uploadArtifact as
    | {
        ok?: boolean;
        message?: string | null;
        error?: string | null;
        artifact?: { id?: string } | null;
        run?: UploadAnswer["run"];
      }
    | null
    | undefined;
  if (!payload) throw new CliError("the server's answer has no uploadArtifact result");
  if (payload.ok !== true)
    throw new CliError(payload.error || "the server refused the upload without a reason");
  return {
    message: payload.message ?? "Uploaded.",
    artifactId: payload.artifact?.id ?? null,
    run: payload.run ?? null,
  };
}

/** The `data` of a GraphQL query sent with the token; HTTP and GraphQL errors as {@link documentOf} raises them. */
export async function queryGraphql(
  url: string,
  token: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const answer = await postGraphql(url, token, JSON.stringify({ query, variables }));
  const data = documentOf(answer, null).data;
  if (!data) throw new CliError("the server's answer has no data");
  return data;
}

/** The repository's id: as given, or looked up by provider, login and name. */
export async function resolveRepositoryId(
  options: Pick<UploadOptions, "repository" | "url" | "token">,
): Promise<string> {
  const reference = options.repository;
  if ("id" in reference) return reference.id;
  const answer = await postGraphql(
    options.url,
    options.token,
    JSON.stringify({ query: REPOSITORY_QUERY, variables: reference }),
  );
  const repository = documentOf(answer, null).data?.repository as { id?: string } | null | undefined;
  if (!repository?.id) {
    throw new CliError(
      `no repository ${reference.login}/${reference.name} on ${reference.vcsProvider} that this token can see`,
    );
  }
  return repository.id;
}
