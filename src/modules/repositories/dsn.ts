import { createHmac } from "node:crypto";

/**
 * A repository's DSN, the credential CI uses to upload analysis artifacts:
 * `<scheme>://<token>@<host>`, as the contract's CLI parses it. The token is derived from the
 * repository's key and DSN generation with the server's pepper, so it is never stored;
 * regenerating the DSN bumps the generation and the old token stops matching at once.
 */
export function repositoryDsn(
  repository: { key: string; dsn_generation: number },
  pepper: string,
  publicUrl: string,
): string {
  const url = new URL(publicUrl);
  return `${url.protocol}//${dsnToken(repository, pepper)}@${url.host}`;
}

/** The secret part of a repository's DSN: 32 hex characters. */
export function dsnToken(repository: { key: string; dsn_generation: number }, pepper: string): string {
  return createHmac("sha256", pepper)
    .update(`dsn:${repository.key}:${repository.dsn_generation}`)
    .digest("hex")
    .slice(0, 32);
}
