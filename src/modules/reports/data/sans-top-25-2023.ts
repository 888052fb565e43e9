/**
 * The 2023 CWE Top 25 Most Dangerous Software Weaknesses (published by MITRE with SANS), in rank
 * order, with the short name of each weakness.
 */
export const SANS_TOP_25_2023_ENTRIES: ReadonlyArray<{ cwe: number; title: string }> = [
  { cwe: 787, title: "Out-of-bounds write" },
  { cwe: 79, title: "Cross-site scripting" },
  { cwe: 89, title: "SQL injection" },
  { cwe: 416, title: "Use after free" },
  { cwe: 78, title: "OS command injection" },
  { cwe: 20, title: "Improper input validation" },
  { cwe: 125, title: "Out-of-bounds read" },
  { cwe: 22, title: "Path traversal" },
  { cwe: 352, title: "Cross-site request forgery" },
  { cwe: 434, title: "Unrestricted upload of a dangerous file type" },
  { cwe: 862, title: "Missing authorization" },
  { cwe: 476, title: "NULL pointer dereference" },
  { cwe: 287, title: "Improper authentication" },
  { cwe: 190, title: "Integer overflow or wraparound" },
  { cwe: 502, title: "Deserialization of untrusted data" },
  { cwe: 77, title: "Command injection" },
  { cwe: 119, title: "Memory access outside a buffer's bounds" },
  { cwe: 798, title: "Hard-coded credentials" },
  { cwe: 918, title: "Server-side request forgery" },
  { cwe: 306, title: "Missing authentication for a critical function" },
  { cwe: 362, title: "Race condition" },
  { cwe: 269, title: "Improper privilege management" },
  { cwe: 94, title: "Code injection" },
  { cwe: 863, title: "Incorrect authorization" },
  { cwe: 276, title: "Incorrect default permissions" },
];
