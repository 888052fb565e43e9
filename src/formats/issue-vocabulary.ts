/**
 * The words every report format is mapped onto: the API's `IssueCategory` and `IssueSeverity`
 * enums (docs/ingestion-sarif.md "Classification"). They live here, with the pure readers, so the
 * mapping tables need nothing outside `src/formats/`; the database's row types use the same words.
 */

/** What kind of problem an issue is. */
export type IssueCategory =
  | "ANTI_PATTERN"
  | "BUG_RISK"
  | "PERFORMANCE"
  | "SECURITY"
  | "COVERAGE"
  | "TYPECHECK"
  | "STYLE"
  | "DOCUMENTATION"
  | "SECRETS";

/** How bad an issue, or one finding of it, is. */
export type IssueSeverity = "CRITICAL" | "MAJOR" | "MINOR";
