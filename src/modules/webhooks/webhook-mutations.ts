import type { WebhookDeliveryRow, WebhookEndpointRow } from "../../db/types-webhooks.ts";
import { builder } from "../../graphql/builder.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import {
  clientMutationIdInput,
  clientMutationIdOutput,
  echoOf,
  type MutationEcho,
} from "../../graphql/mutations.ts";
import { VcsProviderEnum } from "../accounts/account-type.ts";
import type { AttemptResult } from "./delivery-http.ts";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  redeliverWebhookDelivery,
  sendWebhookTestEvent,
  updateWebhookEndpoint,
} from "./endpoint-service.ts";
import { WebhookDeliveryAttemptRef, WebhookDeliveryRef, WebhookEndpointRef } from "./endpoint-type.ts";
import { visibleDeliveryByKey, visibleEndpointByKey } from "./webhook-loaders.ts";

/**
 * The webhook mutations (docs/webhooks.md "Endpoints"), in the contract's style: verbNoun, one
 * `input: XInput!`, an `XPayload` echoing `clientMutationId`. Payload objects are read after the
 * commit through the request's loaders.
 */

/** The endpoint with `key` as it is now (after the mutation's commit). */
async function endpointNow(ctx: GraphQLContext, key: string): Promise<WebhookEndpointRow | null> {
  return visibleEndpointByKey(ctx).clear(key).load(key);
}

/** The delivery with `key` as it is now. */
async function deliveryNow(ctx: GraphQLContext, key: string): Promise<WebhookDeliveryRow | null> {
  return visibleDeliveryByKey(ctx).clear(key).load(key);
}

interface EndpointPayload extends MutationEcho {
  endpointKey: string;
  secret: string | null;
}

function endpointPayload(name: string, secretDescription: string) {
  return builder.objectRef<EndpointPayload>(name).implement({
    description: `The answer of \`${name.charAt(0).toLowerCase()}${name.slice(1, -"Payload".length)}\`.`,
    fields: (t) => ({
      endpoint: t.field({
        type: WebhookEndpointRef,
        nullable: true,
        description: "The endpoint, as it is now.",
        resolve: (p, _args, ctx) => endpointNow(ctx, p.endpointKey),
      }),
      secret: t.string({ nullable: true, description: secretDescription, resolve: (p) => p.secret }),
      clientMutationId: clientMutationIdOutput(t),
    }),
  });
}

const CreateWebhookEndpointPayload = endpointPayload(
  "CreateWebhookEndpointPayload",
  "The signing secret. Shown only here: afterwards only its last four characters can be read.",
);

