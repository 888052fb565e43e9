import assert from "node:assert/strict";

/**
 * A reader of the Prometheus text exposition format (version 0.0.4), enough for the tests: `# HELP`
 * and `# TYPE` lines, and samples `name{label="value",...} number` with the format's escapes
 * (`\\`, `\"`, `\n`) in label values. Anything else fails the test, so a malformed line is caught.
 */

/** One sample line. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A parsed exposition: its samples and the declared type of each metric family. */
export interface Exposition {
  samples: Sample[];
  types: Map<string, string>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( \d+)?$/;
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/;

/** Parses `text`, failing the test on the first line that is not in the format. */
export function parsePrometheusText(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (line.startsWith("# TYPE ")) {
      const [name, type] = line.slice(7).split(" ");
      assert.ok(name && type, `bad TYPE line: ${line}`);
      types.set(name, type);
      continue;
    }
    if (line.startsWith("# HELP ") || line.startsWith("#")) continue;
    const match = SAMPLE.exec(line);
    assert.ok(match, `not a sample line: ${line}`);
    const raw = match[4]!;
    const value = raw === "+Inf" ? Infinity : raw === "-Inf" ? -Infinity : Number(raw);
    // prom-client writes NaN as "Nan"; Prometheus reads it either way.
    assert.ok(!Number.isNaN(value) || /^nan$/i.test(raw), `bad value in: ${line}`);
    samples.push({ name: match[1]!, labels: parseLabels(match[3] ?? "", line), value });
  }
  return { samples, types };
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest !== "") {
    const match = LABEL.exec(rest);
    assert.ok(match, `bad labels in: ${line}`);
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    rest = rest.slice(match[0].length);
  }
  return labels;
}

/** The value of the one sample of `name` whose labels include `labels`; 0 when there is none. */
export function sampleValue(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number {
  const found = matching(exposition, name, labels);
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value ?? 0;
}

/** The sum of the samples of `name` whose labels include `labels`. */
export function sumOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  return matching(exposition, name, labels).reduce((sum, sample) => sum + sample.value, 0);
}

/** The samples of `name` whose labels include `labels`. */
export function matching(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): Sample[] {
  return exposition.samples.filter(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}
