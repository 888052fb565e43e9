import type { Kysely } from "kysely";
import type { AccountRow, Database, VcsProvider } from "../../db/types.ts";
import type { WebhookEndpointRow } from "../../db/types-webhooks.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { badUserInput, forbidden } from "../../graphql/errors.ts";
import { newRowKey } from "../../graphql/global-id.ts";
import { inTransaction, keyOfId } from "../../graphql/mutations.ts";
import { cancelJobs, enqueueJob } from "../../jobs/job-store.ts";
import { administeredAccount, noSuchId, requireAdmin } from "../accounts/access.ts";
import { deliveryJob, deliveryJobKey, SUBSCRIBABLE_EVENT_TYPES } from "../events/outbox.ts";
import { checkEndpointUrl, MAX_URL_LENGTH, urlShapeProblem } from "./addresses.ts";
import type { AttemptResult } from "./delivery-http.ts";
import { attemptDelivery, settleAttempt } from "./delivery-service.ts";
import { loadDeliveryContext } from "./delivery-store.ts";
import { encryptSecret, generateSecret, secretLastFour, secretProblem } from "./secrets.ts";
import {
  countEndpointsOfAccount,
  deleteEndpoint,
  disableEndpoint,
  type EndpointChanges,
  insertEndpoint,
  insertTestDelivery,
  lockAccountOfViewer,
  lockDeliveryOfViewer,
  lockEndpointOfViewer,
  requeueDelivery,
  updateEndpoint,
} from "./webhook-store.ts";

/**
 * What the webhook mutations do (docs/webhooks.md "Endpoints"): who may, what input is valid,
 * and the changes, each in one transaction. Access is checked before a URL's host is resolved,
 * so only a team's ADMINs can make Assay look names up, and again, with the row locked, inside
 * the transaction that writes. A DNS answer is never awaited inside a transaction.
 */

/** Most endpoints one team may have. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 20;

/** A test event's job runs only if the request that sends it died: after the timeout and this margin. */
const TEST_RESCUE_MARGIN_MS = 30_000;

const ADMIN_ONLY = "Only ADMINs of this account may manage its webhooks.";

/** How a mutation names the account of a new endpoint: by id, or by login and provider. */
export interface AccountSelector {
  accountId?: string | number | null;
  login?: string | null;
  vcsProvider?: VcsProvider | null;
}

/** The team behind `selector`, if the viewer is one of its ADMINs (locked for update in `tx`). */
async function administeredTeam(
  ctx: GraphQLContext,
  tx: Kysely<Database>,
  selector: AccountSelector,
): Promise<AccountRow> {
  const byId = selector.accountId !== null && selector.accountId !== undefined;
  const byLogin = Boolean(selector.login) || Boolean(selector.vcsProvider);
  if (byId === byLogin || (byLogin && !(selector.login && selector.vcsProvider))) {
    throw badUserInput("Name the account with accountId, or with login and vcsProvider.", "accountId");
  }
  let account: AccountRow;
  if (byId) {
    const id = selector.accountId as string | number;
    const found = await lockAccountOfViewer(tx, ctx.viewer.userId, keyOfId(id, "Account", "accountId"));
    if (!found) noSuchId(id);
    const { viewer_role: _role, ...row } = found;
    await requireAdmin(ctx, tx, row, () => noSuchId(id), ADMIN_ONLY);
    account = row;
  } else {
    account = (
      await administeredAccount(
        ctx,
        tx,
        { login: selector.login!, vcsProvider: selector.vcsProvider! },
        ADMIN_ONLY,
      )
    ).account;
  }
  if (account.type !== "TEAM") {
    throw badUserInput("Webhooks are available to team accounts only.", byId ? "accountId" : "login");
  }
  return account;
}

/** The endpoint with key `key` (global id `id`), if the viewer is an ADMIN of its team (locked in `tx`). */
async function administeredEndpoint(
  ctx: GraphQLContext,
  tx: Kysely<Database>,
  key: string,
  id: string | number,
): Promise<WebhookEndpointRow> {
  const found = await lockEndpointOfViewer(tx, ctx.viewer.userId, key);
  if (!found) noSuchId(id);
  if (found.viewer_role !== "ADMIN") throw forbidden(ADMIN_ONLY);
  const { viewer_role: _role, ...endpoint } = found;
  return endpoint;
}

