import DataLoader from "dataloader";
import type { Kysely } from "kysely";
import type { Config } from "../config.ts";
import type { Database, UserRow } from "../db/types.ts";
import type { Logger } from "../logger.ts";
import { unauthenticated } from "./errors.ts";
import { ConnectionLoaders } from "./pagination.ts";

/** The authenticated caller. */
export interface Viewer {
  /** Internal user id; never leaves the server. */
  userId: string;
  /**
   * Internal id of the personal access token that authenticated the request; null when a session
   * access token (a JWT, src/modules/auth/session-jwt.ts) did.
   */
  tokenId: string | null;
  /**
   * The user's row as the credential check read it, when it did (a personal access token: at most
   * a second old, src/modules/auth/identity-cache.ts), so `viewer` costs no statement of its own.
   */
  user?: UserRow;
}

/**
 * Why a request's credential was refused. The caller gets one answer for all of them but one:
 * `signature-expired`, a correctly signed session access token past its `exp`, is said so in the
 * 401 (`Signature has expired`, the text clients refresh their token on). `expired` (a personal
 * access token) matters to the endpoint only because `refreshPat` still takes such a token.
 */
export type CredentialRefusal =
  | "missing"
  | "malformed"
  | "unknown"
  | "expired"
  | "signature-expired"
  | "revoked";

/**
 * The viewer of a request sent without a valid token. Such a request only runs operations whose
 * every root field is on the public allow-list (src/http/public-operations.ts), and those resolvers
 * never read the viewer. Should any other resolver run anyway, reading `userId` or `tokenId` throws
 * UNAUTHENTICATED instead of answering for nobody.
 */
export const ANONYMOUS_VIEWER: Viewer = Object.freeze({
  get userId(): string {
    throw unauthenticated();
  },
  get tokenId(): string | null {
    throw unauthenticated();
  },
});

/**
 * Everything a resolver may use, built once per request. (A type alias, not an interface, so it
 * satisfies graphql-http's `OperationContext` record constraint.)
 */
export type GraphQLContext = {
  requestId: string;
  viewer: Viewer;
  db: Kysely<Database>;
  config: Config;
  /** The server's logger; a resolver that logs adds `requestId` (a child per request would cost every request). */
  logger: Logger;
  loaders: RequestLoaders;
};

/**
 * The per-request dataloaders. Loaders are created on first use by name, so each domain module
 * declares its own with {@link defineLoader} and nothing central lists them.
 */
export class RequestLoaders {
  readonly connections: ConnectionLoaders;
  private readonly byName = new Map<string, DataLoader<unknown, unknown>>();

  constructor(db: Kysely<Database>) {
    this.connections = new ConnectionLoaders(db);
  }

  /** The loader called `name`, created with `create` on first use in this request. */
  get<K, V>(name: string, create: () => DataLoader<K, V>): DataLoader<K, V> {
    let loader = this.byName.get(name);
    if (!loader) {
      loader = create() as DataLoader<unknown, unknown>;
      this.byName.set(name, loader);
    }
    return loader as DataLoader<K, V>;
  }
}

/**
 * Declares a request-scoped loader. `batch` receives the context (for the viewer and the database)
 * and the keys, and answers one value per key in the same order (null for a missing row).
 */
export function defineLoader<K, V>(
  name: string,
  batch: (ctx: GraphQLContext, keys: readonly K[]) => Promise<V[]>,
): (ctx: GraphQLContext) => DataLoader<K, V> {
  return (ctx) => ctx.loaders.get(name, () => new DataLoader<K, V>((keys) => batch(ctx, keys)));
}

/** Orders `rows` to match `keys` by `keyOf`, with null where no row matched. */
export function alignRows<K, R>(
  keys: readonly K[],
  rows: readonly R[],
  keyOf: (row: R) => K,
): Array<R | null> {
  const map = new Map<K, R>();
  for (const row of rows) map.set(keyOf(row), row);
  return keys.map((key) => map.get(key) ?? null);
}

/** Groups `rows` by `keyOf`: one list per key (empty when no row matched), in the order of `keys`. */
export function groupRows<K, R>(keys: readonly K[], rows: readonly R[], keyOf: (row: R) => K): R[][] {
  const groups = new Map<K, R[]>(keys.map((key) => [key, []]));
  for (const row of rows) groups.get(keyOf(row))?.push(row);
  return keys.map((key) => groups.get(key) ?? []);
}
