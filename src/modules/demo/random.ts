import { createHash } from "node:crypto";

/**
 * Deterministic randomness for generated data: a seeded generator (mulberry32), 32-bit string
 * hashing to derive independent streams, and row keys that are unique by construction.
 */

/** The murmur3 finaliser: a bijection on 32-bit integers that mixes every bit. */
export function mix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 32-bit hash of some parts (FNV-1a over their text, then mixed). */
export function hash32(...parts: Array<string | number>): number {
  let h = 0x811c9dc5;
  const text = parts.join("\u0000");
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mix32(h);
}

/** A seeded pseudo-random generator with the helpers the generator needs. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** An independent generator derived from this one's seed material and `label`. */
  static derive(seed: number, ...label: Array<string | number>): Random {
    return new Random(hash32(seed, ...label));
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** A float in [min, max). */
  between(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One element, chosen with the given non-negative weights (not all zero). */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    let total = 0;
    for (const w of weights) total += w;
    let r = this.next() * total;
    for (let i = 0; i < items.length; i++) {
      r -= weights[i]!;
      if (r < 0) return items[i]!;
    }
    return items[items.length - 1]!;
  }

  /** `count` distinct elements (all of them when there are fewer), in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy.slice(0, Math.min(count, copy.length));
  }

  /** A Poisson-distributed count with mean `lambda` (Knuth's method; fine for small means). */
  poisson(lambda: number): number {
    if (lambda <= 0) return 0;
    if (lambda > 30) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * this.normal()));
    const limit = Math.exp(-lambda);
    let k = 0;
    let p = this.next();
    while (p > limit) {
      k++;
      p *= this.next();
    }
    return k;
  }

  /** A standard normal deviate (Box-Muller). */
  normal(): number {
    const u = 1 - this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }

  /** A version-4-shaped UUID drawn from this generator. */
  uuid(): string {
    const hex = Array.from({ length: 4 }, () =>
      Math.floor(this.next() * 2 ** 32)
        .toString(16)
        .padStart(8, "0"),
    ).join("");
    const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }
}

/** A 40-hex-digit SHA-1 of some parts: commit ids and fingerprints. */
export function sha1Hex(...parts: Array<string | number>): string {
  return createHash("sha1").update(parts.join(":")).digest("hex");
}

const HALF_BITS = 25;
const HALF = 2 ** HALF_BITS;
const HALF_MASK = HALF - 1;
const COUNTER_BITS = 22;
const KEY_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/**
 * Row keys derived from the seed. A key is a 4-round Feistel permutation of the 50-bit number
 * (namespace << 22 | counter), keyed by the seed and table, written as 10 base-36 digits: keys of
 * one table never collide within a seed (the permutation is a bijection), and they look as random
 * as `newRowKey()`'s. Namespaces are repository numbers (plus one; 0 holds accounts and users), so
 * each repository's rows can be generated on their own.
 */
export class KeySpace {
  private readonly rounds = new Map<string, number[]>();

  constructor(private readonly seed: number) {}

  /** The key of row `counter` of `table` within `namespace` (< 2^28; counter < 2^22). */
  key(table: string, namespace: number, counter: number): string {
    if (namespace >= 2 ** 28 || counter >= 2 ** COUNTER_BITS) {
      throw new RangeError(`key space exhausted for ${table}`);
    }
    let rounds = this.rounds.get(table);
    if (!rounds) {
      rounds = [0, 1, 2, 3].map((i) => hash32(this.seed, table, i));
      this.rounds.set(table, rounds);
    }
    const input = namespace * 2 ** COUNTER_BITS + counter;
    let left = Math.floor(input / HALF);
    let right = input % HALF;
    for (const round of rounds) {
      const next = (left ^ (mix32(right ^ round) & HALF_MASK)) >>> 0;
      left = right;
      right = next;
    }
    let value = left * HALF + right;
    let key = "";
    for (let i = 0; i < 10; i++) {
      key = KEY_ALPHABET[value % 36]! + key;
      value = Math.floor(value / 36);
    }
    return key;
  }

  /** A generator of consecutive keys of `table` within `namespace`. */
  counter(table: string, namespace: number): () => string {
    let next = 0;
    return () => this.key(table, namespace, next++);
  }
}
