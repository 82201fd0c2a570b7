// A real PostgreSQL for tests: the server of DATABASE_URL, or the local one (127.0.0.1:5432, user postgres).
// Every test run makes databases of its own and drops them; without a server the PostgreSQL tests are skipped
// (never in CI: there `.ci/run` starts the server, and a missing one fails loudly).
import { randomBytes } from 'node:crypto';
import { after } from 'node:test';
import pg from 'pg';

const ADMIN_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

let reachable: Promise<boolean> | undefined;

/** True when the server answers; in CI an unreachable server throws instead. */
export function postgresReachable(): Promise<boolean> {
  reachable ??= (async () => {
    // A down server refuses at once; a loaded machine's may take seconds to accept (2 s was missed in a CI-like run).
    const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 30_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch (err) {
      if (process.env.CI)
        throw new Error(
          `PostgreSQL is required in CI but ${maskUrl(ADMIN_URL)} does not answer: ${(err as Error).message}`,
        );
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return reachable;
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The URL of `name` on the admin URL's server. */
function urlOf(name: string, params: Record<string, string> = {}): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

// Dropped by one hook of the file's, registered when this module loads: `after()` called inside a test would attach to
// that test and run before the test's own t.after hooks, ending the connections of apps not yet closed (57P01).
const made: string[] = [];
after(async () => {
  for (const name of made.splice(0)) await dropDatabase(name);
});

/** Creates an empty database with a unique name; dropped (connections and all) when the test file ends. */
export async function createTestDatabase(prefix = 'relaybox_test'): Promise<{ name: string; url: string }> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  made.push(name);
  return { name, url: urlOf(name) };
}

async function dropDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** A fresh schema in `databaseUrl` as the connection's search_path: one empty store per test without a database per test. */
export async function createTestSchema(databaseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `s_${randomBytes(6).toString('hex')}`;
  const run = async (text: string) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE SCHEMA ${schema}`);
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.toString(), drop: () => run(`DROP SCHEMA ${schema} CASCADE`) };
}

function maskUrl(url: string): string {
  const u = new URL(url);
  u.password = u.password ? '***' : '';
  return u.toString();
}
