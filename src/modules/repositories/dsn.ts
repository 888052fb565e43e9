import { createHmac, timingSafeEqual } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database, RepositoryRow } from "../../db/types.ts";
import { ROW_KEY_LENGTH } from "../../graphql/global-id.ts";
import { findRepositoryByKey } from "./repository-store.ts";

/**
 * A repository's DSN, the credential CI uses to upload analysis artifacts:
 * `<scheme>://<token>@<host>`, as the contract's CLI parses it. The token is the repository's key
 * followed by an HMAC of that key and the DSN generation under the server's pepper, so it is never
 * stored, any instance can check it, and regenerating the DSN (a new generation) makes the old
 * token stop matching at once.
 */
export function repositoryDsn(
  repository: { key: string; dsn_generation: number },
  pepper: string,
  publicUrl: string,
): string {
  const url = new URL(publicUrl);
  return `${url.protocol}//${dsnToken(repository, pepper)}@${url.host}`;
}

/** The secret part of a repository's DSN: the repository key, then 32 hex characters. */
export function dsnToken(repository: { key: string; dsn_generation: number }, pepper: string): string {
  return `${repository.key}${dsnSignature(repository, pepper)}`;
}

function dsnSignature(repository: { key: string; dsn_generation: number }, pepper: string): string {
  return createHmac("sha256", pepper)
    .update(`dsn:${repository.key}:${repository.dsn_generation}`)
    .digest("hex")
    .slice(0, 32);
}

const DSN_TOKEN_PATTERN = new RegExp(`^[a-z0-9]{${ROW_KEY_LENGTH}}[0-9a-f]{32}$`);

/**
 * The repository whose current DSN token is `token`, or undefined: a malformed token, an unknown
 * repository and a stale generation all answer the same, and the signature is compared in
 * constant time.
 */
export async function findRepositoryByDsnToken(
  db: Kysely<Database>,
  token: string,
  pepper: string,
): Promise<RepositoryRow | undefined> {
  const candidate = token.trim();
  if (!DSN_TOKEN_PATTERN.test(candidate)) return undefined;
  const repository = await findRepositoryByKey(db, candidate.slice(0, ROW_KEY_LENGTH));
  if (!repository) return undefined;
  const expected = Buffer.from(dsnSignature(repository, pepper));
  const given = Buffer.from(candidate.slice(ROW_KEY_LENGTH));
  return given.length === expected.length && timingSafeEqual(given, expected) ? repository : undefined;
}