/** `eventTypes` without duplicates; BAD_USER_INPUT unless it is a non-empty list of subscribable types. */
export function validEventTypes(eventTypes: readonly string[]): string[] {
  if (eventTypes.length === 0)
    throw badUserInput("eventTypes must name at least one event type.", "eventTypes");
  for (const type of eventTypes) {
    if (!(SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes(type)) {
      throw badUserInput(
        `eventTypes: "${type}" is not an event type endpoints can subscribe to; use one of ${SUBSCRIBABLE_EVENT_TYPES.join(", ")}.`,
        "eventTypes",
      );
    }
  }
  return [...new Set(eventTypes)];
}

function validSecret(secret: string): string {
  const problem = secretProblem(secret);
  if (problem) throw badUserInput(`secret ${problem}.`, "secret");
  return secret;
}

/** Checks what can be checked of a URL without the network, so bad input fails before access is looked at. */
function checkUrlShape(raw: string, ctx: GraphQLContext): void {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw badUserInput("url is not an absolute URL.", "url");
  }
  if (raw.trim().length > MAX_URL_LENGTH) {
    throw badUserInput(`url must be at most ${MAX_URL_LENGTH} characters.`, "url");
  }
  const problem = urlShapeProblem(url, { allowHttp: ctx.config.webhookAllowHttp });
  if (problem) throw badUserInput(`url ${problem}.`, "url");
}

/** The normalised URL once its host resolves only to allowed addresses; BAD_USER_INPUT on `url` otherwise. */
async function resolvedUrl(raw: string, ctx: GraphQLContext): Promise<string> {
  const checked = await checkEndpointUrl(raw, {
    allowHttp: ctx.config.webhookAllowHttp,
    allowPrivateNetworks: ctx.config.webhookAllowPrivateNetworks,
  });
  if ("problem" in checked) throw badUserInput(`url ${checked.problem}.`, "url");
  return checked.url;
}

/** `createWebhookEndpoint`: the new endpoint's key, and its secret (shown this once). */
export async function createWebhookEndpoint(
  ctx: GraphQLContext,
  input: AccountSelector & { url: string; eventTypes: readonly string[]; secret?: string | null },
): Promise<{ endpointKey: string; secret: string }> {
  const eventTypes = validEventTypes(input.eventTypes);
  const secret =
    input.secret === null || input.secret === undefined ? generateSecret() : validSecret(input.secret);
  checkUrlShape(input.url, ctx);
  await administeredTeam(ctx, ctx.db, input);
  const url = await resolvedUrl(input.url, ctx);
  const key = newRowKey();
  await inTransaction(ctx, async (tx) => {
    const account = await administeredTeam(ctx, tx, input);
    if ((await countEndpointsOfAccount(tx, account.id)) >= MAX_ENDPOINTS_PER_ACCOUNT) {
      throw badUserInput(
        `A team can have at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints.`,
        input.accountId !== null && input.accountId !== undefined ? "accountId" : "login",
      );
    }
    await insertEndpoint(tx, {
      key,
      accountId: account.id,
      url,
      eventTypes,
      secretCiphertext: encryptSecret(secret, key, ctx.config.tokenPepper),
      secretLastFour: secretLastFour(secret),
      createdBy: ctx.viewer.userId,
    });
  });
  return { endpointKey: key, secret };
}

/** The input of `updateWebhookEndpoint`; null and absent fields stay as they are. */
export interface EndpointUpdate {
  id: string | number;
  url?: string | null;
  eventTypes?: readonly string[] | null;
  secret?: string | null;
  rotateSecret?: boolean | null;
  enabled?: boolean | null;
}

