import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { setTimeout } from "node:timers/promises";
import { type Kysely, sql } from "kysely";
import { verifyDeepSourceSignature, verifyWebhook } from "../docs/examples/verify-webhook.mjs";
import type { AccountRow, Database, RepositoryRow, UserRow } from "../src/db/types.ts";
import type { WebhookDeliveryRow } from "../src/db/types-webhooks.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { recordEvent } from "../src/modules/events/outbox.ts";
import { repositoryObject } from "../src/modules/repositories/repository-events.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { aWebhookDelivery, aWebhookEndpoint } from "./helpers/builders-webhooks.ts";
import { waitFor } from "./helpers/instance.ts";
import { dataOf, type GraphQLResponse, gql, startTestServer, type TestServer } from "./helpers/server.ts";
import { type Receiver, startReceiver } from "./helpers/webhook-receiver.ts";

/**
 * Webhook endpoints and deliveries over HTTP (docs/webhooks.md), against a real local receiver
 * that verifies signatures with the documented snippet and processes each delivery id once.
 * Events are recorded with `recordEvent`, as the mutations that cause them do.
 */

/** A server that may deliver to the local receiver, retrying fast. */
const LOCAL_DELIVERY = {
  ASSAY_WEBHOOK_ALLOW_HTTP: "true",
  ASSAY_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  ASSAY_WORKER_POLL_MS: "50",
  ASSAY_WEBHOOK_BACKOFF_BASE_MS: "100",
  ASSAY_WEBHOOK_BACKOFF_MAX_MS: "200",
  ASSAY_WEBHOOK_TIMEOUT_MS: "3000",
};

const ENDPOINT_FIELDS =
  "id url eventTypes status disabledReason disabledAt secretPreview createdAt account { id }";
const DELIVERY_FIELDS = `id deliveryId eventType status attemptCount nextAttemptAt createdAt payload
  attempts { attemptedAt statusCode succeeded latencyMs responseExcerpt error } endpoint { id }`;

const CREATE = `mutation($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { clientMutationId secret endpoint { ${ENDPOINT_FIELDS} } } }`;
const UPDATE = `mutation($input: UpdateWebhookEndpointInput!) {
  updateWebhookEndpoint(input: $input) { clientMutationId secret endpoint { ${ENDPOINT_FIELDS} } } }`;
const DELETE = `mutation($input: DeleteWebhookEndpointInput!) {
  deleteWebhookEndpoint(input: $input) { clientMutationId ok deletedEndpointId } }`;
const TEST = `mutation($input: SendWebhookTestEventInput!) {
  sendWebhookTestEvent(input: $input) { clientMutationId succeeded statusCode error
    attempt { statusCode succeeded latencyMs responseExcerpt error }
    delivery { ${DELIVERY_FIELDS} } endpoint { ${ENDPOINT_FIELDS} } } }`;
const REDELIVER = `mutation($input: RedeliverWebhookDeliveryInput!) {
  redeliverWebhookDelivery(input: $input) { clientMutationId delivery { ${DELIVERY_FIELDS} } } }`;
const NODE = `query($id: ID!) { node(id: $id) { id ... on WebhookEndpoint { ${ENDPOINT_FIELDS} } } }`;
const DELIVERY_NODE = `query($id: ID!) { node(id: $id) { id ... on WebhookDelivery { ${DELIVERY_FIELDS} } } }`;
const DELIVERIES = `query($id: ID!, $status: WebhookDeliveryStatus) { node(id: $id) {
  ... on WebhookEndpoint { deliveries(status: $status) { totalCount edges { node { ${DELIVERY_FIELDS} } } } } } }`;

interface Endpoint {
  id: string;
  url: string;
  eventTypes: string[];
  status: string;
  disabledReason: string | null;
  disabledAt: string | null;
  secretPreview: string;
  account: { id: string };
}

interface Attempt {
  statusCode: number | null;
  succeeded: boolean;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
}

interface Delivery {
  id: string;
  deliveryId: string;
  eventType: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  createdAt: string;
  payload: { id: string; type: string; createdAt: number; data: unknown };
  attempts: Attempt[];
}

/** Waits for `condition`, checking every 100 ms: these checks read the database while the worker writes. */
async function gently(what: string, condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, `timed out after ${timeoutMs} ms waiting for ${what}`);
    await setTimeout(100);
  }
}

/** The one error of `response`, with its code and field. */
function errorOf(response: GraphQLResponse): { code: unknown; field: unknown; message: string } {
  assert.equal(response.body.errors?.length, 1, JSON.stringify(response.body));
  const [error] = response.body.errors!;
  return { code: error!.extensions?.code, field: error!.extensions?.field, message: error!.message };
}

