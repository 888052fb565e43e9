import { type DocumentNode, getOperationAST, Kind } from "graphql";
import type { DocumentCache } from "../graphql/document-cache.ts";

/**
 * Which operations a caller may send without a valid token. Today none: every request needs one.
 * The contract's device login is the first expected entry; it will be answered to callers who have
 * no token yet, and that is the only kind of operation that should ever be listed here.
 */

/** Root fields, by operation type, that a caller without a token may select. */
export interface PublicRootFields {
  query: ReadonlySet<string>;
  mutation: ReadonlySet<string>;
}

/** The allow-list the endpoint uses: empty, so every operation needs a valid token. */
export const PUBLIC_ROOT_FIELDS: PublicRootFields = { query: new Set(), mutation: new Set() };

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
 * endpoint does not parse it twice. A text that does not parse or validate is never public. With an
 * empty allow-list it answers false without parsing anything.
 */
export function isPublicRequest(
  documents: DocumentCache,
  query: string,
  operationName: string | null | undefined,
  publicRootFields: PublicRootFields = PUBLIC_ROOT_FIELDS,
): boolean {
  if (publicRootFields.query.size === 0 && publicRootFields.mutation.size === 0) return false;
  const { document, errors } = documents.prepare(query);
  return (
    document !== undefined &&
    errors.length === 0 &&
    isPublicOperation(document, operationName, publicRootFields)
  );
}
