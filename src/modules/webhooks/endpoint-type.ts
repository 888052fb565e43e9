import type {
  WebhookDeliveryAttemptRow,
  WebhookDeliveryRow,
  WebhookEndpointRow,
} from "../../db/types-webhooks.ts";
import { builder } from "../../graphql/builder.ts";
import { forbidden } from "../../graphql/errors.ts";
import { registerNodeType } from "../../graphql/node.ts";
import {
  connectionArgs,
  connectionType,
  globalIdField,
  NodeInterface,
  pageArgs,
} from "../../graphql/relay.ts";
import { accountById, viewerMembershipByAccountId } from "../accounts/account-loaders.ts";
import { AccountRef } from "../accounts/account-type.ts";
import { SUBSCRIBABLE_EVENT_TYPES, type WebhookEventType } from "../events/outbox.ts";
import { webhookEnvelope } from "./payloads.ts";
import {
  attemptsByDeliveryId,
  endpointById,
  eventById,
  visibleDeliveryByKey,
  visibleEndpointByKey,
} from "./webhook-loaders.ts";
import { deliveriesOfEndpoint, deliveryStatusFilter, endpointsOfAccount } from "./webhook-store.ts";

/**
 * Webhook endpoints, their deliveries and attempts (docs/webhooks.md). Only ADMINs of the
 * endpoint's team read them: other members get FORBIDDEN, everyone else NOT_FOUND as for an id
 * never issued (docs/permissions.md "Webhooks").
 */

const ADMIN_ONLY = "Only ADMINs of this account may see its webhooks.";

/** `WebhookEndpointStatus`. */
export const WebhookEndpointStatusEnum = builder.enumType("WebhookEndpointStatus", {
  description: "Whether an endpoint receives events.",
  values: {
    ENABLED: { description: "Events of the subscribed types are delivered." },
    PENDING_TEST: {
      description: "New: nothing is delivered until a test event is answered with a 2xx status.",
    },
    DISABLED: { description: "Nothing is delivered; `disabledReason` says why." },
  },
});

/** `WebhookDeliveryStatus`. */
export const WebhookDeliveryStatusEnum = builder.enumType("WebhookDeliveryStatus", {
  description: "Where a delivery stands.",
  values: {
    PENDING: { description: "Queued, being attempted, or waiting for its next attempt." },
    SUCCEEDED: { description: "The endpoint answered with a 2xx status." },
    FAILED: { description: "Given up: retries ran out, the test failed, or the endpoint was disabled." },
  },
});

const EVENT_TYPE_INFO: Record<
  Exclude<WebhookEventType, "test.event">,
  { name: string; description: string }
> = {
  "analysis_run.started": { name: "Analysis run started", description: "An analysis run was created." },
  "analysis_run.updated": {
    name: "Analysis run updated",
    description: "One check of an analysis run reported (one event per check).",
  },
  "repository.analysis.activated": {
    name: "Repository analysis activated",
    description: "Analysis was switched on for a repository.",
  },
  "repository.analysis.deactivated": {
    name: "Repository analysis deactivated",
    description: "Analysis was switched off for a repository.",
  },
  "repository_issue.introduced": {
    name: "Repository issue introduced",
    description: "An issue gained occurrences on the default branch (one event per issue).",
  },
  "repository_issue.resolved": {
    name: "Repository issue resolved",
    description: "An issue lost occurrences on the default branch (one event per issue).",
  },
  "team_member.added": { name: "Team member added", description: "A member joined the team." },
  "team_member.removed": { name: "Team member removed", description: "A member was removed from the team." },
  "team_member.updated": { name: "Team member updated", description: "A member's role changed." },
};