/** Records `repository.analysis.activated` for `repository`, as activating it would. */
function recordActivation(
  db: Kysely<Database>,
  account: AccountRow,
  repository: RepositoryRow,
): Promise<void> {
  return db.transaction().execute((tx) =>
    recordEvent(tx, {
      accountId: account.id,
      type: "repository.analysis.activated",
      data: { object: repositoryObject(repository, account, null) },
    }),
  );
}

async function countRows(
  db: Kysely<Database>,
  table: "webhook_endpoints" | "webhook_deliveries",
): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe("webhook endpoints and deliveries over HTTP", () => {
  let server: TestServer;
  let receiver: Receiver;
  let team: AccountRow;
  let otherTeam: AccountRow;
  let personal: AccountRow;
  let repository: RepositoryRow;
  let admin: string;
  let member: string;
  let stranger: string;
  let alice: UserRow;

  const call = (token: string, query: string, variables: Record<string, unknown>) =>
    gql(server.endpoint, token, query, variables);

  /** Creates an endpoint at the receiver for `team` and enables it with a test; answers it and its secret. */
  async function enabledEndpoint(eventTypes = ["repository.analysis.activated"]) {
    // Earlier tests' endpoints would hear the same events: retire them and their queued work.
    await quiesce();
    await server.db
      .updateTable("webhook_endpoints")
      .set({ status: "DISABLED" })
      .where("account_id", "=", team.id)
      .execute();
    await server.db.deleteFrom("jobs").execute();
    const created = dataOf(
      await call(admin, CREATE, {
        input: { accountId: encodeGlobalId("Account", team.key), url: receiver.url, eventTypes },
      }),
    ).createWebhookEndpoint as { secret: string; endpoint: Endpoint };
    receiver.secret = created.secret;
    receiver.answer = () => ({ status: 200 });
    const tested = dataOf(await call(admin, TEST, { input: { id: created.endpoint.id } }))
      .sendWebhookTestEvent as { succeeded: boolean };
    assert.equal(tested.succeeded, true);
    return created;
  }

  /** The requests the receiver got for one delivery id. */
  function requestsFor(deliveryId: string) {
    return receiver.requests.filter((r) => r.headers["x-assay-delivery"] === deliveryId);
  }

  /**
   * The newest delivery of `endpointId` once `predicate` holds for it, then waits for the worker
   * to be idle. Polls with one statement at a time rather than through the API.
   */
  async function settledDelivery(
    endpointId: string,
    predicate: (row: WebhookDeliveryRow) => boolean,
  ): Promise<WebhookDeliveryRow> {
    const key = Buffer.from(endpointId, "base64").toString().split(":")[1]!;
    let found: WebhookDeliveryRow | undefined;
    await gently(
      "the delivery",
      async () => {
        found = await server.db
          .selectFrom("webhook_deliveries as d")
          .innerJoin("webhook_endpoints as e", "e.id", "d.endpoint_id")
          .selectAll("d")
          .where("e.key", "=", key)
          .where("d.event_type", "!=", "test.event")
          .orderBy("d.id", "desc")
          .executeTakeFirst();
        return found !== undefined && predicate(found);
      },
      10_000,
    );
    await quiesce();
    return found!;
  }

  /** Waits until no job is due or running, so the worker is idle. */
  async function quiesce(): Promise<void> {
    await gently("the worker to be idle", async () => {
      const busy = await server.db
        .selectFrom("jobs")
        .select("id")
        .where("state", "=", "QUEUED")
        .where((eb) =>
          eb.or([eb("run_at", "<=", sql<Date>`now()`), eb("locked_until", ">", sql<Date>`now()`)]),
        )
        .executeTakeFirst();
      return busy === undefined;
    });
  }

  async function deliveriesOf(endpointId: string, status?: string): Promise<Delivery[]> {
    const res = await call(admin, DELIVERIES, { id: endpointId, status });
    const node = dataOf(res).node as { deliveries: { edges: Array<{ node: Delivery }> } };
    return node.deliveries.edges.map((e) => e.node);
  }

  before(async () => {
    server = await startTestServer(LOCAL_DELIVERY);
    receiver = await startReceiver();
    const { db } = server;
    alice = await aUser(db);
    const bob = await aUser(db);
    const carol = await aUser(db);
    team = await anAccount(db, {}, [
      { user: alice, role: "ADMIN", isOwner: true },
      { user: bob, role: "MEMBER" },
    ]);
    otherTeam = await anAccount(db, {}, [{ user: carol, role: "ADMIN", isOwner: true }]);
    personal = await anAccount(db, { type: "INDIVIDUAL" }, [{ user: alice, role: "ADMIN", isOwner: true }]);
    repository = await aRepository(db, team);
    admin = await aToken(db, server.config.tokenPepper, alice);
    member = await aToken(db, server.config.tokenPepper, bob);
    stranger = await aToken(db, server.config.tokenPepper, carol);
  });
  after(async () => {
    await server.stop();
    await receiver.close();
  });

  test("an ADMIN adds an endpoint: PENDING_TEST, its generated secret shown once, then only the last four", async () => {
    const res = await call(admin, CREATE, {
      input: {
        login: team.login,
        vcsProvider: "GITHUB",
        url: "https://hooks.example.com/assay",
        eventTypes: ["analysis_run.updated", "team_member.added", "analysis_run.updated"],
        clientMutationId: "c-1",
      },
    });
    const payload = dataOf(res).createWebhookEndpoint as {
      clientMutationId: string;
      secret: string;
      endpoint: Endpoint;
    };
    assert.equal(payload.clientMutationId, "c-1");
    assert.match(payload.secret, /^whsec_[A-Za-z0-9_-]{32}$/);
    assert.equal(payload.endpoint.status, "PENDING_TEST");
    assert.equal(payload.endpoint.url, "https://hooks.example.com/assay");
    assert.deepEqual(payload.endpoint.eventTypes, ["analysis_run.updated", "team_member.added"]);
    assert.equal(payload.endpoint.secretPreview, payload.secret.slice(-4));
    assert.equal(payload.endpoint.account.id, encodeGlobalId("Account", team.key));
    const stored = await server.db
      .selectFrom("webhook_endpoints")
      .select(["secret_ciphertext"])
      .where("key", "=", Buffer.from(payload.endpoint.id, "base64").toString().split(":")[1]!)
      .executeTakeFirstOrThrow();
    assert.ok(
      !stored.secret_ciphertext.includes(Buffer.from(payload.secret)),
      "the secret is not stored in the clear",
    );
    const read = await call(admin, NODE, { id: payload.endpoint.id });
    assert.deepEqual(dataOf(read).node, payload.endpoint);
    const listed = await call(
      admin,
      `query($login: String!) { account(login: $login, vcsProvider: GITHUB) {
      webhookEndpoints { totalCount edges { node { id } } } } }`,
      { login: team.login },
    );
    const edges = (dataOf(listed).account as { webhookEndpoints: { edges: Array<{ node: { id: string } }> } })
      .webhookEndpoints.edges;
    assert.equal(edges[0]?.node.id, payload.endpoint.id, "newest first");
  });

  test("a chosen secret is kept, and the account can be named by its id", async () => {
    const res = await call(admin, CREATE, {
      input: {
        accountId: encodeGlobalId("Account", team.key),
        url: "https://hooks.example.com/chosen",
        eventTypes: ["team_member.removed"],
        secret: "my-own-secret-0123456789",
      },
    });
    const payload = dataOf(res).createWebhookEndpoint as { secret: string; endpoint: Endpoint };
    assert.equal(payload.secret, "my-own-secret-0123456789");
    assert.equal(payload.endpoint.secretPreview, "6789");
  });

  test("nothing is queued for an endpoint before a test event gets a 2xx answer; that answer enables it", async () => {
    const created = dataOf(
      await call(admin, CREATE, {
        input: {
          login: team.login,
          vcsProvider: "GITHUB",
          url: receiver.url,
          eventTypes: ["repository.analysis.activated"],
        },
      }),
    ).createWebhookEndpoint as { secret: string; endpoint: Endpoint };
    receiver.secret = created.secret;
    await recordActivation(server.db, team, repository);
    assert.deepEqual(
      await deliveriesOf(created.endpoint.id),
      [],
      "a PENDING_TEST endpoint gets no deliveries",
    );

    receiver.answer = () => ({ status: 503, body: "not yet" });
    const failed = dataOf(
      await call(admin, TEST, { input: { id: created.endpoint.id, clientMutationId: "t" } }),
    ).sendWebhookTestEvent as {
      clientMutationId: string;
      succeeded: boolean;
      statusCode: number;
      attempt: Attempt;
      endpoint: Endpoint;
      delivery: Delivery;
    };
    assert.equal(failed.clientMutationId, "t");
    assert.equal(failed.succeeded, false);
    assert.equal(failed.statusCode, 503);
    assert.equal(failed.attempt.responseExcerpt, "not yet");
    assert.equal(failed.endpoint.status, "PENDING_TEST");
    assert.equal(failed.delivery.status, "FAILED");

    receiver.answer = () => ({ status: 204 });
    const before = receiver.requests.length;
    const passed = dataOf(await call(admin, TEST, { input: { id: created.endpoint.id } }))
      .sendWebhookTestEvent as {
      succeeded: boolean;
      statusCode: number;
      endpoint: Endpoint;
      delivery: Delivery;
    };
    assert.equal(passed.succeeded, true);
    assert.equal(passed.statusCode, 204);
    assert.equal(passed.endpoint.status, "ENABLED");
    assert.equal(passed.delivery.status, "SUCCEEDED");
    assert.equal(passed.delivery.attemptCount, 1);
    const request = receiver.requests[before]!;
    assert.equal(request.verified, true, request.verifyError ?? "");
    assert.equal(request.headers["content-type"], "application/json");
    assert.equal(request.headers["user-agent"], "Assay-Webhooks/1");
    assert.equal(request.headers["x-assay-event"], "test.event");
    const envelope = JSON.parse(request.body.toString());
    assert.deepEqual(Object.keys(envelope), ["id", "type", "createdAt", "data"]);
    assert.equal(envelope.id, passed.delivery.deliveryId);
    assert.match(envelope.id, /^\d+$/);
    assert.equal(envelope.type, "test.event");
    assert.deepEqual(envelope.data, { test: true });
    assert.ok(Math.abs(envelope.createdAt - Date.now() / 1000) < 60);
    assert.deepEqual(passed.delivery.payload, envelope);
  });

  test("a failed delivery is retried with the same delivery id until a 2xx answer, and every attempt can be read", async () => {
    const { endpoint, secret } = await enabledEndpoint();
    receiver.answer = (_request, nth) =>
      nth === 0 ? { status: 500, body: "boom" } : { status: 200, body: "thanks" };
    await recordActivation(server.db, team, repository);
    const row = await settledDelivery(endpoint.id, (d) => d.status === "SUCCEEDED");
    const [delivery] = await deliveriesOf(endpoint.id, "SUCCEEDED");
    assert.ok(delivery);
    assert.equal(delivery.deliveryId, String(row.id));
    const requests = requestsFor(delivery.deliveryId);
    assert.equal(requests.length, 2);
    for (const request of requests) {
      assert.equal(request.verified, true, request.verifyError ?? "");
      assert.equal(verifyDeepSourceSignature(request.body, request.headers, secret), true);
      assert.equal(request.headers["x-assay-delivery"], delivery.deliveryId);
      assert.equal(request.headers["x-assay-event"], "repository.analysis.activated");
    }
    assert.equal(
      requests[0]!.body.toString(),
      requests[1]!.body.toString(),
      "every attempt sends the same body",
    );
    const envelope: { data: { object: { object: string; id: string } } } = JSON.parse(
      requests[1]!.body.toString(),
    );
    assert.deepEqual(envelope, delivery.payload);
    assert.equal(envelope.data.object.object, "Repository");
    assert.equal(envelope.data.object.id, encodeGlobalId("Repository", repository.key));
    assert.equal(delivery.eventType, "repository.analysis.activated");
    assert.equal(delivery.attemptCount, 2);
    assert.equal(delivery.nextAttemptAt, null);
    assert.deepEqual(
      delivery.attempts.map((a) => [a.statusCode, a.succeeded, a.responseExcerpt, a.error]),
      [
        [500, false, "boom", null],
        [200, true, "thanks", null],
      ],
    );
    for (const attempt of delivery.attempts) assert.ok(attempt.latencyMs >= 0);
    assert.equal(receiver.processed.filter((p) => p.id === delivery.deliveryId).length, 1);

    const byNode = dataOf(await call(admin, DELIVERY_NODE, { id: delivery.id })).node as Delivery;
    assert.deepEqual(byNode.attempts, delivery.attempts);
  });

  test("a manual redelivery sends the same delivery id again, and the receiver processes it only once", async () => {
    const { endpoint } = await enabledEndpoint();
    receiver.answer = () => ({ status: 200 });
    await recordActivation(server.db, team, repository);
    const row = await settledDelivery(endpoint.id, (d) => d.status === "SUCCEEDED");
    const deliveryId = encodeGlobalId("WebhookDelivery", row.key);
    const res = await call(admin, REDELIVER, { input: { id: deliveryId, clientMutationId: "again" } });
    const payload = dataOf(res).redeliverWebhookDelivery as { clientMutationId: string; delivery: Delivery };
    assert.equal(payload.clientMutationId, "again");
    assert.equal(payload.delivery.status, "PENDING");
    assert.equal(payload.delivery.deliveryId, String(row.id));
    await settledDelivery(endpoint.id, (d) => d.status === "SUCCEEDED" && d.attempt_count === 2);
    const requests = requestsFor(String(row.id));
    assert.equal(requests.length, 2);
    assert.equal(requests[0]!.body.toString(), requests[1]!.body.toString());
    assert.equal(receiver.processed.filter((p) => p.id === String(row.id)).length, 1);
  });

  test("deliveries list newest first, filtered by status", async () => {
    const { endpoint } = await enabledEndpoint();
    receiver.answer = () => ({ status: 410, body: "gone" });
    await call(admin, TEST, { input: { id: endpoint.id } });
    const all = await deliveriesOf(endpoint.id);
    assert.deepEqual(
      all.map((d) => d.status),
      ["FAILED", "SUCCEEDED"],
    );
    assert.ok(all[0]!.createdAt >= all[1]!.createdAt);
    assert.deepEqual(
      (await deliveriesOf(endpoint.id, "FAILED")).map((d) => d.id),
      [all[0]!.id],
    );
    assert.deepEqual(
      (await deliveriesOf(endpoint.id, "SUCCEEDED")).map((d) => d.id),
      [all[1]!.id],
    );
  });

  test("rotating the secret shows the new one once, and deliveries are signed with it", async () => {
    const { endpoint, secret } = await enabledEndpoint();
    const res = await call(admin, UPDATE, {
      input: { id: endpoint.id, rotateSecret: true, clientMutationId: "r" },
    });
    const payload = dataOf(res).updateWebhookEndpoint as {
      clientMutationId: string;
      secret: string;
      endpoint: Endpoint;
    };
    assert.equal(payload.clientMutationId, "r");
    assert.notEqual(payload.secret, secret);
    assert.equal(payload.endpoint.secretPreview, payload.secret.slice(-4));
    assert.equal(payload.endpoint.status, "ENABLED", "a new secret keeps the status");
    const plain = dataOf(
      await call(admin, UPDATE, { input: { id: endpoint.id, eventTypes: ["team_member.added"] } }),
    ).updateWebhookEndpoint as { secret: string | null; endpoint: Endpoint };
    assert.equal(plain.secret, null);
    assert.deepEqual(plain.endpoint.eventTypes, ["team_member.added"]);
    receiver.secret = payload.secret;
    receiver.answer = () => ({ status: 200 });
    const tested = dataOf(await call(admin, TEST, { input: { id: endpoint.id } })).sendWebhookTestEvent as {
      succeeded: boolean;
    };
    assert.equal(tested.succeeded, true);
    const last = receiver.requests.at(-1)!;
    assert.equal(last.verified, true);
    assert.throws(() => verifyWebhook(last.body, last.headers, secret), /x-assay-signature does not match/);
  });

  test("disabling ends pending deliveries; enabling again needs a test answered 2xx after the disable", async () => {
    const { endpoint } = await enabledEndpoint();
    receiver.answer = () => ({ status: 500 });
    await recordActivation(server.db, team, repository);
    const pending = await settledDelivery(endpoint.id, (d) => d.status === "PENDING" && d.attempt_count > 0);
    const disabled = dataOf(await call(admin, UPDATE, { input: { id: endpoint.id, enabled: false } }))
      .updateWebhookEndpoint as { endpoint: Endpoint };
    assert.equal(disabled.endpoint.status, "DISABLED");
    assert.match(disabled.endpoint.disabledReason ?? "", /Disabled by an ADMIN/);
    assert.ok(disabled.endpoint.disabledAt);
    await quiesce();
    assert.deepEqual(await deliveriesOf(endpoint.id, "PENDING"), []);
    const job = await server.db
      .selectFrom("jobs")
      .select("id")
      .where("dedupe_key", "=", `webhook.deliver:${pending.id}`)
      .executeTakeFirst();
    assert.equal(job, undefined, "its job is gone");

    const refused = await call(admin, UPDATE, { input: { id: endpoint.id, enabled: true } });
    assert.deepEqual(errorOf(refused).code, "BAD_USER_INPUT");
    assert.equal(errorOf(refused).field, "enabled");
    const redeliverDisabled = await call(admin, REDELIVER, {
      input: { id: encodeGlobalId("WebhookDelivery", pending.key) },
    });
    assert.equal(errorOf(redeliverDisabled).code, "BAD_USER_INPUT");
    assert.equal(errorOf(redeliverDisabled).field, "id");
    receiver.answer = () => ({ status: 200 });
    const tested = dataOf(await call(admin, TEST, { input: { id: endpoint.id } })).sendWebhookTestEvent as {
      endpoint: Endpoint;
    };
    assert.equal(tested.endpoint.status, "DISABLED", "a test alone does not re-enable a disabled endpoint");
    const enabled = dataOf(await call(admin, UPDATE, { input: { id: endpoint.id, enabled: true } }))
      .updateWebhookEndpoint as { endpoint: Endpoint };
    assert.equal(enabled.endpoint.status, "ENABLED");
    assert.equal(enabled.endpoint.disabledReason, null);
    const sent = requestsFor(String(pending.id)).length;
    dataOf(await call(admin, REDELIVER, { input: { id: encodeGlobalId("WebhookDelivery", pending.key) } }));
    await waitFor("the redelivery", () => requestsFor(String(pending.id)).length > sent);
    await quiesce();
  });

  test("deleting an endpoint removes it with its deliveries", async () => {
    const { endpoint } = await enabledEndpoint();
    const [delivery] = await deliveriesOf(endpoint.id);
    const res = await call(admin, DELETE, { input: { id: endpoint.id, clientMutationId: "d" } });
    assert.deepEqual(dataOf(res).deleteWebhookEndpoint, {
      clientMutationId: "d",
      ok: true,
      deletedEndpointId: endpoint.id,
    });
    for (const id of [endpoint.id, delivery!.id]) {
      const gone = await call(admin, NODE, { id });
      assert.equal(errorOf(gone).code, "NOT_FOUND");
      assert.equal(errorOf(gone).message, `No node with id "${id}" exists.`);
    }
  });

  test("members without ADMIN get FORBIDDEN for every read and change, and nothing is written", async () => {
    const endpoint = await aWebhookEndpoint(server.db, server.config.tokenPepper, team);
    const delivery = await aWebhookDelivery(server.db, endpoint);
    const endpointId = encodeGlobalId("WebhookEndpoint", endpoint.key);
    const deliveryId = encodeGlobalId("WebhookDelivery", delivery.key);
    const endpoints = await countRows(server.db, "webhook_endpoints");
    const deliveries = await countRows(server.db, "webhook_deliveries");
    const attempts: Array<[string, Record<string, unknown>]> = [
      [
        CREATE,
        {
          input: {
            login: team.login,
            vcsProvider: "GITHUB",
            url: "https://a.example.com/",
            eventTypes: ["team_member.added"],
          },
        },
      ],
      [
        CREATE,
        {
          input: {
            accountId: encodeGlobalId("Account", team.key),
            url: "https://a.example.com/",
            eventTypes: ["team_member.added"],
          },
        },
      ],
      [UPDATE, { input: { id: endpointId, enabled: false } }],
      [DELETE, { input: { id: endpointId } }],
      [TEST, { input: { id: endpointId } }],
      [REDELIVER, { input: { id: deliveryId } }],
      [NODE, { id: endpointId }],
      [DELIVERY_NODE, { id: deliveryId }],
      [
        `query($login: String!) { account(login: $login, vcsProvider: GITHUB) { login webhookEndpoints { totalCount } } }`,
        { login: team.login },
      ],
    ];
    for (const [query, variables] of attempts) {
      const res = await call(member, query, variables);
      assert.equal(errorOf(res).code, "FORBIDDEN", `${query.slice(0, 60)}: ${JSON.stringify(res.body)}`);
    }
    assert.equal(await countRows(server.db, "webhook_endpoints"), endpoints);
    assert.equal(await countRows(server.db, "webhook_deliveries"), deliveries);
    const unchanged = await server.db
      .selectFrom("webhook_endpoints")
      .select("status")
      .where("id", "=", endpoint.id)
      .executeTakeFirstOrThrow();
    assert.equal(unchanged.status, "ENABLED");
  });

  test("another team's endpoints and deliveries answer exactly like ids never issued", async () => {
    const endpoint = await aWebhookEndpoint(server.db, server.config.tokenPepper, team);
    const delivery = await aWebhookDelivery(server.db, endpoint);
    const cases: Array<[string, string, string, (id: string) => Record<string, unknown>]> = [
      [UPDATE, "WebhookEndpoint", endpoint.key, (id) => ({ input: { id, enabled: false } })],
      [DELETE, "WebhookEndpoint", endpoint.key, (id) => ({ input: { id } })],
      [TEST, "WebhookEndpoint", endpoint.key, (id) => ({ input: { id } })],
      [REDELIVER, "WebhookDelivery", delivery.key, (id) => ({ input: { id } })],
      [NODE, "WebhookEndpoint", endpoint.key, (id) => ({ id })],
      [DELIVERY_NODE, "WebhookDelivery", delivery.key, (id) => ({ id })],
      [
        CREATE,
        "Account",
        team.key,
        (id) => ({
          input: { accountId: id, url: "https://a.example.com/", eventTypes: ["team_member.added"] },
        }),
      ],
    ];
    for (const [query, type, key, variables] of cases) {
      const hiddenId = encodeGlobalId(type, key);
      const missingId = encodeGlobalId(type, newRowKey());
      const hidden = await call(stranger, query, variables(hiddenId));
      const missing = await call(stranger, query, variables(missingId));
      assert.equal(errorOf(hidden).code, "NOT_FOUND", JSON.stringify(hidden.body));
      assert.equal(errorOf(hidden).message, `No node with id "${hiddenId}" exists.`);
      assert.equal(
        JSON.stringify(hidden.body).replaceAll(hiddenId, "<id>"),
        JSON.stringify(missing.body).replaceAll(missingId, "<id>"),
      );
    }
    const byLogin = await call(stranger, CREATE, {
      input: {
        login: team.login,
        vcsProvider: "GITHUB",
        url: "https://a.example.com/",
        eventTypes: ["team_member.added"],
      },
    });
    assert.equal(errorOf(byLogin).code, "NOT_FOUND");
    // Their own team's endpoint is theirs to read.
    const theirs = await aWebhookEndpoint(server.db, server.config.tokenPepper, otherTeam);
    const own = await call(stranger, NODE, { id: encodeGlobalId("WebhookEndpoint", theirs.key) });
    assert.equal((dataOf(own).node as Endpoint).id, encodeGlobalId("WebhookEndpoint", theirs.key));
  });

  test("ids of the wrong type are BAD_USER_INPUT naming the field", async () => {
    const repositoryId = encodeGlobalId("Repository", repository.key);
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [UPDATE, { input: { id: repositoryId } }, "id"],
      [DELETE, { input: { id: repositoryId } }, "id"],
      [TEST, { input: { id: "not-an-id" } }, "id"],
      [REDELIVER, { input: { id: encodeGlobalId("WebhookEndpoint", newRowKey()) } }, "id"],
      [
        CREATE,
        {
          input: {
            accountId: repositoryId,
            url: "https://a.example.com/",
            eventTypes: ["team_member.added"],
          },
        },
        "accountId",
      ],
    ];
    for (const [query, variables, field] of cases) {
      const error = errorOf(await call(admin, query, variables));
      assert.equal(error.code, "BAD_USER_INPUT");
      assert.equal(error.field, field);
    }
  });

  test("invalid input is BAD_USER_INPUT naming the field, and nothing is written", async () => {
    const endpoint = await aWebhookEndpoint(server.db, server.config.tokenPepper, team);
    const endpointId = encodeGlobalId("WebhookEndpoint", endpoint.key);
    const base = {
      login: team.login,
      vcsProvider: "GITHUB",
      url: "https://a.example.com/",
      eventTypes: ["team_member.added"],
    };
    const before = await countRows(server.db, "webhook_endpoints");
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [CREATE, { ...base, url: "not a url" }, "url"],
      [CREATE, { ...base, url: "ftp://a.example.com/" }, "url"],
      [CREATE, { ...base, url: "https://user:pw@a.example.com/" }, "url"],
      [CREATE, { ...base, url: `https://a.example.com/${"x".repeat(2048)}` }, "url"],
      [CREATE, { ...base, eventTypes: [] }, "eventTypes"],
      [CREATE, { ...base, eventTypes: ["test.event"] }, "eventTypes"],
      [CREATE, { ...base, eventTypes: ["analysis.updated"] }, "eventTypes"],
      [CREATE, { ...base, secret: "too-short" }, "secret"],
      [CREATE, { ...base, secret: "has spaces in it, which is odd" }, "secret"],
      [CREATE, { url: base.url, eventTypes: base.eventTypes }, "accountId"],
      [CREATE, { ...base, accountId: encodeGlobalId("Account", team.key) }, "accountId"],
      [CREATE, { ...base, login: personal.login }, "login"],
      [
        CREATE,
        {
          ...base,
          login: undefined,
          vcsProvider: undefined,
          accountId: encodeGlobalId("Account", personal.key),
        },
        "accountId",
      ],
      [UPDATE, { id: endpointId, eventTypes: [] }, "eventTypes"],
      [UPDATE, { id: endpointId, secret: "x".repeat(300) }, "secret"],
      [UPDATE, { id: endpointId, secret: "another-secret-0123456789", rotateSecret: true }, "rotateSecret"],
      [UPDATE, { id: endpointId, url: "https://a.example.com/#frag" }, "url"],
    ];
    for (const [query, input, field] of cases) {
      const error = errorOf(await call(admin, query, { input }));
      assert.equal(error.code, "BAD_USER_INPUT", `${JSON.stringify(input)}: ${error.message}`);
      assert.equal(error.field, field, `${JSON.stringify(input)}: ${error.message}`);
    }
    assert.equal(await countRows(server.db, "webhook_endpoints"), before);
    const unchanged = await server.db
      .selectFrom("webhook_endpoints")
      .selectAll()
      .where("id", "=", endpoint.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(unchanged.event_types, endpoint.event_types);
    assert.equal(unchanged.secret_last_four, endpoint.secret_last_four);
  });

  test("a team has at most 20 endpoints", async () => {
    const user = await aUser(server.db);
    const crowded = await anAccount(server.db, {}, [{ user, role: "ADMIN", isOwner: true }]);
    const token = await aToken(server.db, server.config.tokenPepper, user);
    for (let i = 0; i < 20; i++) await aWebhookEndpoint(server.db, server.config.tokenPepper, crowded);
    const res = await call(token, CREATE, {
      input: {
        login: crowded.login,
        vcsProvider: "GITHUB",
        url: "https://a.example.com/",
        eventTypes: ["team_member.added"],
      },
    });
    assert.equal(errorOf(res).code, "BAD_USER_INPUT");
    assert.equal(errorOf(res).field, "login");
    assert.match(errorOf(res).message, /at most 20 webhook endpoints/);
  });

  test("the event types endpoints can subscribe to are listed, without the test event", async () => {
    const res = await call(admin, `{ webhookEventTypes { shortcode name shortDescription } }`, {});
    const types = dataOf(res).webhookEventTypes as Array<{ shortcode: string; name: string }>;
    assert.equal(types.length, 9);
    assert.ok(types.some((t) => t.shortcode === "analysis_run.updated" && t.name.length > 0));
    assert.ok(!types.some((t) => t.shortcode === "test.event"));
  });
});

