import type {
  WebhookDeliveryAttemptRow,
  WebhookDeliveryRow,
  WebhookEndpointRow,
  WebhookEventRow,
} from "../../db/types-webhooks.ts";
import { alignRows, defineLoader, groupRows } from "../../graphql/context.ts";
import {
  findAttemptsOfDeliveries,
  findEndpointsByIds,
  findEventsByIds,
  findVisibleDeliveriesByKeys,
  findVisibleEndpointsByKeys,
  type WithViewerRole,
} from "./webhook-store.ts";

/**
 * Endpoints by key, in accounts the viewer belongs to, with the viewer's role there (readers
 * other than ADMINs are refused by the caller, which can tell them from strangers).
 */
export const visibleEndpointByKey = defineLoader<string, WithViewerRole<WebhookEndpointRow> | null>(
  "visibleWebhookEndpointByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleEndpointsByKeys(ctx.db, ctx.viewer.userId, keys), (e) => e.key),
);

/** Endpoints by internal id; only for foreign keys of rows the viewer already sees. */
export const endpointById = defineLoader<string, WebhookEndpointRow | null>(
  "webhookEndpointById",
  async (ctx, ids) => alignRows(ids, await findEndpointsByIds(ctx.db, ids), (e) => e.id),
);

/** Deliveries by key, to endpoints of accounts the viewer belongs to, with the viewer's role. */
export const visibleDeliveryByKey = defineLoader<string, WithViewerRole<WebhookDeliveryRow> | null>(
  "visibleWebhookDeliveryByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleDeliveriesByKeys(ctx.db, ctx.viewer.userId, keys), (d) => d.key),
);

/** The attempts of a delivery, oldest first, by delivery id. */
export const attemptsByDeliveryId = defineLoader<string, WebhookDeliveryAttemptRow[]>(
  "webhookAttemptsByDeliveryId",
  async (ctx, ids) => groupRows(ids, await findAttemptsOfDeliveries(ctx.db, ids), (a) => a.delivery_id),
);

/** Events by internal id; only for foreign keys of deliveries the viewer already sees. */
export const eventById = defineLoader<string, WebhookEventRow | null>("webhookEventById", async (ctx, ids) =>
  alignRows(ids, await findEventsByIds(ctx.db, ids), (e) => e.id),
);
