import { CVSS20, CVSS30, CVSS31, CVSS40 } from "@pandatix/js-cvss";

/**
 * CVSS base scores of OSV `severity[].score` vectors, computed by @pandatix/js-cvss (FIRST's v2.0,
 * v3.0, v3.1 and v4.0 specifications), and their qualitative bands. A vector the library refuses
 * yields null: the record keeps no rating of that version rather than a wrong one.
 */

/** A vector, its base score and band. */
export interface CvssRating {
  vector: string;
  score: number;
  severity: "NONE" | "LOW" | "MEDIUM" | "HIGH" | "CRITICAL";
}

/** The v3/v4 qualitative band of a score (v3.1 specification, section 5). */
export function cvssBand(score: number): CvssRating["severity"] {
  if (score === 0) return "NONE";
  if (score < 4) return "LOW";
  if (score < 7) return "MEDIUM";
  if (score < 9) return "HIGH";
  return "CRITICAL";
}

/** The v2 band: LOW below 4, MEDIUM below 7, HIGH from 7 (NVD's v2 ranges). */
function cvss2Band(score: number): CvssRating["severity"] {
  if (score < 4) return "LOW";
  if (score < 7) return "MEDIUM";
  return "HIGH";
}

/** The rating of `vector` (any version, told by its prefix), or null when it is not a valid vector. */
export function cvssScore(vector: string): CvssRating | null {
  const v = vector.trim();
  try {
    if (v.startsWith("CVSS:4.0/")) {
      const score = new CVSS40(v).Score();
      return { vector: v, score, severity: cvssBand(score) };
    }
    if (v.startsWith("CVSS:3.1/")) {
      const score = new CVSS31(v).BaseScore();
      return { vector: v, score, severity: cvssBand(score) };
    }
    if (v.startsWith("CVSS:3.0/")) {
      const score = new CVSS30(v).BaseScore();
      return { vector: v, score, severity: cvssBand(score) };
    }
    // OSV writes v2 vectors without a prefix, sometimes wrapped in parentheses.
    const v2 = v.replace(/^\(|\)$/g, "");
    const score = new CVSS20(v2).BaseScore();
    return { vector: v2, score, severity: cvss2Band(score) };
  } catch {
    return null;
  }
}
