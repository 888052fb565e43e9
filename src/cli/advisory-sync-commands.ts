import { displayUrl } from "../advisory-sync/source-url.ts";
import { findAdvisorySources } from "../modules/dependencies/advisory-store.ts";
import { CliError, type Command } from "./command.ts";

/** `advisories sync` and `advisories sources` (docs/advisories.md "Sync"). */

export const advisoriesSync: Command = {
  name: "advisories sync",
  summary:
    "Sync the OSV exports of ASSAY_ADVISORY_SYNC_URLS now, as the scheduled job does: a conditional download of each (skipped when unchanged), then an import. Prints one line per URL; exits 1 when any failed.",
  flags: {},
  async run({ config, database, print, note }) {
    const { describeOutcome, syncAdvisorySources, syncSettings } = await import("../advisory-sync/sync.ts");
    const settings = syncSettings(config);
    if (settings.urls.length === 0) {
      throw new CliError(
        "no export URL is configured: set ASSAY_ADVISORY_SYNC_URLS (comma-separated OSV export URLs)",
      );
    }
    const { db } = await database();
    const outcomes = await syncAdvisorySources(db, settings, { onProgress: note });
    for (const outcome of outcomes) print(describeOutcome(outcome));
    const failed = outcomes.filter((outcome) => outcome.status === "FAILED").length;
    if (failed > 0) throw new CliError(`${failed} of ${outcomes.length} export URL(s) failed to sync`);
  },
};

export const advisoriesSources: Command = {
  name: "advisories sources",
  summary:
    "List what advisory sync recorded of each export URL: how its last check ended, when it was checked and imported, its ETag and Last-Modified, and the last error.",
  flags: {},
  async run({ database, print }) {
    const { db } = await database();
    const rows = await findAdvisorySources(db);
    if (rows.length === 0) {
      print("No export URL has been synced yet.");
      return;
    }
    for (const row of rows) {
      print(displayUrl(row.url));
      print(`  status:        ${row.status ?? "never checked"}${row.error ? `: ${row.error}` : ""}`);
      print(`  checked at:    ${row.checked_at?.toISOString() ?? "never"}`);
      print(`  imported at:   ${row.imported_at?.toISOString() ?? "never"}`);
      print(`  etag:          ${row.etag ?? "none"}`);
      print(`  last-modified: ${row.last_modified ?? "none"}`);
      if (row.downloaded_bytes !== null) print(`  last export:   ${row.downloaded_bytes} bytes`);
    }
  },
};
