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
  return randomKeyText(ROW_KEY_LENGTH);
}

/**
 * Keys for rows written in bulk (occurrences): each sorts after the ones the same source made
 * before it, so a batch's keys enter the `key` index at one place instead of at random pages all
 * over it. A random key cost PostgreSQL about 4.5 µs more a row in a table of a million findings
 * after a checkpoint (docs/benchmarks.md "Occurrence keys in creation order").
 *
 * A key is 17 characters of [a-z0-9]: the time in milliseconds (9, base 36), the source's tag (4,
 * random, drawn once), and the source's counter (4, wrapping at 36⁴). Two keys of one source
 * with the same time differ in their counter unless 1,679,616 keys were made between them (a
 * clock set back included); two sources collide only with the same tag, time and counter, and
 * the `key` column's unique index then refuses the second (its step fails and runs again). Such
 * a key tells when its finding was written, about what its check's `createdAt` tells already.
 */
export class OrderedKeySource {
  private counter = 0;
  /** The last millisecond seen, and the key's start for it (time and tag). */
  private time = Number.NaN;
  private prefix = "";

  constructor(
    private readonly tag = randomKeyText(4),
    private readonly clock: () => number = Date.now,
  ) {
    if (!/^[a-z0-9]{4}$/.test(tag))
      throw new Error("an ordered key source's tag is 4 characters of [a-z0-9]");
  }

  next(): string {
    const now = this.clock();
    if (now !== this.time) {
      this.time = now;
      this.prefix = now.toString(36).padStart(9, "0") + this.tag;
    }
    const count = this.counter.toString(36).padStart(4, "0");
    this.counter = (this.counter + 1) % ORDERED_COUNTER_LIMIT;
    return this.prefix + count;
  }
}

const ORDERED_COUNTER_LIMIT = 36 ** 4;

function randomKeyText(length: number): string {
  let text = "";
  while (text.length < length) {
    const byte = randomByte();
    // 252 = 7 * 36: reject the top values so every character is equally likely.
    if (byte < 252) text += KEY_ALPHABET[byte % 36];
  }
  return text;
}

const orderedKeys = new OrderedKeySource();

/** A fresh key in this process's creation order ({@link OrderedKeySource}). */
export function newOrderedRowKey(): string {
  return orderedKeys.next();
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
