/**
 * typescript-eslint's rules (`@typescript-eslint/<rule>` in ESLint's reports) by what the plugin
 * says of each: the rules of its `stylistic` and `stylisticTypeChecked` configs ("rules that enforce
 * consistent styling without significantly catching bugs or changing logic"), then the others by
 * their `meta.type`, `problem` or `suggestion` (no rule of typescript-eslint 8.73 is of type
 * `layout`). ESLint's SARIF formatter writes neither, so the rule id is all a report tells; these
 * lists are read from typescript-eslint 8.73.0 by scripts/make-fixtures.sh (the summary of its
 * fixture, fixtures/typescript-eslint/, records them), and style-rule-facts.test.ts checks them
 * against it.
 */

/** The whitespace-separated words of `text`, as a set. */
function wordsOf(text: string): ReadonlySet<string> {
  return new Set(text.split(/\s+/).filter((word) => word !== ""));
}

/** Rules of the stylistic configs. */
export const TYPESCRIPT_ESLINT_STYLISTIC_RULES: ReadonlySet<string> = wordsOf(`
  adjacent-overload-signatures array-type ban-tslint-comment class-literal-property-style
  consistent-generic-constructors consistent-indexed-object-style consistent-type-assertions
  consistent-type-definitions dot-notation no-confusing-non-null-assertion no-empty-function
  no-inferrable-types non-nullable-type-assertion-style prefer-find prefer-for-of prefer-function-type
  prefer-includes prefer-nullish-coalescing prefer-optional-chain prefer-regexp-exec
  prefer-string-starts-ends-with
`);

/** The other rules of type `problem`. */
export const TYPESCRIPT_ESLINT_PROBLEM_RULES: ReadonlySet<string> = wordsOf(`
  await-thenable ban-ts-comment explicit-function-return-type explicit-member-accessibility
  explicit-module-boundary-types no-array-delete no-confusing-void-expression no-deprecated
  no-dupe-class-members no-duplicate-enum-values no-extra-non-null-assertion no-floating-promises
  no-for-in-array no-generated-empty-object-type no-import-type-side-effects no-invalid-void-type
  no-loss-of-precision no-misused-new no-misused-promises no-misused-spread no-mixed-enums
  no-non-null-asserted-nullish-coalescing no-non-null-asserted-optional-chain no-non-null-assertion
  no-require-imports no-unnecessary-type-parameters no-unsafe-argument no-unsafe-assignment
  no-unsafe-call no-unsafe-class-instance-assignment no-unsafe-declaration-merging
  no-unsafe-enum-assignment no-unsafe-function-type no-unsafe-member-access no-unsafe-return
  no-unsafe-type-assertion no-unsafe-unary-minus no-unused-private-class-members no-unused-vars
  no-use-before-define no-useless-constructor no-var-requires no-wrapper-object-types only-throw-error
  parameter-properties prefer-reduce-type-parameter prefer-ts-expect-error related-getter-setter-pairs
  require-array-sort-compare restrict-plus-operands restrict-template-expressions return-await
  strict-void-return unbound-method
`);

/** The other rules of type `suggestion`. */
export const TYPESCRIPT_ESLINT_SUGGESTION_RULES: ReadonlySet<string> = wordsOf(`
  class-methods-use-this consistent-return consistent-type-exports consistent-type-imports
  default-param-last init-declarations max-params member-ordering method-signature-style
  naming-convention no-array-constructor no-base-to-string no-duplicate-type-constituents
  no-dynamic-delete no-empty-interface no-empty-object-type no-explicit-any no-extraneous-class
  no-implied-eval no-invalid-this no-loop-func no-magic-numbers no-meaningless-void-operator
  no-namespace no-redeclare no-redundant-type-constituents no-restricted-imports no-restricted-types
  no-shadow no-this-alias no-type-alias no-unnecessary-boolean-literal-compare
  no-unnecessary-condition no-unnecessary-parameter-property-assignment no-unnecessary-qualifier
  no-unnecessary-template-expression no-unnecessary-type-arguments no-unnecessary-type-assertion
  no-unnecessary-type-constraint no-unnecessary-type-conversion no-unsafe-enum-comparison
  no-unused-expressions no-useless-default-assignment no-useless-empty-export prefer-as-const
  prefer-destructuring prefer-enum-initializers prefer-literal-enum-member prefer-namespace-keyword
  prefer-promise-reject-errors prefer-readonly prefer-readonly-parameter-types prefer-return-this-type
  promise-function-async require-await sort-type-constituents strict-boolean-expressions
  switch-exhaustiveness-check triple-slash-reference typedef unified-signatures
  use-unknown-in-catch-callback-variable
`);
