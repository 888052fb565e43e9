import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database, VcsProvider } from "../../db/types.ts";
import type { Logger } from "../../logger.ts";
import { lockRepositoryNoKeyUpdate } from "../repositories/repository-store.ts";
import { enqueueRunRebases } from "../runs/rebase-job.ts";
import {
  attachRunsOfCommit,
  deleteBranchHead,
  findRunsOfCommitForPullRequest,
  insertPullRequest,
  lockPullRequest,
  pruneVcsDeliveries,
  recordVcsDelivery,
  updatePullRequest,
  upsertBranchHead,
} from "./vcs-event-store.ts";
import {
  bitbucketRepository,
  type EventRepository,
  githubInstallationAccount,
  githubRepository,
  gitlabRepository,
  PayloadError,
  type PushedRef,
  readBitbucketEvent,
  readGithubEvent,
  readGitlabEvent,
  type VcsEvent,
  type VcsEventProvider,
} from "./vcs-payloads.ts";
import {
  findAccountVcsSecret,
  findVcsSecretCandidates,
  type VcsSecretCandidate,
} from "./vcs-secret-store.ts";
import {
  decryptVcsSecret,
  isGithubSignature,
  verifyGithubSignature,
  verifyGitlabToken,
} from "./vcs-secrets.ts";

/**
 * Incoming VCS events (docs/vcs-events.md): a provider's delivery is authenticated against the
 * secret of the repository its payload names (else its account's), applied once (by delivery id)
 * in one transaction, and answered with a status and a short sentence. Nothing in an answer to an
 * unauthenticated delivery says whether the repository exists or has a secret.
 */

/** How long applied delivery ids are kept to refuse replays (GitHub lets redeliveries be asked for 3 days). */
export const DELIVERY_RETENTION_DAYS = 14;

