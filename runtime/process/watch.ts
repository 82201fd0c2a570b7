// Notices changes in the plugins folder: fs.watch, plus a slow poll of a cheap signature as a safety net.
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { LoaderDeps } from './registry.ts';

/** Cheap change detector for the poll: names, sizes and mtimes of the top two levels. */
export function dirSignature(pluginsDir: string): string {
  const parts: string[] = [];
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const full = path.join(dir, name);
      try {
        const st = statSync(full);
        parts.push(`${full}:${st.size}:${st.mtimeMs}`);
        if (st.isDirectory() && depth < 2) walk(full, depth + 1);
      } catch {
        // vanished meanwhile
      }
    }
  };
  walk(pluginsDir, 0);
  return parts.join('|');
}

/**
 * Calls `onChange` on every change under `dir` outside node_modules, and whenever the poll finds a signature other
 * than the last one (`signature`: the one taken before the first scan).
 */
export function watchPluginsDir(
  dir: string,
  signature: string,
  onChange: () => void,
  log: LoaderDeps['log'],
): { close(): void } {
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dir, { recursive: true }, (_event, name) => {
      if (name && String(name).split(path.sep).includes('node_modules')) return;
      onChange();
    });
    watcher.on('error', (err) => log('warn', `watching the plugins directory failed: ${err.message}`));
  } catch (err) {
    log('warn', `cannot watch ${dir}: ${(err as Error).message}; polling only`);
  }
  // fs.watch can miss events (editors replacing files, network file systems): poll as a safety net.
  const poll = setInterval(() => {
    const now = dirSignature(dir);
    if (now !== signature) {
      signature = now;
      onChange();
    }
  }, 1000);
  poll.unref();
  return {
    close() {
      watcher?.close();
      clearInterval(poll);
    },
  };
}
