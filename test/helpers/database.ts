import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import {
  type DatabaseHandle,
  migrateToLatest,
  openDatabase,
  prepareEmbeddedTemplate,
} from "../../src/db/database.ts";

/**
 * Isolated databases for tests. On the embedded database each test server gets a copy of a
 * migrated template data directory (made once per run by scripts/test.ts); on PostgreSQL each gets
 * a fresh database cloned from a migrated template database.
 */

/** Name of the migrated PostgreSQL template database (one per test run, named by the runner). */
function pgTemplate(): string {
  const name = process.env.ASSAY_TEST_PG_TEMPLATE ?? "assay_test_template";
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad template database name ${name}`);
  return name;
}

/** Where the embedded template lives (set by the test runner; made on demand otherwise). */
export function embeddedTemplateDir(): string {
  return process.env.ASSAY_TEST_TEMPLATE_DIR ?? path.join(process.cwd(), ".tmp", "test-template");
}

function adminUrl(databaseUrl: string, database = "postgres"): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Builds the template for the configured backend: migrated, empty of data. */
export async function prepareTemplate(databaseUrl: string | undefined): Promise<void> {
  if (databaseUrl) {
    const admin = new pg.Client({ connectionString: adminUrl(databaseUrl) });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${pgTemplate()} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${pgTemplate()}`);
    } finally {
      await admin.end();
    }
    const handle = await openDatabase({
      databaseUrl: adminUrl(databaseUrl, pgTemplate()),
      dataDir: "",
      databasePoolSize: 2,
    });
    try {
      await migrateToLatest(handle.db);
    } finally {
      await handle.close();
    }
    return;
  }
  // The install's template (built by npm ci, or here the first time), copied for this run.
  const dir = embeddedTemplateDir();
  fs.rmSync(dir, { recursive: true, force: true });
  const { template } = await prepareEmbeddedTemplate();
  fs.mkdirSync(dir, { recursive: true });
  fs.cpSync(template, path.join(dir, "pgdata"), { recursive: true });
}

/** Drops the PostgreSQL template of this run (the embedded one is a directory the runner removes). */
export async function dropTemplate(databaseUrl: string | undefined): Promise<void> {
  if (!databaseUrl) return;
  const admin = new pg.Client({ connectionString: adminUrl(databaseUrl) });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${pgTemplate()} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/** A database of its own for one test server. */
export interface TestDatabase {
  /** For PostgreSQL: the connection string; undefined for embedded. */
  databaseUrl: string | undefined;
  /** For embedded: the data directory. */
  dataDir: string;
  drop(): Promise<void>;
}

/** A test database opened by this process: its handle, and `close` to close and drop it. */
export interface OpenTestDatabase {
  handle: DatabaseHandle;
  close(): Promise<void>;
}

/**
 * Creates a test database ({@link createTestDatabase}) and opens it with a pool of two, for tests
 * that call stores directly rather than through a server.
 */
export async function openTestDatabase(): Promise<OpenTestDatabase> {
  const database = await createTestDatabase();
  const handle = await openDatabase({
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    databasePoolSize: 2,
  });
  return {
    handle,
    async close() {
      await handle.close();
      await database.drop();
    },
  };
}

/** Creates an isolated, migrated, empty database on the backend `DATABASE_URL` selects. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const base = process.env.DATABASE_URL;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-test-"));
  if (base) {
    const name = `assay_t_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: adminUrl(base) });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${pgTemplate()}`);
    } finally {
      await admin.end();
    }
    return {
      databaseUrl: adminUrl(base, name),
      dataDir,
      async drop() {
        const client = new pg.Client({ connectionString: adminUrl(base) });
        await client.connect();
        try {
          await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        } finally {
          await client.end();
        }
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const template = embeddedTemplateDir();
  if (!fs.existsSync(path.join(template, "pgdata"))) await prepareTemplate(undefined);
  fs.cpSync(path.join(template, "pgdata"), path.join(dataDir, "pgdata"), { recursive: true });
  return {
    databaseUrl: undefined,
    dataDir,
    async drop() {
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Creates an empty database on the configured backend with no migration applied: on PostgreSQL a
 * new database (from PostgreSQL's own default template, not the migrated one), on the embedded
 * backend a fresh data directory, created when it is first opened. For tests that build a
 * database as an earlier version left it. `icuLocale` (PostgreSQL only; the embedded database is
 * always `C`) makes the database's own collation that ICU locale's, as an installation made with a
 * language's collation has.
 */
export async function createEmptyDatabase(options: { icuLocale?: string } = {}): Promise<TestDatabase> {
  const base = process.env.DATABASE_URL;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-empty-"));
  if (!base) {
    return {
      databaseUrl: undefined,
      dataDir,
      async drop() {
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const name = `assay_e_${randomBytes(6).toString("hex")}`;
  const { icuLocale } = options;
  if (icuLocale !== undefined && !/^[A-Za-z0-9-]+$/.test(icuLocale))
    throw new Error(`bad ICU locale ${icuLocale}`);
  const admin = new pg.Client({ connectionString: adminUrl(base) });
  await admin.connect();
  try {
    await admin.query(
      icuLocale === undefined
        ? `CREATE DATABASE ${name}`
        : `CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '${icuLocale}'`,
    );
  } finally {
    await admin.end();
  }
  return {
    databaseUrl: adminUrl(base, name),
    dataDir,
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl(base) });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
