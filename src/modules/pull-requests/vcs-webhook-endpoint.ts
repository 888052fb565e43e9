import type { IncomingMessage, ServerResponse } from "node:http";
import type { Kysely } from "kysely";
import type { Config } from "../../config.ts";
import type { Database } from "../../db/types.ts";
import { BodyError, readBodyBytes } from "../../http/body.ts";
import { sendJson } from "../../http/json.ts";
import type { EndpointHandler } from "../../http/server.ts";
import type { Logger } from "../../logger.ts";
import { receiveVcsDelivery, type VcsDelivery } from "./vcs-event-service.ts";
import type { VcsEventProvider } from "./vcs-payloads.ts";

/**
 * `POST /webhooks/github`, `/webhooks/gitlab` and `/webhooks/bitbucket`: the providers' webhooks
 * (docs/vcs-events.md).
 * The body is read raw (the signature covers its bytes) and limited to ASSAY_MAX_BODY_BYTES; the
 * answer is JSON `{ ok, message }`.
 */

/** What the endpoints need. */
export interface VcsWebhookDeps {
  db: Kysely<Database>;
  config: Config;
  logger: Logger;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function deliveryOf(provider: VcsEventProvider, req: IncomingMessage, body: Buffer): VcsDelivery {
  if (provider === "GITHUB") {
    return {
      provider,
      event: header(req, "x-github-event"),
      deliveryId: header(req, "x-github-delivery"),
      credential: header(req, "x-hub-signature-256"),
      contentType: header(req, "content-type"),
      body,
    };
  }
  if (provider === "BITBUCKET") {
    return {
      provider,
      event: header(req, "x-event-key"),
      deliveryId: header(req, "x-request-uuid"),
      credential: header(req, "x-hub-signature"),
      contentType: header(req, "content-type"),
      body,
    };
  }
  return {
    provider,
    event: header(req, "x-gitlab-event"),
    deliveryId: header(req, "idempotency-key") ?? header(req, "x-gitlab-webhook-uuid"),
    credential: header(req, "x-gitlab-token"),
    contentType: header(req, "content-type"),
    body,
  };
}

function endpoint(provider: VcsEventProvider, deps: VcsWebhookDeps): EndpointHandler {
  return async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST") {
      sendJson(
        res,
        405,
        { ok: false, message: `Method ${req.method} is not allowed; use POST.` },
        { allow: "POST" },
      );
      return;
    }
    let body: Buffer;
    try {
      body = await readBodyBytes(req, deps.config.maxBodyBytes);
    } catch (error) {
      if (!(error instanceof BodyError)) throw error;
      if (error.reason === "too-large") {
        sendJson(res, 413, {
          ok: false,
          message: `Request body is larger than the limit of ${deps.config.maxBodyBytes} bytes.`,
        });
      } else {
        res.destroy();
      }
      return;
    }
    const answer = await receiveVcsDelivery(
      deps.db,
      deps.config.tokenPepper,
      deps.logger,
      deliveryOf(provider, req, body),
    );
    sendJson(res, answer.status, { ok: answer.status < 300, message: answer.message });
  };
}

/** The endpoints by path, slash optional. */
export function createVcsWebhookEndpoints(deps: VcsWebhookDeps): Map<string, EndpointHandler> {
  const github = endpoint("GITHUB", deps);
  const gitlab = endpoint("GITLAB", deps);
  const bitbucket = endpoint("BITBUCKET", deps);
  return new Map([
    ["/webhooks/github", github],
    ["/webhooks/github/", github],
    ["/webhooks/gitlab", gitlab],
    ["/webhooks/gitlab/", gitlab],
    ["/webhooks/bitbucket", bitbucket],
    ["/webhooks/bitbucket/", bitbucket],
  ]);
}
