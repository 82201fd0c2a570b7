// Reads the files a config names (the config file, network files, keystores): regular files only, bounded in size,
// opened without blocking, and never echoed into an error (a file named by mistake may hold anything).
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { jsonErrorOffset } from './json-position.ts';
import { parseExactJson } from '../validation/exact-json.ts';

/** The config file and each network file. */
export const CONFIG_FILE_MAX_BYTES = 1024 * 1024;
/** A Web3 Secret Storage keystore (a real one is under 1 KiB). */
export const KEYSTORE_MAX_BYTES = 64 * 1024;
/** A PEM CA bundle (SSL_CERT_FILE); a whole system bundle is about 200 KiB. */
export const CA_BUNDLE_MAX_BYTES = 4 * 1024 * 1024;

/** What a path is when it is not a regular file, in words an operator recognises. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

function refuseUnlessRegular(stats: Stats, file: string, what: string, maxBytes: number): void {
  if (!stats.isFile()) throw new Error(`${what} ${file} is ${kindOf(stats)}, not a regular file`);
  if (stats.size > maxBytes) throw new Error(`${what} ${file} is ${stats.size} bytes, over the ${maxBytes}-byte limit`);
}

/** Why a path cannot be opened, from its error code only (the system message may vary; it never holds content). */
function unreadable(err: unknown, file: string, what: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const reason =
    code === 'ENOENT'
      ? 'does not exist'
      : code === 'EACCES' || code === 'EPERM'
        ? 'is not readable (permission denied)'
        : `cannot be opened (${code ?? 'error'})`;
  return new Error(`${what} ${file} ${reason}`, { cause: err });
}

/**
 * Checks, without opening it, that `file` is a regular file within `maxBytes` (a keystore is checked at config load
 * and read when its signer is first used). Throws an Error naming the path and what it is.
 */
export function checkRegularFile(file: string, maxBytes: number, what: string): void {
  let stats: Stats;
  try {
    stats = statSync(file);
  } catch (err) {
    throw unreadable(err, file, what);
  }
  refuseUnlessRegular(stats, file, what, maxBytes);
}

/**
 * The UTF-8 text of `file`. O_NONBLOCK makes opening a FIFO return at once (fstat then refuses it), and fstat on
 * the open descriptor checks the very file read, whatever was swapped in after a stat. Reads at most maxBytes + 1.
 */
export function readRegularFile(file: string, maxBytes: number, what: string): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    // A Unix socket cannot be opened at all (ENXIO): say what it is.
    if ((err as NodeJS.ErrnoException).code === 'ENXIO') checkRegularFile(file, maxBytes, what);
    throw unreadable(err, file, what);
  }
  try {
    refuseUnlessRegular(fstatSync(fd), file, what, maxBytes);
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (let n = 1; n > 0 && length < buffer.length; length += n)
      n = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > maxBytes) throw new Error(`${what} ${file} is over the ${maxBytes}-byte limit`);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, length));
    } catch {
      throw new Error(`${what} ${file} is not UTF-8 text`);
    }
  } finally {
    closeSync(fd);
  }
}

/** `file` parsed as JSON; a syntax error names the file, line and column, never the text around them. */
export function readJsonFile(file: string, maxBytes: number, what: string): unknown {
  const text = readRegularFile(file, maxBytes, what);
  try {
    // Amounts past 2^53 (wei, lamports, stroops) kept exact, as the request body keeps them.
    return parseExactJson(text);
  } catch {
    const { line, column } = lineAndColumn(text, jsonErrorOffset(text));
    throw new Error(`${what} ${file} is not valid JSON: syntax error at line ${line}, column ${column}`);
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}
