/**
 * Licences as SPDX expressions. CycloneDX lists licences as SPDX ids, free-text names or whole
 * expressions; SPDX states an expression (or NOASSERTION / NONE). Several CycloneDX entries are
 * joined with AND, as the component is offered under all the listed terms.
 */

/** A licence name that is not an SPDX id, as an SPDX `LicenseRef-` (letters, digits, "." and "-"). */
export function licenseRefOf(name: string): string {
  const cleaned = name
    .trim()
    .replace(/[^A-Za-z0-9.-]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return `LicenseRef-${cleaned || "unknown"}`;
}

/** An SPDX document's licence field as an expression; null for NOASSERTION, NONE or nothing. */
export function spdxLicense(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (text === "" || text === "NOASSERTION" || text === "NONE") return null;
  return text;
}

/** Joins the licences of one component with AND, parenthesising compound ones; null when none. */
export function joinLicenses(parts: readonly string[]): string | null {
  const unique = [...new Set(parts.map((p) => p.trim()).filter((p) => p !== ""))];
  if (unique.length === 0) return null;
  if (unique.length === 1) return unique[0]!;
  return unique.map((p) => (/\s/.test(p) ? `(${p})` : p)).join(" AND ");
}
