/** How the admin CLI's list commands print: aligned tables for people, JSON for scripts. */

/** A UTC time to the minute, e.g. `2026-01-31 09:15Z`; `absent` for none. */
export function formatTime(date: Date | null, absent: string): string {
  return date === null ? absent : `${date.toISOString().slice(0, 16).replace("T", " ")}Z`;
}

/** Left-aligned columns two spaces apart, the header first. */
export function formatTable(header: string[], rows: string[][]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => [...(row[i] ?? "")].length)));
  return all.map((row) =>
    row
      .map((cell, i) => cell + " ".repeat(widths[i]! - [...cell].length))
      .join("  ")
      .trimEnd(),
  );
}
