import crypto, { createHash } from "node:crypto";
import type { SarifResult } from "../formats/sarif/types.ts";

/**
 * Fingerprints of findings (docs/ingestion.md "Fingerprints"): a stable identity for one finding
 * that survives lines moving, so a run's findings can be matched with its base run's. A
 * fingerprint hashes the analyzer, the rule, the path, a context that describes the finding
 * without its position, and an ordinal that keeps identical findings of one file apart.
 */

/** What identifies a finding apart from its position and its ordinal. */
export interface FindingIdentity {
  /** The analyzer's shortcode (`artifact.analyzer`). */
  analyzer: string;
  ruleId: string;
  /** The repository-relative path of the finding's primary location. */
  path: string;
  /** What the finding is about, without line numbers: see {@link fingerprintContext}. */
  context: string;
}

/** The one tool fingerprint whose key says "line" but whose value hashes the line's text. */
const LINE_CONTENT_HASH = "primaryLocationLineHash";

/**
 * The tool's own fingerprints (`partialFingerprints` and `fingerprints`) as sorted `key=value`
 * lines, leaving out keys that name a line (they usually carry line numbers) except
 * `primaryLocationLineHash`, a hash of the line's content; null when none is left.
 */
export function toolFingerprintContext(
  result: Pick<SarifResult, "partialFingerprints" | "fingerprints">,
): string | null {
  const entries = [...Object.entries(result.partialFingerprints), ...Object.entries(result.fingerprints)]
    .filter(([key]) => key === LINE_CONTENT_HASH || !/line/i.test(key))
    .map(([key, value]) => `${key}=${value}`);
  if (entries.length === 0) return null;
  return [...new Set(entries)].sort().join("\n");
}

/** Runs of whitespace collapsed to one space, ends trimmed. */
function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** A region's source text with whitespace collapsed; null when there is none. */
export function snippetContext(snippet: string | null | undefined): string | null {
  if (snippet == null) return null;
  const text = collapseWhitespace(snippet);
  return text === "" ? null : text;
}

/** `line 12`, `lines 3-5`, `col. 7`, `column: 4`: the word stays, the numbers go. */
const NAMED_POSITION = /\b(lines?|ln|columns?|col)\b\.?[\s:#]*\d+(?:\s*(?:-|–|,|to|and)\s*\d+)*/gi;
/** `L12`, `L12C5`, `#L12-L14` (links to lines). */
const LINE_LINK = /#?\bL\d+(?:C\d+)?(?:-L?\d+(?:C\d+)?)?\b/g;
/** `12:5`, `a.ts:12`, `a.ts:12:5`: a line and column pair, or a position after a name. */
const COLON_POSITION = /(?:\b\d+)?:\d+(?::\d+)?\b/g;

/**
 * A message without the numbers that look like positions (see docs/ingestion.md
 * "Fingerprints"): `'x' is already declared on line 3 column 7.` becomes `'x' is already
 * declared on line column.`; other numbers (`exceeds 120 characters`) stay.
 */
export function messageContext(message: string): string {
  return collapseWhitespace(
    message.replace(NAMED_POSITION, "$1").replace(LINE_LINK, "").replace(COLON_POSITION, ""),
  );
}

/**
 * The context of a finding, first available: the tool's fingerprints, the primary region's
 * snippet, the message without positions, else empty.
 */
export function fingerprintContext(
  result: Pick<SarifResult, "partialFingerprints" | "fingerprints" | "message">,
  snippet: string | null | undefined,
): string {
  return toolFingerprintContext(result) ?? snippetContext(snippet) ?? messageContext(result.message);
}

/**
 * The fingerprint of the `ordinal`-th (from 0) finding with this identity: the first 128 bits of
 * SHA-256 over the JSON array `[analyzer, ruleId, path, context, ordinal]`, as 32 hex characters.
 */
export function fingerprintOf(identity: FindingIdentity, ordinal: number): string {
  const text = JSON.stringify([identity.analyzer, identity.ruleId, identity.path, identity.context, ordinal]);
  // One call where a Hash object costs four times as much: about a microsecond per finding.
  return oneShotSha256
    ? oneShotSha256("sha256", text, "hex").slice(0, 32)
    : createHash("sha256").update(text).digest().toString("hex", 0, 16);
}

// `crypto.hash` exists from Node 20.12; `engines` allows 20.11.
const oneShotSha256 = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string })
  .hash;

/**
 * Gives the findings of one artifact their fingerprints in stream order: the n-th finding with
 * the same identity gets ordinal n - 1, so two identical findings in a file stay distinct. It
 * remembers one fingerprint per distinct identity (the one of ordinal 0) and a count, and the
 * fingerprints of the repeats, so it knows every fingerprint it gave.
 */
export class FingerprintSequence {
  private readonly seen = new Map<string, number>();
  private readonly repeats = new Set<string>();
  private readonly formers = new Set<string>();

  /** The fingerprint of the next finding with `identity`. */
  next(identity: FindingIdentity): string {
    return this.nextOrdinal(identity).fingerprint;
  }

  /**
   * The fingerprint of the next finding with `identity`, and, when its file was renamed from
   * `formerPath`, the fingerprint the finding had there: the same identity and ordinal at the old
   * path (docs/ingestion.md "Renamed files"); null without a former path.
   */
  nextWithFormer(
    identity: FindingIdentity,
    formerPath: string | undefined,
  ): { fingerprint: string; former: string | null } {
    const { fingerprint, ordinal } = this.nextOrdinal(identity);
    if (formerPath === undefined) return { fingerprint, former: null };
    const former = fingerprintOf({ ...identity, path: formerPath }, ordinal);
    this.formers.add(former);
    return { fingerprint, former };
  }

  private nextOrdinal(identity: FindingIdentity): { fingerprint: string; ordinal: number } {
    const first = fingerprintOf(identity, 0);
    const ordinal = this.seen.get(first) ?? 0;
    this.seen.set(first, ordinal + 1);
    if (ordinal === 0) return { fingerprint: first, ordinal };
    const repeat = fingerprintOf(identity, ordinal);
    this.repeats.add(repeat);
    return { fingerprint: repeat, ordinal };
  }

  /** True when this sequence gave `fingerprint` to a finding, as its own or as its former one. */
  has(fingerprint: string): boolean {
    return this.seen.has(fingerprint) || this.repeats.has(fingerprint) || this.formers.has(fingerprint);
  }

  /** How many distinct identities were met. */
  get identities(): number {
    return this.seen.size;
  }
}
