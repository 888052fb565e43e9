/**
 * stylelint's rules by what stylelint says of them: its docs split the built-in rules into those
 * that "avoid errors" and those that "enforce conventions", and its own `stylelint-config-recommended`
 * turns on exactly the first kind ("turns on the rules that help you avoid errors"). The SARIF
 * formatters write neither, so the rule id is all a report tells. The list is read from
 * stylelint-config-recommended as stylelint 16.25.0 installs it, by scripts/make-fixtures.sh (the
 * summary of its fixture, fixtures/stylelint/, records it with stylelint's rule names), and
 * style-rule-facts.test.ts checks it against that.
 */

/** Built-in rules that avoid errors (the rules of stylelint-config-recommended). */
export const STYLELINT_ERROR_RULES: ReadonlySet<string> = new Set(
  `
  annotation-no-unknown at-rule-descriptor-no-unknown at-rule-descriptor-value-no-unknown
  at-rule-no-deprecated at-rule-no-unknown at-rule-prelude-no-invalid block-no-empty comment-no-empty
  custom-property-no-missing-var-function declaration-block-no-duplicate-custom-properties
  declaration-block-no-duplicate-properties declaration-block-no-shorthand-property-overrides
  declaration-property-value-keyword-no-deprecated declaration-property-value-no-unknown
  font-family-no-duplicate-names font-family-no-missing-generic-family-keyword
  function-calc-no-unspaced-operator keyframe-block-no-duplicate-selectors
  keyframe-declaration-no-important media-feature-name-no-unknown media-feature-name-value-no-unknown
  media-query-no-invalid media-type-no-deprecated named-grid-areas-no-invalid
  nesting-selector-no-missing-scoping-root no-descending-specificity no-duplicate-at-import-rules
  no-duplicate-selectors no-empty-source no-invalid-double-slash-comments
  no-invalid-position-at-import-rule no-invalid-position-declaration no-irregular-whitespace
  property-no-deprecated property-no-unknown selector-anb-no-unmatchable
  selector-pseudo-class-no-unknown selector-pseudo-element-no-unknown selector-type-no-unknown
  string-no-newline syntax-string-no-invalid
`
    .split(/\s+/)
    .filter((word) => word !== ""),
);

/**
 * Whether `id` names a built-in stylelint rule: a plugin's rules are always namespaced
 * (`scss/at-rule-no-unknown`, `@stylistic/indentation`), built-in ones never.
 */
export function isStylelintBuiltInRule(id: string): boolean {
  return !id.includes("/");
}
