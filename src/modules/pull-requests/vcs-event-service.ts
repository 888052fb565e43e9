import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database, VcsProvider } from "../../db/types.ts";
import type { Logger } from "../../logger.ts";
import {
  attachRunsOfCommit,
  deleteBranchHead,
  findVcsSecretCandidates,
  insertPullRequest,
  lockPullRequest,
  pruneVcsDeliveries,
  recordVcsDelivery,
  updatePullRequest,
  upsertBranchHead,
  upsertVcsSecret,
  type VcsSecretCandidate,
} from "./vcs-event-store.ts";
import {
  type EventRepository,
  githubRepository,
  gitlabRepository,
  PayloadError,
  readGithubEvent,
  readGitlabEvent,
  type VcsEvent,
  type VcsEventProvider,
} from "./vcs-payloads.ts";
import {
  decryptVcsSecret,
  encryptVcsSecret,
  generateVcsSecret,
  isGithubSignature,
  verifyGithubSignature,
  verifyGitlabToken,
} from "./vcs-secrets.ts";

/**
 * Incoming VCS events (docs/vcs-events.md): a provider's delivery is authenticated against the
 * secret of the repository its payload names, applied once (by delivery id) in one transaction,
 * and answered with a status and a short sentence. Nothing in an answer to an unauthenticated
 * delivery says whether the repository exists or has a secret.
 */

/** How long applied delivery ids are kept to refuse replays (GitHub lets redeliveries be asked for 3 days). */
export const DELIVERY_RETENTION_DAYS = 14;

/** One delivery as the HTTP layer read it. */
export interface VcsDelivery {
  provider: VcsEventProvider;
  /** `X-GitHub-Event` / `X-Gitlab-Event`. */
  event: string | undefined;
  /** `X-GitHub-Delivery` / `Idempotency-Key` or `X-Gitlab-Webhook-UUID`. */
  deliveryId: string | undefined;
  /** `X-Hub-Signature-256` (GitHub) or `X-Gitlab-Token` (GitLab). */
  credential: string | undefined;
  contentType: string | undefined;
  body: Buffer;
}

/** What the endpoint answers. */
export interface VcsDeliveryAnswer {
  status: number;
  message: string;
}

/** The one answer to every delivery that does not authenticate, whatever the reason. */
export const UNAUTHENTICATED_DELIVERY: VcsDeliveryAnswer = {
  status: 401,
  message: "The delivery could not be authenticated.",
};

const PROVIDERS: Record<VcsEventProvider, readonly VcsProvider[]> = {
  GITHUB: ["GITHUB", "GITHUB_ENTERPRISE"],
  GITLAB: ["GITLAB"],
};

const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The JSON payload of a delivery: a JSON body, or GitHub's form encoding (`payload=<JSON>`). */
function parsePayload(delivery: VcsDelivery): unknown {
  const type = (delivery.contentType ?? "").split(";")[0]?.trim().toLowerCase();
  let text = delivery.body.toString("utf8");
  if (delivery.provider === "GITHUB" && type === "application/x-www-form-urlencoded") {
    text = new URLSearchParams(text).get("payload") ?? "";
  }
  return JSON.parse(text);
}

function repositoryOf(provider: VcsEventProvider, payload: unknown): EventRepository | undefined {
  try {
    return provider === "GITHUB" ? githubRepository(payload) : gitlabRepository(payload);
  } catch (error) {
    if (error instanceof PayloadError) return undefined;
    throw error;
  }
}

/** True when `candidate`'s secret verifies the delivery. */
function verifies(delivery: VcsDelivery, candidate: VcsSecretCandidate | undefined, pepper: string): boolean {
  const credential = delivery.credential ?? "";
  const secret = candidate
    ? decryptVcsSecret(candidate.secret_encrypted, candidate.repository_key, pepper)
    : undefined;
  // Without a candidate a comparison is still made, so an unknown repository takes as long.
  const key = secret ?? "assay: no secret";
  const matches =
    delivery.provider === "GITHUB"
      ? verifyGithubSignature(delivery.body, credential, key)
      : verifyGitlabToken(credential, key);
  return secret !== undefined && matches;
}

/** A delivery that authenticated and could be read: what {@link applyVcsDelivery} applies. */
export interface AuthenticatedDelivery {
  provider: VcsEventProvider;
  repositoryId: string;
  repositoryKey: string;
  eventName: string;
  deliveryId: string;
  event: VcsEvent;
}

/**
 * Authenticates one delivery against the secret of the repository its payload names and reads
 * its event; answers what to reply instead when it cannot be applied. Reads only.
 */