const CreateWebhookEndpointInput = builder.inputType("CreateWebhookEndpointInput", {
  description: "A new endpoint: the team, the URL, the event types, and optionally the secret.",
  fields: (t) => ({
    accountId: t.id({
      required: false,
      description: "The team's global id. Or give `login` and `vcsProvider`.",
    }),
    login: t.string({ required: false, description: "The team's login, with `vcsProvider`." }),
    vcsProvider: t.field({
      type: VcsProviderEnum,
      required: false,
      description: "The team's provider, with `login`.",
    }),
    url: t.string({
      required: true,
      description: "Where deliveries are POSTed: an https:// URL whose host is a public address.",
    }),
    eventTypes: t.stringList({
      required: true,
      description: "The event types to deliver, by shortcode (see `webhookEventTypes`); at least one.",
    }),
    secret: t.string({
      required: false,
      description: "The signing secret, 16 to 256 printable characters; generated when not given.",
    }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

builder.mutationField("createWebhookEndpoint", (t) =>
  t.field({
    type: CreateWebhookEndpointPayload,
    nullable: true,
    description:
      "Adds a webhook endpoint to a team (team ADMINs only). It starts PENDING_TEST: send a test event that it answers with a 2xx status to enable it.",
    args: {
      input: t.arg({ type: CreateWebhookEndpointInput, required: true, description: "The endpoint." }),
    },
    resolve: async (_root, { input }, ctx) => ({
      ...(await createWebhookEndpoint(ctx, input)),
      ...echoOf(input),
    }),
  }),
);

const UpdateWebhookEndpointPayload = endpointPayload(
  "UpdateWebhookEndpointPayload",
  "The new signing secret when this call set or rotated it, shown only here; otherwise null.",
);

const UpdateWebhookEndpointInput = builder.inputType("UpdateWebhookEndpointInput", {
  description: "Changes to an endpoint; fields left out (or null) stay as they are.",
  fields: (t) => ({
    id: t.id({ required: true, description: "The endpoint's global id." }),
    url: t.string({ required: false, description: "A new URL (checked like a new endpoint's)." }),
    eventTypes: t.stringList({ required: false, description: "The new list of event types; at least one." }),
    secret: t.string({ required: false, description: "A new signing secret of your choice." }),
    rotateSecret: t.boolean({
      required: false,
      description: "True to replace the secret with a generated one (returned in the payload).",
    }),
    enabled: t.boolean({
      required: false,
      description:
        "False disables the endpoint. True enables it, once a test event sent after it was disabled (and after its URL or secret last changed) got a 2xx answer.",
    }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

builder.mutationField("updateWebhookEndpoint", (t) =>
  t.field({
    type: UpdateWebhookEndpointPayload,
    nullable: true,
    description:
      "Changes an endpoint's URL, event types or secret, or enables or disables it (team ADMINs only).",
    args: { input: t.arg({ type: UpdateWebhookEndpointInput, required: true, description: "The changes." }) },
    resolve: async (_root, { input }, ctx) => ({
      ...(await updateWebhookEndpoint(ctx, input)),
      ...echoOf(input),
    }),
  }),
);

const DeleteWebhookEndpointPayload = builder
  .objectRef<MutationEcho & { deletedId: string }>("DeleteWebhookEndpointPayload")
  .implement({
    description: "The answer of `deleteWebhookEndpoint`.",
    fields: (t) => ({
      ok: t.boolean({ description: "True: the endpoint and its deliveries are gone.", resolve: () => true }),
      deletedEndpointId: t.id({
        description: "The deleted endpoint's global id.",
        resolve: (p) => p.deletedId,
      }),
      clientMutationId: clientMutationIdOutput(t),
    }),
  });

const DeleteWebhookEndpointInput = builder.inputType("DeleteWebhookEndpointInput", {
  description: "The endpoint to delete.",
  fields: (t) => ({
    id: t.id({ required: true, description: "The endpoint's global id." }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

builder.mutationField("deleteWebhookEndpoint", (t) =>
  t.field({
    type: DeleteWebhookEndpointPayload,
    nullable: true,
    description: "Deletes an endpoint with its deliveries and their attempts (team ADMINs only).",
    args: {
      input: t.arg({ type: DeleteWebhookEndpointInput, required: true, description: "The endpoint." }),
    },
    resolve: async (_root, { input }, ctx) => {
      await deleteWebhookEndpoint(ctx, input.id);
      return { deletedId: String(input.id), ...echoOf(input) };
    },
  }),
);

interface TestPayload extends MutationEcho {
  endpointKey: string;
  deliveryKey: string;
  result: AttemptResult;
}

const SendWebhookTestEventPayload = builder.objectRef<TestPayload>("SendWebhookTestEventPayload").implement({
  description: "The answer of `sendWebhookTestEvent`: how the endpoint answered the test.",
  fields: (t) => ({
    succeeded: t.boolean({
      description: "True when the endpoint answered with a 2xx status.",
      resolve: (p) => p.result.succeeded,
    }),
    statusCode: t.int({
      nullable: true,
      description: "The HTTP status the endpoint answered with; null when it did not answer.",
      resolve: (p) => p.result.statusCode,
    }),
    error: t.string({
      nullable: true,
      description: "Why there was no answer (timeout, refused connection, refused address ...).",
      resolve: (p) => p.result.error,
    }),
    attempt: t.field({
      type: WebhookDeliveryAttemptRef,
      description: "The attempt, as the delivery's log keeps it.",
      resolve: (p) => ({
        id: "",
        delivery_id: "",
        attempted_at: p.result.attemptedAt,
        status_code: p.result.statusCode,
        latency_ms: p.result.latencyMs,
        response_excerpt: p.result.responseExcerpt,
        error: p.result.error,
      }),
    }),
    delivery: t.field({
      type: WebhookDeliveryRef,
      nullable: true,
      description: "The test's delivery.",
      resolve: (p, _args, ctx) => deliveryNow(ctx, p.deliveryKey),
    }),
    endpoint: t.field({
      type: WebhookEndpointRef,
      nullable: true,
      description: "The endpoint, as it is now (ENABLED when the test enabled it).",
      resolve: (p, _args, ctx) => endpointNow(ctx, p.endpointKey),
    }),
    clientMutationId: clientMutationIdOutput(t),
  }),
});

const SendWebhookTestEventInput = builder.inputType("SendWebhookTestEventInput", {
  description: "The endpoint to test.",
  fields: (t) => ({
    id: t.id({ required: true, description: "The endpoint's global id." }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

builder.mutationField("sendWebhookTestEvent", (t) =>
  t.field({
    type: SendWebhookTestEventPayload,
    nullable: true,
    description:
      'Delivers a `test.event` (`data: {"test": true}`) to the endpoint now, within this request, and answers how it went (team ADMINs only). A 2xx answer enables a PENDING_TEST endpoint.',
    args: { input: t.arg({ type: SendWebhookTestEventInput, required: true, description: "The endpoint." }) },
    resolve: async (_root, { input }, ctx) => ({
      ...(await sendWebhookTestEvent(ctx, input.id)),
      ...echoOf(input),
    }),
  }),
);

const RedeliverWebhookDeliveryPayload = builder
  .objectRef<MutationEcho & { deliveryKey: string }>("RedeliverWebhookDeliveryPayload")
  .implement({
    description: "The answer of `redeliverWebhookDelivery`.",
    fields: (t) => ({
      delivery: t.field({
        type: WebhookDeliveryRef,
        nullable: true,
        description: "The delivery, PENDING again.",
        resolve: (p, _args, ctx) => deliveryNow(ctx, p.deliveryKey),
      }),
      clientMutationId: clientMutationIdOutput(t),
    }),
  });

const RedeliverWebhookDeliveryInput = builder.inputType("RedeliverWebhookDeliveryInput", {
  description: "The delivery to send again.",
  fields: (t) => ({
    id: t.id({ required: true, description: "The delivery's global id." }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

builder.mutationField("redeliverWebhookDelivery", (t) =>
  t.field({
    type: RedeliverWebhookDeliveryPayload,
    nullable: true,
    description:
      "Queues a delivery again, with the same delivery id, so receivers recognise it (team ADMINs only; the endpoint must be ENABLED).",
    args: {
      input: t.arg({ type: RedeliverWebhookDeliveryInput, required: true, description: "The delivery." }),
    },
    resolve: async (_root, { input }, ctx) => ({
      deliveryKey: await redeliverWebhookDelivery(ctx, input.id),
      ...echoOf(input),
    }),
  }),
);
