import type { ReportPlacement } from "../../formats/report-placement.ts";
import { readSbom, type SbomStandard, sbomFormatName, standardOfKey } from "../../formats/sbom/index.ts";
import { UploadError } from "../errors.ts";
import { planSbom, sbomSkipWarnings } from "./sbom-plan.ts";

/**
 * The intake's part of an SBOM upload (docs/ingestion-sbom.md): the `key` it may give, and the
 * whole document read once before anything is stored.
 */

/** The standard an SBOM upload's `key` names; null when it gives none. Throws INVALID_INPUT. */
export function checkSbomKey(key: string | null): SbomStandard | null {
  if (key === null || key.trim() === "") return null;
  const standard = standardOfKey(key);
  if (standard === undefined) {
    throw new UploadError(
      "INVALID_INPUT",
      `an sca upload's key names the SBOM's standard, cyclonedx or spdx (or leave it out to have it detected), got "${key.trim().slice(0, 80)}"`,
    );
  }
  return standard;
}

/**
 * Reads the whole SBOM (throwing SbomFormatError when it cannot be read) and answers the format
 * recorded on the artifact and the sentences about components that will not be stored.
 */
export async function validateSbom(
  text: AsyncIterable<Uint8Array>,
  expect: SbomStandard | null,
  placement: ReportPlacement,
): Promise<{ format: string; warnings: string[] }> {
  const document = await readSbom(text, { expect });
  return { format: sbomFormatName(document), warnings: sbomSkipWarnings(planSbom(document, placement)) };
}
