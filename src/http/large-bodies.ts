/**
 * The gate in front of bodies larger than `ASSAY_MAX_BODY_BYTES`: only an artifact upload may be
 * that large, and it must say so in its first bytes (its `query` comes first, as `assay upload`
 * and DeepSource's CLI send it), so nothing else is ever buffered past the ordinary limit. At most
 * `ASSAY_MAX_CONCURRENT_UPLOADS` such bodies are held at once; the next one gets 503.
 */

const LEADING_QUERY = /^\s*\{\s*"query"\s*:\s*"/;

/**
 * The `query` string a JSON request body opens with, read from its first bytes alone; undefined
 * when the body does not start with `{"query": "..."` complete within `prefix`.
 */
export function leadingQuery(prefix: Buffer): string | undefined {
  const text = prefix.toString("latin1");
  const opening = LEADING_QUERY.exec(text);
  if (!opening) return undefined;
  const start = opening[0].length - 1;
  for (let i = start + 1; i < text.length; i++) {
    const char = text[i];
    if (char === "\\") {
      i++;
    } else if (char === '"') {
      try {
        // Decoded as UTF-8 from the bytes: the latin1 view only found where the string ends.
        const value: unknown = JSON.parse(prefix.subarray(start, i + 1).toString("utf8"));
        return typeof value === "string" ? value : undefined;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** A count of large bodies being held, with a fixed number of slots. */
export class LargeBodySlots {
  private held = 0;

  constructor(readonly capacity: number) {}

  /** Takes a slot, returning its release (idempotent), or undefined when all are taken. */
  tryAcquire(): (() => void) | undefined {
    if (this.held >= this.capacity) return undefined;
    this.held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
    };
  }

  /** How many slots are taken now. */
  get inUse(): number {
    return this.held;
  }
}