const WebhookEventTypeInfoRef = builder
  .objectRef<{ shortcode: string; name: string; description: string }>("WebhookEventType")
  .implement({
    description: "A type of event an endpoint can subscribe to.",
    fields: (t) => ({
      shortcode: t.string({
        description: "What `eventTypes` and the envelope's `type` call it, e.g. `analysis_run.updated`.",
        resolve: (e) => e.shortcode,
      }),
      name: t.string({ description: "A short name for people.", resolve: (e) => e.name }),
      shortDescription: t.string({ description: "When it is sent.", resolve: (e) => e.description }),
    }),
  });

builder.queryField("webhookEventTypes", (t) =>
  t.field({
    type: [WebhookEventTypeInfoRef],
    description: "The event types webhook endpoints can subscribe to (`test.event` is sent on demand only).",
    resolve: () =>
      SUBSCRIBABLE_EVENT_TYPES.map((shortcode) => ({
        shortcode,
        ...EVENT_TYPE_INFO[shortcode as Exclude<WebhookEventType, "test.event">],
      })),
  }),
);

/** One attempt of a delivery. */
export const WebhookDeliveryAttemptRef = builder
  .objectRef<WebhookDeliveryAttemptRow>("WebhookDeliveryAttempt")
  .implement({
    description: "One try at delivering: what the endpoint answered, or why there was no answer.",
    fields: (t) => ({
      attemptedAt: t.field({
        type: "DateTime",
        description: "When the request started.",
        resolve: (a) => a.attempted_at,
      }),
      statusCode: t.int({
        nullable: true,
        description: "The HTTP status the endpoint answered with; null when it did not answer.",
        resolve: (a) => a.status_code,
      }),
      succeeded: t.boolean({
        description: "True when the endpoint answered with a 2xx status.",
        resolve: (a) => a.status_code !== null && a.status_code >= 200 && a.status_code < 300,
      }),
      latencyMs: t.int({
        description: "How long the attempt took, in milliseconds.",
        resolve: (a) => a.latency_ms,
      }),
      responseExcerpt: t.string({
        nullable: true,
        description: "The first 1 KB of the answer's body, as UTF-8.",
        resolve: (a) => a.response_excerpt,
      }),
      error: t.string({
        nullable: true,
        description:
          "Why there was no answer: timeout, refused connection, TLS error, or a request not sent (refused address).",
        resolve: (a) => a.error,
      }),
    }),
  });

/** An endpoint of a team, where events are delivered. */
export const WebhookEndpointRef = builder.objectRef<WebhookEndpointRow>("WebhookEndpoint");

/** One event (or test) sent to one endpoint, with every attempt. */
export const WebhookDeliveryRef = builder.objectRef<WebhookDeliveryRow>("WebhookDelivery").implement({
  description: "One event sent to one endpoint, with every attempt at it. Retries and redeliveries reuse it.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("WebhookDelivery")),
    deliveryId: t.string({
      description: "The envelope's `id` and the `x-assay-delivery` header: the same on every attempt.",
      resolve: (d) => String(d.id),
    }),
    eventType: t.string({
      description: "The event's type, e.g. `analysis_run.updated`.",
      resolve: (d) => d.event_type,
    }),
    status: t.field({
      type: WebhookDeliveryStatusEnum,
      description: "Where the delivery stands.",
      resolve: (d) => d.status,
    }),
    attemptCount: t.int({ description: "How many attempts were made.", resolve: (d) => d.attempt_count }),
    nextAttemptAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the next attempt is due, while PENDING.",
      resolve: (d) => (d.status === "PENDING" ? d.next_attempt_at : null),
    }),
    createdAt: t.field({
      type: "DateTime",
      description: "When the event was recorded.",
      resolve: (d) => d.created_at,
    }),
    payload: t.field({
      type: "JSON",
      description: "The envelope as sent: `{ id, type, createdAt, data }`.",
      resolve: async (d, _args, ctx) => {
        const event = (await eventById(ctx).load(d.event_id))!;
        return webhookEnvelope(String(d.id), event.type, event.created_at, event.data);
      },
    }),
    attempts: t.field({
      type: [WebhookDeliveryAttemptRef],
      description: "Every attempt, oldest first.",
      resolve: (d, _args, ctx) => attemptsByDeliveryId(ctx).load(d.id),
    }),
    endpoint: t.field({
      type: WebhookEndpointRef,
      description: "Where the delivery goes.",
      resolve: async (d, _args, ctx) => (await endpointById(ctx).load(d.endpoint_id))!,
    }),
  }),
});

