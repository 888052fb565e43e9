import type { PersonalAccessTokenRow } from "../db/types.ts";
import { PAT_PREFIX } from "../modules/auth/pat.ts";
import { createToken } from "../modules/auth/token-service.ts";
import { findTokenByKey, listTokensOfUser, revokeTokenByKey } from "../modules/auth/token-store.ts";
import { findUsersByIds } from "../modules/users/user-store.ts";
import { CliError, type Command, DEVELOPMENT_PEPPER_WARNING, UsageError } from "./command.ts";
import { parseExpiry, parseTokenName, requireUser } from "./input.ts";
import { formatTable, formatTime } from "./table.ts";

/**
 * Personal access tokens. A token's plaintext exists only in `token create`'s stdout: the
 * database keeps its keyed hash and last four characters, and everything else shows those.
 */

/** A token's state at `now`. */
export type TokenStatus = "active" | "expired" | "revoked";

/** Whether a token row still authenticates at `now`, and if not why. */
export function tokenStatus(row: PersonalAccessTokenRow, now: Date): TokenStatus {
  if (row.revoked_at) return "revoked";
  if (row.expires_at && row.expires_at.getTime() <= now.getTime()) return "expired";
  return "active";
}

/** `token create`: mints a token and prints it, once, alone on stdout. */
export const tokenCreate: Command = {
  name: "token create",
  summary:
    "Create a personal access token. The token is printed alone on stdout, once; it cannot be shown again. Use --expires-in never only for service accounts.",
  flags: {
    user: { type: "string", placeholder: "EMAIL", required: true, description: "Whose token it is." },
    name: {
      type: "string",
      placeholder: "NAME",
      required: true,
      description: "What it is for (1 to 100 chars).",
    },
    "expires-in": {
      type: "string",
      placeholder: "DAYS|never",
      required: true,
      description: "Lifetime in days, 1 to 3650, or never.",
    },
  },
  async run({ flags, database, print, note, config }) {
    const email = flags.required("user");
    const name = parseTokenName(flags.required("name"));
    const expiresInDays = parseExpiry(flags.required("expires-in"));
    const { db } = await database();
    const { token, row } = await db.transaction().execute(async (trx) => {
      const user = await requireUser(trx, email, "--user");
      return createToken(trx, config.tokenPepper, { userId: user.id, name, expiresInDays });
    });
    print(token);
    if (config.tokenPepperIsDefault) note(DEVELOPMENT_PEPPER_WARNING);
    const expiry = row.expires_at ? `expires ${formatTime(row.expires_at, "")}` : "never expires";
    note(
      `Created token ${row.key} "${row.name}" for ${email}; it ${expiry}. This is the only time it is shown.`,
    );
  },
};

/** `token list`: a user's tokens with their state, never the tokens themselves. */
export const tokenList: Command = {
  name: "token list",
  summary: "List a user's tokens: id, name, last four characters, dates and status. Never the token itself.",
  flags: {
    user: { type: "string", placeholder: "EMAIL", required: true, description: "Whose tokens to list." },
    json: { type: "boolean", description: "Print a JSON array instead of a table." },
  },
  async run({ flags, database, print }) {
    const email = flags.required("user");
    const { db } = await database();
    const user = await requireUser(db, email, "--user");
    const rows = await listTokensOfUser(db, user.id);
    const now = new Date();
    const tokens = rows.map((row) => ({
      id: row.key,
      name: row.name,
      token: `${PAT_PREFIX}…${row.last_four}`,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      lastUsedAt: row.last_used_at,
      revokedAt: row.revoked_at,
      status: tokenStatus(row, now),
    }));
    if (flags.isSet("json")) {
      print(JSON.stringify(tokens, null, 2));
      return;
    }
    if (tokens.length === 0) {
      print(`${user.email} has no tokens.`);
      return;
    }
    const table = tokens.map((t) => [
      t.id,
      t.name,
      t.token,
      formatTime(t.createdAt, ""),
      formatTime(t.expiresAt, "never"),
      formatTime(t.lastUsedAt, "never"),
      t.status,
    ]);
    for (const line of formatTable(
      ["ID", "NAME", "TOKEN", "CREATED", "EXPIRES", "LAST USED", "STATUS"],
      table,
    )) {
      print(line);
    }
  },
};

/** `token revoke`: stops a token working on every instance within a second (their identity caches, `ASSAY_IDENTITY_CACHE_MS`). */
export const tokenRevoke: Command = {
  name: "token revoke",
  summary: "Revoke a token by its id (from token list). Fails when there is no such active token.",
  flags: {
    id: {
      type: "string",
      placeholder: "KEY",
      description: "The token's id; may also be given as the argument.",
    },
  },
  positional: { placeholder: "KEY", flag: "id" },
  async run({ flags, database, print }) {
    const key = flags.optional("id");
    if (key === undefined) throw new UsageError("missing --id KEY", tokenRevoke);
    // Never echo a pasted secret back into a terminal or log.
    if (key.startsWith(PAT_PREFIX)) throw new CliError("give the token's id (see token list), not the token");
    const { db } = await database();
    const revoked = await db.transaction().execute(async (trx) => {
      const row = await findTokenByKey(trx, key);
      if (!row) throw new CliError(`no token with id ${key}`);
      const status = tokenStatus(row, new Date());
      if (status === "revoked") {
        throw new CliError(`token ${key} was already revoked on ${formatTime(row.revoked_at, "")}`);
      }
      if (status === "expired") {
        throw new CliError(
          `token ${key} already expired on ${formatTime(row.expires_at, "")}; nothing to revoke`,
        );
      }
      await revokeTokenByKey(trx, key);
      const [owner] = await findUsersByIds(trx, [row.user_id]);
      return { row, email: owner?.email ?? "unknown user" };
    });
    print(`Revoked token ${revoked.row.key} "${revoked.row.name}" of ${revoked.email}.`);
  },
};
