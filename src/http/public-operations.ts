import { type DocumentNode, getOperationAST, Kind } from "graphql";
import type { DocumentCache } from "../graphql/document-cache.ts";

/**
 * Which operations a caller may send without a valid token: those that carry their own credential
 * or need none. Device login (`registerDevice`, then polling `requestPatWithDeviceCode`) is how a
 * client without a token gets one; `verifyToken`, `refreshToken` and `revokeToken` are
 * authenticated by the token in their argument. Only such fields belong here: their resolvers must
 * never read `ctx.viewer` (on these requests it is ANONYMOUS_VIEWER, which throws UNAUTHENTICATED).
 */

/** Root fields, by operation type, that a caller without a token may select. */
export interface PublicRootFields {
  query: ReadonlySet<string>;
  mutation: ReadonlySet<string>;
}

/** The allow-list the endpoint uses. */
export const PUBLIC_ROOT_FIELDS: PublicRootFields = {
  query: new Set(),
  mutation: new Set([
    "registerDevice",
    "requestPatWithDeviceCode",
    "verifyToken",
    "refreshToken",
    "revokeToken",
  ]),
};

/**
 * The one operation a personal access token that expired recently (within its grace period) may
 * still authenticate: trading itself in for a new token. Judged like the public list.
 */
export const TOKEN_REFRESH_ROOT_FIELDS: PublicRootFields = {
  query: new Set(),
  mutation: new Set(["refreshPat"]),
};

/**
 * True when the operation of `document` that `operationName` picks (GetOperation, spec §6.1)
 * selects only fields listed for its operation type. Anything else answers false: no such
 * operation, a subscription, a fragment at the root (it could carry any field), or a root field
 * not listed, even beside listed ones.
 */
export function isPublicOperation(
  document: DocumentNode,
  operationName: string | null | undefined,
  publicRootFields: PublicRootFields = PUBLIC_ROOT_FIELDS,
): boolean {
  const operation = getOperationAST(document, operationName);
  if (!operation || operation.operation === "subscription") return false;
  const listed = publicRootFields[operation.operation];
  const selections = operation.selectionSet.selections;
  return (
    selections.length > 0 &&
    selections.every((selection) => selection.kind === Kind.FIELD && listed.has(selection.name.value))
  );
}

/**
 * {@link isPublicOperation} for a query text, parsed and validated through `documents` so the
 * endpoint does not parse it twice. A text that does not parse or validate is never public. A text
 * that does not even contain a listed name answers false without being parsed, so the many texts
 * sent without a token that could never be public cost nothing and stay out of the cache.
 */
export function isPublicRequest(
  documents: DocumentCache,
  query: string,
  operationName: string | null | undefined,
  publicRootFields: PublicRootFields = PUBLIC_ROOT_FIELDS,
): boolean {
  const names = [...publicRootFields.query, ...publicRootFields.mutation];
  if (!names.some((name) => query.includes(name))) return false;
  const { document, errors } = documents.prepare(query);
  return (
    document !== undefined &&
    errors.length === 0 &&
    isPublicOperation(document, operationName, publicRootFields)
  );
}