const WebhookDeliveryConnection = connectionType("WebhookDelivery", WebhookDeliveryRef, "webhook delivery");

WebhookEndpointRef.implement({
  description: "Where a team's events are delivered, and which ones.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("WebhookEndpoint")),
    url: t.string({ description: "The URL deliveries are POSTed to.", resolve: (e) => e.url }),
    eventTypes: t.stringList({
      description: "The event types delivered, by shortcode (see `webhookEventTypes`).",
      resolve: (e) => e.event_types,
    }),
    status: t.field({
      type: WebhookEndpointStatusEnum,
      description: "Whether events are delivered.",
      resolve: (e) => e.status,
    }),
    disabledReason: t.string({
      nullable: true,
      description: "Why the endpoint is DISABLED: by an ADMIN, or after failing for too long.",
      resolve: (e) => (e.status === "DISABLED" ? e.disabled_reason : null),
    }),
    disabledAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the endpoint was disabled.",
      resolve: (e) => (e.status === "DISABLED" ? e.disabled_at : null),
    }),
    secretPreview: t.string({
      description: "The last four characters of the signing secret (the secret itself is shown once).",
      resolve: (e) => e.secret_last_four,
    }),
    createdAt: t.field({
      type: "DateTime",
      description: "When the endpoint was added.",
      resolve: (e) => e.created_at,
    }),
    updatedAt: t.field({
      type: "DateTime",
      description: "When its settings last changed.",
      resolve: (e) => e.updated_at,
    }),
    account: t.field({
      type: AccountRef,
      description: "The team the endpoint belongs to.",
      resolve: async (e, _args, ctx) => (await accountById(ctx).load(e.account_id))!,
    }),
    deliveries: t.field({
      type: WebhookDeliveryConnection,
      description: "The endpoint's deliveries, newest first.",
      args: {
        ...connectionArgs(t.arg),
        status: t.arg({
          type: WebhookDeliveryStatusEnum,
          required: false,
          description: "Only deliveries in this status.",
        }),
      },
      resolve: (e, args, ctx) =>
        ctx.loaders.connections.load<WebhookDeliveryRow>(
          deliveriesOfEndpoint,
          e.id,
          pageArgs(args),
          deliveryStatusFilter(args.status),
        ),
    }),
  }),
});

const WebhookEndpointConnection = connectionType("WebhookEndpoint", WebhookEndpointRef, "webhook endpoint");

builder.objectField(AccountRef, "webhookEndpoints", (t) =>
  t.field({
    type: WebhookEndpointConnection,
    nullable: true,
    description:
      "The team's webhook endpoints, newest first. ADMINs only: other members get a FORBIDDEN error. Personal accounts have none.",
    args: connectionArgs(t.arg),
    resolve: async (account, args, ctx) => {
      const membership = await viewerMembershipByAccountId(ctx).load(account.id);
      if (membership?.role !== "ADMIN") throw forbidden(ADMIN_ONLY);
      return ctx.loaders.connections.load<WebhookEndpointRow>(endpointsOfAccount, account.id, pageArgs(args));
    },
  }),
);

registerNodeType("WebhookEndpoint", async (ctx, key) => {
  const row = await visibleEndpointByKey(ctx).load(key);
  if (row && row.viewer_role !== "ADMIN") throw forbidden(ADMIN_ONLY);
  return row;
});

registerNodeType("WebhookDelivery", async (ctx, key) => {
  const row = await visibleDeliveryByKey(ctx).load(key);
  if (row && row.viewer_role !== "ADMIN") throw forbidden(ADMIN_ONLY);
  return row;
});
