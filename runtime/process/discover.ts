// Which plugins the plugins folder holds: `<id>.ts|.js` files, `<id>/index.ts|.js` folders, and the config's `path` entries.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { PLUGIN_ID, type ConfiguredPlugin } from '../protocol.ts';
import type { LoaderDeps } from './registry.ts';

const ENTRY_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs', '.cjs'];

/** Finds `<id>.ts|.js` files and `<id>/index.ts|.js` folders; warns once about names that are not valid ids. */
function discover(dir: string, warned: Set<string>, log: LoaderDeps['log']): Map<string, string> {
  const found = new Map<string, string>();
  let entries: import('node:fs').Dirent[] = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return found;
  }
  // By code point, not localeCompare: a collation would map ICU's collation data into the runtime process for good
  // (measured: 4 MiB of its idle RSS).
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    let id: string;
    let file: string;
    if (entry.isDirectory()) {
      const index = ENTRY_EXTENSIONS.map((ext) => path.join(dir, entry.name, `index${ext}`)).find((f) => existsSync(f));
      if (!index) continue;
      id = entry.name;
      file = index;
    } else {
      const ext = ENTRY_EXTENSIONS.find((e) => entry.name.endsWith(e));
      if (!ext || entry.name.endsWith('.d.ts')) continue;
      id = entry.name.slice(0, -ext.length);
      file = path.join(dir, entry.name);
    }
    if (!PLUGIN_ID.test(id)) {
      if (!warned.has(entry.name))
        log('warn', `ignoring '${entry.name}' in the plugins directory: a plugin id must match [A-Za-z0-9_-]{1,64}`, {
          name: entry.name,
        });
      warned.add(entry.name);
      continue;
    }
    // `.ts` wins over `.js` for the same id (the first extension in ENTRY_EXTENSIONS order).
    const existing = found.get(id);
    if (existing && ENTRY_EXTENSIONS.indexOf(path.extname(existing)) <= ENTRY_EXTENSIONS.indexOf(path.extname(file)))
      continue;
    found.set(id, file);
  }
  return found;
}

/**
 * A discovered plugin whose file, or whose folder, holds a configured plugin's file is that plugin's, not one of its
 * own: the reference's examples configure `channel/index.ts` as `channels`, and the folder `channel` must not be
 * listed as a second plugin. A configured id is always kept.
 */
function withoutClaimed(
  found: Map<string, string>,
  dir: string,
  configured: Iterable<ConfiguredPlugin>,
): Map<string, string> {
  const root = path.resolve(dir);
  const claimed: string[] = [];
  const ids = new Set<string>();
  for (const e of configured) {
    ids.add(e.id);
    if (e.path) claimed.push(path.resolve(root, e.path));
  }
  for (const [id, file] of found) {
    if (ids.has(id)) continue;
    const folder = path.dirname(file) === root ? undefined : path.dirname(file);
    if (claimed.some((c) => c === file || (folder !== undefined && c.startsWith(folder + path.sep)))) found.delete(id);
  }
  return found;
}

/** Every plugin to load, by id: those discovered in `dir`, then each configured entry with a `path` (which wins). */
export function pluginFiles(
  dir: string,
  configured: Map<string, ConfiguredPlugin>,
  warned: Set<string>,
  log: LoaderDeps['log'],
): Map<string, string> {
  const files = withoutClaimed(discover(dir, warned, log), dir, configured.values());
  for (const entry of configured.values()) {
    if (entry.path) files.set(entry.id, path.resolve(dir, entry.path));
  }
  return files;
}