/** One delivery as the HTTP layer read it. */
export interface VcsDelivery {
  provider: VcsEventProvider;
  /** `X-GitHub-Event` / `X-Gitlab-Event` / `X-Event-Key`. */
  event: string | undefined;
  /** `X-GitHub-Delivery` / `Idempotency-Key` or `X-Gitlab-Webhook-UUID` / `X-Request-UUID`. */
  deliveryId: string | undefined;
  /** `X-Hub-Signature-256` (GitHub), `X-Gitlab-Token` (GitLab) or `X-Hub-Signature` (Bitbucket). */
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

/** How each provider's deliveries are named, signed and read. */
interface ProviderRules {
  /** The account providers whose repositories the endpoint serves. */
  accounts: readonly VcsProvider[];
  eventHeader: string;
  deliveryHeader: string;
  isCredential: (credential: string | undefined) => credential is string;
  verify: (body: Buffer, credential: string, secret: string) => boolean;
  repository: (payload: unknown) => EventRepository;
  read: (event: string, payload: unknown) => VcsEvent;
}

const isPresent = (credential: string | undefined): credential is string => !!credential;

const PROVIDERS: Record<VcsEventProvider, ProviderRules> = {
  GITHUB: {
    accounts: ["GITHUB", "GITHUB_ENTERPRISE"],
    eventHeader: "X-GitHub-Event",
    deliveryHeader: "X-GitHub-Delivery",
    isCredential: isGithubSignature,
    verify: verifyGithubSignature,
    repository: githubRepository,
    read: readGithubEvent,
  },
  GITLAB: {
    accounts: ["GITLAB"],
    eventHeader: "X-Gitlab-Event",
    deliveryHeader: "Idempotency-Key",
    isCredential: isPresent,
    verify: (_body, credential, secret) => verifyGitlabToken(credential, secret),
    repository: gitlabRepository,
    read: readGitlabEvent,
  },
  BITBUCKET: {
    accounts: ["BITBUCKET"],
    eventHeader: "X-Event-Key",
    deliveryHeader: "X-Request-UUID",
    // Bitbucket Cloud signs as GitHub does, in `X-Hub-Signature`.
    isCredential: isGithubSignature,
    verify: verifyGithubSignature,
    repository: bitbucketRepository,
    read: readBitbucketEvent,
  },
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

function repositoryOf(rules: ProviderRules, payload: unknown): EventRepository | undefined {
  try {
    return rules.repository(payload);
  } catch (error) {
    if (error instanceof PayloadError) return undefined;
    throw error;
  }
}

/**
 * The secret that authenticates deliveries for `candidate`: the repository's own when it has one
 * (an account's secret never overrides it), else its account's.
 */
function secretOf(candidate: VcsSecretCandidate, pepper: string): string | undefined {
  if (candidate.repository_secret) {
    return decryptVcsSecret(
      candidate.repository_secret,
      { kind: "repository", key: candidate.repository_key },
      pepper,
    );
  }
  if (candidate.account_secret) {
    return decryptVcsSecret(
      candidate.account_secret,
      { kind: "account", key: candidate.account_key },
      pepper,
    );
  }
  return undefined;
}

/** True when `candidate`'s secret verifies the delivery. */
function verifies(
  rules: ProviderRules,
  delivery: VcsDelivery,
  candidate: VcsSecretCandidate | undefined,
  pepper: string,
): boolean {
  const secret = candidate ? secretOf(candidate, pepper) : undefined;
  // Without a secret a comparison is still made, so an unknown repository takes as long.
  const matches = rules.verify(delivery.body, delivery.credential ?? "", secret ?? "assay: no secret");
  return secret !== undefined && matches;
}

/** The delivery's id: the provider's header, else (old GitLab) the SHA-256 of the body. */
function deliveryIdOf(delivery: VcsDelivery): string | undefined {
  // Bitbucket writes UUIDs in braces in places; the braces add nothing.
  const given = delivery.deliveryId?.trim().replace(/^\{(.*)\}$/, "$1");
  if (given) return given;
  // GitLab before 16.2 sends no delivery id: the same body is then the same delivery.
  if (delivery.provider === "GITLAB")
    return `sha256:${createHash("sha256").update(delivery.body).digest("hex")}`;
  return undefined;
}

/** The delivery's id when it has the shape of one, else undefined. */
function usableDeliveryId(delivery: VcsDelivery): string | undefined {
  const id = deliveryIdOf(delivery);
  return id && DELIVERY_ID.test(id) ? id : undefined;
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
 * What to answer a delivery that is not applied: refused, or (`acknowledgedAccount`) a GitHub App
 * installation event authenticated by that account's secret and ignored.
 */
export interface UnappliedDelivery {
  answer: VcsDeliveryAnswer;
  acknowledgedAccount?: string;
}

/**
 * Authenticates one delivery against the secret of the repository its payload names (its own,
 * else its account's) and reads its event; answers what to reply instead when it cannot be
 * applied. Reads only.
 */
export async function authenticateVcsDelivery(
  db: Kysely<Database>,
  pepper: string,
  delivery: VcsDelivery,
): Promise<{ accepted: AuthenticatedDelivery } | UnappliedDelivery> {
  const rules = PROVIDERS[delivery.provider];
  if (!rules.isCredential(delivery.credential)) return { answer: UNAUTHENTICATED_DELIVERY };
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
  const named = repositoryOf(rules, payload);
  if (!named && delivery.provider === "GITHUB") {
    return acknowledgeInstallationEvent(db, pepper, delivery, payload);
  }
  const candidates = named ? await findVcsSecretCandidates(db, rules.accounts, named.fullName) : [];
  if (candidates.length === 0) verifies(rules, delivery, undefined, pepper);
  const repository = candidates.find((candidate) => verifies(rules, delivery, candidate, pepper));
  if (!repository) return { answer: UNAUTHENTICATED_DELIVERY };

  const eventName = delivery.event?.trim() ?? "";
  if (eventName === "") {
    return { answer: { status: 400, message: `The delivery has no ${rules.eventHeader} header.` } };
  }
  const deliveryId = usableDeliveryId(delivery);
  if (!deliveryId) {
    return { answer: { status: 400, message: `The delivery has no usable ${rules.deliveryHeader} header.` } };
  }
  let event: VcsEvent;
  try {
    event = rules.read(eventName, payload);
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
  if (!(await lockRepositoryNoKeyUpdate(tx, delivery.repositoryId))) {
    throw new Error(`repository ${delivery.repositoryId} of an authenticated delivery is gone`);
  }
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
  if ("answer" in checked) {
    if (checked.acknowledgedAccount !== undefined) {
      logger.info(
        {
          account: checked.acknowledgedAccount,
          provider: delivery.provider,
          event: delivery.event?.trim() || "(none)",
          deliveryId: usableDeliveryId(delivery),
          outcome: checked.answer.message,
        },
        "vcs delivery",
      );
    }
    return checked.answer;
  }
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

/**
 * A GitHub App's installation-level event (`installation`, `installation_repositories`): it names
 * an account, not a repository, so only that account's secret can authenticate it. Nothing is
 * recorded (Assay learns its repositories from their own events); an authenticated one is
 * acknowledged so the App's delivery log shows no failures.
 */
async function acknowledgeInstallationEvent(
  db: Kysely<Database>,
  pepper: string,
  delivery: VcsDelivery,
  payload: unknown,
): Promise<UnappliedDelivery> {
  const login = githubInstallationAccount(payload);
  const stored = login ? await findAccountVcsSecret(db, PROVIDERS.GITHUB.accounts, login) : undefined;
  const secret = stored
    ? decryptVcsSecret(stored.secret_encrypted, { kind: "account", key: stored.account_key }, pepper)
    : undefined;
  const matches = verifyGithubSignature(
    delivery.body,
    delivery.credential ?? "",
    secret ?? "assay: no secret",
  );
  if (!stored || secret === undefined || !matches) return { answer: UNAUTHENTICATED_DELIVERY };
  const event = delivery.event?.trim() || "(none)";
  return {
    answer: { status: 200, message: `Event ${event} names no repository; acknowledged and ignored.` },
    acknowledgedAccount: stored.account_key,
  };
}

/** Applies one pushed ref and says what changed. */
async function applyPushedRef(
  tx: Kysely<Database>,
  repositoryId: string,
  ref: PushedRef,
  pushedAt: Date | null,
): Promise<string> {
  if (ref.branch === null) return "A push to a ref that is not a branch; ignored.";
  if (ref.after === null) {
    await deleteBranchHead(tx, repositoryId, ref.branch);
    return `Branch ${ref.branch} was deleted.`;
  }
  await upsertBranchHead(tx, { repositoryId, branch: ref.branch, commitOid: ref.after, pushedAt });
  return `Branch ${ref.branch} is at ${ref.after}.`;
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
      const messages: string[] = [];
      for (const ref of event.refs)
        messages.push(await applyPushedRef(tx, repositoryId, ref, event.pushedAt));
      return { status: 200, message: messages.join(" ") || "A push that moved no ref; ignored." };
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
        const head = pullRequest.head_commit_oid;
        const runIds = await findRunsOfCommitForPullRequest(tx, repositoryId, head, pullRequest.id);
        // Runs uploaded before this event were compared with the default branch, and a pull
        // request whose base branch changed compares its head with another branch now. Their
        // rebases are queued before the runs are written: the worker settling one holds its job's
        // row and then locks its run (docs/ingestion.md "Lock order").
        await enqueueRunRebases(tx, runIds);
        await attachRunsOfCommit(tx, repositoryId, head, pullRequest.id);
      }
      return {
        status: 200,
        message: `Pull request ${pullRequest.number} ${stored ? "updated" : "recorded"} (${pullRequest.state}).`,
      };
    }
  }
}
