// Where the data lives, said once at start: the SQLite file of this instance, or the shared PostgreSQL database.
import path from 'node:path';
import { DB_FILE_NAME } from './sqlite/db.ts';

/**
 * Where the data lives, for the start-up log: the SQLite file, or the PostgreSQL server and database (never the
 * user or password). Said once at start so a deployment that meant to share state can see that it does, or not.
 */
export function storeLocation(databaseUrl: string | undefined, dataDir: string): string {
  if (databaseUrl === undefined) return `SQLite file ${path.join(dataDir, DB_FILE_NAME)} (this instance only)`;
  try {
    const url = new URL(databaseUrl);
    return `PostgreSQL database ${decodeURIComponent(url.pathname.slice(1)) || '(default)'} on ${url.host || 'the local socket'} (shared by every instance using it)`;
  } catch {
    return 'PostgreSQL (DATABASE_URL; shared by every instance using it)';
  }
}
