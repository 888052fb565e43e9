import type { Kysely } from "kysely";
import type { Database } from "../db/types.ts";
import { builder } from "./builder.ts";
import { type GraphQLContext, RequestLoaders } from "./context.ts";
import { badUserInput } from "./errors.ts";
import { decodeGlobalId } from "./global-id.ts";

/**
 * Conventions every mutation follows (docs/workflows.md):
 * - Relay style: one `input: XInput!` argument whose type ends with an optional
 *   `clientMutationId: String`, and an `XPayload` that echoes it (contract mutations keep the
 *   contract's exact input and payload shapes, even where they differ).
 * - One transaction per mutation ({@link inTransaction}); events for webhooks are written in that
 *   same transaction (modules/events/outbox.ts), so a change and its event commit together.
 * - Ids: {@link keyOfId} turns a wrong-type or malformed id into BAD_USER_INPUT naming the field;
 *   an id of the right type that does not exist or is not visible is NOT_FOUND, worded exactly as
 *   for ids that never existed (modules/accounts/access.ts).
 */

builder.mutationType({ description: "The root of every change." });

/** The `clientMutationId` a payload echoes. */
export interface MutationEcho {
  clientMutationId: string | null;
}

/** The optional `clientMutationId` input field every `XInput` ends with. */
export function clientMutationIdInput(t: PothosSchemaTypes.InputFieldBuilder<BuilderTypesOf, "InputObject">) {
  return t.string({
    required: false,
    description: "Any string; the payload's `clientMutationId` echoes it (Relay).",
  });
}

/** The `clientMutationId` output field of every `XPayload`. */
export function clientMutationIdOutput<P extends MutationEcho>(
  t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypesOf, P>,
) {
  return t.string({
    nullable: true,
    description: "The input's `clientMutationId`, unchanged.",
    resolve: (payload) => payload.clientMutationId,
  });
}

/** A payload that only says the change was made. */
export interface OkPayload extends MutationEcho {
  ok: boolean;
}

/**
 * `XPayload { ok, clientMutationId }` for the mutations whose answer is only `ok`. The contract
 * types `ok` as `Boolean!` on some payloads and `Boolean` on others; `nullable` follows it.
 */
export function okPayloadType(
  name: string,
  description: string,
  okDescription: string,
  options: { nullable?: boolean } = {},
) {
  return builder.objectRef<OkPayload>(name).implement({
    description,
    fields: (t) => ({
      ok: t.boolean({
        nullable: options.nullable ?? false,
        description: okDescription,
        resolve: (p) => p.ok,
      }),
      clientMutationId: clientMutationIdOutput(t),
    }),
  });
}

/** `clientMutationId` from an input object, for the payload. */
export function echoOf(input: { clientMutationId?: string | null }): MutationEcho {
  return { clientMutationId: input.clientMutationId ?? null };
}

/**
 * Runs `change` in one transaction: everything it writes (the change and the events it records)
 * commits together or not at all.
 *
 * Inside `change`, read and write through `tx` only, never through `ctx.db` or a loader: the
 * embedded database runs one session at a time, so a query on another connection waits for this
 * transaction to end, which waits for the query — a deadlock.
 *
 * After the commit the request's loaders are replaced, so the payload's fields, and any later root
 * field of the same mutation document, read the new state rather than rows cached before it.
 */
export async function inTransaction<T>(
  ctx: GraphQLContext,
  change: (tx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  const result = await ctx.db.transaction().execute(change);
  ctx.loaders = new RequestLoaders(ctx.db);
  return result;
}

/**
 * The key inside a global id of type `typeName`. A malformed id or one of another type is the
 * caller's mistake and is answered BAD_USER_INPUT naming `field`; whether an object with that key
 * exists (and is visible) is for the caller of this function to settle, as NOT_FOUND.
 */
export function keyOfId(id: string | number, typeName: string, field: string): string {
  const decoded = decodeGlobalId(String(id));
  if (!decoded) throw badUserInput(`${field} is not a valid id.`, field);
  if (decoded.typeName !== typeName) {
    throw badUserInput(
      `${field} must be the id of ${withArticle(typeName)}, not of ${withArticle(decoded.typeName)}.`,
      field,
    );
  }
  return decoded.key;
}

/** "a Repository", "an Account". */
function withArticle(typeName: string): string {
  return `${/^[AEIOU]/.test(typeName) ? "an" : "a"} ${typeName}`;
}

type BuilderTypesOf = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
