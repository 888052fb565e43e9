/**
 * ShellCheck's style-level checks. ShellCheck has four levels (error, warning, info, style) and
 * each check always reports at the level its authors gave it (no option changes it), but its gcc
 * output (`-f gcc`) writes both info and style as `note`. These are the codes ShellCheck reports at
 * style level, read from its source (every `style`/`styleWithFix`/`StyleC` comment of
 * src/ShellCheck/ in releases 0.7.0 to 0.11.0): no code of those releases is reported both at
 * info and at style, so a `note` with one of these codes was a style comment and any other `note`
 * an info one. SC2314 and SC2315 are also reported as errors (a Bats test whose `!` is not its
 * last command): the gcc output says `error` then, which needs no list.
 *
 * style-rule-facts.test.ts checks the list against the levels ShellCheck's json1 output gave the
 * fixture's comments (src/formats/checkstyle/fixtures/shellcheck/).
 */
export const SHELLCHECK_STYLE_CODES: ReadonlySet<number> = new Set([
  1135, 2000, 2001, 2002, 2003, 2004, 2005, 2006, 2007, 2116, 2126, 2129, 2143, 2160, 2161, 2175, 2181, 2212,
  2219, 2233, 2234, 2235, 2236, 2237, 2243, 2244, 2248, 2250, 2268, 2292, 2293, 2314, 2315, 2321, 2322, 2323,
  2331, 2335,
]);
