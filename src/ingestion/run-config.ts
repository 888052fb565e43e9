import { isDeepStrictEqual } from "node:util";
import type { Kysely } from "kysely";
import type { AnalysisRunRow, Database, RepositoryRow } from "../db/types.ts";
import { enabledAnalyzerNames, type RepositoryConfig } from "../formats/deepsource-config/reader.ts";
import { findAnalyzersByShortcodes } from "../modules/catalog/catalog-store.ts";
import { followBranchConfig } from "../modules/repositories/repository-store.ts";
import { setRunConfig } from "../modules/runs/run-config-store.ts";
import { UploadError } from "./errors.ts";

/**
 * The configuration an upload carries (docs/ingestion.md "The repository's configuration"): it
 * is the configuration at the run's commit, kept on the run; the repository's follows its default
 * branch's newest run that has one. Runs inside the intake's transaction, which holds the
 * repository's row lock, so two uploads never decide at once.
 */

/**
 * Records `config` on the run the upload joined, and on the repository when the run is the
 * default branch's newest run with a configuration; answers the warnings for the uploader. A new
 * run (`created`) has it already (openRun). A run that has another configuration refuses the
 * upload (CONFIG_CONFLICT): a commit has one `.deepsource.toml`, so a different one means a wrong
 * file or a wrong commit, and keeping either silently would hide it.
 */
export async function adoptUploadedConfig(
  tx: Kysely<Database>,
  repository: RepositoryRow,
  opened: { run: AnalysisRunRow; created: boolean },
  config: RepositoryConfig,
  uploadedAnalyzer: string | null,
): Promise<string[]> {
  const { run, created } = opened;
  let adopted = created;
  if (!created) {
    if (run.config_json === null) {
      await setRunConfig(tx, run.id, JSON.stringify(config.json));
      adopted = true;
    } else if (!isDeepStrictEqual(run.config_json, config.json)) {
      throw new UploadError(
        "CONFIG_CONFLICT",
        `the run of commit ${run.commit_oid.slice(0, 12)} was uploaded with another .deepsource.toml; a commit has one configuration: send the file of that commit (the one sent before), or none (\`--no-config\` for assay upload)`,
      );
    }
  }
  // The repository's follows its default branch's newest run that has one: this run's, unless a
  // newer run of the branch has one (a late upload of an older commit changes nothing).
  if (adopted && repository.default_branch !== null && run.branch_name === repository.default_branch) {
    await followBranchConfig(tx, repository.id, repository.default_branch);
  }
  return configWarnings(tx, config, uploadedAnalyzer);
}

/**
 * What the uploader should know about an accepted configuration: top-level keys DeepSource does
 * not document (a typo means nothing to anyone), analyzers it turns on that Assay does not know
 * (no check waits for them), and an uploaded analyzer it does not turn on (its findings are
 * stored but do not count among the repository's).
 */
async function configWarnings(
  tx: Kysely<Database>,
  config: RepositoryConfig,
  uploadedAnalyzer: string | null,
): Promise<string[]> {
  const warnings = config.undocumentedKeys.map(
    (key) =>
      `.deepsource.toml: the key "${key.slice(0, 80)}" is not one DeepSource documents; it is kept in the configuration, and Assay reads nothing from it.`,
  );
  const names = enabledAnalyzerNames(config.json);
  const known = new Set(
    names.length === 0 ? [] : (await findAnalyzersByShortcodes(tx, names)).map((a) => a.shortcode),
  );
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    const listed = unknown.slice(0, 5).map((name) => `"${name.slice(0, 80)}"`);
    const more = unknown.length > 5 ? ` and ${unknown.length - 5} more` : "";
    warnings.push(
      `.deepsource.toml turns on ${listed.join(", ")}${more}, which Assay does not know (not in the catalog, and no community analyzer of that shortcode was uploaded yet): no check waits for ${unknown.length === 1 ? "it" : "them"}.`,
    );
  }
  if (uploadedAnalyzer !== null && !names.includes(uploadedAnalyzer)) {
    warnings.push(
      `.deepsource.toml does not turn on the analyzer "${uploadedAnalyzer}": its findings are stored with the run, but while the default branch's configuration leaves it out they do not count among the repository's current findings; add an [[analyzers]] entry with name = "${uploadedAnalyzer}" to count them.`,
    );
  }
  return warnings;
}
