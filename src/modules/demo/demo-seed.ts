import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import { createToken } from "../auth/token-service.ts";
import { DEMO_TEAM_LOGIN, DEMO_USER_EMAIL } from "./account-plan.ts";
import { importDemoAdvisories } from "./advisories.ts";
import { analyzeTables, hasDemoData } from "./demo-store.ts";
import { type GenerateDependencies, type GenerateOptions, generateData } from "./generator.ts";
import type { RowCounts } from "./plan-writer.ts";

export { DEMO_TEAM_LOGIN, DEMO_USER_EMAIL, hasDemoData };

/**
 * Seeds the demo. First the demo's advisories go through the advisory import (its own
 * transactions; shared reference data, left in place if the seed fails, and imported again
 * without change next time), then everything else in one transaction: the team acme-labs with five members and six repositories,
 * Ada's own account with one, and the team globex the demo user cannot see, each repository with
 * months of runs, pull requests, checks, occurrences, coverage, metrics and dependency findings
 * (see generator.ts; `options.size` "large" adds generated teams and a thousand repositories).
 * Also makes sure the catalog is there. Returns the demo token, which exists nowhere else in
 * plain text, and the rows written per table.
 *
 * Ends with ANALYZE: a bulk load leaves the planner's statistics describing empty tables, and the
 * report queries then scan whole tables until autovacuum catches up (measured on the large size:
 * minutes before, about a second after; docs/benchmarks.md).
 */
export async function seedDemo(
  db: Kysely<Database>,
  deps: GenerateDependencies,
  now = new Date(),
  options: Omit<GenerateOptions, "now"> = { size: "small" },
): Promise<{ token: string; email: string; counts: RowCounts }> {
  await importDemoAdvisories(db);
  const seeded = await db.transaction().execute(async (trx) => {
    const { demoUserId, counts } = await generateData(trx, { ...options, now }, deps);
    const { token } = await createToken(trx, deps.pepper, {
      userId: demoUserId,
      name: "demo",
      expiresInDays: 365,
      now,
    });
    counts.personal_access_tokens = 1;
    return { token, email: DEMO_USER_EMAIL, counts };
  });
  await analyzeTables(db);
  return seeded;
}
