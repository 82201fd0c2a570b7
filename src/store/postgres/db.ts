// Opens the PostgreSQL pool behind Kysely, and runs start-up work (migrations, seeding) under one advisory lock.
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './schema.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
/** One key for every Relaybox start-up on a database: migrations and config seeding run one instance at a time. */
const STARTUP_LOCK = 0x52_42_4f_58; // 'RBOX'

export type Db = Kysely<Database>;

// BIGINT (ms times, nonces, counts, serials) as numbers: every value stays far below 2^53.
const INT8 = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

export interface PgConnection {
  db: Db;
  pool: pg.Pool;
  url: string;
}

/**
 * `instance`: this process's instance id, set on every connection as `relaybox.instance` (before its first query:
 * a client runs its queries in order). The transactions trigger names the writer with it in its NOTIFY (migration
 * 012), so an instance skips its own changes. Set by a query rather than the startup `options`, which a
 * DATABASE_URL may carry itself (`?options=-c search_path=…`) and would replace.
 */
export function connect(url: string, options: { max?: number; instance?: string } = {}): PgConnection {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, types, application_name: 'relaybox' });
  const instance = options.instance;
  // Cannot fail on a live connection; on a lost one the next query fails too, where it is seen.
  if (instance !== undefined)
    pool.on(
      'connect',
      (client) =>
        void client.query("SELECT set_config('relaybox.instance', $1, false)", [instance]).catch(() => undefined),
    );
  // An idle client losing its server (restart, network) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), pool, url };
}

/** Runs `fn` while holding the start-up advisory lock (a session lock on a client of its own). */
export async function underStartupLock<T>(pool: pg.Pool, fn: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [STARTUP_LOCK]);
    try {
      return await fn();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [STARTUP_LOCK]);
    }
  } finally {
    client.release();
  }
}

/**
 * Applies migrations/NNN-name.sql not yet recorded in schema_migrations, each in its own transaction, in
 * file-name order. Call it under the start-up lock: instances starting together then migrate once.
 * Returns the versions applied by this call.
 */
export async function migrate(db: Db): Promise<string[]> {
  await sql`CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`.execute(
    db,
  );
  const applied = new Set(
    (await sql<{ version: string }>`SELECT version FROM schema_migrations`.execute(db)).rows.map((r) => r.version),
  );
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{3}-[\w-]+\.sql$/.test(f))
    .sort();
  const done: string[] = [];
  for (const file of files) {
    const version = file.replace(/\.sql$/, '');
    if (applied.has(version)) continue;
    const text = readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8');
    await db.transaction().execute(async (trx) => {
      await sql.raw(text).execute(trx);
      await sql`INSERT INTO schema_migrations (version, applied_at) VALUES (${version}, ${new Date().toISOString()})`.execute(
        trx,
      );
    });
    done.push(version);
  }
  return done;
}
