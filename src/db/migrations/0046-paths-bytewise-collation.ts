import { type Kysely, sql } from "kysely";

/**
 * The other paths the API lists in order compare bytewise too (`COLLATE "C"`), as findings' do
 * since migration 0045: `coverage_check_files.path` with its `metric_key` (`Check.coverageFiles`
 * and `Repository.coverageFiles` by path, then language key) and `repository_targets.lockfile_path`
 * (`Repository.targets`). On a database made with a language's collation they came in that
 * language's order (`src/B.ts` after `src/a.ts`, `C_AND_CPP` before `CSHARP`), unlike the embedded
 * database's and git's order. The change keeps the rows where they are, rebuilds the indexes over
 * the columns and gathers their statistics again (the change drops them).
 */
const COLUMNS: Record<string, string[]> = {
  coverage_check_files: ["path", "metric_key"],
  repository_targets: ["lockfile_path"],
};

async function collate(db: Kysely<unknown>, collation: "C" | "default"): Promise<void> {
  for (const [table, columns] of Object.entries(COLUMNS)) {
    const changes = columns.map(
      (column) => sql`ALTER COLUMN ${sql.ref(column)} TYPE text COLLATE ${sql.id(collation)}`,
    );
    await sql`ALTER TABLE ${sql.table(table)} ${sql.join(changes)}`.execute(db);
    await sql`ANALYZE ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))})`.execute(
      db,
    );
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await collate(db, "C");
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await collate(db, "default");
}
