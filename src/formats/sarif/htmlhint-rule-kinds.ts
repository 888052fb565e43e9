/**
 * HTMLHint's rules by what each checks, read from its rule docs (htmlhint.com/rules, one page a
 * rule: what it requires and why). HTMLHint itself files its rules only under the parts of a
 * page they look at (doctype and head, attributes, tags, id, inline, formatting), and
 * `htmlhint --format sarif` writes no category, so the rule id is all a report tells:
 *
 * - markup a browser, a screen reader or a form gets wrong: unpaired tags, duplicate ids and
 *   attributes, an unescaped `<`, a missing doctype, charset or title, an empty `src` (the page
 *   is requested again), a `<button>` without a type (it submits its form), tags browsers dropped,
 *   ids an ad blocker hides, and the accessibility rules (alt text, labels, `lang`, frame titles,
 *   a `<main>` and an `<h1>`);
 * - practices a team chooses to forbid: `<style>` and `<script>` elements, inline styles and
 *   scripts, duplicate class values, per-tag attribute requirements (`tags-check`), and the
 *   search-engine hints (a meta description, a canonical link);
 * - a script in `<head>`, which holds up the page's rendering;
 * - how the markup is written: letter case, quotes, attribute order and spacing, self-closing
 *   syntax, id and class naming, tabs and spaces, absolute or relative links.
 *
 * Rules HTMLHint adds later fall to the level step. style-rule-facts.test.ts checks that the
 * lists hold each of the rules HTMLHint 1.9.2 lists (`HTMLHint.rules`, which scripts/make-fixtures.sh
 * records in its fixture's summary) once.
 */

function words(text: string): ReadonlySet<string> {
  return new Set(text.split(/\s+/).filter((word) => word !== ""));
}

/** Rules about markup that does not work as written. */
export const HTMLHINT_DEFECT_RULES = words(`
  alt-require attr-no-duplication attr-unsafe-chars button-type-require doctype-first doctype-html5
  form-method-require frame-title-require h1-require html-lang-require id-class-ad-disabled id-unique
  input-requires-label main-require meta-charset-require meta-viewport-require spec-char-escape
  src-not-empty tag-no-obsolete tag-pair tagname-specialchars title-require
`);

/** Rules that forbid a practice or require a convention of the page's use. */
export const HTMLHINT_PRACTICE_RULES = words(`
  attr-value-no-duplication inline-script-disabled inline-style-disabled link-rel-canonical-require
  meta-description-require script-disabled style-disabled tags-check
`);

/** Rules about what slows the page down. */
export const HTMLHINT_PERFORMANCE_RULES = words(`
  head-script-disabled
`);

/** Rules about how the markup is written. */
export const HTMLHINT_STYLE_RULES = words(`
  attr-lowercase attr-no-unnecessary-whitespace attr-sorted attr-value-double-quotes attr-value-not-empty
  attr-value-single-quotes attr-whitespace empty-tag-not-self-closed href-abs-or-rel id-class-value
  space-tab-mixed-disabled tag-self-close tagname-lowercase
`);