export async function authenticateVcsDelivery(
  db: Kysely<Database>,
  pepper: string,
  delivery: VcsDelivery,
): Promise<{ accepted: AuthenticatedDelivery } | { answer: VcsDeliveryAnswer }> {
  if (delivery.provider === "GITHUB" ? !isGithubSignature(delivery.credential) : !delivery.credential) {
    return { answer: UNAUTHENTICATED_DELIVERY };
  }
  let payload: unknown;
  try {
    payload = parsePayload(delivery);
  } catch {
    return {
      answer: {
        status: 400,
        message: "The body is not a JSON webhook payload; set the content type to application/json.",
      },
    };
  }
  const named = repositoryOf(delivery.provider, payload);
  const candidates = named
    ? await findVcsSecretCandidates(db, PROVIDERS[delivery.provider], named.fullName)
    : [];
  if (candidates.length === 0) verifies(delivery, undefined, pepper);
  const repository = candidates.find((candidate) => verifies(delivery, candidate, pepper));
  if (!repository) return { answer: UNAUTHENTICATED_DELIVERY };

  const eventName = delivery.event?.trim() ?? "";
  if (eventName === "") {
    return {
      answer: {
        status: 400,
        message: `The delivery has no ${delivery.provider === "GITHUB" ? "X-GitHub-Event" : "X-Gitlab-Event"} header.`,
      },
    };
  }
  let deliveryId = delivery.deliveryId?.trim();
  if (!deliveryId && delivery.provider === "GITLAB") {
    // GitLab before 16.2 sends no delivery id: the same body is then the same delivery.
    deliveryId = `sha256:${createHash("sha256").update(delivery.body).digest("hex")}`;
  }
  if (!deliveryId || !DELIVERY_ID.test(deliveryId)) {
    return { answer: { status: 400, message: "The delivery has no usable X-GitHub-Delivery header." } };
  }
  let event: VcsEvent;
  try {
    event =
      delivery.provider === "GITHUB"
        ? readGithubEvent(eventName, payload)
        : readGitlabEvent(eventName, payload);
  } catch (error) {
    if (!(error instanceof PayloadError)) throw error;
    return { answer: { status: 400, message: `The ${eventName} payload cannot be read: ${error.message}.` } };
  }
  return {
    accepted: {
      provider: delivery.provider,
      repositoryId: repository.repository_id,
      repositoryKey: repository.repository_key,
      eventName,
      deliveryId,
      event,
    },
  };
}

/**
 * Applies an authenticated delivery once (by its id) inside the caller's transaction `tx`: the
 * repository row is locked first, which serialises deliveries to one repository (and with
 * uploads, which take the same lock first).
 */
export async function applyVcsDelivery(
  tx: Kysely<Database>,
  delivery: AuthenticatedDelivery,
): Promise<VcsDeliveryAnswer> {
  await tx
    .selectFrom("repositories")
    .select("id")
    .where("id", "=", delivery.repositoryId)
    .forNoKeyUpdate()
    .executeTakeFirstOrThrow();
  const fresh = await recordVcsDelivery(tx, {
    repositoryId: delivery.repositoryId,
    deliveryId: delivery.deliveryId,
    provider: delivery.provider,
    event: delivery.eventName,
  });
  if (!fresh)
    return { status: 200, message: `Delivery ${delivery.deliveryId} was already applied; nothing changed.` };
  await pruneVcsDeliveries(tx, DELIVERY_RETENTION_DAYS);
  return applyEvent(tx, delivery.repositoryId, delivery.event);
}

/** Receives one delivery: authenticates it, applies it once in one transaction, and says what happened. */
export async function receiveVcsDelivery(
  db: Kysely<Database>,
  pepper: string,
  logger: Logger,
  delivery: VcsDelivery,
): Promise<VcsDeliveryAnswer> {
  const checked = await authenticateVcsDelivery(db, pepper, delivery);
  if ("answer" in checked) return checked.answer;
  const { accepted } = checked;
  const answer = await db.transaction().execute((tx) => applyVcsDelivery(tx, accepted));
  logger.info(
    {
      repository: accepted.repositoryKey,
      provider: accepted.provider,
      event: accepted.eventName,
      deliveryId: accepted.deliveryId,
      outcome: answer.message,
    },
    "vcs delivery",
  );
  return answer;
}

/** Applies one authenticated, first-seen event to the repository. */
async function applyEvent(
  tx: Kysely<Database>,
  repositoryId: string,
  event: VcsEvent,
): Promise<VcsDeliveryAnswer> {
  switch (event.kind) {
    case "ping":
      return { status: 200, message: "pong" };
    case "ignored":
      return { status: 200, message: `Event ${event.event} is not used by Assay; ignored.` };
    case "push": {
      if (event.branch === null)
        return { status: 200, message: "A push to a ref that is not a branch; ignored." };
      if (event.after === null) {
        await deleteBranchHead(tx, repositoryId, event.branch);
        return { status: 200, message: `Branch ${event.branch} was deleted.` };
      }
      await upsertBranchHead(tx, {
        repositoryId,
        branch: event.branch,
        commitOid: event.after,
        pushedAt: event.pushedAt,
      });
      return { status: 200, message: `Branch ${event.branch} is at ${event.after}.` };
    }
    case "pull_request": {
      const facts = event.pullRequest;
      const stored = await lockPullRequest(tx, repositoryId, facts.number);
      if (stored?.vcs_updated_at && facts.updatedAt && facts.updatedAt < stored.vcs_updated_at) {
        return {
          status: 200,
          message: `Pull request ${facts.number} has a newer change than this event (${event.action}); ignored.`,
        };
      }
      const pullRequest = stored
        ? await updatePullRequest(tx, stored.id, facts)
        : await insertPullRequest(tx, repositoryId, facts);
      if (pullRequest.state === "OPEN" && pullRequest.head_commit_oid) {
        await attachRunsOfCommit(tx, repositoryId, pullRequest.head_commit_oid, pullRequest.id);
      }
      return {
        status: 200,
        message: `Pull request ${pullRequest.number} ${stored ? "updated" : "recorded"} (${pullRequest.state}).`,
      };
    }
  }
}

/** Gives a repository a webhook secret (`secret`, else a new one) and answers it. */
export async function setRepositoryVcsSecret(
  tx: Kysely<Database>,
  repository: { id: string; key: string },
  pepper: string,
  secret: string | null,
): Promise<string> {
  const chosen = secret ?? generateVcsSecret();
  await upsertVcsSecret(
    tx,
    repository.id,
    encryptVcsSecret(chosen, repository.key, pepper),
    chosen.slice(-4),
  );
  return chosen;
}
