import type { Kysely } from "kysely";
import type { Database, InstallationRow } from "../../db/types.ts";
import { newRowKey } from "../../graphql/global-id.ts";

/** The installation row, created on first call and kept in step with the configured name and logo. */
export async function ensureInstallation(
  db: Kysely<Database>,
  values: { name: string; logoUrl: string },
): Promise<InstallationRow> {
  return db
    .insertInto("installation")
    .values({ key: newRowKey(), name: values.name, logo_url: values.logoUrl })
    .onConflict((oc) => oc.column("singleton").doUpdateSet({ name: values.name, logo_url: values.logoUrl }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The installation row, if it has been created. */
export function findInstallation(db: Kysely<Database>): Promise<InstallationRow | undefined> {
  return db.selectFrom("installation").selectAll().executeTakeFirst();
}
