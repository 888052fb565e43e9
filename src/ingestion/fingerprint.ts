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
 * How a fingerprint's context is made (docs/ingestion.md "Fingerprints"), kept per check
 * (`checks.fingerprint_version`, migration 0038): 1 keeps every number of a message that is not
 * a position; 2 also replaces the numbers that stand alone (`(539)`, `of 4`, `2.5`) by `#`, so a
 * count that moves with every edit (`max-lines`, `complexity`) keeps its finding.
 */
export type FingerprintVersion = 1 | 2;

/** The version new checks' findings are hashed with (the column's default). */
export const FINGERPRINT_VERSION: FingerprintVersion = 2;

/** A check's stored version as a {@link FingerprintVersion}; throws on one this code does not know. */
export function fingerprintVersionOf(stored: number): FingerprintVersion {
  if (stored === 1 || stored === 2) return stored;
  throw new Error(`unknown fingerprint version ${stored}`);
}

/**
 * A number standing alone: `539`, `2.5`; not part of a word or a name (`v2`, `E501`, `x86_64`,
 * `v1.2.3`, `SHA-256`, `CWE-327`, `3-way` stay).
 */
const STANDALONE_NUMBER = /(?<![\w.-])\d+(?:\.\d+)*\b(?![.-]\w)/g;

/**
 * A message without the numbers that look like positions (see docs/ingestion.md
 * "Fingerprints"): `'x' is already declared on line 3 column 7.` becomes `'x' is already
 * declared on line column.`; in version 1 other numbers (`exceeds 120 characters`) stay, in
 * version 2 each becomes `#` (`exceeds # characters`).
 */
export function messageContext(message: string, version: FingerprintVersion = FINGERPRINT_VERSION): string {
  const withoutPositions = message
    .replace(NAMED_POSITION, "$1")
    .replace(LINE_LINK, "")
    .replace(COLON_POSITION, "");
  return collapseWhitespace(
    version === 1 ? withoutPositions : withoutPositions.replace(STANDALONE_NUMBER, "#"),
  );
}

/**
 * The context of a finding, first available: the tool's fingerprints, the primary region's
 * snippet, the message without positions (and, from version 2, without counts), else empty.
 */
export function fingerprintContext(
  result: Pick<SarifResult, "partialFingerprints" | "fingerprints" | "message">,
  snippet: string | null | undefined,
  version: FingerprintVersion = FINGERPRINT_VERSION,
): string {
  return toolFingerprintContext(result) ?? snippetContext(snippet) ?? messageContext(result.message, version);
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
 * Ordinals of identities in stream order: the n-th finding with the same identity gets ordinal
 * n - 1. It remembers one fingerprint per distinct identity (the one of ordinal 0) and a count,
 * and the fingerprints of the repeats, so it knows every fingerprint it gave.
 */
class OrdinalSequence {
  private readonly seen = new Map<string, number>();
  private readonly repeats = new Set<string>();

  next(identity: FindingIdentity): string {
    const first = fingerprintOf(identity, 0);
    const ordinal = this.seen.get(first) ?? 0;
    this.seen.set(first, ordinal + 1);
    if (ordinal === 0) return first;
    const repeat = fingerprintOf(identity, ordinal);
    this.repeats.add(repeat);
    return repeat;
  }

  has(fingerprint: string): boolean {
    return this.seen.has(fingerprint) || this.repeats.has(fingerprint);
  }

  get identities(): number {
    return this.seen.size;
  }
}

/**
 * Gives the findings of one artifact their fingerprints in stream order, so two identical
 * findings in a file stay distinct (their ordinals), and, where the base check would know a
 * finding by another identity, the fingerprint it has there: its *former* fingerprint. Former
 * identities are counted apart (a base of fingerprint version 1 tells apart findings that
 * version 2 counts as repeats), so the caller gives a former identity for every finding of a
 * renamed file, and for every finding when the base's version is not the check's.
 */
export class FingerprintSequence {
  private readonly own = new OrdinalSequence();
  private readonly formers = new OrdinalSequence();
  private readonly deferredFormers = new OrdinalSequence();

  /** The fingerprint of the next finding with `identity`. */
  next(identity: FindingIdentity): string {
    return this.own.next(identity);
  }

  /**
   * The fingerprint of the next finding with `identity`, and the one the base check knows it by
   * when `former` (its identity in the base's terms: the old path of a renamed file, the base's
   * fingerprint version) makes another (docs/ingestion.md "Renamed files", "Fingerprints"); null
   * otherwise.
   */
  nextWithFormer(
    identity: FindingIdentity,
    former: FindingIdentity | undefined,
  ): { fingerprint: string; former: string | null } {
    const fingerprint = this.own.next(identity);
    if (former === undefined) return { fingerprint, former: null };
    const formerFingerprint = this.formers.next(former);
    return { fingerprint, former: formerFingerprint === fingerprint ? null : formerFingerprint };
  }

  /**
   * The fingerprint the next finding with `deferred` (its identity at the old path of a file
   * renamed against a commit that is not the run's base yet) has there: its deferred former
   * fingerprint (docs/ingestion.md "Renamed files"), counted apart from the former ones.
   */
  nextDeferred(deferred: FindingIdentity): string {
    return this.deferredFormers.next(deferred);
  }

  /** True when this sequence gave `fingerprint` to a finding, as its own or as its former one. */
  has(fingerprint: string): boolean {
    return this.own.has(fingerprint) || this.formers.has(fingerprint);
  }

  /** How many distinct identities were met. */
  get identities(): number {
    return this.own.identities;
  }
}