describe("webhook addresses an operator has not allowed", () => {
  let server: TestServer;
  let receiver: Receiver;
  let team: AccountRow;
  let repository: RepositoryRow;
  let admin: string;

  before(async () => {
    server = await startTestServer({ ASSAY_WORKER_POLL_MS: "50" });
    receiver = await startReceiver();
    const user = await aUser(server.db);
    team = await anAccount(server.db, {}, [{ user, role: "ADMIN", isOwner: true }]);
    repository = await aRepository(server.db, team);
    admin = await aToken(server.db, server.config.tokenPepper, user);
  });
  after(async () => {
    await server.stop();
    await receiver.close();
  });

  test("URLs on loopback, private, link-local, CGNAT, multicast or unspecified addresses, or plain http, are refused", async () => {
    const refused: Array<[string, RegExp]> = [
      ["https://127.0.0.1/hooks", /loopback/],
      ["https://localhost/hooks", /loopback/],
      ["https://10.1.2.3/hooks", /private/],
      ["https://172.20.0.1/hooks", /private/],
      ["https://192.168.1.10/hooks", /private/],
      ["https://169.254.169.254/latest/meta-data", /link-local/],
      ["https://100.64.0.1/hooks", /carrier-grade NAT/],
      ["https://224.0.0.1/hooks", /multicast/],
      ["https://0.0.0.0/hooks", /unspecified/],
      ["https://[::1]/hooks", /loopback/],
      ["https://[fd00::1]/hooks", /private/],
      ["https://[fe80::1]/hooks", /link-local/],
      ["https://[::ffff:127.0.0.1]/hooks", /IPv4-mapped loopback/],
      ["https://[::ffff:a9fe:a9fe]/hooks", /IPv4-mapped link-local/],
      ["http://hooks.example.com/plain", /must use https/],
    ];
    const before = await countRows(server.db, "webhook_endpoints");
    for (const [url, reason] of refused) {
      const res = await gql(server.endpoint, admin, CREATE, {
        input: { login: team.login, vcsProvider: "GITHUB", url, eventTypes: ["team_member.added"] },
      });
      const error = errorOf(res);
      assert.equal(error.code, "BAD_USER_INPUT", url);
      assert.equal(error.field, "url", url);
      assert.match(error.message, reason, url);
    }
    assert.equal(await countRows(server.db, "webhook_endpoints"), before);
  });

  test("the address is checked again at delivery time: a refused one is logged on the attempt and never connected to", async () => {
    const url = receiver.url.replace("http://", "https://");
    const endpoint = await aWebhookEndpoint(server.db, server.config.tokenPepper, team, {
      url,
      eventTypes: ["repository.analysis.activated"],
    });
    await recordActivation(server.db, team, repository);
    const endpointId = encodeGlobalId("WebhookEndpoint", endpoint.key);
    // Poll one statement at a time while the worker settles (see the report on the embedded database).
    // The attempt row and the delivery's new count are written in one transaction after the
    // attempt ended, so once both show, the attempt is settled and any connection it made is counted.
    await gently("the refused attempt, settled", async () => {
      const attempt = await server.db
        .selectFrom("webhook_delivery_attempts as a")
        .innerJoin("webhook_deliveries as d", "d.id", "a.delivery_id")
        .select("a.id")
        .where("d.endpoint_id", "=", endpoint.id)
        .where("d.attempt_count", ">=", 1)
        .executeTakeFirst();
      return attempt !== undefined;
    });
    const res = await gql(server.endpoint, admin, DELIVERIES, { id: endpointId });
    const [delivery] = (
      dataOf(res).node as { deliveries: { edges: Array<{ node: Delivery }> } }
    ).deliveries.edges.map((e) => e.node);
    assert.equal(
      delivery!.status,
      "PENDING",
      "it is retried later, in case the name resolves elsewhere then",
    );
    assert.equal(delivery!.attempts[0]!.statusCode, null);
    assert.match(
      delivery!.attempts[0]!.error ?? "",
      /^not sent: 127\.0\.0\.1 resolves to 127\.0\.0\.1, a loopback/,
    );
    assert.equal(receiver.connections, 0);
  });
});

test("docs/webhooks.md quotes docs/examples/verify-webhook.mjs exactly", () => {
  const doc = readFileSync(new URL("../docs/webhooks.md", import.meta.url), "utf8");
  const file = readFileSync(new URL("../docs/examples/verify-webhook.mjs", import.meta.url), "utf8");
  const quoted =
    /<!-- verify-webhook\.mjs: begin -->\n```js\n([\s\S]*?)```\n<!-- verify-webhook\.mjs: end -->/.exec(doc);
  assert.ok(quoted, "the doc has the marked block");
  assert.equal(quoted[1], file);
});
