import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { PersonalAccessTokenRow, UserRow } from "../../db/types.ts";
import { type CachedIdentity, forgetRevokedToken, IdentityCache } from "./identity-cache.ts";

function identity(tokenId: string, revoked = false): CachedIdentity {
  const token = { id: tokenId, revoked_at: revoked ? new Date() : null } as PersonalAccessTokenRow;
  return { token, user: { id: "1" } as UserRow };
}

const live = (found: CachedIdentity) => found.token.revoked_at === null;

/** A cache on a clock the test moves, and a lookup that counts its calls. */
function setUp(ttlMs = 1000) {
  let now = 0;
  const cache = new IdentityCache(ttlMs, () => now);
  let lookups = 0;
  let answer: CachedIdentity | undefined = identity("7");
  const lookUp = async () => {
    lookups += 1;
    return answer;
  };
  return {
    cache,
    get: () => cache.get("hash", lookUp, live),
    advance: (ms: number) => {
      now += ms;
    },
    lookups: () => lookups,
    answer: (next: CachedIdentity | undefined) => {
      answer = next;
    },
  };
}

describe("IdentityCache", () => {
  test("answers from memory for less than its lifetime, then looks up again", async () => {
    const c = setUp();
    await c.get();
    c.advance(999);
    await c.get();
    assert.equal(c.lookups(), 1);
    c.advance(1);
    await c.get();
    assert.equal(c.lookups(), 2, "an entry a full second old is never served");
  });

  test("never keeps an unknown or a revoked token", async () => {
    const c = setUp();
    c.answer(undefined);
    await c.get();
    await c.get();
    c.answer(identity("7", true));
    await c.get();
    await c.get();
    assert.equal(c.lookups(), 4);
    assert.equal(c.cache.size, 0);
  });

  test("forgetting a token drops its entry in every cache of the process", async () => {
    const a = setUp();
    const b = setUp();
    await a.get();
    await b.get();
    forgetRevokedToken("7");
    await a.get();
    await b.get();
    assert.equal(a.lookups(), 2);
    assert.equal(b.lookups(), 2);
  });

  test("a lookup under way when its token is forgotten is answered but not kept", async () => {
    const c = setUp();
    let release: () => void = () => {};
    const slow = new Promise<CachedIdentity>((resolve) => {
      release = () => resolve(identity("7"));
    });
    const pending = c.cache.get("hash", () => slow, live);
    c.cache.forget("7");
    release();
    assert.ok(await pending);
    assert.equal(c.cache.size, 0);
  });

  test("requests that arrive while a lookup is under way share it", async () => {
    const c = setUp();
    await Promise.all([c.get(), c.get(), c.get()]);
    assert.equal(c.lookups(), 1);
  });

  test("peek answers what get would serve from memory, and nothing once it would look up", async () => {
    const c = setUp();
    assert.equal(c.cache.peek("hash"), undefined, "nothing before the first lookup");
    await c.get();
    c.advance(999);
    assert.equal(c.cache.peek("hash")?.token.id, "7");
    assert.equal(c.cache.peek("other"), undefined);
    c.advance(1);
    assert.equal(c.cache.peek("hash"), undefined, "an entry a full second old is never served");
    await c.get();
    c.cache.forget("7");
    assert.equal(c.cache.peek("hash"), undefined, "a forgotten token is not served");
    const off = setUp(0);
    await off.get();
    assert.equal(off.cache.peek("hash"), undefined, "a lifetime of 0 keeps nothing");
  });

  test("a lifetime of 0 looks up every time; more than a second is refused", async () => {
    const c = setUp(0);
    await c.get();
    await c.get();
    assert.equal(c.lookups(), 2);
    assert.throws(() => new IdentityCache(1001), /0 to 1000 ms/);
  });
});
