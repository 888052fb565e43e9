import { JSONParser, type ParsedElementInfo, type ParsedTokenInfo, TokenType } from "@streamparser/json";
import type { SarifEvent } from "./sarif/types.ts";
import type { TextReportReader } from "./text-report.ts";

/**
 * What the readers of a tool's single JSON document (pylint's list of messages, Bandit's report
 * object) share: the document streamed line by line into a parser that hands over only the items
 * of the given paths (bounded memory, whatever the document's size), with the line being read
 * kept for error messages, and the document's top level followed token by token: whether it is
 * an array or an object, and which members it has with the kind of their values.
 */

/** The kind of a top-level member's value. */
export type MemberKind = "array" | "object" | "scalar";

/** What a document's top level is. */
export type TopLevelKind = "array" | "object" | "scalar";

export interface JsonDocumentOptions {
  /**
   * The parser's paths (`$.*`, `$.results.*`): each matching value is handed to `onItem`. A
   * function chooses them by the document's top level, for a format written as a list by one
   * version and as an object by another: a path matching a whole list would hold it in memory.
   */
  paths: string[] | ((topLevel: TopLevelKind) => string[]);
  /** One value of the paths, with the line its end was read on. */
  onItem(info: ParsedElementInfo, line: number): void;
  /** The error for text that is not valid JSON, or a document that does not end. */
  invalid(line: number, truncated: boolean): Error;
  /**
   * Told the document's top level from its first token, before any item: a reader throws here
   * for the wrong kind, so that a value of a path it does not expect is never gathered.
   */
  onTopLevel?(kind: TopLevelKind, line: number): void;
  /** Whether `error` is the reader's own (thrown from `onItem`), which passes through unchanged. */
  owns(error: unknown): boolean;
}

/** A single JSON document, streamed; `events` are the reader's, emptied by the caller. */
export class JsonDocumentReader implements TextReportReader {
  readonly events: SarifEvent[] = [];
  /** The line being read (1-based). */
  line = 1;
  /** `[` or `{`: the document's top level, once its first token is read. */
  topLevel: TopLevelKind | null = null;
  /** The top-level object's members, with the kind of their values. */
  readonly members = new Map<string, MemberKind>();
  /** Made at the document's first character, when its paths are known. */
  private parser: JSONParser | null = null;
  private depth = 0;
  private key: string | null = null;
  private expectingValue = false;

  constructor(private readonly options: JsonDocumentOptions) {}

  /** The parser for a document whose first character (after whitespace) is `first`. */
  private parserFor(first: string): JSONParser {
    const { paths } = this.options;
    const kind: TopLevelKind = first === "[" ? "array" : first === "{" ? "object" : "scalar";
    const parser = new JSONParser({
      paths: typeof paths === "function" ? paths(kind) : paths,
      keepStack: false,
    });
    parser.onValue = (info) => this.options.onItem(info, this.line);
    parser.onToken = (token) => this.onToken(token);
    return parser;
  }

  feed(chunk: string): void {
    let from = 0;
    for (let at = chunk.indexOf("\n"); at !== -1; at = chunk.indexOf("\n", from)) {
      // Written line by line, so that a complaint is about the line being read.
      this.write(chunk.slice(from, at + 1));
      from = at + 1;
      this.line += 1;
    }
    this.write(chunk.slice(from));
  }

  end(): void {
    if (this.topLevel === null) throw this.options.invalid(this.line, false);
    try {
      if (this.parser !== null && !this.parser.isEnded) this.parser.end();
    } catch (error) {
      if (this.options.owns(error)) throw error;
      throw this.options.invalid(this.line, true);
    }
    if (this.depth !== 0) throw this.options.invalid(this.line, true);
  }

  private write(text: string): void {
    if (text === "") return;
    if (this.parser === null) {
      // Whitespace (a byte order mark too) before the document: the parser skips it as well.
      const first = /[^\s\uFEFF]/.exec(text);
      if (first === null) return;
      this.parser = this.parserFor(first[0]);
    }
    const parser = this.parser;
    if (parser.isEnded) {
      // After the document, only whitespace.
      if (text.trim() === "") return;
      throw this.options.invalid(this.line, false);
    }
    try {
      parser.write(text);
    } catch (error) {
      if (this.options.owns(error)) throw error;
      throw this.options.invalid(this.line, false);
    }
  }

  private onToken({ token, value }: ParsedTokenInfo): void {
    const opens = token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET;
    if (this.topLevel === null) {
      this.topLevel =
        token === TokenType.LEFT_BRACKET ? "array" : token === TokenType.LEFT_BRACE ? "object" : "scalar";
      this.options.onTopLevel?.(this.topLevel, this.line);
    }
    if (this.depth === 1 && this.topLevel === "object") {
      if (this.expectingValue && this.key !== null) {
        this.members.set(this.key, opens ? (token === TokenType.LEFT_BRACE ? "object" : "array") : "scalar");
        this.expectingValue = false;
      } else if (token === TokenType.STRING) {
        this.key = String(value);
      } else if (token === TokenType.COLON) {
        this.expectingValue = true;
      }
    }
    if (opens) this.depth += 1;
    else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) this.depth -= 1;
  }
}
