// test-runner: execution-mode independent (matching runs no GraphQL execution)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Kysely } from "kysely";
import { type DatabaseHandle, openDatabase } from "../src/db/database.ts";
import type { Database, PackageVersionRow, ScaCheckRow } from "../src/db/types.ts";
import { importAdvisories, type RecordSource } from "../src/modules/dependencies/advisory-import.ts";
import { matchScaCheck } from "../src/modules/dependencies/advisory-matching.ts";
import { anAccount, aRepository, aRun } from "./helpers/builders.ts";
import {
  anScaCheck,
  aPackage,
  aPackageVersion,
  aTarget,
  scaCheckDependencies,
} from "./helpers/builders-dependencies.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/database.ts";

/**
 * matchScaCheck against its base in one pass (docs/advisories.md "Matching"): the base decided
 * from its dependencies, not from occurrences it may never have had written; two versions of one
 * package; one name in two ecosystems; and matching again updating and removing rows in place.
 */

function osv(
  id: string,
  ecosystem: string,
  name: string,
  events: Record<string, string>[],
  extra: Record<string, unknown> = {},
): RecordSource {
  const record = {
    schema_version: "1.6.0",
    id,
    modified: "2026-01-01T00:00:00Z",
    published: "2026-01-01T00:00:00Z",
    summary: id,
    affected: [{ package: { ecosystem, name }, ranges: [{ type: "ECOSYSTEM", events }] }],
    ...extra,
  };
  return { name: `${id}.json`, text: JSON.stringify(record) };
}

describe("matching an SCA check against its base", () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let db: Kysely<Database>;
  let head: ScaCheckRow;
  let base: ScaCheckRow;
  const prefix = `M${Date.now().toString(36)}`;
  const OLD = `${prefix}-OLD`;
  const NEW = `${prefix}-NEW`;
  const PY = `${prefix}-PY`;

  before(async () => {
    database = await createTestDatabase();
    handle = await openDatabase({ ...database, databasePoolSize: 2 });
    db = handle.db;
    const repository = await aRepository(db, await anAccount(db));
    const baseRun = await aRun(db, repository);
    const headRun = await aRun(db, repository);
    await db
      .updateTable("analysis_runs")
      .set({ base_run_id: baseRun.id })
      .where("id", "=", headRun.id)
      .execute();
    const target = await aTarget(db, repository, { ecosystem: "NPM", lockfilePath: "package-lock.json" });
    base = await anScaCheck(db, baseRun, { target });
    head = await anScaCheck(db, headRun, { target });
    const lib = await aPackage(db, { ecosystem: "NPM", name: `${prefix}-lib` });
    const npmShared = await aPackage(db, { ecosystem: "NPM", name: `${prefix}-shared` });
    const pyShared = await aPackage(db, { ecosystem: "PYPI", name: `${prefix}-shared` });
    const v = (pkg: typeof lib, version: string): Promise<PackageVersionRow> =>
      aPackageVersion(db, pkg, { version });
    const lib100 = await v(lib, "1.0.0");
    await scaCheckDependencies(db, base, target, [lib100, await v(pyShared, "1.0")]);
    await scaCheckDependencies(db, head, target, [
      lib100,
      await v(lib, "1.6.0"),
      await v(npmShared, "1.0rc1"),
      await v(pyShared, "2.0"),
    ]);
    await importAdvisories(
      db,
      [
        osv(OLD, "npm", `${prefix}-lib`, [{ introduced: "0" }, { fixed: "1.5.0" }]),
        osv(NEW, "npm", `${prefix}-lib`, [{ introduced: "1.6.0" }, { fixed: "1.7.0" }]),
        osv(PY, "PyPI", `${prefix}-shared`, [{ introduced: "0" }, { fixed: "2.0" }]),
      ],
      { rematch: false },
    );
  });
  after(async () => {
    await handle.close();
    await database.drop();
  });

  async function rows(check: ScaCheckRow) {
    const found = await db
      .selectFrom("vulnerability_occurrences as vo")
      .innerJoin("vulnerabilities as v", "v.id", "vo.vulnerability_id")
      .innerJoin("package_versions as pv", "pv.id", "vo.package_version_id")
      .innerJoin("packages as p", "p.id", "pv.package_id")
      .select([
        "vo.key",
        "v.identifier",
        "p.ecosystem",
        "pv.version",
        "vo.state",
        "vo.fixability",
        "vo.fix_version",
      ])
      .where("vo.sca_check_id", "=", check.id)
      .orderBy("v.identifier")
      .orderBy("pv.version")
      .execute();
    return found.map((r) => ({
      key: r.key,
      line: `${r.identifier.slice(prefix.length + 1)} ${r.ecosystem} ${r.version} ${r.state} ${r.fixability} fix=${r.fix_version}`,
    }));
  }

  const match = (check: ScaCheckRow) => db.transaction().execute((tx) => matchScaCheck(tx, check.id));

  test("states come from the base's dependencies, each version in its own ecosystem", async () => {
    // The base was never matched (it has no occurrence rows): it is decided from its dependencies.
    const outcome = await match(head);
    assert.deepEqual(outcome, { introduced: 1, existing: 1, resolved: 1, added: 2, removed: 0 });
    assert.deepEqual(
      (await rows(head)).map((r) => r.line),
      [
        "NEW NPM 1.6.0 INTRODUCED MANUALLY_FIXABLE fix=1.7.0",
        "OLD NPM 1.0.0 EXISTING MANUALLY_FIXABLE fix=1.5.0",
        // The base's PyPI 1.0 the head upgraded; the npm package of the same name at 1.0rc1 is
        // not a PyPI version and matches nothing.
        "PY PYPI 1.0 RESOLVED MANUALLY_FIXABLE fix=2.0",
      ],
    );
    assert.deepEqual(await rows(base), []);
  });

  test("matching again after changed and withdrawn advisories updates and removes rows in place", async () => {
    const before = await rows(head);
    const keyOf = (id: string) => before.find((r) => r.line.startsWith(`${id} `))!.key;
    await importAdvisories(
      db,
      [
        osv(OLD, "npm", `${prefix}-lib`, [{ introduced: "0" }, { fixed: "1.4.0" }], {
          modified: "2026-02-01T00:00:00Z",
        }),
        osv(NEW, "npm", `${prefix}-lib`, [{ introduced: "1.6.0" }, { fixed: "1.7.0" }], {
          modified: "2026-02-01T00:00:00Z",
          withdrawn: "2026-02-01T00:00:00Z",
        }),
      ],
      { rematch: false },
    );
    const outcome = await match(head);
    assert.deepEqual(outcome, { introduced: 0, existing: 1, resolved: 1, added: 0, removed: 1 });
    const after = await rows(head);
    assert.deepEqual(
      after.map((r) => r.line),
      ["OLD NPM 1.0.0 EXISTING MANUALLY_FIXABLE fix=1.4.0", "PY PYPI 1.0 RESOLVED MANUALLY_FIXABLE fix=2.0"],
    );
    assert.equal(after[0]!.key, keyOf("OLD"), "the occurrence that stands keeps its row");
    assert.equal(after[1]!.key, keyOf("PY"));
    assert.deepEqual(await match(head), { introduced: 0, existing: 1, resolved: 1, added: 0, removed: 0 });
  });
});
