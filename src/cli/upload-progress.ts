/**
 * Progress of `assay upload` on stderr: one redrawn line on a terminal, a line every few seconds
 * in a CI log.
 */

/** How progress is shown: where it goes, how often, and whether lines overwrite each other. */
export interface ProgressOptions {
  label: string;
  /** The file's size, or null for stdin. */
  total: number | null;
  write(text: string): void;
  /** On a terminal one line is redrawn; elsewhere (a CI log) each update is a line. */
  interactive: boolean;
  now?: () => number;
}

/** Reports bytes read, a few times a second on a terminal and every few seconds in a log. */
export function createProgress(options: ProgressOptions): {
  read(bytes: number): void;
  done(bodyBytes: number): void;
} {
  const now = options.now ?? Date.now;
  const interval = options.interactive ? 250 : 3000;
  const started = now();
  let last: number | null = null;
  let bytesRead = 0;
  const show = (line: string, final: boolean) => {
    if (options.interactive) options.write(`\r${line}\u001b[K${final ? "\n" : ""}`);
    else options.write(`${line}\n`);
  };
  const of = () => {
    if (options.total === null) return formatBytes(bytesRead);
    const percent = options.total === 0 ? 100 : Math.floor((bytesRead / options.total) * 100);
    return `${formatBytes(bytesRead)} / ${formatBytes(options.total)} (${percent}%)`;
  };
  return {
    read(bytes) {
      bytesRead = bytes;
      const at = now();
      if (last !== null && at - last < interval) return;
      last = at;
      show(`Uploading ${options.label}: ${of()}`, false);
    },
    done(bodyBytes) {
      const seconds = ((now() - started) / 1000).toFixed(1);
      show(`Uploaded ${options.label}: ${of()}, ${formatBytes(bodyBytes)} sent in ${seconds} s`, true);
    },
  };
}

/** Bytes for people: B, KiB, MiB or GiB with one decimal. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
