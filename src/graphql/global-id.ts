import { randomBytes } from "node:crypto";

/**
 * Relay global ids, as the contract forms them: base64 of `<TypeName>:<key>`, where the key is a
 * short random string stored with the row (never its integer primary key).
 */

const KEY_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
/** Length of every key `newRowKey` makes (where a repository issue's key splits, what a DSN token starts with). */
export const ROW_KEY_LENGTH = 10;
const KEY_PATTERN = /^[a-z0-9]{4,32}$/;
const TYPE_PATTERN = /^[A-Z][A-Za-z0-9]{0,63}$/;

/**
 * Random bytes drawn 8 KiB at a time: a key costs a few array reads instead of a call into the
 * CSPRNG (bulk ingestion makes one per finding; docs/benchmarks.md "Ingestion").
 */
const POOL_BYTES = 8192;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomByte(): number {
  if (poolOffset >= pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** A fresh random row key: 10 characters of [a-z0-9] (about 51 bits), like the contract's hashids. */
export function newRowKey(): string {
  let key = "";
  while (key.length < ROW_KEY_LENGTH) {
    const byte = randomByte();
    // 252 = 7 * 36: reject the top values so every character is equally likely.
    if (byte < 252) key += KEY_ALPHABET[byte % 36];
  }
  return key;
}

/** Encodes a node's global id. */
export function encodeGlobalId(typeName: string, key: string): string {
  return Buffer.from(`${typeName}:${key}`, "utf8").toString("base64");
}

/** A decoded global id, or undefined when `id` is not one we could have issued. */
export function decodeGlobalId(id: string): { typeName: string; key: string } | undefined {
  if (id.length === 0 || id.length > 128 || !/^[A-Za-z0-9+/]+={0,2}$/.test(id)) return undefined;
  const text = Buffer.from(id, "base64").toString("utf8");
  const colon = text.indexOf(":");
  if (colon < 0) return undefined;
  const typeName = text.slice(0, colon);
  const key = text.slice(colon + 1);
  if (!TYPE_PATTERN.test(typeName) || !KEY_PATTERN.test(key)) return undefined;
  return { typeName, key };
}
