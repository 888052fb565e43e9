import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import { upsertAccountVcsSecret, upsertVcsSecret } from "./vcs-secret-store.ts";
import { encryptVcsSecret, generateVcsSecret } from "./vcs-secrets.ts";

/**
 * Setting incoming VCS webhook secrets (docs/vcs-events.md "The secret"), for the mutations and
 * the CLI: the caller has checked who may, inside its transaction.
 */

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
    encryptVcsSecret(chosen, { kind: "repository", key: repository.key }, pepper),
    chosen.slice(-4),
  );
  return chosen;
}

/**
 * Gives an account a webhook secret (`secret`, else a new one) that covers its repositories
 * without one of their own, and answers it.
 */
export async function setAccountVcsSecret(
  tx: Kysely<Database>,
  account: { id: string; key: string },
  pepper: string,
  secret: string | null,
): Promise<string> {
  const chosen = secret ?? generateVcsSecret();
  await upsertAccountVcsSecret(
    tx,
    account.id,
    encryptVcsSecret(chosen, { kind: "account", key: account.key }, pepper),
    chosen.slice(-4),
  );
  return chosen;
}
