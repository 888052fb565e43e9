import type { VulnerabilitySeverity } from "../../db/types.ts";

/**
 * CVSS base scores computed from their vectors, so generated vulnerabilities carry scores that
 * agree with their vectors. Formulas from the CVSS v3.1 specification (section 7) and the CVSS v2
 * guide (section 3.2.1).
 */

function metrics(vector: string): Map<string, string> {
  return new Map(
    vector
      .split("/")
      .map((part) => part.split(":") as [string, string])
      .filter(([name]) => name !== "CVSS"),
  );
}

function weight(table: Record<string, number>, value: string | undefined, name: string): number {
  const found = value === undefined ? undefined : table[value];
  if (found === undefined) throw new Error(`bad CVSS metric ${name}:${value}`);
  return found;
}

/** CVSS v3.1 "Roundup": the smallest one-decimal number not below `value`, robust to float error. */
export function roundUp(value: number): number {
  const scaled = Math.round(value * 100_000);
  return scaled % 10_000 === 0 ? scaled / 100_000 : (Math.floor(scaled / 10_000) + 1) / 10;
}

/** The base score of a CVSS v3.x vector such as `CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H`. */
export function cvss3BaseScore(vector: string): number {
  const m = metrics(vector);
  const changed = m.get("S") === "C";
  const cia = { H: 0.56, L: 0.22, N: 0 };
  const iss =
    1 -
    (1 - weight(cia, m.get("C"), "C")) *
      (1 - weight(cia, m.get("I"), "I")) *
      (1 - weight(cia, m.get("A"), "A"));
  const impact = changed ? 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15 : 6.42 * iss;
  const exploitability =
    8.22 *
    weight({ N: 0.85, A: 0.62, L: 0.55, P: 0.2 }, m.get("AV"), "AV") *
    weight({ L: 0.77, H: 0.44 }, m.get("AC"), "AC") *
    weight(changed ? { N: 0.85, L: 0.68, H: 0.5 } : { N: 0.85, L: 0.62, H: 0.27 }, m.get("PR"), "PR") *
    weight({ N: 0.85, R: 0.62 }, m.get("UI"), "UI");
  if (impact <= 0) return 0;
  return roundUp(Math.min((changed ? 1.08 : 1) * (impact + exploitability), 10));
}

/** The base score of a CVSS v2 vector such as `AV:N/AC:L/Au:N/C:P/I:P/A:P`. */
export function cvss2BaseScore(vector: string): number {
  const m = metrics(vector);
  const cia = { N: 0, P: 0.275, C: 0.66 };
  const impact =
    10.41 *
    (1 -
      (1 - weight(cia, m.get("C"), "C")) *
        (1 - weight(cia, m.get("I"), "I")) *
        (1 - weight(cia, m.get("A"), "A")));
  const exploitability =
    20 *
    weight({ L: 0.395, A: 0.646, N: 1 }, m.get("AV"), "AV") *
    weight({ H: 0.35, M: 0.61, L: 0.71 }, m.get("AC"), "AC") *
    weight({ M: 0.45, S: 0.56, N: 0.704 }, m.get("Au"), "Au");
  const f = impact === 0 ? 0 : 1.176;
  return Math.round((0.6 * impact + 0.4 * exploitability - 1.5) * f * 10) / 10;
}

/** The qualitative rating of a v3 score (CVSS v3.1 section 5). */
export function cvss3Severity(score: number): VulnerabilitySeverity {
  if (score === 0) return "NONE";
  if (score < 4) return "LOW";
  if (score < 7) return "MEDIUM";
  if (score < 9) return "HIGH";
  return "CRITICAL";
}

/** The rating NVD gives v2 scores: low below 4, high from 7. */
export function cvss2Severity(score: number): VulnerabilitySeverity {
  if (score < 4) return "LOW";
  if (score < 7) return "MEDIUM";
  return "HIGH";
}
