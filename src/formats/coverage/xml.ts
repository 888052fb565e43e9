import { SaxesParser } from "saxes";
import { type CoverageFormat, CoverageFormatError } from "./types.ts";

/** An element as the XML reader hands it to a format's handler. */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  /** 1-based line of the report text where the start tag ends. */
  line: number;
}

/** What a format's reader does with the elements it meets. */
export interface XmlHandler {
  /** Called for each start tag with the names of the open ancestors, outermost first. */
  open(element: XmlElement, ancestors: readonly string[]): void;
  /** Called for each end tag (right after `open` for `<empty/>` elements). */
  close?(element: XmlElement, ancestors: readonly string[]): void;
  /** Called with text content and the names of the open elements, outermost first. */
  text?(text: string, open: readonly string[]): void;
}

/**
 * Reads an XML report event by event with saxes (a strict, non-validating streaming parser: no
 * tree is built, no DTD is fetched, no entity is expanded beyond the five predefined ones), checks
 * the root element's name, and turns any well-formedness error into a CoverageFormatError naming
 * the line. A document that ends before its root element is closed (a report cut short by a full
 * disk or an interrupted copy) is refused as truncated: its totals would be silently low.
 */
export function readXml(format: CoverageFormat, text: string, root: string, handler: XmlHandler): void {
  const parser = new SaxesParser({ position: true });
  const stack: XmlElement[] = [];
  const names: string[] = [];
  let sawRoot = false;
  let atEnd = false;
  parser.on("error", (error) => {
    if (atEnd && (!sawRoot || names.length > 0)) throw truncated(format, root, names, parser.line);
    throw new CoverageFormatError(format, `invalid XML: ${stripPosition(error.message)}`, {
      line: parser.line,
    });
  });
  parser.on("opentag", (tag) => {
    const element: XmlElement = {
      name: tag.name,
      attributes: plainAttributes(tag.attributes),
      line: parser.line,
    };
    if (!sawRoot) {
      sawRoot = true;
      if (tag.name !== root) {
        throw new CoverageFormatError(format, `the root element is <${tag.name}>, expected <${root}>`, {
          line: parser.line,
        });
      }
    }
    handler.open(element, names);
    stack.push(element);
    names.push(element.name);
  });
  parser.on("closetag", () => {
    const element = stack.pop();
    names.pop();
    if (element !== undefined) handler.close?.(element, names);
  });
  if (handler.text) {
    const onText = handler.text.bind(handler);
    parser.on("text", (t) => onText(t, names));
    parser.on("cdata", (t) => onText(t, names));
  }
  parser.write(text.startsWith("\uFEFF") ? text.slice(1) : text);
  // Errors from here on are about the end of the text: open elements, a tag cut in the middle.
  atEnd = true;
  parser.close();
  if (!sawRoot) throw new CoverageFormatError(format, "the document has no root element");
}

/** The error for a document whose text ends while `open` elements (outermost first) are still open. */
function truncated(format: CoverageFormat, root: string, open: readonly string[], line: number) {
  const inside = open.length > 1 ? ` (inside <${open.at(-1)}>)` : "";
  const problem =
    open.length === 0
      ? `the document ends before its root element <${root}> is complete: it looks truncated`
      : `the document ends before <${root}> is closed${inside}: it looks truncated`;
  return new CoverageFormatError(format, problem, { line });
}

function plainAttributes(attributes: Record<string, string | { value: string }>): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const [name, value] of Object.entries(attributes))
    plain[name] = typeof value === "string" ? value : value.value;
  return plain;
}

function stripPosition(message: string): string {
  return message.replace(/^(?:[^:\n]*:)?\d+:\d+: /, "");
}
