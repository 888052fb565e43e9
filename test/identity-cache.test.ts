// test-runner: execution-mode independent (credentials are checked before any document is executed)
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { UserRow } from "../src/db/types.ts";
import { createToken } from "../src/modules/auth/token-service.ts";
import { revokeTokenByKey } from "../src/modules/auth/token-store.ts";
import { aUser } from "./helpers/builders.ts";
import { bearer, post, startInstance, type TestInstance, waitFor } from "./helpers/instance.ts";
import { assayArgs } from "./helpers/start-command.ts";

/**
 * The identity cache (src/modules/auth/identity-cache.ts) on real instances: a token checked in the
 * last second costs no lookup, and a revocation made anywhere still locks the token out of every
 * instance within a second — through the API of one instance at once. (What a cached token saves
 * is counted in test/statement-counting.test.ts.)
 */

const VIEWER = "{ viewer { email } }";
const ROOT = path.resolve(import.meta.dirname, "..");
/** The promise (ASSAY_IDENTITY_CACHE_MS, 1 s) plus a request's round trip on a busy test machine. */
const REVOCATION_DEADLINE_MS = 1500;

let home: TestInstance;
let second: TestInstance;
let user: UserRow;

before(async () => {
  const env = { ASSAY_TRUST_PROXY: "true" };
  home = await startInstance({ env });
  // A second instance on the same database, as a replica behind a load balancer would be.
  second = await startInstance({ sameDatabaseAs: home, env });
  user = await aUser(home.db, { email: "cached@example.test" });
});
after(async () => {
  await second?.stop();
  await home?.stop();
});

async function newToken(name: string): Promise<{ token: string; key: string; id: string }> {
  const { token, row } = await createToken(home.db, home.config.tokenPepper, {
    userId: user.id,
    name,
    expiresInDays: 30,
  });
  return { token, key: row.key, id: row.id };
}

let addresses = 0;

/**
 * `headers` from a client address no other request used: the refusals these tests wait for must
 * not reach the unauthenticated limit (20 per address), or they would turn into 429s.
 */
function fromNewAddress(headers: Record<string, string>): Record<string, string> {
  addresses += 1;
  return { ...headers, "x-forwarded-for": `10.1.${Math.floor(addresses / 256) % 256}.${addresses % 256}` };
}

async function status(instance: TestInstance, token: string): Promise<number> {
  return (await post(instance.endpoint, VIEWER, fromNewAddress(bearer(token)))).status;
}

/** Resolves once both instances refuse `token`; fails after {@link REVOCATION_DEADLINE_MS}. */
async function refusedEverywhere(token: string, what: string): Promise<number> {
  const started = performance.now();
  const refused = new Set<TestInstance>();
  await waitFor(
    what,
    async () => {
      for (const instance of [home, second]) {
        if (!refused.has(instance) && (await status(instance, token)) === 401) refused.add(instance);
      }
      return refused.size === 2;
    },
    REVOCATION_DEADLINE_MS,
  );
  return performance.now() - started;
}

describe("the identity cache", () => {
  test("a token revoked outside the instances (SQL, another process) is refused by both within a second", async () => {
    const { token, key } = await newToken("revoked elsewhere");
    assert.equal(await status(home, token), 200);
    assert.equal(await status(second, token), 200);
    assert.equal(await revokeTokenByKey(home.db, key), true);
    await refusedEverywhere(token, "both instances to refuse the revoked token");
  });

  test("a cached token revoked through one instance's API is refused by that instance's next request", async () => {
    const { token } = await newToken("revokes itself");
    assert.equal(await status(home, token), 200);
    const revoked = await post(home.endpoint, "mutation { revokePat { ok } }", fromNewAddress(bearer(token)));
    assert.deepEqual(revoked.json, { data: { revokePat: { ok: true } } });
    assert.equal(await status(home, token), 401, "refused at once where it was revoked");
    await refusedEverywhere(token, "the other instance to refuse it too");
  });

  test("a token expiring while cached is refused from the moment it expires", async () => {
    const { token, id } = await newToken("expiring");
    const expiresAt = new Date(Date.now() + 300);
    await home.db
      .updateTable("personal_access_tokens")
      .set({ expires_at: expiresAt })
      .where("id", "=", id)
      .execute();
    assert.equal(await status(home, token), 200);
    await waitFor("the token to expire", () => Date.now() > expiresAt.getTime());
    assert.equal(await status(home, token), 401);
  });

  test("a deleted user's token is refused by both instances within a second", async () => {
    const leaving = await aUser(home.db, { email: "leaving@example.test" });
    const { token } = await createToken(home.db, home.config.tokenPepper, {
      userId: leaving.id,
      name: "leaving",
      expiresInDays: 30,
    });
    assert.equal(await status(home, token), 200);
    assert.equal(await status(second, token), 200);
    await home.db.deleteFrom("users").where("id", "=", leaving.id).execute();
    await refusedEverywhere(token, "both instances to refuse the deleted user's token");
  });

  test("`assay token revoke` in another process, while the servers run, locks the token out within a second", async () => {
    const { token, key } = await newToken("revoked by the CLI");
    // Keep the token in both caches for as long as the CLI runs, so its revocation must reach them.
    let cliDone = false;
    const keepWarm = (async () => {
      while (!cliDone) {
        await Promise.all([status(home, token), status(second, token)]);
      }
    })();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ASSAY_DATA_DIR: home.config.dataDir,
      LOG_LEVEL: "silent",
    };
    delete env.NODE_TEST_CONTEXT;
    if (home.config.databaseUrl) env.DATABASE_URL = home.config.databaseUrl;
    else delete env.DATABASE_URL;
    const cli = spawn(process.execPath, assayArgs("token", "revoke", key), {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    cli.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    cli.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => cli.once("exit", resolve));
    cliDone = true;
    await keepWarm;
    assert.equal(code, 0, output);
    assert.match(output, /^Revoked token /);
    await refusedEverywhere(token, "both instances to refuse the token the CLI revoked");
  });
});
