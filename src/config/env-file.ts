// The `.env` file, read at start as the OpenZeppelin Relayer reads it (dotenvy's `dotenv()`): the first `.env` in the
// working directory or one of its parents; a variable already in the environment wins over the file's.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

/** What reading `.env` did, for the start-up log (never its values). */
export interface EnvFileResult {
  /** The file read, absolute; undefined when there was none. */
  file: string | undefined;
  /** Names it set (those not already in the environment). */
  set: string[];
  /** Names it held that the environment already had: the environment's values were kept. */
  kept: string[];
}

/** The first `.env` from `cwd` up to the root, as the reference looks for it. */
export function findEnvFile(cwd: string): string | undefined {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, '.env');
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not there (or unreadable as a directory entry): keep looking upwards, as dotenvy does.
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * Reads `.env` into `process.env` with Node's own parser (process.loadEnvFile: unquoted values with spaces, `#`
 * comments, quoted values with `\n`, `export` prefixes), which never replaces a variable already set. Throws one
 * sentence when the file exists but cannot be read.
 */
export function loadEnvFile(cwd: string = process.cwd()): EnvFileResult {
  const file = findEnvFile(cwd);
  if (file === undefined) return { file, set: [], kept: [] };
  let names: string[];
  let kept: string[];
  try {
    // The same parser, for the names alone: which ones the environment already had (the start-up log says so).
    names = Object.keys(parseEnv(readFileSync(file, 'utf8')));
    kept = names.filter((name) => process.env[name] !== undefined);
    process.loadEnvFile(file);
  } catch (err) {
    throw new Error(
      `cannot read the environment file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      { cause: err },
    );
  }
  return { file, set: names.filter((name) => !kept.includes(name)), kept };
}
