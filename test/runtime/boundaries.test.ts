// The runtime's import boundaries: runtime/ never imports src/, and src/plugin-host/client.ts is the only door into runtime/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function files(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g), ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)]
    .map((m) => m[1]!)
    .filter((s) => s.startsWith('.'))
    .map((s) => path.relative(ROOT, path.resolve(path.dirname(file), s)));
}

test('runtime/ never imports src/', () => {
  for (const file of files('runtime')) {
    for (const target of imports(file)) assert.ok(!target.startsWith('src'), `${path.relative(ROOT, file)} imports ${target}`);
  }
});

test('only src/plugin-host/client.ts imports runtime/, and only its protocol', () => {
  for (const file of files('src')) {
    for (const target of imports(file)) {
      if (!target.startsWith('runtime')) continue;
      assert.equal(path.relative(ROOT, file), path.join('src', 'plugin-host/client.ts'), `${path.relative(ROOT, file)} imports ${target}`);
      assert.equal(target, path.join('runtime', 'protocol.ts'));
    }
  }
});