/** `updateWebhookEndpoint`: the endpoint's key, and its new secret when this call set one. */
export async function updateWebhookEndpoint(
  ctx: GraphQLContext,
  input: EndpointUpdate,
): Promise<{ endpointKey: string; secret: string | null }> {
  const key = keyOfId(input.id, "WebhookEndpoint", "id");
  const eventTypes = input.eventTypes ? validEventTypes(input.eventTypes) : undefined;
  if (input.secret !== null && input.secret !== undefined && input.rotateSecret) {
    throw badUserInput("Give secret or rotateSecret, not both.", "rotateSecret");
  }
  const newSecret =
    input.secret !== null && input.secret !== undefined
      ? validSecret(input.secret)
      : input.rotateSecret
        ? generateSecret()
        : null;
  if (input.url !== null && input.url !== undefined) checkUrlShape(input.url, ctx);
  await administeredEndpoint(ctx, ctx.db, key, input.id);
  const url = input.url !== null && input.url !== undefined ? await resolvedUrl(input.url, ctx) : undefined;

  await inTransaction(ctx, async (tx) => {
    const endpoint = await administeredEndpoint(ctx, tx, key, input.id);
    const changes: EndpointChanges = {
      ...(url !== undefined && url !== endpoint.url && { url }),
      ...(eventTypes && { eventTypes }),
      ...(newSecret !== null && {
        secret: {
          ciphertext: encryptSecret(newSecret, key, ctx.config.tokenPepper),
          lastFour: secretLastFour(newSecret),
        },
      }),
    };
    if (input.enabled === true && endpoint.status !== "ENABLED") {
      const testedSince = endpoint.last_test_ok_at;
      const testStillValid =
        testedSince !== null &&
        changes.url === undefined &&
        changes.secret === undefined &&
        (endpoint.disabled_at === null || testedSince > endpoint.disabled_at);
      if (!testStillValid) {
        throw badUserInput(
          "Send a test event (sendWebhookTestEvent) that the endpoint answers with a 2xx status before enabling it.",
          "enabled",
        );
      }
      changes.status = "ENABLED";
    }
    await updateEndpoint(tx, endpoint.id, changes);
    if (input.enabled === false && endpoint.status !== "DISABLED") {
      await disableEndpoint(tx, endpoint.id, "Disabled by an ADMIN of the team.");
    }
  });
  return { endpointKey: key, secret: newSecret };
}

/** `deleteWebhookEndpoint`. */
export async function deleteWebhookEndpoint(ctx: GraphQLContext, id: string | number): Promise<void> {
  const key = keyOfId(id, "WebhookEndpoint", "id");
  await inTransaction(ctx, async (tx) => {
    const endpoint = await administeredEndpoint(ctx, tx, key, id);
    await deleteEndpoint(tx, endpoint.id);
  });
}

/**
 * `sendWebhookTestEvent`: records a test event and its delivery (with a job that delivers it
 * only if this request dies on the way), attempts it now outside any transaction, and settles
 * it: a 2xx answer enables a PENDING_TEST endpoint.
 */
export async function sendWebhookTestEvent(
  ctx: GraphQLContext,
  id: string | number,
): Promise<{ endpointKey: string; deliveryKey: string; result: AttemptResult }> {
  const key = keyOfId(id, "WebhookEndpoint", "id");
  const delivery = await inTransaction(ctx, async (tx) => {
    const endpoint = await administeredEndpoint(ctx, tx, key, id);
    const created = await insertTestDelivery(tx, endpoint, newRowKey());
    await enqueueJob(
      tx,
      deliveryJob(String(created.id), ctx.config.webhookTimeoutMs + TEST_RESCUE_MARGIN_MS),
    );
    return created;
  });
  const context = await loadDeliveryContext(ctx.db, String(delivery.id));
  if (!context) noSuchId(id);
  const result = await attemptDelivery(context, ctx.config);
  await inTransaction(ctx, async (tx) => {
    // The endpoint (settleAttempt locks it first) before the rescue job's row: the lock order.
    await settleAttempt(tx, context, result, ctx.config);
    await cancelJobs(tx, [deliveryJobKey(context.deliveryId)]);
  });
  return { endpointKey: key, deliveryKey: delivery.key, result };
}

/** `redeliverWebhookDelivery`: queues the delivery again, keeping its delivery id. */
export async function redeliverWebhookDelivery(ctx: GraphQLContext, id: string | number): Promise<string> {
  const key = keyOfId(id, "WebhookDelivery", "id");
  await inTransaction(ctx, async (tx) => {
    const found = await lockDeliveryOfViewer(tx, ctx.viewer.userId, key);
    if (!found) noSuchId(id);
    if (found.role !== "ADMIN") throw forbidden(ADMIN_ONLY);
    if (found.endpoint.status !== "ENABLED") {
      throw badUserInput(
        `The delivery's endpoint is ${found.endpoint.status}; enable it before redelivering.`,
        "id",
      );
    }
    await requeueDelivery(tx, found.delivery.id);
    await enqueueJob(tx, deliveryJob(String(found.delivery.id)));
  });
  return key;
}
