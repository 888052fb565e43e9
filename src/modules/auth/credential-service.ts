import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import type { CredentialRefusal, Viewer } from "../../graphql/context.ts";
import { PAT_PREFIX } from "./pat.ts";
import { looksLikeJwt } from "./session-jwt.ts";
import { SessionAuthenticator } from "./session-service.ts";
import { TokenAuthenticator } from "./token-service.ts";

/** The secrets credentials are checked with, and where a failed last-use update is reported. */
export interface CredentialKeys {
  tokenPepper: string;
  sessionSecret: string;
  onTouchError?: (error: unknown) => void;
  /** How long a checked personal access token is remembered (`ASSAY_IDENTITY_CACHE_MS`); 1000 when left out. */
  identityCacheMs?: number;
}

/**
 * Authenticates the bearer credential of an API request: a session access token (a JWT, told
 * apart by its shape) or a personal access token. The server's wiring (src/app.ts) hands one to
 * the GraphQL endpoint, so the HTTP layer never needs to know what kinds of credential there are.
 */
export class CredentialAuthenticator {
  private readonly tokens: TokenAuthenticator;
  private readonly sessions: SessionAuthenticator;

  constructor(db: Kysely<Database>, keys: CredentialKeys) {
    this.tokens = new TokenAuthenticator(db, keys.tokenPepper, keys.onTouchError, keys.identityCacheMs);
    this.sessions = new SessionAuthenticator(db, keys.sessionSecret);
  }

  /** Who is calling with `credential` (null: none was sent), or why it is refused. */
  authenticate(credential: string | null): Promise<Viewer | CredentialRefusal> {
    return credential !== null && looksLikeJwt(credential)
      ? this.sessions.authenticate(credential)
      : this.tokens.authenticate(credential);
  }

  /** {@link authenticate} for `refreshPat` alone: a personal access token within its grace period. */
  authenticateForRefresh(credential: string | null): Promise<Viewer | CredentialRefusal> {
    return this.tokens.authenticateForRefresh(credential);
  }
}

/**
 * True for a value shaped like one of our credentials (a personal access token or a session
 * access token): pasted into the wrong header, it must be neither echoed back nor logged.
 */
export function looksLikeCredential(value: string): boolean {
  return value.startsWith(PAT_PREFIX) || looksLikeJwt(value);
}
