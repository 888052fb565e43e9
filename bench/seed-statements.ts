/**
 * The statements the small demo seed sends: a fresh embedded database (from the migrated template)
 * is seeded as `npm start` seeds it (through a pool that names repeated statements, as the API's
 * does), and every statement of the seed is counted, grouped by its first words (the statement's
 * kind and table). Prints the total, the time the statements took as
 * the client saw them, the seed's wall time, and the largest groups. Counts do not depend on the
 * machine's load; times do.
 *
 *   node --import tsx bench/seed-statements.ts [-- --top N]
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrateToLatest, openDatabase } from "../src/db/database.ts";
import { ingestRunSbom } from "../src/ingestion/sca/sbom-upload.ts";
import { ensureCatalog } from "../src/modules/catalog/catalog-data.ts";
import { seedDemo } from "../src/modules/demo/demo-seed.ts";

const at = process.argv.indexOf("--top");
const top = at === -1 ? 15 : Number(process.argv[at + 1]);
if (!Number.isInteger(top) || top < 1) throw new Error("usage: bench/seed-statements.ts [-- --top N]");

/** A statement's group: its first word and the first table it reads or writes. */
function groupOf(sqlText: string): string {
  const text = sqlText.replace(/\s+/g, " ").trim();
  const kind = (text.split(" ")[0] ?? "").toUpperCase();
  const table = /\b(?:from|into|update) "?(?!unnest\b)(\w+)"?/i.exec(text)?.[1];
  return table ? `${kind} ${table}` : kind;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-seed-statements-"));
let counting = false;
const groups = new Map<string, { count: number; ms: number }>();
const handle = await openDatabase(
  { databaseUrl: undefined, dataDir, databasePoolSize: 4 },
  {
    fromTemplate: true,
    // As the server's pool, which seeds the demo at a first start: repeated statements are named.
    preparedStatements: true,
    onQuery: (sqlText, ms) => {
      if (!counting) return;
      const group = groupOf(sqlText);
      const figure = groups.get(group) ?? { count: 0, ms: 0 };
      figure.count += 1;
      figure.ms += ms;
      groups.set(group, figure);
    },
  },
);
try {
  await migrateToLatest(handle.db);
  await ensureCatalog(handle.db);
  counting = true;
  const started = performance.now();
  await seedDemo(handle.db, { pepper: randomBytes(32).toString("hex"), uploadSbom: ingestRunSbom });
  const wallMs = performance.now() - started;
  counting = false;

  const sorted = [...groups].sort(([, a], [, b]) => b.count - a.count);
  const total = sorted.reduce((sum, [, g]) => sum + g.count, 0);
  const sqlMs = sorted.reduce((sum, [, g]) => sum + g.ms, 0);
  console.log(
    `small demo seed, embedded: ${total} statements, ${Math.round(sqlMs)} ms SQL, ${Math.round(wallMs)} ms wall`,
  );
  for (const [group, g] of sorted.slice(0, top))
    console.log(`${String(g.count).padStart(6)}  ${String(Math.round(g.ms)).padStart(6)} ms  ${group}`);
} finally {
  await handle.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
