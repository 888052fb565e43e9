import { plainRule } from "../plain-result.ts";
import type { SarifChunk } from "../sarif/reader.ts";
import { Interest, isValueToken, JsonScanner, type ScanListener, Token } from "../sarif/scanner.ts";
import type { SarifRule } from "../sarif/types.ts";
import { scanDocument } from "../sarif/working-directories.ts";
import { isRecord } from "../text-report.ts";

/**
 * The rules ESLint's json-with-metadata describes, read before its results
 * (docs/ingestion-sarif.md "ESLint's JSON"). ESLint writes `metadata.rulesMeta` after every
 * result, and a rule no family row names is classified by its `meta.type` alone: read in the
 * document's order, its findings would be judged by their level until the end. So processing
 * reads the stored report once more before it, with the byte scanner, which builds nothing but
 * each rule's `meta`: the results are only checked, whatever their size. Any other document
 * stops the scan at its first member.
 */

// The containers the listener watches on the way to the rules' meta.
const DOCUMENT = 0;
const REPORT = 1;
const METADATA = 2;
const RULES_META = 3;

/** A watched container: which one, the key of its current member, and how many keys it had. */
interface Container {
  kind: number;
  key: string | null;
  keys: number;
}

/** A rule of `rulesMeta`: its description, help page and type, as the SARIF formatter reads them. */
export function ruleOfMeta(id: string, meta: Record<string, unknown>, index: number): SarifRule {
  const docs = isRecord(meta.docs) ? meta.docs : {};
  const strings: Record<string, string> = {};
  const type = stringOf(meta.type);
  if (type !== null) strings.type = type;
  return plainRule({
    id,
    index,
    shortDescription: stringOf(docs.description),
    helpUri: stringOf(docs.url),
    strings,
  });
}

function stringOf(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

/**
 * Follows the scanner to `$.metadata.rulesMeta.*` in an object whose first member is `results`,
 * and describes each rule whose `meta` is an object, in the document's order (as the reader's
 * parser hands them over).
 */
class RulesMetaSelector implements ScanListener {
  /** The rules described; null until a `rulesMeta` object begins. */
  rules: SarifRule[] | null = null;
  /** True once the document is known not to be json-with-metadata. */
  stopped = false;
  private readonly frames: Container[] = [{ kind: DOCUMENT, key: null, keys: 0 }];

  begin(token: Token): Interest {
    const frame = this.frames[this.frames.length - 1]!;
    switch (frame.kind) {
      case DOCUMENT:
        if (token === Token.BEGIN_OBJECT) return this.enter(REPORT);
        this.stopped = true;
        return Interest.SKIP;
      case REPORT:
        return frame.key === "metadata" && token === Token.BEGIN_OBJECT
          ? this.enter(METADATA)
          : Interest.SKIP;
      case METADATA:
        if (frame.key !== "rulesMeta" || token !== Token.BEGIN_OBJECT) return Interest.SKIP;
        this.rules ??= [];
        return this.enter(RULES_META);
      default:
        return isValueToken(token) ? Interest.CAPTURE : Interest.SKIP;
    }
  }

  key(name: string): void {
    const frame = this.frames[this.frames.length - 1]!;
    // ESLint's report begins with its results; another object (SARIF, Bandit's) is not read on.
    if (frame.kind === REPORT && frame.keys === 0 && name !== "results") this.stopped = true;
    frame.key = name;
    frame.keys += 1;
  }

  leave(): void {
    this.frames.pop();
  }

  captured(value: unknown): void {
    const id = this.frames[this.frames.length - 1]!.key;
    if (this.rules === null || id === null || !isRecord(value)) return;
    this.rules.push(ruleOfMeta(id, value, this.rules.length));
  }

  private enter(kind: number): Interest {
    this.frames.push({ kind, key: null, keys: 0 });
    return Interest.WATCH;
  }
}

/**
 * The rules described by the `metadata.rulesMeta` of ESLint's json-with-metadata, read from the
 * document `open()` gives, or null when it has none (another format, ESLint's plain `json`
 * list). A document that is not JSON answers what was found before the error: the reader that
 * follows reports it. Errors of the source itself are thrown.
 */
export async function findEslintRules(
  open: () => AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
): Promise<SarifRule[] | null> {
  const selector = new RulesMetaSelector();
  await scanDocument(open(), new JsonScanner(selector), () => selector.stopped);
  return selector.stopped ? null : selector.rules;
}
