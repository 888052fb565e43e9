/**
 * Whether a string can name a git branch, after the rules of `git check-ref-format --branch`
 * (and `git branch`, which also refuses a leading "-"). Pure, so a caller can say what is wrong
 * before it writes anything.
 */

/** The longest branch name accepted, in characters (common ref-name limit of hosting providers). */
export const MAX_BRANCH_NAME_LENGTH = 255;

// Characters git refuses anywhere in a ref name: space, ~ ^ : ? * [ \ and the ASCII controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const FORBIDDEN_CHARACTERS = /[\u0000-\u001f\u007f ~^:?*[\\]/;

/**
 * Why `name` is not a valid branch name, in a short phrase; undefined when it is valid.
 */
export function branchNameProblem(name: string): string | undefined {
  if (name.length === 0) return "it is empty";
  if (name.length > MAX_BRANCH_NAME_LENGTH) return `it is longer than ${MAX_BRANCH_NAME_LENGTH} characters`;
  if (FORBIDDEN_CHARACTERS.test(name)) {
    return "it contains a space, a control character or one of ~ ^ : ? * [ \\";
  }
  if (name.startsWith("-")) return 'it starts with "-"';
  if (name === "@") return 'it is "@"';
  if (name.includes("..")) return 'it contains ".."';
  if (name.includes("@{")) return 'it contains "@{"';
  if (name.startsWith("/") || name.endsWith("/")) return 'it starts or ends with "/"';
  if (name.includes("//")) return 'it contains "//"';
  if (name.endsWith(".")) return 'it ends with "."';
  for (const component of name.split("/")) {
    if (component.startsWith(".")) return 'a part of it starts with "."';
    if (component.endsWith(".lock")) return 'a part of it ends with ".lock"';
  }
  return undefined;
}
